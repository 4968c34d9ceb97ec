import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { type CandidateItem, type ChooseHost, candidateItems, QUESTION, TestCommandChooser, testRunTarget } from "../src/choose";
import type { CandidatesResult, ChooseArguments, ChooseResult } from "../src/protocol";

const ROOT = "/work/project";

function answer(fields: Partial<CandidatesResult> = {}): CandidatesResult {
  return {
    root: ROOT,
    kind: "test",
    needs_choice: true,
    ambiguous: false,
    candidates: [
      { command: "python -m pytest -q tests", cwd: ".", source: ".github/workflows/ci.yml#jobs.t.steps[0]", basis: "ci", primary: true },
      { command: "python -m unittest discover -s tests", cwd: ".", source: ".github/workflows/ci.yml#jobs.u.steps[0]", basis: "ci", primary: false },
    ],
    ...fields,
  };
}

class FakeHost implements ChooseHost {
  asks: { items: CandidateItem[]; title: string }[] = [];
  chosen: ChooseArguments[] = [];
  errors: string[] = [];
  memory = new Set<string>();
  constructor(
    private readonly result: CandidatesResult,
    private readonly pickIndex: number | undefined,
    private readonly failChoose = false,
  ) {}
  candidates(): Promise<CandidatesResult> {
    return Promise.resolve(this.result);
  }
  choose(argument: ChooseArguments): Promise<ChooseResult> {
    this.chosen.push(argument);
    if (this.failChoose) {
      return Promise.reject(new Error("`a && b` is not one simple command"));
    }
    const choice = { kind: "test", command: argument.command, cwd: ".", file: ".freshpass.toml", created: true, replaced: [] };
    return Promise.resolve({ choice, status: { root: ROOT, status: "unverified" } });
  }
  pick(items: CandidateItem[], title: string): Promise<CandidateItem | undefined> {
    this.asks.push({ items, title });
    return Promise.resolve(this.pickIndex === undefined ? undefined : items[this.pickIndex]);
  }
  asked(root: string): boolean {
    return this.memory.has(root);
  }
  remember(root: string): Promise<void> {
    this.memory.add(root);
    return Promise.resolve();
  }
  showStatus(): void {}
  error(message: string): void {
    this.errors.push(message);
  }
  log(): void {}
}

describe("choosing the test command once", () => {
  it("the first run asks, writes the pick through the server and runs the chosen command", async () => {
    const host = new FakeHost(answer(), 1);
    const chooser = new TestCommandChooser(host);
    const args = await chooser.beforeRun({ root: ROOT });
    assert.equal(host.asks.length, 1);
    assert.equal(host.asks[0]?.title, QUESTION);
    assert.deepEqual(host.chosen, [{ root: ROOT, kind: "test", command: "python -m unittest discover -s tests", cwd: "." }]);
    assert.deepEqual(args, { root: ROOT, command: "python -m unittest discover -s tests" });
    // asked once: the next run goes on as it is
    assert.deepEqual(await chooser.beforeRun({ root: ROOT }), { root: ROOT });
    assert.equal(host.asks.length, 1);
  });

  it("a lens of the primary asks; a lens of another check or a targeted run does not", async () => {
    const host = new FakeHost(answer(), 0);
    const chooser = new TestCommandChooser(host);
    assert.deepEqual(await chooser.beforeRun({ root: ROOT, command: "ruff check ." }), { root: ROOT, command: "ruff check ." });
    assert.deepEqual(await chooser.beforeRun({ uri: "file:///work/project/a.py", targeted: true }), {
      uri: "file:///work/project/a.py",
      targeted: true,
    });
    assert.equal(host.asks.length, 0);
    assert.deepEqual(await chooser.beforeRun({ root: ROOT, command: "python -m pytest -q tests" }), {
      root: ROOT,
      command: "python -m pytest -q tests",
    });
    assert.equal(host.asks.length, 1);
  });

  it("nothing is asked when the check is settled", async () => {
    const host = new FakeHost(answer({ needs_choice: false }), 1);
    assert.deepEqual(await new TestCommandChooser(host).beforeRun({ root: ROOT }), { root: ROOT });
    assert.equal(host.asks.length, 0);
  });

  it("dismissing runs the detected check and is remembered", async () => {
    const host = new FakeHost(answer(), undefined);
    const chooser = new TestCommandChooser(host);
    assert.deepEqual(await chooser.beforeRun({ root: ROOT, kind: "test" }), { root: ROOT, kind: "test" });
    assert.equal(host.chosen.length, 0);
    assert.ok(host.asked(ROOT));
  });

  it("a choice the server refuses is said, and the detected check runs", async () => {
    const host = new FakeHost(answer(), 1, true);
    assert.deepEqual(await new TestCommandChooser(host).beforeRun({ root: ROOT }), { root: ROOT });
    assert.match(host.errors[0] ?? "", /not changed: `a && b` is not one simple command/);
  });

  it("the command asks again even after a dismissal", async () => {
    const host = new FakeHost(answer(), 0);
    host.memory.add(ROOT);
    const picked = await new TestCommandChooser(host).chooseNow({ root: ROOT });
    assert.equal(picked?.command, "python -m pytest -q tests");
  });
});

describe("the quick pick's rows", () => {
  it("say where each command comes from and which one runs now", () => {
    const items = candidateItems([
      ...answer().candidates,
      { command: "pytest tests/unit", cwd: "backend", source: "Makefile:test-unit", basis: "narrower", primary: false, note: "one directory" },
    ]);
    assert.deepEqual(
      items.map((item) => [item.label, item.description, item.detail]),
      [
        ["python -m pytest -q tests", "a CI step · .github/workflows/ci.yml#jobs.t.steps[0]", "runs now"],
        ["python -m unittest discover -s tests", "a CI step · .github/workflows/ci.yml#jobs.u.steps[0]", undefined],
        ["pytest tests/unit (in backend)", "runs part of the suite · Makefile:test-unit", "one directory"],
      ],
    );
  });

  it("only full test runs are asked about", () => {
    assert.deepEqual(testRunTarget({ root: ROOT }), { root: ROOT });
    assert.equal(testRunTarget({ root: ROOT, kind: "lint" }), undefined);
    assert.equal(testRunTarget({ root: ROOT, args: ["-k", "x"] }), undefined);
    assert.equal(testRunTarget(undefined), undefined);
  });
});
