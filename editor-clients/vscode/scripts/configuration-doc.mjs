// Writes docs/configuration.md from the root package.json (`contributes.configuration`), the one source of the
// settings; with --check it only reports whether the file is up to date (exit 1 if not), for CI.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const target = join(repo, "docs", "configuration.md");
const manifest = JSON.parse(readFileSync(join(repo, "package.json"), "utf8"));
const properties = manifest.contributes.configuration.properties;

function cell(text) {
  return text.replace(/\|/g, "\\|").replace(/\n+/g, " ");
}

function typeOf(schema) {
  if (schema.enum) {
    return schema.enum.map((value) => `\`${value}\``).join(" / ");
  }
  if (schema.type === "array") {
    const items = schema.items?.enum ? `(${schema.items.enum.join(" / ")})` : (schema.items?.type ?? "any");
    return `${items}[]`;
  }
  return schema.type;
}

const rows = Object.entries(properties).map(
  ([name, schema]) =>
    `| \`${name}\` | ${cell(typeOf(schema))} | \`${JSON.stringify(schema.default)}\` | ` +
    `${cell(schema.markdownDescription ?? schema.description ?? "")} |`,
);

const text = `# Configuration

<!-- Generated from the root package.json (contributes.configuration) by \`npm run docs:configuration\`.
     Do not edit by hand: tests/vscode/test_configuration_doc.py checks it against package.json. -->

Every freshpass setting, once. The root \`package.json\` is their one source: VS Code shows them in its Settings
editor, and the language server reads the same names, nested as \`{"freshpass": {"diagnostics": {"severity": …}}}\`,
from \`initializationOptions\`, from \`workspace/configuration\` (section \`freshpass\`) and again on
\`workspace/didChangeConfiguration\`. Neovim passes them as \`settings = { freshpass = { … } }\`.
\`freshpass.server.command\` is read by the editor only: it says how to start the server.

In an untrusted VS Code workspace, the workspace's own value of \`freshpass.server.command\` is ignored, and
nothing is run.

| setting | type | default | meaning |
| --- | --- | --- | --- |
${rows.join("\n")}
`;

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = readFileSync(target, "utf8");
  } catch {
    // A missing file is out of date like any other.
  }
  if (current !== text) {
    console.error("docs/configuration.md is out of date with package.json: run `npm run docs:configuration`.");
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
