"""Benchmark: facts detection on a generated 100,000-file repository.

Targets (docs/benchmarks.md): `detect_facts` in-process under 20 ms, `freshpass facts --json` as a whole process under
300 ms. Detection must not walk the tree; the table shows a full `os.walk` of the same tree for contrast.

    .venv/bin/python bench/bench_facts.py [--files N] [--runs N] [--process-runs N] [--no-write]

Prints a markdown table and writes it to docs/bench-facts.md (unless --no-write).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from freshpass.facts.detect import detect_facts

REPO = Path(__file__).resolve().parent.parent
OUTPUT = REPO / "docs" / "bench-facts.md"

# A realistic root: a Python + TypeScript monorepo with CI, task runners and tool configuration.
ROOT_FILES: dict[str, str] = {
    "package.json": json.dumps(
        {
            "private": True,
            "packageManager": "pnpm@9.1.0",
            "workspaces": ["packages/*"],
            "scripts": {"test": "pnpm -r test", "lint": "eslint .", "build": "pnpm -r build", "dev": "vite"},
        }
    ),
    "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
    "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
    "pyproject.toml": (
        '[project]\nname = "big"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
        "[tool.ruff]\nline-length = 100\n\n[tool.mypy]\nstrict = true\n"
    ),
    "uv.lock": "version = 1\n",
    "tox.ini": (
        "[tox]\nenvlist = py{311,312}, lint\n\n[testenv]\ncommands = pytest\n\n"
        "[testenv:lint]\ncommands = ruff check .\n"
    ),
    "noxfile.py": "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n",
    "Makefile": "include mk/common.mk\n\ntest:\n\tuv run pytest\n\nlint:\n\truff check .\n\nfmt:\n\truff format .\n",
    "mk/common.mk": "build:\n\tpnpm -r build\n",
    "go.mod": "module example.com/big\n\ngo 1.22\n",
    ".golangci.yml": "run:\n  timeout: 5m\n",
    ".pre-commit-config.yaml": "repos: []\n",
    "scripts/test": "#!/bin/sh\nset -e\nuv run pytest\n",
    ".github/workflows/ci.yml": (
        "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n      - run: uv sync\n"
        "      - run: uv run pytest -q\n      - run: pnpm install --frozen-lockfile\n      - run: pnpm test\n"
        "      - uses: golangci/golangci-lint-action@v6\n"
    ),
    ".github/workflows/release.yml": "jobs:\n  publish:\n    steps:\n      - run: uv build\n",
}


def generate(root: Path, total_files: int) -> int:
    """Write ROOT_FILES plus enough source files to reach `total_files`, spread over a realistic layout."""
    for rel, text in ROOT_FILES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    packages = 40
    for index in range(packages):
        package = root / "packages" / f"pkg{index:02d}"
        package.mkdir(parents=True, exist_ok=True)
        (package / "package.json").write_text(json.dumps({"name": f"pkg{index}", "scripts": {"test": "vitest run"}}))
    written = len(ROOT_FILES) + packages
    layout = ("src/app", "tests/unit", "packages/pkg{n:02d}/src", "node_modules/dep{n}/lib", "docs/guide")
    directory_index = 0
    while written < total_files:
        base = layout[directory_index % len(layout)].format(n=directory_index % packages)
        directory = root / base / f"d{directory_index // len(layout):04d}"
        directory.mkdir(parents=True, exist_ok=True)
        batch = min(100, total_files - written)
        for number in range(batch):
            (directory / f"module_{number}.py").touch()
        written += batch
        directory_index += 1
    return written


def timed(function: Callable[[], object], runs: int) -> list[float]:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=200, help="in-process detection runs")
    parser.add_argument("--process-runs", type=int, default=15, help="whole-process runs")
    parser.add_argument("--no-write", action="store_true", help="print only; leave docs/bench-facts.md alone")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="freshpass-bench-facts-") as tmp:
        root = Path(tmp) / "big-repo"
        root.mkdir()
        (root / ".git").mkdir()  # a root of its own, as a real checkout would be
        started = time.perf_counter()
        files = generate(root, args.files)
        generation_s = time.perf_counter() - started

        load_before = os.getloadavg()[0]  # other processes on the machine skew every number below
        facts = detect_facts(root)  # warm the OS caches once, as an editor's second request would
        commands = len(facts.verify_commands)
        in_process = timed(lambda: detect_facts(root), args.runs)

        def walk() -> int:
            return sum(len(names) for _, _, names in os.walk(root))

        walked = walk()
        walk_ms = timed(walk, 3)

        cli = [sys.executable, "-m", "freshpass", "facts", "--json", str(root)]
        subprocess.run(cli, check=True, capture_output=True)
        process = timed(lambda: subprocess.run(cli, check=True, capture_output=True), args.process_runs)
        bare = timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), args.process_runs)

    rows = [
        ("`detect_facts` in-process (warm)", in_process, "< 20 ms"),
        ("`freshpass facts --json` whole process", process, "< 300 ms"),
        ("`python -c pass` (interpreter start, for reference)", bare, ""),
        ("`os.walk` of the same tree (what detection avoids)", walk_ms, ""),
    ]
    lines = [
        "# Facts detection benchmark",
        "",
        f"Generated tree: {files:,} files ({walked:,} seen by `os.walk`), a Python + pnpm + Go monorepo root with "
        f"CI workflows, Makefile, tox, nox, pre-commit; detection lists {commands} verify commands. "
        f"Generation took {generation_s:.1f} s.",
        "",
        f"Machine: {platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs (shared), "
        f"load average {load_before:.1f} before / {os.getloadavg()[0]:.1f} after the runs. "
        f"Runs: {args.runs} in-process, {args.process_runs} processes.",
        "",
        "| measurement | p50 ms | p95 ms | min ms | target |",
        "| --- | ---: | ---: | ---: | --- |",
    ]
    for name, samples, target in rows:
        lines.append(
            f"| {name} | {statistics.median(samples):.2f} | {percentile(samples, 0.95):.2f} | "
            f"{min(samples):.2f} | {target} |"
        )
    lines += [
        "",
        "Reproduce: `.venv/bin/python bench/bench_facts.py` (writes this file).",
        "",
    ]
    table = "\n".join(lines)
    print(table)
    if not args.no_write:
        OUTPUT.write_text(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
