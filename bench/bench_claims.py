"""The claim reader on the labelled set, and `freshpass hook claude-stop`'s time (target: under 150 ms).

Scoring (`--split tuning` by default; `--split validation` is the sealed split, scored once when the reader was
done): per language, precision and recall of "the message claims checks passed", and how often the kinds named
agree with the labels. Hook timing: whole processes, interleaved with `python -c pass` on the same machine, in a
temporary committed project with a fresh pass recorded — a stop whose message makes a claim (markdown-it and the
lexicon are loaded) and a stop whose payload has no message and no transcript.

    .venv/bin/python bench/bench_claims.py [--split tuning|validation] [--hook] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from freshpass.evidence.claims import find_claims
from freshpass.evidence.claims.lang import LANGUAGES

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "claims" / "messages.jsonl"


def score(split: str) -> None:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    print(f"| language | cases | claims | precision | recall | kinds agree | ({split}) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    total = [0, 0, 0, 0, 0, 0]
    for language in (*LANGUAGES, "all"):
        if language == "all":
            tp, fp, fn, cases, claims, agree = total
        else:
            tp = fp = fn = cases = claims = agree = 0
            for row in rows:
                if row["split"] != split or row["language"] != language:
                    continue
                found = find_claims(row["text"])
                cases += 1
                claims += row["claim"]
                tp += bool(found) and row["claim"]
                fp += bool(found) and not row["claim"]
                fn += not found and row["claim"]
                agree += bool(found) and row["claim"] and sorted({c.kind for c in found}) == sorted(row["subject"])
            total = [a + b for a, b in zip(total, (tp, fp, fn, cases, claims, agree), strict=True)]
        precision = tp / (tp + fp) if tp + fp else 1.0
        recall = tp / (tp + fn) if tp + fn else 1.0
        print(
            f"| {language} | {cases} | {claims} | {precision:.1%} ({fp} false) | {recall:.1%} ({fn} missed) | "
            f"{agree}/{tp} | |"
        )


def hook(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-") as scratch:
        root = Path(scratch)
        repo = root / "project"
        (repo / "tests").mkdir(parents=True)
        (repo / "pyproject.toml").write_text('[project]\nname = "calc"\n[tool.pytest.ini_options]\n')
        (repo / "tests" / "test_ok.py").write_text("def test_ok():\n    assert True\n")
        env = {**os.environ, "XDG_STATE_HOME": str(root / "state"), "XDG_DATA_HOME": str(root / "data"),
               "PYTHONPYCACHEPREFIX": str(root / "pycache"), "GIT_CONFIG_GLOBAL": os.devnull}  # fmt: skip
        for argv in (["git", "init", "-q"], ["git", "add", "."], ["git", "-c", "user.name=b", "-c", "user.email=b@x",
                     "commit", "-qm", "init"]):  # fmt: skip
            subprocess.run(argv, cwd=repo, env=env, check=True, capture_output=True)
        base = {"session_id": "bench", "cwd": str(repo), "hook_event_name": "Stop", "stop_hook_active": False}
        message = "## Summary\n\nFixed the parser.\n\n- `pytest` — 12 passed\n- lint is clean\n\nAll tests pass."
        payloads = {
            "python -c pass": None,
            "claude-stop, a message with a claim": json.dumps({**base, "last_assistant_message": message}),
            "claude-stop, no message": json.dumps(base),
        }
        samples: dict[str, list[float]] = {name: [] for name in payloads}
        cpu: dict[str, list[float]] = {name: [] for name in payloads}
        for round_ in range(runs + 1):
            for name, payload in payloads.items():
                argv = [sys.executable, "-c", "pass"] if payload is None else [
                    sys.executable, "-m", "freshpass", "hook", "claude-stop"]  # fmt: skip
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                started = time.perf_counter()
                subprocess.run(argv, cwd=repo, env=env, input=payload, capture_output=True, text=True, check=False)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                if round_:  # the first round fills the bytecode cache
                    samples[name].append(time.perf_counter() - started)
                    cpu[name].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        baseline = statistics.median(samples["python -c pass"])
        cpu_baseline = statistics.median(cpu["python -c pass"])
        print(f"| process ({runs} runs, load {os.getloadavg()[0]:.1f}) | wall p50 | wall min | over python -c pass "
              "(p50) | CPU p50 | CPU over python -c pass |")  # fmt: skip
        print("| --- | --- | --- | --- | --- | --- |")
        for name, times in samples.items():
            p50, cpu50 = statistics.median(times), statistics.median(cpu[name])
            print(f"| {name} | {p50 * 1000:.0f} ms | {min(times) * 1000:.0f} ms | {(p50 - baseline) * 1000:+.0f} ms | "
                  f"{cpu50 * 1000:.0f} ms | {(cpu50 - cpu_baseline) * 1000:+.0f} ms |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("tuning", "validation"), default="tuning")
    parser.add_argument("--hook", action="store_true", help="time `freshpass hook claude-stop` instead")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if args.hook:
        hook(args.runs)
    else:
        score(args.split)


if __name__ == "__main__":
    main()
