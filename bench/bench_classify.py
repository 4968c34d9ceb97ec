"""Classifying command lines in-process (design §3): the language server classifies every terminal command.

Builds a small project in a temp dir (facts with 8 verify commands, a few real paths so scope checks stat the
disk), warms the caches once, then times `classify()` on a mix of typical lines: plain runs, wrapped runs,
chains, pipelines, package scripts and non-matches. Prints a markdown table (per-call median and p95).

    .venv/bin/python bench/bench_classify.py
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from freshpass.facts.classify import classify
from freshpass.facts.model import ProjectFacts, VerifyCommand

LINES = [
    "pytest",
    "CI=1 uv run pytest tests/test_x.py::test_y -q",
    "python3.12 -m pytest -k slow --tb=short",
    "set -o pipefail; pytest 2>&1 | tee log",
    "npm ci && npm test -- --coverage",
    "cd web && pnpm run lint",
    "bash -lc 'cd app && go test -v ./...'",
    "make test TEST=foo",
    "cargo test -p core -- --nocapture",
    "echo pytest && git commit -m 'run pytest'",
    "prettier --write . && ruff format --check .",
    "timeout 600 env FOO=1 nice -n 5 uv run --frozen pytest -n auto",
]
ROUNDS = 300


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("tests/test_x.py", "web/package.json", "app/go.mod", "src/pkg/foo.py"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text('{"scripts": {"lint": "eslint ."}}' if name.endswith(".json") else "")
        facts = ProjectFacts(
            root=str(root),
            verify_commands=[
                VerifyCommand("uv run pytest", "test", ".", "pyproject.toml"),
                VerifyCommand("ruff check .", "lint", ".", "pyproject.toml"),
                VerifyCommand("mypy", "typecheck", ".", "pyproject.toml"),
                VerifyCommand("npm test", "test", ".", "package.json", ("npm run test",)),
                VerifyCommand("pnpm run lint", "lint", "web", "web/package.json"),
                VerifyCommand("go test ./...", "test", "app", "app/go.mod"),
                VerifyCommand("make test", "test", ".", "Makefile:test"),
                VerifyCommand("cargo test --workspace", "test", ".", "Cargo.toml"),
            ],
        )
        for line in LINES:  # warm: the declared commands are normalised once per facts
            classify(line, cwd=root, facts=facts, exit_code=0)
        per_line: dict[str, list[float]] = {line: [] for line in LINES}
        for _ in range(ROUNDS):
            for line in LINES:
                start = time.perf_counter()
                classify(line, cwd=root, facts=facts, exit_code=0, output="==== 3 passed in 0.1s ====")
                per_line[line].append(time.perf_counter() - start)
    everything = [s for samples in per_line.values() for s in samples]
    print("| line | calls | median | p95 |")
    print("| --- | ---: | ---: | ---: |")
    for line, samples in per_line.items():
        shown = line.replace("|", "\\|")  # a pipe inside a table cell must be escaped
        print(f"| `{shown}` | {len(samples)} | {_us(statistics.median(samples))} | {_us(_p95(samples))} |")
    print(f"| **all lines** | {len(everything)} | {_us(statistics.median(everything))} | {_us(_p95(everything))} |")


def _p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.0f} µs"


if __name__ == "__main__":
    main()
