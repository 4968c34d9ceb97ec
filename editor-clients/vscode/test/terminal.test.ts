import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { type FinishedShellExecution, OutputTail, plainTerminalText, recordRunDecision } from "../src/terminal";

function execution(fields: Partial<FinishedShellExecution>): FinishedShellExecution {
  return {
    commandLine: "pytest -q",
    confidence: "high",
    cwd: "/work/project",
    exitCode: 0,
    sessionId: "vscode-terminal:abc:42",
    ...fields,
  };
}

describe("recordRun payload", () => {
  it("carries the command line, cwd, exit code, session and output", () => {
    assert.deepEqual(recordRunDecision(execution({ commandLine: "  pytest -q tests/\n", exitCode: 1, output: "1 failed" })), {
      send: true,
      params: {
        commandLine: "pytest -q tests/",
        cwd: "/work/project",
        exitCode: 1,
        output: "1 failed",
        sessionId: "vscode-terminal:abc:42",
      },
    });
  });

  it("medium confidence is sent; no output means no output field", () => {
    const decision = recordRunDecision(execution({ confidence: "medium" }));
    assert.ok(decision.send);
    assert.equal("output" in decision.params, false);
  });

  const skipped: [Partial<FinishedShellExecution>, RegExp][] = [
    [{ commandLine: "   " }, /empty/],
    [{ confidence: "low" }, /only guessed/],
    [{ exitCode: undefined }, /exit code/],
    [{ cwd: undefined }, /working directory/],
    [{ cwd: "" }, /working directory/],
  ];
  for (const [fields, reason] of skipped) {
    it(`is not sent when ${JSON.stringify(fields)}`, () => {
      const decision = recordRunDecision(execution(fields));
      assert.equal(decision.send, false);
      assert.match(!decision.send ? decision.reason : "", reason);
    });
  }

  it("exit code 0 is sent (not confused with a missing one)", () => {
    const decision = recordRunDecision(execution({ exitCode: 0 }));
    assert.ok(decision.send);
    assert.equal(decision.params.exitCode, 0);
  });
});

describe("plainTerminalText", () => {
  it("drops colours, shell integration marks and titles, and normalises line ends", () => {
    const raw =
      "\u001b]633;C\u0007\u001b[32m3 passed\u001b[0m in 0.1s\r\n\u001b]0;title\u001b\\no tests ran\u001b[2K\r\n";
    assert.equal(plainTerminalText(raw), "3 passed in 0.1s\nno tests ran\n");
  });
});

describe("OutputTail", () => {
  it("keeps the last characters of a long stream", () => {
    const tail = new OutputTail(10);
    for (let i = 0; i < 100; i++) {
      tail.append(`line ${i}\n`);
    }
    assert.equal(tail.text(), "8\nline 99\n");
    assert.equal(tail.text().length, 10);
    assert.ok(tail.text().endsWith("line 99\n"));
  });

  it("keeps everything below the limit", () => {
    const tail = new OutputTail(100);
    tail.append("a");
    tail.append("b");
    assert.equal(tail.text(), "ab");
  });
});
