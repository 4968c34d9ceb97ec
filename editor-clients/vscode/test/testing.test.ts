import assert from "node:assert/strict";
import { describe, it } from "node:test";

import type { RootStatus } from "../src/protocol";
import { declaringFile, failureMessage, runOutcome, terminalText, testEntry } from "../src/testing";

function status(fields: Partial<RootStatus>): RootStatus {
  return { root: "/work/project", status: "unverified", ...fields };
}

describe("test items", () => {
  it("one item per root: its primary test check, labelled with the command", () => {
    const entry = testEntry(
      status({
        verify_commands: [
          { command: "ruff check", kind: "lint", cwd: ".", source: "pyproject.toml#tool.ruff" },
          { command: "pytest -q", kind: "test", cwd: ".", source: "pyproject.toml#tool.pytest.ini_options" },
          { command: "make test", kind: "test", cwd: ".", source: "Makefile:test" },
        ],
      }),
    );
    assert.deepEqual(entry, {
      id: "/work/project",
      root: "/work/project",
      label: "pytest -q",
      description: "project",
      declaredIn: "pyproject.toml",
    });
  });

  it("says where the command runs when it is not the root", () => {
    const entry = testEntry(
      status({ root: "/work/mono", verify_commands: [{ command: "npm test", kind: "test", cwd: "web" }] }),
    );
    assert.equal(entry?.description, "mono · in web");
    assert.equal(entry?.declaredIn, undefined);
  });

  it("a root without a test check has no item (a lint does not stand in for the tests)", () => {
    assert.equal(testEntry(status({ verify_commands: [{ command: "ruff check", kind: "lint" }] })), undefined);
    assert.equal(testEntry(status({ verify_commands: [] })), undefined);
    assert.equal(testEntry(status({})), undefined);
  });

  const sources: [string | undefined, string | undefined][] = [
    ["pyproject.toml#tool.pytest.ini_options", "pyproject.toml"],
    ["package.json#scripts.test", "package.json"],
    ["Makefile:test", "Makefile"],
    ["scripts/test", "scripts/test"],
    ["backend/tox.ini#tox:py312", "backend/tox.ini"],
    ["../outside/pyproject.toml", undefined],
    ["/etc/passwd", undefined],
    ["cargo convention", undefined],
    ["", undefined],
    [undefined, undefined],
  ];
  for (const [source, file] of sources) {
    it(`declared in ${JSON.stringify(source)} → ${JSON.stringify(file)}`, () => {
      assert.equal(declaringFile(source), file);
    });
  }
});

describe("run results", () => {
  it("a recorded pass passes, with the run's duration", () => {
    const outcome = runOutcome({
      recorded: true,
      evidence: { command: "pytest -q", status: "passed", scope: "full", duration: 1.2345, exit_code: 0 },
    });
    assert.deepEqual(outcome, { state: "passed", message: undefined, durationMs: 1235 });
  });

  it("a recorded failure fails with the exit code, the reason, the counts and the end of the output", () => {
    const lines = Array.from({ length: 60 }, (_, index) => `line ${index}`);
    const outcome = runOutcome({
      recorded: true,
      evidence: {
        command: "pytest -q",
        status: "failed",
        exit_code: 1,
        reason: null,
        tests: { passed: 2, failed: 1, skipped: 0 },
        output: { head: "", tail: `${lines.join("\r\n")}\r\n`, omitted: 0 },
        duration: 3,
      },
    });
    assert.equal(outcome.state, "failed");
    assert.equal(outcome.durationMs, 3000);
    const message = outcome.message ?? "";
    assert.ok(message.startsWith("pytest -q failed (exit 1; 2 passed, 1 failed)\n\nline 20\n"), message);
    assert.ok(message.endsWith("line 59"), message);
    assert.ok(!message.includes("line 19\n"), message);
  });

  it("a run that executed no tests fails with that reason", () => {
    const message = failureMessage({ command: "pytest", status: "failed", exit_code: 5, reason: "no tests ran" });
    assert.equal(message, "pytest failed (exit 5; no tests ran)");
  });

  it("says the exit code once, also for receipts whose reason still carries it", () => {
    const old = { command: "pytest", status: "failed", exit_code: 127, reason: "command not found (exit 127)" };
    assert.equal(failureMessage(old), "pytest failed (exit 127; command not found)");
  });

  it("no answer, or a run without a receipt, is an error, not a pass", () => {
    assert.equal(runOutcome(null).state, "errored");
    const unrecorded = runOutcome({ recorded: false, evidence: null, exitCode: 0 });
    assert.equal(unrecorded.state, "errored");
    assert.match(unrecorded.message ?? "", /exit 0.*no receipt was recorded/);
  });

  it("output reaches the test run's terminal with CRLF line ends", () => {
    assert.equal(terminalText("a\nb\r\nc"), "a\r\nb\r\nc");
  });
});
