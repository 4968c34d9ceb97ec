"""Language-server latency and footprint against the targets of docs/benchmarks.md; prints a markdown table.

    .venv/bin/python bench/bench_server.py [--quick]

1. didSave → publishDiagnostics over stdio, p50/p99, against a minimal pygls server that publishes one diagnostic
   per save (target: ratio ≤ 1.5, p99 < 30 ms). Each save alternates the file between the content a receipt covers
   and an edit, so every save changes what freshpass must say: exactly one publish per save (counted until the
   next save). Then saves of ever new edits of the file while it is stale: the words stay the same, so no publish.
   The same ratio by a second method, closer to an editor: a didChange, 15 ms settle, then the write and didSave,
   timed to the first publish that answers the saved version (for freshpass: its stale diagnostic for an edit, no
   diagnostic for the covered content; an "unsaved" diagnostic of the didChange does not count). Both servers run
   at once, driven by one client in one event loop, and the saves alternate between them, so the idle server's
   background work and the machine's load fall on both alike.
2. A write by another process (no LSP message) → publishDiagnostics, p95 (target < 500 ms).
3. `git checkout` of a branch that rewrites 5,000 files → every diagnostic published (target: settled < 3 s, one
   publish per affected file, server RSS growth < 50 MB).
4. Startup on a 100,000-file repository → first `freshpass/statusChanged` (target < 2 s, RSS < 150 MB).

Every scenario runs the real `freshpass serve` over stdio with a private ledger in a temporary directory.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import client_capabilities, make_test_lsp_client

SERVER = [sys.executable, "-m", "freshpass", "serve"]
MINIMAL_SERVER = textwrap.dedent(
    """
    from lsprotocol import types
    from pygls.lsp.server import LanguageServer

    server = LanguageServer("minimal", "1")

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls, params):
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=params.text_document.uri,
            diagnostics=[types.Diagnostic(
                range=types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=1)),
                message="saved", source="minimal")],
        ))

    server.start_io()
    """
)
PYPROJECT = """\
[project]
name = "bench"
version = "0"

[tool.freshpass]
verify = [{command = "true", kind = "test"}]
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


def make_repo(path: Path, files: int, per_dir: int = 100) -> list[Path]:
    path.mkdir(parents=True)
    (path / "pyproject.toml").write_text(PYPROJECT)
    created = []
    for index in range(files):
        directory = path / "src" / f"d{index // per_dir:04d}"
        directory.mkdir(parents=True, exist_ok=True)
        file = directory / f"m{index:06d}.py"
        file.write_text(f"VALUE = {index}\n")
        created.append(file)
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return created


def write(path: Path, text: str) -> None:
    """Synchronous on purpose: the write must be complete when the clock starts."""
    path.write_text(text)


def read(path: Path) -> str:
    return path.read_text()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


class Client:
    """A pytest-lsp client with a hook that timestamps every notification as it arrives."""

    def __init__(self) -> None:
        self.client = make_test_lsp_client()
        self.events: list[tuple[float, str, Any]] = []
        self.diagnosed: set[str] = set()  # uris that have been published with diagnostics (kept incrementally:
        # re-scanning thousands of events on every notification would measure the benchmark, not the server)
        self._waiters: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        original = self.client.protocol._handle_notification

        def hooked(method: str, params: Any) -> None:
            self.events.append((time.perf_counter(), method, params))
            if method == "textDocument/publishDiagnostics" and params.diagnostics:
                self.diagnosed.add(params.uri)
            original(method, params)
            for predicate, future in list(self._waiters):
                if not future.done() and predicate():
                    future.set_result(None)

        self.client.protocol._handle_notification = hooked  # type: ignore[method-assign]

    async def start(self, command: list[str], root: Path) -> None:
        await self.client.start_io(*command)
        await self.client.initialize_session(
            types.InitializeParams(
                capabilities=client_capabilities("neovim"),
                root_uri=root.as_uri(),
                workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            )
        )

    @property
    def pid(self) -> int:
        assert self.client._server is not None
        return self.client._server.pid

    async def until(self, predicate: Callable[[], bool], timeout: float = 60) -> None:
        if predicate():
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append((predicate, future))
        try:
            await asyncio.wait_for(future, timeout)
        finally:
            self._waiters.remove((predicate, future))

    def publishes(self, since: int = 0) -> list[tuple[float, Any]]:
        return [(t, p) for t, m, p in self.events[since:] if m == "textDocument/publishDiagnostics"]

    def published_since(self, mark: int, uri: str) -> bool:
        return any(params.uri == uri for _, params in self.publishes(mark))

    async def stop(self) -> None:
        await self.client.shutdown_session()
        await self.client.stop()


async def open_client(command: list[str], root: Path, file: Path) -> tuple[Client, str]:
    """A started client with `file` open; for freshpass, once the root's first status has arrived."""
    client = Client()
    await client.start(command, root)
    uri = file.as_uri()
    client.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=read(file))
        )
    )
    if command is SERVER:
        await client.until(lambda: any(m == "freshpass/statusChanged" for _, m, _ in client.events))
    return client, uri


async def save_latency(
    command: list[str], root: Path, file: Path, rounds: int, covered: str, counts: list[int] | None = None
) -> list[float]:
    """didSave → the first publish for the file, in ms; `counts` gets the number of publishes each save caused."""
    client, uri = await open_client(command, root, file)
    samples = []
    for index in range(rounds + 5):
        text = covered if index % 2 else f"VALUE = 'edit {index}'\n"
        mark = len(client.events)
        write(file, text)
        started = time.perf_counter()  # an editor writes, then sends didSave at once
        client.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        await client.until(partial(client.published_since, mark, uri))
        arrived = next(t for t, p in client.publishes(mark) if p.uri == uri)
        if index >= 5:  # warm-up rounds excluded
            samples.append((arrived - started) * 1000)
        await asyncio.sleep(0.3)  # the watcher's report of the same write settles (it finds nothing new)
        if counts is not None and index >= 5:
            counts.append(sum(1 for _, params in client.publishes(mark) if params.uri == uri))
    await client.stop()
    return samples


def answers_save(client: Client, mark: int, uri: str, *, edited: bool | None) -> bool:
    """A publish for `uri` since `mark` that answers the save: any (`edited` None, the minimal server), else
    freshpass's diagnostic of the saved edit (not the didChange's "unsaved" one), or none for covered content."""
    return any(params.uri == uri and answers_save_one(params, edited) for _, params in client.publishes(mark))


async def save_latency_side_by_side(tmp: Path, rounds: int) -> tuple[list[float], list[float]]:
    """didChange, 15 ms, write + didSave → the first publish answering that version; both servers at once, saves
    alternating between them (which one goes first alternates too). Returns (freshpass, minimal) samples in ms."""
    minimal_script = tmp / "minimal_side_by_side.py"
    minimal_script.write_text(MINIMAL_SERVER)
    sides = []
    for name, command in (("ours", SERVER), ("minimal", [sys.executable, str(minimal_script)])):
        root = tmp / f"side-{name}"
        file = make_repo(root, 20)[0]
        record_pass(root)
        client, uri = await open_client(command, root, file)
        sides.append({"name": name, "client": client, "file": file, "uri": uri, "covered": read(file), "samples": []})
    version = 1
    for index in range(rounds + 5):
        for side in sides if index % 2 else reversed(sides):
            client, file, uri = side["client"], side["file"], side["uri"]
            edited = index % 2 == 0  # each server sees edit, covered, edit, covered…
            text = f"VALUE = 'edit {index}'\n" if edited else side["covered"]
            version += 1
            client.client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
                )
            )
            await asyncio.sleep(0.015)
            mark = len(client.events)
            write(file, text)
            started = time.perf_counter()
            client.client.text_document_did_save(
                types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
            )
            expect = edited if side["name"] == "ours" else None
            await client.until(partial(answers_save, client, mark, uri, edited=expect))
            arrived = next(t for t, p in client.publishes(mark) if p.uri == uri and answers_save_one(p, expect))
            if index >= 5:
                side["samples"].append((arrived - started) * 1000)
            await asyncio.sleep(0.3)  # the watcher's report of the same write settles
    for side in sides:
        await side["client"].stop()
    return sides[0]["samples"], sides[1]["samples"]


def answers_save_one(params: Any, edited: bool | None) -> bool:
    if edited is None:
        return True
    codes = [diagnostic.code for diagnostic in params.diagnostics]
    return bool(edited and codes and "unsaved" not in codes) or (not edited and not codes)


async def stale_save_publishes(root: Path, file: Path, rounds: int) -> list[int]:
    """Publishes per save for saves of new edits of a file that is already stale (nothing a person reads changes)."""
    client = Client()
    await client.start(SERVER, root)
    uri = file.as_uri()
    client.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=read(file))
        )
    )
    await client.until(lambda: any(m == "freshpass/statusChanged" for _, m, _ in client.events))
    counts = []
    for index in range(rounds + 1):
        mark = len(client.events)
        # Same length each time: the diagnostic spans line 0, so a longer first line rightly moves its end.
        text = f"VALUE = 'stale edit {index:04d}'\n"
        write(file, text)
        client.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=index + 2),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        client.client.text_document_did_save(
            types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri))
        )
        if index == 0:  # the first edit makes the file stale: that one is published
            await client.until(partial(client.published_since, mark, uri))
        await asyncio.sleep(0.5)  # the save's answer, its refresh and the watcher's report of the write
        if index > 0:
            counts.append(sum(1 for _, params in client.publishes(mark) if params.uri == uri))
    await client.stop()
    return counts


def record_pass(root: Path) -> None:
    """A receipt for the repository's current content, recorded the way a terminal would."""
    subprocess.run([sys.executable, "-m", "freshpass", "run", "--", "true"], cwd=root, check=True, capture_output=True)


async def bench_save(tmp: Path, rounds: int) -> dict[str, float]:
    root = tmp / "save"
    files = make_repo(root, 20)
    target = files[0]
    covered = target.read_text()
    record_pass(root)
    counts: list[int] = []
    ours = await save_latency(SERVER, root, target, rounds, covered, counts)
    minimal_script = tmp / "minimal_server.py"
    minimal_script.write_text(MINIMAL_SERVER)
    target.write_text(covered)
    baseline = await save_latency([sys.executable, str(minimal_script)], root, target, rounds, covered)
    target.write_text(covered)
    stale_counts = await stale_save_publishes(root, target, max(10, rounds // 5))
    return {
        "ours_p50": statistics.median(ours),
        "ours_p99": percentile(ours, 0.99),
        "base_p50": statistics.median(baseline),
        "base_p99": percentile(baseline, 0.99),
        "publishes_min": min(counts),
        "publishes_max": max(counts),
        "stale_publishes_max": max(stale_counts),
        "stale_saves": len(stale_counts),
    }


async def bench_external_write(tmp: Path, rounds: int) -> list[float]:
    root = tmp / "external"
    files = make_repo(root, 20)
    target = files[1]
    covered = target.read_text()
    record_pass(root)
    client = Client()
    await client.start(SERVER, root)
    await client.until(lambda: any(m == "freshpass/statusChanged" for _, m, _ in client.events))
    uri = target.as_uri()
    samples = []
    for index in range(rounds):
        mark = len(client.events)
        started = time.perf_counter()
        target.write_text(covered if index % 2 else f"VALUE = 'external {index}'\n")
        await client.until(partial(client.published_since, mark, uri))
        samples.append((next(t for t, p in client.publishes(mark) if p.uri == uri) - started) * 1000)
        await asyncio.sleep(0.3)  # let the burst window close so each sample is one write
    await client.stop()
    return samples


async def bench_branch_switch(tmp: Path, count: int) -> dict[str, float]:
    root = tmp / "branch"
    files = make_repo(root, count)
    git(root, "checkout", "-q", "-b", "other")
    for file in files:
        file.write_text(file.read_text() + "OTHER = True\n")
    git(root, "commit", "-q", "-am", "other")
    git(root, "checkout", "-q", "main")
    record_pass(root)
    client = Client()
    await client.start(SERVER, root)
    await client.until(lambda: any(m == "freshpass/statusChanged" for _, m, _ in client.events))
    rss_before = rss_mb(client.pid)
    mark = len(client.events)
    uris = {file.as_uri() for file in files}
    client.diagnosed.clear()
    started = time.perf_counter()
    git(root, "checkout", "-q", "other")
    checked_out = time.perf_counter()
    await client.until(lambda: len(client.diagnosed) >= len(uris), timeout=120)
    settled = time.perf_counter() - started
    after_git = time.perf_counter() - checked_out
    quiet_mark = len(client.events)
    await asyncio.sleep(1.0)  # anything still coming would be a duplicate publish
    published = client.publishes(mark)
    per_file: dict[str, int] = {}
    for _, params in published:
        per_file[params.uri] = per_file.get(params.uri, 0) + 1
    result = {
        "settled_s": settled,
        "git_s": settled - after_git,
        "files": float(len(uris & set(per_file))),
        "max_publishes_per_file": float(max(per_file[uri] for uri in uris)),
        "late_publishes": float(len(client.publishes(quiet_mark))),
        "rss_growth_mb": rss_mb(client.pid) - rss_before,
    }
    await client.stop()
    return result


async def bench_startup(tmp: Path, count: int) -> dict[str, float]:
    root = tmp / "big"
    make_repo(root, count, per_dir=200)
    record_pass(root)
    client = Client()
    started = time.perf_counter()
    await client.start(SERVER, root)
    await client.until(lambda: any(m == "freshpass/statusChanged" for _, m, _ in client.events), timeout=120)
    first_status = time.perf_counter() - started
    result = {"first_status_s": first_status, "rss_mb": rss_mb(client.pid)}
    await client.stop()
    return result


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and smaller repositories (a smoke run)")
    parser.add_argument(
        "--only", choices=["save", "side", "external", "switch", "startup"], action="append", default=[]
    )
    args = parser.parse_args()
    wanted = set(args.only) or {"save", "side", "external", "switch", "startup"}
    rounds = 20 if args.quick else 100
    switch_files = 500 if args.quick else 5_000
    startup_files = 10_000 if args.quick else 100_000
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-", ignore_cleanup_errors=True) as scratch:
        tmp = Path(scratch)
        os.environ["FRESHPASS_LEDGER"] = str(tmp / "ledger.db")
        save = await bench_save(tmp, rounds) if "save" in wanted else None
        side = await save_latency_side_by_side(tmp, rounds) if "side" in wanted else None
        external = await bench_external_write(tmp, max(10, rounds // 5)) if "external" in wanted else None
        switch = await bench_branch_switch(tmp, switch_files) if "switch" in wanted else None
        startup = await bench_startup(tmp, startup_files) if "startup" in wanted else None
    rows: list[tuple[str, str, str, str]] = []
    if save is not None:
        ratio = save["ours_p50"] / save["base_p50"]
        rows += [
            (
                "didSave → publish p50 (freshpass / minimal pygls)",
                f"{save['ours_p50']:.1f} ms / {save['base_p50']:.1f} ms",
                f"ratio {ratio:.2f}",
                "ratio ≤ 1.5",
            ),
            (
                "didSave → publish p99 (freshpass / minimal pygls)",
                f"{save['ours_p99']:.1f} ms / {save['base_p99']:.1f} ms",
                "",
                "< 30 ms",
            ),
            (
                "… publishes per save (min / max)",
                f"{save['publishes_min']} / {save['publishes_max']}",
                "each save changes what is shown",
                "1 / 1",
            ),
            (
                "saves of new edits of a stale file: publishes per save (max)",
                str(save["stale_publishes_max"]),
                f"{save['stale_saves']} saves; the words stay the same",
                "0",
            ),
        ]
    if side is not None:
        ours, base = side
        rows.append(
            (
                "didChange, 15 ms, write + didSave → publish p50, side by side (freshpass / minimal pygls)",
                f"{statistics.median(ours):.1f} ms / {statistics.median(base):.1f} ms",
                f"ratio {statistics.median(ours) / statistics.median(base):.2f}; p99 {percentile(ours, 0.99):.1f} / "
                f"{percentile(base, 0.99):.1f} ms",
                "ratio ≤ 1.5",
            )
        )
    if external is not None:
        rows.append(
            (
                "external write → publish p50 / p95",
                f"{statistics.median(external):.0f} ms / {percentile(external, 0.95):.0f} ms",
                "",
                "p95 < 500 ms",
            )
        )
    if switch is not None:
        rows += [
            (
                f"branch switch, {switch_files:,} files: settled",
                f"{switch['settled_s']:.2f} s",
                f"git checkout itself: {switch['git_s']:.2f} s",
                "< 3 s",
            ),
            (
                "… publishes per affected file (max) / late",
                f"{switch['max_publishes_per_file']:.0f} / {switch['late_publishes']:.0f}",
                f"{switch['files']:.0f} files",
                "1 / 0",
            ),
            ("… server RSS growth", f"{switch['rss_growth_mb']:.1f} MB", "", "< 50 MB"),
        ]
    if startup is not None:
        rows += [
            (f"startup on {startup_files:,} files → first status", f"{startup['first_status_s']:.2f} s", "", "< 2 s"),
            ("… server RSS", f"{startup['rss_mb']:.0f} MB", "", "< 150 MB"),
        ]
    print("| measure | result | note | target |")
    print("| --- | --- | --- | --- |")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    asyncio.run(main())
