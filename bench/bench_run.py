"""`freshpass run -- CMD` overhead over running CMD directly (target: at most 100 ms).

In a temporary git repository whose Makefile declares `make test`, times (wall clock, whole processes):
- `true` run directly, and `freshpass run -- true` (not a verify command: runs, records nothing);
- `make test` run directly, and `freshpass run -- make test` (classified, content read before and after,
  one receipt recorded).
Python's bytecode cache is enabled for the measured processes (in a temporary `PYTHONPYCACHEPREFIX`), as in an
ordinary installation; the first, cache-filling run is not counted.

    .venv/bin/python bench/bench_run.py [--runs N] [--write]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import ms, row, timed_interleaved, write_section

FRESHPASS = [sys.executable, "-m", "freshpass"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update docs/bench-ledger.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-") as scratch:
        repo = Path(scratch) / "repo"
        repo.mkdir()
        (repo / "Makefile").write_text("test:\n\t@echo '3 passed in 0.01s'\n")
        (repo / "src.c").write_text("int main(void) { return 0; }\n")
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in {"PYTHONDONTWRITEBYTECODE", "FRESHPASS_SESSION"}
        }
        env.update(
            FRESHPASS_LEDGER=str(Path(scratch) / "state" / "ledger.db"),
            PYTHONPYCACHEPREFIX=str(Path(scratch) / "pycache"),
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="bench",
            GIT_AUTHOR_EMAIL="bench@example.invalid",
            GIT_COMMITTER_NAME="bench",
            GIT_COMMITTER_EMAIL="bench@example.invalid",
        )
        for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "bench"]):
            subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
        probe = subprocess.run([*FRESHPASS, "run", "--json", "--", "make test"], cwd=repo, env=env, capture_output=True)
        assert b'"recorded": true' in probe.stdout, probe.stderr.decode()
        samples = timed_interleaved(
            args.runs,
            {
                "true": (["true"], b""),
                "run true": ([*FRESHPASS, "run", "--", "true"], b""),
                "make": (["make", "test"], b""),
                "run make": ([*FRESHPASS, "run", "--", "make test"], b""),
                "python": ([sys.executable, "-c", "pass"], b""),
            },
            repo,
            env,
        )

    def p50(name: str) -> float:
        return statistics.median(samples[name])

    overhead_true = p50("run true") - p50("true")
    overhead_make = p50("run make") - p50("make")
    cpu_true = p50("run true cpu") - p50("true cpu")
    cpu_make = p50("run make cpu") - p50("make cpu")
    body = "\n".join(
        [
            "## `freshpass run` overhead",
            "",
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f} on "
            f"{os.cpu_count()} CPUs. Overhead, p50 wall clock difference (CPU time of the processes in brackets): "
            f"**{ms(overhead_true)}** ({ms(cpu_true)}) for `true`, which records nothing, and "
            f"**{ms(overhead_make)}** ({ms(cpu_make)}) for `make test`, which records a receipt; target under "
            f"100 ms. A bare `python -c pass` takes {ms(p50('python'))} ({ms(p50('python cpu'))}). On a loaded "
            "machine the wall clock includes waiting for a CPU; the CPU column is the work freshpass adds.",
            "",
            "| measurement | runs | p50 | p95 | CPU p50 | target |",
            "| --- | --- | --- | --- | --- | --- |",
            *(
                row(label, samples[name], target).removesuffix(" |").rsplit(" | ", 1)[0]
                + f" | {ms(p50(name + ' cpu'))} | {target} |"
                for label, name, target in (
                    ("`true`", "true", "—"),
                    ("`freshpass run -- true`", "run true", "overhead ≤ 100 ms"),
                    ("`make test`", "make", "—"),
                    ("`freshpass run -- make test` (records a receipt)", "run make", "overhead ≤ 100 ms"),
                    ("`python -c pass` (interpreter start, for scale)", "python", "—"),
                )
            ),
        ]
    )
    print(body)
    if args.write:
        write_section("run", body)


if __name__ == "__main__":
    main()
