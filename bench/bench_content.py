"""Content id of a 10,000-file git repository with 10 dirty files, warm (target: p50 under 150 ms).

Creates the repository in a temp dir (100 directories × 100 small files, committed), dirties 10 tracked files
and adds nothing else, computes the snapshot once to warm the page cache, then times `snapshot()` — the temporary
index copy, `git add --all`, the prose removal and `git write-tree`, all against a private git directory
(freshpass.ledger.git) — and, for comparison, the same done by git in the repository itself, reading its config
(how freshpass hashed before git ran against a private git directory). `git status` on the same tree is shown for scale. A non-git root of
10,000 files is timed too (first and cached hashing).

    .venv/bin/python bench/bench_content.py [--files N] [--runs N] [--write]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import TABLE_HEAD, row, write_section
from freshpass.ledger import content

GIT_ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def make_tree(root: Path, files: int) -> None:
    per_dir = 100
    for index in range(files):
        directory = root / f"pkg{index // per_dir:03d}"
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"module_{index % per_dir:03d}.py").write_text(f"VALUE_{index} = {index}\n" * 20)
    (root / "README.md").write_text("# bench\n")


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, env=GIT_ENV)


def plain_git_tree(repo: Path) -> str:
    """`git add --all`, `ls-files`, `write-tree` in a copy of the index, in the repository itself (its config is
    read): what `snapshot()` did before it used a private git directory, minus the prose removal."""
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-index-") as scratch:
        index = Path(scratch) / "index"
        shutil.copy2(repo / ".git" / "index", index)
        env = {**GIT_ENV, "GIT_INDEX_FILE": str(index), "GIT_OPTIONAL_LOCKS": "0"}
        subprocess.run(["git", "-C", str(repo), "add", "--all"], check=True, capture_output=True, env=env)
        subprocess.run(["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True, env=env)
        tree = subprocess.run(["git", "-C", str(repo), "write-tree"], check=True, capture_output=True, env=env)
    return tree.stdout.decode().strip()


def timed(runs: int, call) -> list[float]:  # type: ignore[no-untyped-def]
    call()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update docs/bench-ledger.md")
    args = parser.parse_args()
    os.environ.update({k: v for k, v in GIT_ENV.items() if k.startswith("GIT_")})
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-") as scratch:
        repo = Path(scratch) / "repo"
        make_tree(repo, args.files)
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "bench")
        for index in range(0, args.files, max(1, args.files // 10))[:10]:
            path = repo / f"pkg{index // 100:03d}" / f"module_{index % 100:03d}.py"
            path.write_text(path.read_text() + "# dirty\n")
        clean = content.snapshot(repo)
        assert clean.is_git
        # The private git dir gives exactly the tree git itself writes (README.md is prose: keep it out of both).
        assert content.snapshot(repo, ignore_prose=False).content_id == "git:" + plain_git_tree(repo)
        git_status = shutil.which("git") or "git"
        rows = [
            row(
                f"`snapshot()` git, {args.files:,} files, 10 dirty, warm",
                timed(args.runs, lambda: content.snapshot(repo)),
                "p50 < 150 ms",
            ),
            row(
                "`snapshot()` without prose removal: add, ls-files, write-tree in a private git dir",
                timed(args.runs, lambda: content.snapshot(repo, ignore_prose=False)),
                "—",
            ),
            row(
                "the same three commands run in the repository, reading its config (before the private git directory)",
                timed(args.runs, lambda: plain_git_tree(repo)),
                "—",
            ),
            row(
                "`git status --porcelain` on the same tree (for scale)",
                timed(
                    args.runs,
                    lambda: subprocess.run(
                        [git_status, "-C", str(repo), "status", "--porcelain"],
                        capture_output=True,
                        check=True,
                        env=GIT_ENV,
                    ),
                ),
                "—",
            ),
        ]
        plain = Path(scratch) / "plain"
        make_tree(plain, args.files)
        started = time.perf_counter()
        content.snapshot(plain)
        first = time.perf_counter() - started
        rows.append(
            row(
                f"`snapshot()` non-git, {args.files:,} files, digests cached",
                timed(args.runs, lambda: content.snapshot(plain)),
                "—",
            )
        )
    body = "\n".join(
        [
            "## Content id",
            "",
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f}, "
            f"{subprocess.run(['git', '--version'], capture_output=True, text=True).stdout.strip()}. "
            f"A non-git root's first (uncached) snapshot took {first * 1000:.0f} ms.",
            "",
            TABLE_HEAD,
            *rows,
        ]
    )
    print(body)
    if args.write:
        write_section("content", body)


if __name__ == "__main__":
    main()
