import assert from "node:assert/strict";
import { describe, it } from "node:test";

import type { RootStatus } from "../src/protocol";
import { describeShared, describeStatus, displayState, formatAge, rootName, testCounts } from "../src/status";

const NOW = new Date("2026-01-02T12:00:00Z");

function status(fields: Partial<RootStatus>): RootStatus {
  return { root: "/work/project", status: "unverified", ...fields };
}

describe("status bar text", () => {
  const cases: [Partial<RootStatus>, string][] = [
    [{ status: "passed", scope: "full" }, "✓ full"],
    [{ status: "passed", scope: "targeted" }, "◐ targeted"],
    [{ status: "failed", scope: "full" }, "✗ failed"],
    [{ status: "failed", scope: "targeted" }, "✗ failed"],
    [{ status: "unverified" }, "⚠ unverified"],
    [{ status: "stale", scope: "full" }, "⚠ unverified"],
  ];
  for (const [fields, text] of cases) {
    it(`${fields.status}/${fields.scope ?? "-"} → ${text}`, () => {
      assert.equal(describeStatus(status(fields), { now: NOW, showRootName: false }).text, text);
    });
  }

  it("a pass without a scope is not claimed to be full", () => {
    assert.equal(displayState(status({ status: "passed", scope: null })), "targeted");
  });

  it("an untrusted workspace's git root is not checked, which accuses nothing, and says how to trust", () => {
    const display = describeStatus(status({ status: "unchecked" }), { now: NOW, showRootName: false });
    assert.equal(display.state, "unchecked");
    assert.equal(display.text, "○ not checked");
    assert.match(display.tooltip, /runs nothing in it, not even git/);
    assert.match(display.tooltip, /Trust the workspace/);
    assert.doesNotMatch(display.tooltip, /unverified|stale|Click to run/);
  });

  it("an unknown status is unverified and the tooltip names the value", () => {
    const display = describeStatus(status({ status: "exploded" }), { now: NOW, showRootName: false });
    assert.equal(display.state, "unverified");
    assert.match(display.tooltip, /unknown status "exploded"/);
  });

  it("names the root when several roots are shown", () => {
    const display = describeStatus(status({ root: "/work/mono/api/", status: "passed", scope: "full" }), {
      now: NOW,
      showRootName: true,
    });
    assert.equal(display.text, "✓ full · api");
  });

  it("the tooltip says what ran, when, the test counts, what changed and what a click runs", () => {
    const display = describeStatus(
      status({
        status: "stale",
        scope: "full",
        evidence: {
          command: "pytest -q",
          status: "passed",
          finished_at: "2026-01-02T11:55:00Z",
          tests: { passed: 12, failed: 0, skipped: 1 },
        },
        changed_paths: ["a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "g.py"],
        verify_commands: [
          { command: "ruff check", kind: "lint" },
          { command: "pytest -q", kind: "test" },
        ],
      }),
      { now: NOW, showRootName: false },
    );
    assert.deepEqual(display.tooltip.split("\n"), [
      "freshpass · /work/project",
      "⚠ unverified: the content changed since the last run (pytest -q passed 5 min ago (12 passed, 1 skipped))",
      "Changed: a.py, b.py, c.py, d.py, e.py and 2 more",
      "Click to run pytest -q",
    ]);
  });

  it("where no test check is declared, no other check stands in for it", () => {
    const display = describeStatus(
      status({ status: "unverified", verify_commands: [{ command: "npm run lint", kind: "lint" }] }),
      { now: NOW, showRootName: false },
    );
    assert.doesNotMatch(display.tooltip, /npm run lint/);
    assert.match(display.tooltip, /^No test check is declared/m);
  });

  it("a failure's tooltip carries the reason", () => {
    const display = describeStatus(
      status({ status: "failed", evidence: { command: "pytest", status: "failed", reason: "no tests ran" } }),
      { now: NOW, showRootName: false },
    );
    assert.match(display.tooltip, /^✗ failed: pytest failed \(no tests ran\)$/m);
  });
});

describe("testCounts", () => {
  it("leaves out zero counts unless all are zero, and says nothing without counts", () => {
    assert.equal(testCounts({ tests: { passed: 3, failed: 0, skipped: 0 } }), "3 passed");
    assert.equal(testCounts({ tests: { passed: 0, failed: 2, skipped: 1 } }), "2 failed, 1 skipped");
    assert.equal(testCounts({ tests: { passed: 0, failed: 0 } }), "0 tests");
    assert.equal(testCounts({ tests: {} }), undefined);
    assert.equal(testCounts({ tests: null }), undefined);
    assert.equal(testCounts({}), undefined);
  });
});

describe("rootName", () => {
  it("takes the last path component, ignoring trailing separators", () => {
    assert.equal(rootName("/a/b/project"), "project");
    assert.equal(rootName("/a/b/project/"), "project");
    assert.equal(rootName("C:\\src\\app"), "app");
    assert.equal(rootName("/"), "/");
  });
});

describe("formatAge", () => {
  it("reads ISO strings and epoch seconds", () => {
    assert.equal(formatAge("2026-01-02T11:59:50Z", NOW), "just now");
    assert.equal(formatAge(NOW.getTime() / 1000 - 10 * 60, NOW), "10 min ago");
    assert.equal(formatAge("2026-01-02T09:00:00Z", NOW), "3 h ago");
    assert.equal(formatAge("2026-01-01T12:00:00Z", NOW), "1 day ago");
    assert.equal(formatAge("2025-12-29T12:00:00Z", NOW), "4 days ago");
  });

  it("gives nothing rather than a wrong age for missing or unparseable times", () => {
    assert.equal(formatAge(undefined, NOW), "");
    assert.equal(formatAge(null, NOW), "");
    assert.equal(formatAge("yesterday-ish", NOW), "");
  });

  it("a clock slightly ahead of ours is not a negative age", () => {
    assert.equal(formatAge("2026-01-02T12:00:05Z", NOW), "just now");
  });
});

describe("shared receipts (design §4.6)", () => {
  const shared = {
    command: "pytest -q",
    kind: "test",
    scope: "full",
    status: "passed",
    finished_at: "2026-01-02T10:00:00Z",
    actor: "ci",
    provider: "github-actions",
    counted: false,
    why: "shared receipts do not count here (shared.trust is off)",
  };

  it("are shown apart in the tooltip, with who ran them and why they do not count", () => {
    const display = describeStatus(status({ status: "unverified", shared: [shared] }), { now: NOW, showRootName: false });
    assert.equal(display.text, "⚠ unverified");
    assert.match(display.tooltip, /Shared: ✓ full · CI · 2 h ago · pytest -q — not counted \(shared receipts do not count here/);
  });

  it("one that counts says so, and the headline names who ran it", () => {
    assert.equal(describeShared({ ...shared, counted: true, status: "failed" }, NOW), "Shared: ✗ failed · CI · 2 h ago · pytest -q — counted");
    const display = describeStatus(
      status({
        status: "passed",
        scope: "full",
        evidence: { id: null, command: "pytest -q", status: "passed", finished_at: "2026-01-02T10:00:00Z", shared: { actor: "ci" } },
      }),
      { now: NOW, showRootName: false },
    );
    assert.match(display.tooltip, /✓ full: pytest -q passed by CI \(shared\) 2 h ago/);
  });
});
