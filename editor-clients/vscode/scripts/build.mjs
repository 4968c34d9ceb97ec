// Bundles the extension (src/extension.ts → dist/extension.js, `vscode` left to the host) or, with --tests, each
// unit test (test/*.test.ts → out/test/*.test.js) for `node --test`. Tests are bundled without `vscode` marked
// external, so a test that reaches VS Code's API fails to build instead of passing vacuously.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const clientDir = join(dirname(fileURLToPath(import.meta.url)), "..");
const common = { bundle: true, platform: "node", target: "node20", format: "cjs", logLevel: "warning" };

if (process.argv.includes("--tests")) {
  const testDir = join(clientDir, "test");
  const entryPoints = readdirSync(testDir)
    .filter((name) => name.endsWith(".test.ts"))
    .map((name) => join(testDir, name));
  await build({ ...common, entryPoints, outdir: join(clientDir, "out", "test"), sourcemap: "inline" });
} else {
  await build({
    ...common,
    entryPoints: [join(clientDir, "src", "extension.ts")],
    outfile: join(clientDir, "dist", "extension.js"),
    external: ["vscode"],
    minify: true,
    sourcemap: false,
    // vscode-languageclient checks the engine at run time; keep its error messages readable.
    keepNames: true,
  });
}
