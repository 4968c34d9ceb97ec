"""What runs on every call an agent or a terminal makes, against its baseline, measured side by side in one run.

In a temporary committed Python project, whole processes as an agent's harness starts them (the `freshpass`
console script, what the hooks' commands name), interleaved round by round with their baselines so a burst of
load on this shared machine hits them alike:

- `python -c pass` (the interpreter's own start: the baseline of the hooks) and `true` (of `freshpass run`);
- `freshpass hook record` of Claude Code's PostToolUse for `ls -la` (no check; target ≤ 50 ms and ≤ 2.5× the
  baseline);
- `freshpass hook pre` of the PreToolUse for `ls -la` (target ≤ 50 ms), and for `pytest -q` (a possible check:
  the content is read and kept — reported, no target);
- `freshpass run -- true` (overhead over `true`, target ≤ 100 ms);
- `freshpass hook claude-stop` of a Stop with a fresh full pass (target ≤ 150 ms): with the facts an earlier
  process kept (`freshpass.evidence.facts_cache`; the common case: the agent's own test run detected them), and
  with none kept (the cache file removed before each run, as after a change to a manifest).

Python's bytecode cache is on for the measured processes (a private `PYTHONPYCACHEPREFIX`), as in an ordinary
installation; the first, cache-filling round is not counted. Prints a markdown table; `--write` replaces its
section of docs/benchmarks.md.

    .venv/bin/python bench/bench_hooks.py [--runs N] [--write]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _ledger_report import timed_interleaved
from freshpass.evidence import facts_cache

FRESHPASS = str(Path(sys.executable).parent / "freshpass")
DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
SESSION = "bench-session"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def project(scratch: Path, env: dict[str, str]) -> Path:
    repo = scratch / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "pyproject.toml").write_text('[project]\nname = "bench"\nversion = "0"\n\n[tool.pytest.ini_options]\n')
    (repo / "app.py").write_text("def answer():\n    return 42\n")
    (repo / "tests" / "test_app.py").write_text("def test_answer():\n    assert 42 == 42\n")
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "bench"]):
        subprocess.run(command, cwd=repo, env=env, check=True, capture_output=True)
    return repo


def claude(event: str, repo: Path, command: str, **extra: object) -> bytes:
    payload = {"session_id": SESSION, "transcript_path": str(repo.parent / "none.jsonl"), "cwd": str(repo),
               "permission_mode": "default", "hook_event_name": event, "tool_name": "Bash",
               "tool_input": {"command": command}, "tool_use_id": "toolu_bench", **extra}  # fmt: skip
    return json.dumps(payload).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--write", action="store_true", help="update docs/benchmarks.md")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="freshpass-bench-hooks-") as name:
        scratch = Path(name)
        env = {k: v for k, v in os.environ.items() if k not in {"PYTHONDONTWRITEBYTECODE", "FRESHPASS_SESSION"}}
        env.update(
            FRESHPASS_LEDGER=str(scratch / "state" / "ledger.db"),
            PYTHONPYCACHEPREFIX=str(scratch / "pycache"),
            PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
            GIT_CONFIG_GLOBAL=os.devnull,
            GIT_CONFIG_NOSYSTEM="1",
            GIT_AUTHOR_NAME="bench",
            GIT_AUTHOR_EMAIL="bench@example.invalid",
            GIT_COMMITTER_NAME="bench",
            GIT_COMMITTER_EMAIL="bench@example.invalid",
        )
        repo = project(scratch, env)
        # A fresh full pass, so the stop is allowed (the common case: the agent ran its tests).
        ran = subprocess.run([FRESHPASS, "run", "--", "pytest -q"], cwd=repo, env=env, capture_output=True)
        assert b"recorded test passed" in ran.stderr, ran.stderr.decode()
        kept = facts_cache.cache_file(str(repo), env)
        assert kept is not None
        stop = json.dumps({"session_id": SESSION, "transcript_path": str(scratch / "none.jsonl"), "cwd": str(repo),
                           "hook_event_name": "Stop", "stop_hook_active": False,
                           "last_assistant_message": "Done: all tests pass."}).encode()  # fmt: skip
        variants = {
            "python": ([sys.executable, "-c", "pass"], b""),
            "record ls": ([FRESHPASS, "hook", "record"], claude("PostToolUse", repo, "ls -la", tool_response={
                "stdout": "app.py\n", "stderr": "", "interrupted": False, "isImage": False})),
            "pre ls": ([FRESHPASS, "hook", "pre"], claude("PreToolUse", repo, "ls -la")),
            "pre pytest": ([FRESHPASS, "hook", "pre"], claude("PreToolUse", repo, "pytest -q")),
            "true": (["true"], b""),
            "run true": ([FRESHPASS, "run", "--", "true"], b""),
            "claude-stop": ([FRESHPASS, "hook", "claude-stop"], stop),
            "claude-stop detecting": (["sh", "-c", 'rm -f "$0" && exec "$1" hook claude-stop', str(kept), FRESHPASS],
                                      stop),
        }  # fmt: skip
        samples = timed_interleaved(args.runs, variants, repo, env)

    def p50(key: str) -> float:
        return statistics.median(samples[key])

    base = p50("python")
    rows = [
        ("`python -c pass` (baseline)", "python", "—", ""),
        ("`freshpass hook record`, PostToolUse of `ls -la`", "record ls", "≤ 50 ms, ≤ 2.5× baseline",
         f"{p50('record ls') / base:.2f}× baseline, +{ms(p50('record ls') - base)}"),
        ("`freshpass hook pre`, PreToolUse of `ls -la`", "pre ls", "≤ 50 ms",
         f"{p50('pre ls') / base:.2f}× baseline, +{ms(p50('pre ls') - base)}"),
        ("`freshpass hook pre`, PreToolUse of `pytest -q` (keeps the content)", "pre pytest", "—",
         f"+{ms(p50('pre pytest') - base)}"),
        ("`true` (baseline)", "true", "—", ""),
        ("`freshpass run -- true`", "run true", "overhead ≤ 100 ms", f"overhead {ms(p50('run true') - p50('true'))}"),
        ("`freshpass hook claude-stop`, fresh full pass", "claude-stop", "≤ 150 ms",
         f"{p50('claude-stop') / base:.2f}× baseline"),
        ("`freshpass hook claude-stop`, fresh full pass, facts detected (none kept)", "claude-stop detecting",
         "—", f"+{ms(p50('claude-stop detecting') - p50('claude-stop'))} over kept facts"),
    ]  # fmt: skip
    body = "\n".join(
        [
            "## What runs on every call (`bench/bench_hooks.py`)",
            "",
            f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.2f} on "
            f"{os.cpu_count()} CPUs, {args.runs} rounds, each variant beside its baseline in every round. Wall "
            "clock p50 (CPU time of the process in brackets).",
            "",
            "| measurement | p50 | CPU p50 | against its baseline | target |",
            "| --- | --- | --- | --- | --- |",
            *(
                f"| {label} | {ms(p50(key))} | {ms(p50(key + ' cpu'))} | {versus or '—'} | {target} |"
                for label, key, target, versus in rows
            ),
        ]
    )
    print(body)
    if args.write:
        start, end = "<!-- hooks:start -->", "<!-- hooks:end -->"
        text = DOC.read_text()
        block = f"{start}\n{body}\n{end}"
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.DOTALL)
        text = pattern.sub(lambda _: block, text) if pattern.search(text) else f"{text.rstrip()}\n\n{block}\n"
        DOC.write_text(text)


if __name__ == "__main__":
    main()
