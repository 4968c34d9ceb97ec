import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  errorText,
  OutputHeaders,
  receiptsArgument,
  shownRoots,
  statusBackground,
  statusTargets,
} from "../src/views";

describe("status bar roots", () => {
  it("shows every known root until a visible file's root is known", () => {
    assert.deepEqual(shownRoots(["/a", "/b"], undefined), ["/a", "/b"]);
    assert.deepEqual(shownRoots(["/a", "/b"], new Set()), ["/a", "/b"]);
  });

  it("shows only the active roots once they are known", () => {
    assert.deepEqual(shownRoots(["/a", "/b", "/c"], new Set(["/b"])), ["/b"]);
  });

  it("colours a failure as an error and nothing verified as a warning", () => {
    assert.equal(statusBackground("failed"), "statusBarItem.errorBackground");
    assert.equal(statusBackground("unverified"), "statusBarItem.warningBackground");
    assert.equal(statusBackground("full"), undefined);
    assert.equal(statusBackground("targeted"), undefined);
  });
});

describe("status refresh targets", () => {
  it("asks for the visible files and every folder, each once", () => {
    const targets = statusTargets(["file:///w/a.py", "file:///w/b.py"], ["file:///w"]);
    assert.deepEqual(targets.uris, ["file:///w/a.py", "file:///w/b.py", "file:///w"]);
    assert.deepEqual([...targets.visible], ["file:///w/a.py", "file:///w/b.py"]);
    assert.equal(targets.filesVisible, true);
  });

  it("falls back to the folders when no file is visible", () => {
    const targets = statusTargets([], ["file:///w", "file:///v"]);
    assert.deepEqual(targets.uris, ["file:///w", "file:///v"]);
    assert.deepEqual([...targets.visible], ["file:///w", "file:///v"]);
    assert.equal(targets.filesVisible, false);
  });
});

describe("receipts list", () => {
  it("lists the active file's root first, then the shown root, then the server's first", () => {
    assert.deepEqual(receiptsArgument("file:///w/a.py", "/w"), { uri: "file:///w/a.py", limit: 50 });
    assert.deepEqual(receiptsArgument(undefined, "/w"), { root: "/w", limit: 50 });
    assert.deepEqual(receiptsArgument(undefined, undefined), { limit: 50 });
  });
});

describe("verify output headers", () => {
  it("writes a header when another run's output begins, once per run", () => {
    const headers = new OutputHeaders();
    assert.equal(headers.header(1, "pytest", "/w"), "\n▶ pytest    (/w)");
    assert.equal(headers.header("1", "pytest", "/w"), undefined);
    assert.equal(headers.header(2, "ruff check .", "/w"), "\n▶ ruff check .    (/w)");
  });
});

describe("error text", () => {
  it("reads an Error's message and stringifies anything else", () => {
    assert.equal(errorText(new Error("boom")), "boom");
    assert.equal(errorText("plain"), "plain");
    assert.equal(errorText(42), "42");
  });
});
