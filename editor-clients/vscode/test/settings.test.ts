import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { describe, it } from "node:test";

import {
  findExecutable,
  initializationOptions,
  interpreterForRuns,
  isExecutableFile,
  missingProgramMessage,
  resolveServerCommand,
} from "../src/settings";

describe("initializationOptions", () => {
  it("is the nested freshpass settings object plus trusted and sessionId", () => {
    const settings = {
      server: { command: ["freshpass", "serve"] },
      diagnostics: { severity: "warning", agentSeverity: "error" },
      codeLens: { enabled: true },
      ignore: ["docs/**"],
      nudge: { budget: 2 },
      // A WorkspaceConfiguration also carries methods; they are not settings.
      get: () => undefined,
      has: () => false,
    };
    assert.deepEqual(initializationOptions(settings, { trusted: false, sessionId: "vscode:1" }), {
      server: { command: ["freshpass", "serve"] },
      diagnostics: { severity: "warning", agentSeverity: "error" },
      codeLens: { enabled: true },
      ignore: ["docs/**"],
      nudge: { budget: 2 },
      trusted: false,
      sessionId: "vscode:1",
    });
  });

  it("copies, so later changes to the settings object do not leak into what was sent", () => {
    const settings = { ignore: ["a"] };
    const options = initializationOptions(settings, { trusted: true, sessionId: "s" });
    settings.ignore.push("b");
    assert.deepEqual(options.ignore, ["a"]);
  });

  it("a missing or non-object settings value still gives trusted and sessionId", () => {
    assert.deepEqual(initializationOptions(undefined, { trusted: true, sessionId: "s" }), {
      trusted: true,
      sessionId: "s",
    });
    assert.deepEqual(initializationOptions([1, 2], { trusted: true, sessionId: "s" }), {
      trusted: true,
      sessionId: "s",
    });
  });
});

describe("interpreterForRuns", () => {
  it("prefers the Python extension's selection, then python.defaultInterpreterPath", () => {
    assert.equal(
      interpreterForRuns({ selected: "/p/.venv/bin/python", defaultInterpreterPath: "/usr/bin/python3" }),
      "/p/.venv/bin/python",
    );
    assert.equal(interpreterForRuns({ defaultInterpreterPath: " /envs/app/bin/python " }), "/envs/app/bin/python");
  });

  it("a bare `python` or nothing names no environment", () => {
    assert.equal(interpreterForRuns({ selected: "python", defaultInterpreterPath: "python" }), undefined);
    assert.equal(interpreterForRuns({}), undefined);
  });

  it("is sent as the top-level pythonInterpreter initialization option, only when there is one", () => {
    const sent = initializationOptions({}, { trusted: true, sessionId: "s", pythonInterpreter: "/e/bin/python" });
    assert.deepEqual(sent, { trusted: true, sessionId: "s", pythonInterpreter: "/e/bin/python" });
    assert.equal("pythonInterpreter" in initializationOptions({}, { trusted: true, sessionId: "s" }), false);
  });
});

describe("resolveServerCommand", () => {
  const base = { explicitlySet: false, home: "/home/me", workspaceFolder: "/work/project" };

  it("runs the configured command (VS Code supplies package.json's default, freshpass serve)", () => {
    assert.deepEqual(resolveServerCommand({ ...base, configured: ["freshpass", "serve"] }), {
      ok: true,
      program: "freshpass",
      args: ["serve"],
      origin: '"freshpass.server.command"',
    });
  });

  it("says how to recover when not even the default is there", () => {
    const command = resolveServerCommand({ ...base, configured: undefined });
    assert.equal(command.ok, false);
    assert.match(!command.ok ? command.problem : "", /has no value, not even its default: reinstall/);
  });

  it("uses the Python interpreter setting when the command was left at its default", () => {
    const command = resolveServerCommand({
      ...base,
      configured: ["freshpass", "serve"],
      pythonInterpreter: "/work/project/.venv/bin/python",
    });
    assert.deepEqual(command, {
      ok: true,
      program: "/work/project/.venv/bin/python",
      args: ["-m", "freshpass", "serve"],
      origin: '"python.defaultInterpreterPath"',
    });
  });

  it("an explicit command wins over the Python interpreter, and the bare default interpreter is ignored", () => {
    const explicit = resolveServerCommand({
      ...base,
      explicitlySet: true,
      configured: ["/opt/freshpass/bin/freshpass", "serve", "--log-level", "debug"],
      pythonInterpreter: "/usr/bin/python3",
    });
    assert.ok(explicit.ok);
    assert.equal(explicit.program, "/opt/freshpass/bin/freshpass");
    assert.deepEqual(explicit.args, ["serve", "--log-level", "debug"]);
    const bare = resolveServerCommand({ ...base, configured: ["freshpass", "serve"], pythonInterpreter: "python" });
    assert.ok(bare.ok);
    assert.equal(bare.program, "freshpass");
  });

  it("resolves ~, ${workspaceFolder} and relative program paths", () => {
    const relative = resolveServerCommand({ ...base, explicitlySet: true, configured: [".venv/bin/freshpass", "serve"] });
    assert.ok(relative.ok);
    assert.equal(relative.program, "/work/project/.venv/bin/freshpass");
    const home = resolveServerCommand({ ...base, explicitlySet: true, configured: ["~/bin/freshpass", "serve"] });
    assert.ok(home.ok);
    assert.equal(home.program, "/home/me/bin/freshpass");
    const folder = resolveServerCommand({
      ...base,
      explicitlySet: true,
      configured: ["freshpass", "serve", "--root=${workspaceFolder}/api"],
    });
    assert.ok(folder.ok);
    assert.deepEqual(folder.args, ["serve", "--root=/work/project/api"]);
  });

  it("explains a relative path or ${workspaceFolder} without a workspace folder", () => {
    const relative = resolveServerCommand({
      ...base,
      workspaceFolder: undefined,
      explicitlySet: true,
      configured: ["./freshpass", "serve"],
    });
    assert.deepEqual(relative.ok, false);
    assert.match(!relative.ok ? relative.problem : "", /relative program path "\.\/freshpass" needs an open workspace/);
    const folder = resolveServerCommand({
      ...base,
      workspaceFolder: undefined,
      explicitlySet: true,
      configured: ["${workspaceFolder}/bin/freshpass"],
    });
    assert.match(!folder.ok ? folder.problem : "", /no workspace folder is open/);
  });

  for (const bad of [[], "freshpass serve", ["freshpass", 3], [""], { command: "freshpass" }]) {
    it(`rejects ${JSON.stringify(bad)} with a message that shows the expected shape`, () => {
      const command = resolveServerCommand({ ...base, explicitlySet: true, configured: bad });
      assert.equal(command.ok, false);
      assert.match(!command.ok ? command.problem : "", /must be a non-empty list of strings such as \["freshpass", "serve"\]/);
    });
  }
});

describe("findExecutable", () => {
  const dir = mkdtempSync(join(tmpdir(), "freshpass-vscode-"));
  const first = join(dir, "first");
  const second = join(dir, "second");
  mkdirSync(first);
  mkdirSync(second);
  writeFileSync(join(first, "freshpass"), "not executable");
  writeFileSync(join(second, "freshpass"), "#!/bin/sh\n");
  chmodSync(join(second, "freshpass"), 0o755);
  mkdirSync(join(first, "tool"));

  it("searches PATH in order and skips files that are not executable", () => {
    assert.equal(findExecutable("freshpass", [first, "", second].join(delimiter)), join(second, "freshpass"));
  });

  it("a directory is not a program", () => {
    assert.equal(isExecutableFile(join(first, "tool")), false);
    assert.equal(findExecutable("tool", first), undefined);
  });

  it("a path with a slash is checked as it is, not searched", () => {
    assert.equal(findExecutable(join(second, "freshpass"), first), join(second, "freshpass"));
    assert.equal(findExecutable(join(first, "freshpass"), second), undefined);
  });

  it("an empty or missing PATH finds nothing", () => {
    assert.equal(findExecutable("freshpass", undefined), undefined);
    assert.equal(findExecutable("freshpass", ""), undefined);
  });
});

describe("missingProgramMessage", () => {
  it("says what was tried, where it came from, and how to fix it", () => {
    const onPath = missingProgramMessage({ program: "freshpass", origin: '"freshpass.server.command"' });
    assert.match(onPath, /"freshpass" was not found on PATH \(from "freshpass.server.command"\)/);
    assert.match(onPath, /set "freshpass.server.command" to its full path/);
    // A virtualenv, never the system pip (which refuses installs on Debian and Ubuntu, PEP 668).
    assert.match(onPath, /python3 -m venv \.venv && \.venv\/bin\/pip install \./);
    const absolute = missingProgramMessage({ program: "/nope/python", origin: '"python.defaultInterpreterPath"' });
    assert.match(absolute, /"\/nope\/python" does not exist or is not executable/);
  });
});
