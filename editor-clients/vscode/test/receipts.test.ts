import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { formatDuration, notRunText, receiptRow, verifyFailureText } from "../src/receipts";

const NOW = new Date("2026-01-02T12:00:00Z");

describe("receipt rows", () => {
  it("a full pass shows its symbol, scope, kind, command, age, exit, counts, duration and session", () => {
    const row = receiptRow(
      {
        id: 7,
        command: "pytest -q",
        kind: "test",
        scope: "full",
        status: "passed",
        exit_code: 0,
        finished_at: "2026-01-02T11:58:00Z",
        duration: 4.25,
        session: "vscode:1",
        tests: { passed: 3 },
      },
      NOW,
    );
    assert.equal(row.label, "✓ passed · full · test");
    assert.equal(row.description, "pytest -q");
    assert.equal(row.detail, "2 min ago · exit 0 · 3 passed · 4.3 s · session vscode:1");
    assert.equal(row.evidence.id, 7);
  });

  it("targeted passes, failures and unknown statuses get their own symbols", () => {
    assert.match(receiptRow({ status: "passed", scope: "targeted" }, NOW).label, /^◐ passed · targeted$/);
    assert.match(receiptRow({ status: "failed", scope: "full", reason: "no tests ran" }, NOW).label, /^✗ failed/);
    assert.equal(receiptRow({ status: "failed", reason: "no tests ran" }, NOW).detail, "no tests ran");
    assert.equal(receiptRow({}, NOW).label, "⚠ unknown");
  });

  it("falls back to the canonical command", () => {
    assert.equal(receiptRow({ canonical_command: "pytest" }, NOW).description, "pytest");
  });
});

describe("formatDuration", () => {
  it("uses ms, s and min", () => {
    assert.equal(formatDuration(0.85), "850 ms");
    assert.equal(formatDuration(4.2), "4.2 s");
    assert.equal(formatDuration(185), "3 min 5 s");
  });
});

describe("notRunText", () => {
  it("says the run did not happen, why, and that nothing was recorded", () => {
    assert.equal(
      notRunText("pytest -q", 127, "`pytest` was not found"),
      "freshpass: pytest -q did not run (exit 127): `pytest` was not found; nothing was recorded",
    );
    assert.equal(notRunText(undefined, null, "why"), "freshpass: verify did not run: why; nothing was recorded");
  });
});

describe("verifyFailureText", () => {
  const notFound = { command: "pytest -q", status: "failed", exit_code: 127, reason: "command not found" };

  it("says the exit code once, with the receipt's reason", () => {
    assert.equal(verifyFailureText(notFound), "freshpass: pytest -q failed (exit 127): command not found");
    assert.equal(
      verifyFailureText({ ...notFound, reason: "command not found (exit 127)" }),
      "freshpass: pytest -q failed (exit 127): command not found",
    );
  });

  it("drops a reason that is only the exit code", () => {
    assert.equal(
      verifyFailureText({ command: "freshpass verify", status: "failed", exit_code: 1, reason: "exit code 1" }),
      "freshpass: freshpass verify failed (exit 1)",
    );
    assert.equal(
      receiptRow({ status: "failed", exit_code: 127, reason: "command not found (exit 127)" }, NOW).detail,
      "exit 127 · command not found",
    );
  });

  it("prefers the server's explanation", () => {
    assert.equal(
      verifyFailureText(notFound, "`pytest` was not found: freshpass looked on PATH (/usr/bin)."),
      "freshpass: pytest -q failed (exit 127): `pytest` was not found: freshpass looked on PATH (/usr/bin).",
    );
  });

  it("a failure without reason or exit code", () => {
    assert.equal(verifyFailureText({ command: "make test", status: "failed" }), "freshpass: make test failed");
    assert.equal(
      verifyFailureText({ canonical_command: "pytest", status: "failed", exit_code: 1 }),
      "freshpass: pytest failed (exit 1)",
    );
  });
});
