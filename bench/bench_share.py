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

`--merge` measures only the merge of two diverged notes refs (what a fetch or a push that someone beat pays): the
remote's ref holds `--merge-notes` notes this clone does not have (a flooded ref), and the same two refs are merged
by the merge of before (git processes per note, kept below as the baseline) and by today's (`notes._merge`), in
alternating runs. Then each merges a ref whose note on the shared content is `--huge-mb` MiB, in a child process
of its own, reporting that process's peak RSS (`VmHWM`).

    .venv/bin/python bench/bench_share.py [--files N] [--runs N] [--history N] [--write]
    .venv/bin/python bench/bench_share.py --merge [--merge-notes 1500] [--merge-runs 3] [--huge-mb 60] [--write]

`--write` replaces docs/bench-share.md (with `--merge`: only its merge section). Local bare remote only: a real
network adds a round trip per fetch and push.
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
from freshpass.ledger.shared import Provenance, SharedReceipt, from_evidence, normal_form
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
    parser.add_argument("--merge", action="store_true", help="only the merge of a flooded ref, before and after")
    parser.add_argument("--merge-notes", type=int, default=1500)
    parser.add_argument("--merge-runs", type=int, default=3)
    parser.add_argument("--huge-mb", type=int, default=60)
    parser.add_argument("--merge-child", nargs=3, metavar=("VARIANT", "REPO", "URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.update(GIT_ENV)
    if args.merge_child:
        merge_child(*args.merge_child)
        return
    if args.merge:
        merge_bench(args)
        return
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
        kept = DOC.read_text().partition(MERGE_HEADING) if DOC.exists() else ("", "", "")
        merge_section = kept[1] + kept[2] if kept[1] else ""
        DOC.write_text(
            HEADER
            + f"\n{stamp}; `--files {args.files} --runs {args.runs} --history {args.history}`\n\n{table}\n"
            + (f"\n{merge_section}" if merge_section else "")
        )


# ---- merging a flooded ref: before and after ----------------------------------------------------------------------


def _old_existing_lines(git_: notes.IsolatedGit, ref: str, tree: str) -> list[str]:
    text = notes._note_text(git_, ref, tree, 64 << 20)  # the merge of before read notes up to 64 MiB whole
    if text is not None and text.startswith("\0"):
        raise notes.GitError(f"too large ({text[1:]})")
    return (text or "").splitlines()


def _old_listing(git_: notes.IsolatedGit, ref: str) -> dict[str, str]:
    listed: dict[str, str] = {}
    for line in git_.run(["notes", f"--ref={ref}", "list"]).decode().splitlines():
        blob, _, tree = line.partition(" ")
        if tree:
            listed[tree] = blob
    return listed


def old_merge(git_: notes.IsolatedGit, ours: str, theirs: str) -> str:
    """The merge of before (the baseline): `notes list` of both refs, then for every note that differs a read of
    each side (`notes list`, `cat-file -s`, `cat-file blob`) and a write (`hash-object`, `notes add`)."""
    env = notes._identity(git_)
    mine, other = _old_listing(git_, notes.NOTES_REF), _old_listing(git_, notes.THEIRS_REF)
    for tree, blob in other.items():
        if mine.get(tree) == blob:
            continue
        lines = _old_existing_lines(git_, notes.THEIRS_REF, tree)
        if tree in mine:
            lines += _old_existing_lines(git_, notes.NOTES_REF, tree)
        notes._set_note(git_, notes.NOTES_REF, tree, normal_form(lines), env)
    notes_tree = git_.run(["rev-parse", f"{notes.NOTES_REF}^{{tree}}"]).decode().strip()
    command = ["commit-tree", "-p", ours, "-p", theirs, "-F", "-", notes_tree]
    return git_.run(command, stdin=b"freshpass: merge shared receipts\n", env=env).decode().strip()


def new_merge(git_: notes.IsolatedGit, ours: str, theirs: str) -> str:
    return notes._merge(git_, ours, theirs)[0]


VARIANTS = {"before": old_merge, "after": new_merge}


def plant(root: Path, lines: dict[str, bytes]) -> None:
    """Notes (object → text) added to the clone's notes ref in one commit, by git's own fast-import."""
    parent = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", notes.NOTES_REF], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    stream = bytearray(b"commit %s\ncommitter b <b@x> 1767261000 +0000\ndata 5\nflood\n" % notes.NOTES_REF.encode())
    if parent:
        stream += b"from %s\n" % parent.encode()
    for tree, text in lines.items():
        stream += b"M 100644 inline %s\ndata %d\n%s\n" % (tree.encode(), len(text), text)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=root, input=bytes(stream), check=True)


def merge_once(variant: str, reader: Path, url: str) -> tuple[float, int]:
    """Fetch the remote's ref into a private directory (not timed), merge it with the reader's (timed)."""
    repo = repository(reader)
    local = notes.notes_tip(repo)
    with notes._private(repo, {notes.NOTES_REF: local}) as private:
        theirs = notes._fetch_tip(private, url)
        started = time.perf_counter()
        merged = VARIANTS[variant](private, local, theirs)
        elapsed = time.perf_counter() - started
        count = len(private.run(["ls-tree", "-r", "--name-only", merged]).splitlines())
    return elapsed, count


def merge_child(variant: str, reader: str, url: str) -> None:
    """One merge in this process: its time and peak memory, as JSON on stdout."""
    import json

    before = peak_rss_kib()
    try:
        elapsed, count = merge_once(variant, Path(reader), url)
        error = ""
    except notes.GitError as exc:
        elapsed, count, error = 0.0, 0, str(exc)
    print(json.dumps({"seconds": elapsed, "notes": count, "error": error, "rss_before_kib": before,
                      "rss_kib": peak_rss_kib()}))  # fmt: skip


def peak_rss_kib() -> int:
    """This process's peak resident set since it started (`VmHWM`: unlike `ru_maxrss`, not inherited from the
    process it was forked from)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def flooded(base: Path, name: str, planting: Callable[[Receipts], dict[str, bytes]]) -> tuple[Path, str]:
    """A remote whose notes ref holds one receipt and `planted`; a reader clone that shared one of its own."""
    seed = base / f"{name}-seed"
    seed.mkdir()
    (seed / "app.py").write_text("x = 1\n")
    git(seed, "init", "-q", "-b", "main")
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "init")
    remote = base / f"{name}.git"
    git(base, "clone", "-q", "--bare", str(seed), str(remote))
    writer, reader = clone(remote, f"{name}-writer"), clone(remote, f"{name}-reader")
    content = snapshot(writer).content_id
    made = Receipts(writer, content)
    notes.add_receipts(repository(writer), [made.next()], summary="w")
    planted = planting(made)
    plant(writer, {key.replace("CONTENT", content.removeprefix("git:")): text for key, text in planted.items()})
    notes.push(repository(writer), find_remote(repository(writer), "origin"))
    mine = Receipts(reader, content)
    mine.count = 50_000
    notes.add_receipts(repository(reader), [mine.next()], summary="r")
    return reader, str(remote)


def merge_bench(args: argparse.Namespace) -> None:
    import json

    rows: list[str] = []
    loads: list[float] = []
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-merge-") as scratch:
        base = Path(scratch)

        def receipts_on_other_contents(made: Receipts) -> dict[str, bytes]:
            return {
                f"{index:040x}": (made.next(f"git:{index:040x}").line + "\n").encode()
                for index in range(args.merge_notes)
            }

        reader, url = flooded(base, "flood", receipts_on_other_contents)
        samples: dict[str, list[float]] = {"before": [], "after": []}
        counts: dict[str, int] = {}
        for run in range(args.merge_runs):
            order = ("before", "after") if run % 2 == 0 else ("after", "before")
            for variant in order:
                loads.append(os.getloadavg()[0])
                elapsed, counts[variant] = merge_once(variant, reader, url)
                samples[variant].append(elapsed)
        assert counts["before"] == counts["after"], counts
        for variant in ("before", "after"):
            rows.append(row(f"merge {args.merge_notes:,} notes only the remote has, {variant}", samples[variant],
                            f"{counts[variant]:,} notes in the merge"))  # fmt: skip
        big_reader, big_url = flooded(base, "huge", lambda made: {"CONTENT": b"x" * (args.huge_mb << 20) + b"\n"})
        for variant in ("before", "after", "before", "after"):
            loads.append(os.getloadavg()[0])
            child = subprocess.run(
                [sys.executable, __file__, "--merge-child", variant, str(big_reader), big_url],
                check=True, capture_output=True, text=True, env={**os.environ, **GIT_ENV},
            )  # fmt: skip
            found = json.loads(child.stdout)
            peak, start = found["rss_kib"] >> 10, found["rss_before_kib"] >> 10
            note = f"Python's peak RSS {peak} MiB (before the fetch and merge {start} MiB)"
            if found["error"]:
                note += f"; {found['error']}"
            rows.append(row(f"merge a ref whose shared content's note is {args.huge_mb} MiB, {variant}",
                            [found["seconds"]], note))  # fmt: skip
    table = "\n".join(["| measurement | runs | p50 | p95 | note |", "| --- | --- | --- | --- | --- |", *rows])
    stamp = (
        f"{datetime.now(timezone.utc):%Y-%m-%d}, {os.cpu_count()} CPUs, load {min(loads):.1f}–{max(loads):.1f} "
        f"during the runs, git {git_version()}; `--merge --merge-notes {args.merge_notes} --merge-runs "
        f"{args.merge_runs} --huge-mb {args.huge_mb}`"
    )
    print(table)
    print(f"\n{stamp}")
    if args.write:
        text = DOC.read_text() if DOC.exists() else HEADER
        text = text.split(MERGE_HEADING)[0].rstrip() + "\n\n"
        DOC.write_text(text + MERGE_HEADING + MERGE_TEXT + f"\n{stamp}\n\n{table}\n")


MERGE_HEADING = "## Merging a flooded shared ref, before and after\n"
MERGE_TEXT = """
A merge happens when a fetch or a push finds that both sides added receipts. Before, it ran `git notes list` on
both refs and then, for every note the remote had and this clone did not, about five git processes (read each
side: `notes list`, `cat-file -s`, `cat-file blob`; write: `hash-object`, `notes add`), and it read a note of up
to 64 MiB whole. Now it is six git processes whatever the number of notes (`var`, two `ls-tree -r -l`, one
`cat-file --batch` for the notes that differ on both sides, one `fast-import` writing the tree and the commit, one
`rev-parse`); a note over 1 MiB is never read (its size comes from `ls-tree -l`) and lines over 16 KiB are dropped.
Both variants merge the same two refs, alternating; the huge-note rows run each merge (and the fetch before it) in
a Python process of its own, whose peak RSS (`VmHWM`) is shown; the git processes' own memory is not included.
"""


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
