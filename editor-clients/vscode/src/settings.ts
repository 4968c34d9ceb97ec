/**
 * Settings → how the server is started and what it is told. Pure (the file system is only read through
 * `isExecutableFile`, which tests point at temp dirs), so it is unit tested without VS Code.
 */
import * as fs from "node:fs";
import * as path from "node:path";

/**
 * initializationOptions: the `freshpass` settings object exactly as `getConfiguration("freshpass")` nests it
 * (docs/architecture.md, "Settings"), plus the top-level facts only the client knows. `trusted: false` tells the
 * server that this workspace must not run anything.
 */
export function initializationOptions(
  settings: unknown,
  client: { trusted: boolean; sessionId: string; pythonInterpreter?: string },
): Record<string, unknown> {
  // A JSON round trip drops the accessor functions of a WorkspaceConfiguration and copies the plain values.
  const plain: unknown = settings === undefined ? {} : JSON.parse(JSON.stringify(settings));
  const base = plain !== null && typeof plain === "object" && !Array.isArray(plain) ? plain : {};
  const options: Record<string, unknown> = {
    ...(base as Record<string, unknown>),
    trusted: client.trusted,
    sessionId: client.sessionId,
  };
  if (client.pythonInterpreter) {
    options.pythonInterpreter = client.pythonInterpreter;
  }
  return options;
}

/**
 * The Python interpreter whose environment runs the project's commands (the server puts its virtualenv first on
 * PATH, design §5): the one the Python extension selected for the folder, else `python.defaultInterpreterPath`.
 * A bare `python` (the Python extension's default) names no environment.
 */
export function interpreterForRuns(inputs: { selected?: string; defaultInterpreterPath?: string }): string | undefined {
  for (const candidate of [inputs.selected, inputs.defaultInterpreterPath]) {
    const trimmed = candidate?.trim();
    if (trimmed && trimmed.includes("/")) {
      return trimmed;
    }
  }
  return undefined;
}

export interface ServerCommandInputs {
  /** The effective value of `freshpass.server.command`: VS Code supplies package.json's default when none is set. */
  configured: unknown;
  /** True when a user, workspace or folder value was set (not just the default). */
  explicitlySet: boolean;
  /** `python.defaultInterpreterPath`, when the Python extension's setting has a value. */
  pythonInterpreter?: string;
  /** The first workspace folder: relative program paths and `${workspaceFolder}` resolve against it. */
  workspaceFolder?: string;
  home: string;
}

export type ServerCommand =
  | { ok: true; program: string; args: string[]; origin: string }
  | { ok: false; problem: string };

export function resolveServerCommand(inputs: ServerCommandInputs): ServerCommand {
  const configured = inputs.configured;
  if (configured === undefined) {
    // Only when the manifest is not what VS Code loaded (its default would be there otherwise).
    return {
      ok: false,
      problem: `"freshpass.server.command" has no value, not even its default: reinstall the freshpass extension.`,
    };
  }
  if (
    !Array.isArray(configured) ||
    configured.length === 0 ||
    !configured.every((part): part is string => typeof part === "string" && part.length > 0)
  ) {
    return {
      ok: false,
      problem:
        `"freshpass.server.command" must be a non-empty list of strings such as ["freshpass", "serve"], ` +
        `not ${JSON.stringify(configured)}.`,
    };
  }
  let parts: string[] = configured;
  let origin = '"freshpass.server.command"';
  const interpreter = inputs.pythonInterpreter?.trim();
  if (!inputs.explicitlySet && interpreter && interpreter !== "python") {
    // The Python extension's interpreter is where a project usually installs its tools.
    parts = [interpreter, "-m", "freshpass", "serve"];
    origin = '"python.defaultInterpreterPath"';
  }
  const expanded = parts.map((part) => expand(part, inputs));
  for (const part of expanded) {
    if (part.problem) {
      return { ok: false, problem: `${origin}: ${part.problem}` };
    }
  }
  let program = expanded[0].value;
  if (program.includes("/") && !path.isAbsolute(program)) {
    if (!inputs.workspaceFolder) {
      return {
        ok: false,
        problem: `${origin}: the relative program path "${program}" needs an open workspace folder.`,
      };
    }
    program = path.resolve(inputs.workspaceFolder, program);
  }
  return { ok: true, program, args: expanded.slice(1).map((part) => part.value), origin };
}

function expand(part: string, inputs: ServerCommandInputs): { value: string; problem?: string } {
  let value = part;
  if (value === "~" || value.startsWith("~/")) {
    value = path.join(inputs.home, value.slice(1));
  }
  if (value.includes("${workspaceFolder}")) {
    if (!inputs.workspaceFolder) {
      return { value, problem: `"${part}" names \${workspaceFolder}, but no workspace folder is open.` };
    }
    value = value.split("${workspaceFolder}").join(inputs.workspaceFolder);
  }
  return { value };
}

export function isExecutableFile(candidate: string): boolean {
  try {
    fs.accessSync(candidate, fs.constants.X_OK);
    return fs.statSync(candidate).isFile();
  } catch {
    return false;
  }
}

/** Where `program` would be found when spawned (without a shell): itself when it has a slash, else on PATH. */
export function findExecutable(
  program: string,
  searchPath: string | undefined,
  isExecutable: (candidate: string) => boolean = isExecutableFile,
): string | undefined {
  if (program.includes("/") || program.includes(path.sep)) {
    return isExecutable(program) ? program : undefined;
  }
  for (const directory of (searchPath ?? "").split(path.delimiter)) {
    if (directory === "") {
      continue;
    }
    const candidate = path.join(directory, program);
    if (isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** The message shown when the server's program cannot be found: what was tried and how to fix it. */
export function missingProgramMessage(command: { program: string; origin: string }): string {
  const where = command.program.includes("/")
    ? `"${command.program}" does not exist or is not executable`
    : `"${command.program}" was not found on PATH`;
  return (
    `freshpass: cannot start the language server: ${where} (from ${command.origin}). ` +
    `Install freshpass into a virtualenv (python3 -m venv .venv && .venv/bin/pip install . in a freshpass checkout) ` +
    `and set "freshpass.server.command" to its full path, ` +
    `for example ["/path/to/.venv/bin/freshpass", "serve"].`
  );
}
