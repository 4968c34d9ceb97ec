"""What sharing receipts through git costs (design §4.6): publishing, reading, and a commit's content id.

Builds, in a temp dir, a repository of `--files` small files (100 per directory, plus prose) pushed to a local bare
remote, then times:

- the content id of HEAD without a checkout (`commit_snapshot`: one `ls-tree`, trees rebuilt in Python) against the
  work tree's (`snapshot`: a copy of the index, `add --all`, `write-tree`);
- publishing one receipt: `add_receipts` to the local ref (unsigned, and signed with an ssh key when `ssh-keygen`
  is there), then `push` to the remote (each round adds a receipt, so every push carries one new commit);
- a push that finds the remote moved (another writer pushed meanwhile): fetch, merge, push;
- reading the shared receipts of the current content as every status does (`shared_for`): the first read of a
  notes tip (git runs), the next reads (cached by tip), and with a signer required (trailer scan and signature
  check; cached per commit afterwards);
- with `--history N`: a remote whose ref holds N earlier publishes on N/5 contents — a fresh clone's fetch of it and
  the first signed read (the trailer scan grows with history).

    .venv/bin/python bench/bench_share.py [--files N] [--runs N] [--history N] [--write]

`--write` replaces docs/bench-share.md. Local bare remote only: a real network adds a round trip per fetch and push.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import percentile
from freshpass.facts.model import SharedTrust
from freshpass.ledger import notes
from freshpass.ledger.content import commit_snapshot, git_content_id, snapshot
from freshpass.ledger.git import Repository, find_remote, find_repository
from freshpass.ledger.shared import Provenance, SharedReceipt, from_evidence
from freshpass.ledger.store import Evidence

DOC = Path(__file__).resolve().parent.parent / "docs" / "bench-share.md"
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout


def make_repository(base: Path, files: int) -> Path:
    seed = base / "seed"
    for index in range(files):
        directory = seed / f"pkg{index // 100:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"module_{index % 100:03d}.py").write_text(f"VALUE_{index} = {index}\n" * 10)
        if index % 100 == 0:
            (directory / "README.md").write_text("prose\n")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "tree")
    remote = base / "remote.git"
    git(base, "clone", "-q", "--bare", str(seed), str(remote))
    return remote


def clone(remote: Path, name: str) -> Path:
    path = remote.parent / name
    git(remote.parent, "clone", "-q", str(remote), str(path))
    return path


def repository(root: Path) -> Repository:
    found = find_repository(root)
    assert found is not None
    return found


class Receipts:
    """Distinct receipts of one content (each run a second later than the last)."""

    def __init__(self, root: Path, content: str) -> None:
        self.root, self.content, self.count = root, content, 0
        self.commit = git(root, "rev-parse", "HEAD").strip()

    def next(self, content: str | None = None) -> SharedReceipt:
        self.count += 1
        started = 1_767_261_000.0 + self.count
        evidence = Evidence(
            id=self.count,
            created_at=started + 2,
            root=str(self.root),
            command="pytest -q",
            canonical_command="pytest -q",
            kind="test",
            scope="full",
            status="passed",
            content_id=content or self.content,
            started_at=started,
            finished_at=started + 1.5,
            duration=1.5,
            exit_code=0,
            tests_passed=120,
            tests_failed=0,
            tests_skipped=2,
        )
        provenance = Provenance("ci", "github-actions", "https://github.com/acme/app/actions/runs/1")
        return from_evidence(
            evidence, root=".", provenance=provenance, commit=self.commit, version="0.1.0", ignore=[], ignore_prose=True
        )


def timed(runs: int, call: Callable[[], object], *, warm: bool = True) -> list[float]:
    if warm:
        call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return samples


def row(name: str, samples: list[float], note: str = "") -> str:
    p50, p95 = statistics.median(samples) * 1000, percentile(samples, 0.95) * 1000
    return f"| {name} | {len(samples)} | {p50:.1f} ms | {p95:.1f} ms | {note} |"


def ssh_key(base: Path) -> tuple[Path, bytes] | None:
    if shutil.which("ssh-keygen") is None:
        return None
    key = base / "ci-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "ci", "-f", str(key)], check=True)
    kind, blob = key.with_suffix(".pub").read_text().split()[:2]
    return key, f'ci@bench namespaces="git" {kind} {blob}\n'.encode()


def fresh_reads() -> None:
    """Forget what was read, so the next read runs git again (what a new process or a new notes tip costs)."""
    for cache in (notes._notes_read, notes._vouchers_read, notes._signatures_read):
        cache._items.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--history", type=int, default=1000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    os.environ.update(GIT_ENV)
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-share-") as scratch:
        base = Path(scratch)
        remote = make_repository(base, args.files)
        ci, other = clone(remote, "ci"), clone(remote, "other")
        repo, other_repo = repository(ci), repository(other)
        current = snapshot(ci)
        assert commit_snapshot(ci).content_id == current.content_id
        rows.append(
            row(
                f"content id of HEAD, no checkout ({args.files:,} files)", timed(args.runs, lambda: commit_snapshot(ci))
            )
        )
        rows.append(row("content id of the work tree (for scale)", timed(args.runs, lambda: snapshot(ci))))

        made = Receipts(ci, current.content_id)
        rows.append(
            row(
                "add one receipt to the local ref, unsigned",
                timed(args.runs, lambda: notes.add_receipts(repo, [made.next()], summary="bench")),
            )
        )
        key = ssh_key(base)
        if key is not None:
            signing = notes.Signing(str(key[0]))
            rows.append(
                row(
                    "add one receipt, ssh-signed",
                    timed(args.runs, lambda: notes.add_receipts(repo, [made.next()], summary="bench", signing=signing)),
                )
            )
        origin = find_remote(repo, "origin")

        def publish() -> None:
            notes.add_receipts(repo, [made.next()], summary="bench")
            notes.push(repo, origin)

        rows.append(row("add one receipt and push it (fast-forward)", timed(args.runs, publish)))
        theirs = Receipts(other, current.content_id)
        theirs.count = 10_000
        other_origin = find_remote(other_repo, "origin")

        def beaten_push() -> None:
            notes.add_receipts(other_repo, [theirs.next()], summary="other")
            notes.push(other_repo, other_origin)  # the remote moved under `ci`
            notes.add_receipts(repo, [made.next()], summary="bench")
            started = time.perf_counter()
            moved = notes.push(repo, origin, pause=lambda attempt: None)
            beaten.append(time.perf_counter() - started)
            assert moved.merged

        beaten: list[float] = []
        timed(args.runs, beaten_push)
        rows.append(row("push after someone else pushed (fetch, merge, push)", beaten))

        trust = SharedTrust()

        def cold_read() -> None:
            fresh_reads()
            notes.shared_for(current, trust)

        rows.append(row("read the current content's shared receipts, first read of a tip", timed(args.runs, cold_read)))
        rows.append(row("same, next reads (cached by tip)", timed(args.runs, lambda: notes.shared_for(current, trust))))
        views = len(notes.shared_for(current, trust).views)
        if key is not None:
            signers = base / "allowed_signers"
            signers.write_bytes(key[1])
            signed = SharedTrust(("ci",), ("ci@bench",), str(signers))

            def cold_signed() -> None:
                fresh_reads()
                notes.shared_for(current, signed)

            rows.append(
                row(
                    f"same with a signer required, first read ({views} receipts)",
                    timed(max(3, args.runs // 4), cold_signed),
                )
            )
            rows.append(
                row(
                    "same with a signer required, next reads",
                    timed(args.runs, lambda: notes.shared_for(current, signed)),
                )
            )

        if args.history:
            history_remote = make_history(base, remote, args.history, made)
            reader_runs = []
            for index in range(3):
                reader = clone(history_remote, f"reader-{index}")
                started = time.perf_counter()
                notes.fetch(repository(reader), find_remote(repository(reader), "origin"))
                reader_runs.append(time.perf_counter() - started)
            size = notes_size(history_remote)
            rows.append(
                row(f"first fetch of a ref with {args.history:,} publishes", reader_runs, f"remote {size >> 10:,} KiB")
            )
            reader = base / "reader-0"
            reader_current = snapshot(reader)
            if key is not None:

                def history_signed() -> None:
                    fresh_reads()
                    notes.shared_for(reader_current, signed)

                rows.append(row(f"signed read, first, {args.history:,} commits of history", timed(3, history_signed)))
            rows.append(
                row(
                    "unsigned read, first read of that tip",
                    timed(args.runs, lambda: (fresh_reads(), notes.shared_for(reader_current, trust))),
                )
            )
    table = "\n".join(["| measurement | runs | p50 | p95 | note |", "| --- | --- | --- | --- | --- |", *rows])
    load = os.getloadavg()[0]
    stamp = f"{datetime.now(timezone.utc):%Y-%m-%d}, {os.cpu_count()} CPUs, load {load:.1f}, git {git_version()}"
    print(table)
    print(f"\n{stamp}")
    if args.write:
        DOC.write_text(
            HEADER + f"\n{stamp}; `--files {args.files} --runs {args.runs} --history {args.history}`\n\n{table}\n"
        )


def make_history(base: Path, remote: Path, publishes: int, made: Receipts) -> Path:
    """A copy of the remote whose notes ref holds `publishes` more single-receipt commits on publishes/5 contents."""
    history = base / "history.git"
    git(base, "clone", "-q", "--mirror", str(remote), str(history))  # --mirror: the notes ref too
    writer = clone(history, "history-writer")
    repo = repository(writer)
    origin = find_remote(repo, "origin")
    notes.fetch(repo, origin)
    contents = [git_content_id(f"{index:040x}") for index in range(max(1, publishes // 5))]
    for index in range(publishes):
        notes.add_receipts(repo, [made.next(contents[index % len(contents)])], summary="history")
    notes.push(repo, origin)
    return history


def notes_size(git_dir: Path) -> int:
    """Bytes on disk of every object the notes ref reaches (commits, trees, note blobs)."""
    listed = subprocess.run(
        ["git", "--git-dir", str(git_dir), "rev-list", "--objects", notes.NOTES_REF],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    sizes = subprocess.run(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch-check=%(objectsize:disk)"],
        input="".join(line.split(" ", 1)[0] + "\n" for line in listed.splitlines()),
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    return sum(int(size) for size in sizes.split())


def git_version() -> str:
    return git(Path.cwd(), "--version").split()[-1]


HEADER = """# Sharing benchmarks

Measured by `bench/bench_share.py` (`--write` rewrites this page) against a local bare remote, so no network round
trip is included: over a real network each fetch and each push adds one. Numbers depend on the machine; they were
taken on a shared 2-CPU machine with other builds running, so wall clock times carry queueing.

Where the time goes:
- A commit's content id is one `git ls-tree -r -t` and Python hashing of the directories that lost an ignored file;
  the work tree's is four git processes on a copy of the index.
- Adding a receipt is a handful of git processes in a private git directory (read the note, `hash-object`,
  `notes add`, `commit-tree`), and the ref written by freshpass itself; an ssh signature adds one `ssh-keygen`.
- A push fetches the remote's ref first (never forcing), so it is a fetch and a push; a beaten push adds a merge.
- A read is free without a notes ref (two `stat`s), three git processes for a new tip, and nothing while the tip
  stays (the language server reads on every refresh). A signer requirement scans the ref's history for trailers
  once per tip and verifies only the commits that vouch for the lines shown, once per commit.
"""


if __name__ == "__main__":
    main()
