"""Shared by the ledger benchmarks: percentiles and writing one section of docs/bench-ledger.md."""

from __future__ import annotations

import re
import resource
import statistics
import subprocess
import time
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "bench-ledger.md"
HEADER = """# Ledger benchmarks

Measured by `bench/bench_ledger.py`, `bench/bench_content.py` and `bench/bench_run.py` (each prints its table and,
with `--write`, replaces its own section below). Numbers depend on the machine; the date and host load are noted.
They were taken on a shared 2-CPU machine with several other builds running, so wall clock times carry queueing.

Where the time goes:
- The status query is index lookups only (`heads` holds the newest event per root and kind; `events_fresh` is a
  partial index on `(root, content_id, kind, id)`), so it does not grow with the number of events.
- A git content id is four git processes on a copy of the index (`add --all`, `ls-files`, `update-index
  --force-remove` for prose, `write-tree`); git re-hashes only files whose stat data changed.
- `freshpass run` start-up is mostly Python imports and what they build (asyncio, the classifier's tool tables,
  facts detection's readers, dataclasses); the ledger's share is two content reads and one SQLite append. The
  page's own text has the latest measurements.
"""


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def row(name: str, samples: list[float], target: str) -> str:
    return (
        f"| {name} | {len(samples)} | {ms(statistics.median(samples))} | {ms(percentile(samples, 0.95))} | {target} |"
    )


TABLE_HEAD = "| measurement | runs | p50 | p95 | target |\n| --- | --- | --- | --- | --- |"


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section `name` of the doc, delimited by HTML comments."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = DOC.read_text() if DOC.exists() else HEADER
    block = f"{start}\n{body.strip()}\n{end}"
    pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else f"{text.rstrip()}\n\n{block}\n"
    DOC.write_text(text)


def timed_interleaved(
    runs: int, variants: dict[str, tuple[list[str], bytes]], cwd: Path, env: dict[str, str]
) -> dict[str, list[float]]:
    """Run the variants (argv, stdin) in turn, `runs` rounds, after one warming round: a burst of load on this shared
    machine hits them all alike. Wall clock and CPU time (`NAME cpu`) per variant."""
    samples: dict[str, list[float]] = {key: [] for name in variants for key in (name, f"{name} cpu")}
    for argv, stdin in variants.values():  # warm: page cache and the bytecode cache
        subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, check=False)
    for _ in range(runs):
        for name, (argv, stdin) in variants.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            started = time.perf_counter()
            subprocess.run(argv, cwd=cwd, env=env, input=stdin, capture_output=True, check=False)
            samples[name].append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            samples[f"{name} cpu"].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return samples
