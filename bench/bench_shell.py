"""What the shell hook costs a prompt whose command is no check (`freshpass shell-init`), in bash, zsh and fish.

For each shell: a trusted project with its first-word cache (as `freshpass trust` writes it), a working directory
four levels below the root, and the hook loaded from `freshpass shell-init`. One prompt is the hook's own work as
the shell runs it — the preexec step on `ls -la` (the walk up to the cache, the first-word match) and the precmd
step — repeated in a loop inside one shell process; the same loop with no hook loaded is the baseline. A batch is
`ITERATIONS` prompts in one shell process; the figure is (batch with hook − batch without) / `ITERATIONS`, and the
table shows the median and worst of `BATCHES` batches. No process is started by the hook for such a command: that
is the point (a started process costs tens of milliseconds).

    .venv/bin/python bench/bench_shell.py
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ITERATIONS = 500
BATCHES = 7

LOOPS = {
    "bash": (
        ["bash", "--norc", "--noprofile", "-i", "-c"],
        'eval "$FP_INIT"; type __freshpass_preexec >/dev/null || exit 3; '
        'cd "$FP_CWD"; for ((i = 0; i < $FP_N; i++)); do {HOOK} done',
        '__freshpass_armed=1; __freshpass_preexec "ls -la"; true; __freshpass_precmd; __freshpass_arm;',
    ),
    "zsh": (
        ["zsh", "-f", "-i", "-c"],
        'eval "$FP_INIT"; cd "$FP_CWD"; for ((i = 0; i < $FP_N; i++)); do {HOOK} done',
        '__freshpass_preexec "ls -la"; __freshpass_precmd;',
    ),
    "fish": (
        ["fish", "--no-config", "-i", "-c"],
        "printf %s $FP_INIT | source; functions -q __freshpass_preexec; or exit 3; "
        "cd $FP_CWD; for i in (seq $FP_N); {HOOK} end",
        'emit fish_preexec "ls -la"; emit fish_postexec "ls -la";',
    ),
}


def batch(shell: str, hooked: bool, init: str, cwd: Path, env: dict[str, str]) -> float:
    argv, loop, hook = LOOPS[shell]
    body = loop.replace("{HOOK}", hook if hooked else ":;")
    if not hooked:
        body = body.split("cd ", 1)[0].split("eval", 1)[0].split("printf", 1)[0] + "cd " + body.split("cd ", 1)[1]
    run_env = {**env, "FP_INIT": init, "FP_CWD": str(cwd), "FP_N": str(ITERATIONS), "BASH_COMMAND": "ls -la"}
    started = time.perf_counter()
    subprocess.run([*argv, body], env=run_env, check=True, stdin=subprocess.DEVNULL, capture_output=True)
    return time.perf_counter() - started


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root = base / "project"
        cwd = root / "src" / "pkg" / "sub" / "deep"
        cwd.mkdir(parents=True)
        (root / "pyproject.toml").write_text('[project]\nname = "b"\nversion = "0"\n[tool.pytest.ini_options]\n')
        env = {**os.environ, "XDG_STATE_HOME": str(base / "state"), "FRESHPASS_LEDGER": str(base / "ledger.db"),
               "HOME": str(base)}  # fmt: skip
        subprocess.run([sys.executable, "-m", "freshpass", "trust", str(root)], env=env, check=True,
                       capture_output=True)  # fmt: skip
        for shell in LOOPS:
            if shutil.which(shell) is None:
                rows.append((shell, None, None))
                continue
            init = subprocess.run([sys.executable, "-m", "freshpass", "shell-init", shell], env=env, check=True,
                                  capture_output=True, text=True).stdout  # fmt: skip
            # `fish -c` is never interactive: the bench loads the hook past its interactive-only guard.
            init = init.replace("if status is-interactive; and not set -q __freshpass_loaded", "if true")
            per_prompt = []
            for _ in range(BATCHES):
                hooked = batch(shell, True, init, cwd, env)
                plain = batch(shell, False, init, cwd, env)
                per_prompt.append(max(0.0, hooked - plain) / ITERATIONS * 1000)
            rows.append((shell, statistics.median(per_prompt), max(per_prompt)))
    print("| shell | hook cost per prompt, no check (p50 of batches) | worst batch |")
    print("| --- | --- | --- |")
    for shell, median, worst in rows:
        if median is None:
            print(f"| {shell} | not installed | |")
        else:
            print(f"| {shell} | {median:.3f} ms | {worst:.3f} ms |")


if __name__ == "__main__":
    main()
