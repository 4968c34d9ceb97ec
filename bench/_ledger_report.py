"""Shared by the ledger benchmarks: percentiles and writing one section of docs/bench-ledger.md."""

from __future__ import annotations

import re
import statistics
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
- `freshpass run` start-up is mostly Python imports: `asyncio` (the runner), the facts detectors and the
  classifier. The ledger's own share is two content reads (the first overlaps facts detection) and one SQLite
  append (the ledger is opened while the command runs). Measured in-process at load 2 for that small repository:
  about 20 ms CPU importing the ledger modules, 6 ms per content read, 2 ms to open the ledger and append — about
  35 ms of the recorded run's overhead; importing asyncio, the runner and the facts package costs about 120 ms.
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
