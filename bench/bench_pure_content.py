"""The content id without git (`freshpass.ledger.puretree`) against git's, on real repositories and a 10,000-file tree.

Equality: every source tree under `--repos` (read only: each is copied, the copy committed in a new repository and
then dirtied) gets the trusted snapshot (`_git_snapshot`, what a trusted workspace runs) and the pure one, default
rules (prose ignored), compared; a tree the pure computation declines is counted with its reason.

Speed: a synthetic repository of `--files` files (100 per directory, committed, 10 tracked files dirtied), both
computations alternating, `--runs` each, medians reported with the load average (the machine is shared).

    .venv/bin/python bench/bench_pure_content.py [--repos DIR] [--files N] [--runs N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from freshpass.ledger import content
from freshpass.ledger.content import NeedsGit, snapshot

GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def file_count(path: Path, limit: int) -> int:
    count = 0
    for _, _, names in os.walk(path):
        count += len(names)
        if count > limit:
            break
    return count


def compare_repositories(repos: Path, limit: int) -> None:
    """Each source tree under `repos` (plain trees, no `.git`) is copied, committed in a new repository, then
    dirtied (two files edited, one deleted, one untracked file added) and both ids compared. The copies only."""
    outcomes: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    mismatches: list[str] = []
    pure_times, git_times = [], []
    env = {**os.environ, **GIT_ENV}
    for path in sorted(repos.iterdir()):
        if not path.is_dir() or os.path.lexists(path / ".git") or file_count(path, limit) > limit:
            outcomes["skipped (a repository, or over the file limit)"] += 1
            continue
        with tempfile.TemporaryDirectory(prefix="freshpass-bench-copy-") as temp:
            root = Path(temp) / path.name
            shutil.copytree(path, root, symlinks=True)
            subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=env)
            subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env, capture_output=True)
            subprocess.run(["git", "commit", "-q", "-m", "copy"], cwd=root, check=False, env=env, capture_output=True)
            listed = subprocess.run(["git", "ls-files", "-z"], cwd=root, env=env, capture_output=True).stdout
            tracked = [name for name in listed.decode("utf-8", "surrogateescape").split("\0") if name]
            regular = [name for name in tracked if (root / name).is_file() and not (root / name).is_symlink()]
            for name in regular[:2]:
                with open(root / name, "ab") as handle:
                    handle.write(b"\n# edited\n")
            if len(regular) > 2:
                (root / regular[2]).unlink()
            (root / "freshpass-bench-untracked.txt").write_text("new\n")
            try:
                start = time.perf_counter()
                expected = snapshot(root).content_id
                git_time = time.perf_counter() - start
            except content.ContentError as exc:
                outcomes["git failed"] += 1
                reasons[str(exc)[-80:]] += 1
                continue
            try:
                start = time.perf_counter()
                pure = snapshot(root, processes=False).content_id
                pure_time = time.perf_counter() - start
            except NeedsGit as exc:
                outcomes["declined"] += 1
                reasons[str(exc).split(" here (", 1)[-1].rstrip(")")[:70]] += 1
                continue
            if pure == expected:
                outcomes["equal"] += 1
                pure_times.append(pure_time)
                git_times.append(git_time)
            else:
                outcomes["DIFFERENT"] += 1
                mismatches.append(path.name)
    print(f"repositories: {dict(outcomes)}")
    for reason, count in reasons.most_common(12):
        print(f"  declined/failed {count:3d}x {reason}")
    if mismatches:
        print(f"  DIFFERENT: {', '.join(mismatches)}")
    if pure_times:
        print(
            f"  equal ones, first computation each: pure median {statistics.median(pure_times) * 1000:.0f} ms, "
            f"git median {statistics.median(git_times) * 1000:.0f} ms"
        )


def synthetic(files: int, runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-pure-") as temp:
        root = Path(temp) / "repo"
        root.mkdir()
        env = {**os.environ, **GIT_ENV}
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True, env=env)
        for number in range(files):
            directory = root / f"d{number // 100:03d}"
            directory.mkdir(exist_ok=True)
            (directory / f"f{number % 100:03d}.py").write_text(f"VALUE = {number}\n")
        subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
        subprocess.run(["git", "commit", "-q", "-m", "bench"], cwd=root, check=True, env=env)
        for number in range(10):
            (root / f"d{number:03d}" / "f000.py").write_text(f"VALUE = -{number}\n")
        assert snapshot(root).content_id == snapshot(root, processes=False).content_id
        pure, git = [], []
        for _ in range(runs):  # alternating, so both see the same load
            git.append(timed(lambda: snapshot(root)))
            pure.append(timed(lambda: snapshot(root, processes=False)))
        load = os.getloadavg()
        print(
            f"{files} files, 10 dirty, {runs} runs each (alternating), load {load[0]:.1f}/{load[1]:.1f}/{load[2]:.1f}: "
            f"pure median {statistics.median(pure) * 1000:.0f} ms (min {min(pure) * 1000:.0f}), "
            f"git median {statistics.median(git) * 1000:.0f} ms (min {min(git) * 1000:.0f})"
        )
        # Cold: no stat data to trust (every file hashed by both).
        index = root / ".git" / "index"
        saved = index.read_bytes()
        cold_pure, cold_git = [], []
        for _ in range(max(1, runs // 2)):
            index.unlink()
            cold_git.append(timed(lambda: snapshot(root)))
            cold_pure.append(timed(lambda: snapshot(root, processes=False)))
            index.write_bytes(saved)
        print(
            f"  without an index (every file hashed): pure median {statistics.median(cold_pure) * 1000:.0f} ms, "
            f"git median {statistics.median(cold_git) * 1000:.0f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, default=Path.home() / ".cache" / "freshpass-bench" / "repos")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--skip-repos", action="store_true")
    parser.add_argument("--repo-files", type=int, default=3000, help="skip source trees with more files than this")
    args = parser.parse_args()
    os.environ.update(GIT_ENV)
    if args.repos.is_dir() and not args.skip_repos:
        compare_repositories(args.repos, args.repo_files)
    synthetic(args.files, args.runs)


if __name__ == "__main__":
    main()
