"""Level 2: what CI runs. `run:` steps of `.github/workflows/*.yml` and a few well-known check actions."""

from __future__ import annotations

import os
import re
from typing import Any

from freshpass.facts.model import Kind

from .base import CI, Collector, join_cwd
from .shell import logical_lines, recognise_line

WORKFLOWS_DIR = ".github/workflows"

# Well-known actions that run a check themselves: (action name prefix, command, kind).
_ACTIONS: tuple[tuple[str, str, Kind], ...] = (
    ("golangci/golangci-lint-action", "golangci-lint run", "lint"),
    ("astral-sh/ruff-action", "ruff check", "lint"),
    ("chartboost/ruff-action", "ruff check", "lint"),
    ("pre-commit/action", "pre-commit run --all-files", "lint"),
    ("jakebailey/pyright-action", "pyright", "typecheck"),
    ("psf/black", "black --check .", "lint"),
)

# GitHub expression syntax: a line that still contains one is not a command anyone can type as is.
_EXPRESSION = re.compile(r"\$\{\{")


def detect(c: Collector) -> None:
    directory = c.path(WORKFLOWS_DIR)
    try:
        names = sorted(
            entry.name for entry in os.scandir(directory) if entry.name.endswith((".yml", ".yaml")) and entry.is_file()
        )
    except OSError:
        return
    for name in names:
        _read_workflow(c, f"{WORKFLOWS_DIR}/{name}")


def _read_workflow(c: Collector, rel: str) -> None:
    data = c.load_yaml(rel)
    if data is None:
        return
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        c.problem(rel, "not a GitHub workflow: no 'jobs' mapping")
        return
    c.manifest(rel)
    workflow_dir = _working_directory(data)
    for job_id, job in data["jobs"].items():
        if not isinstance(job, dict):
            continue
        steps = job.get("steps")
        if not isinstance(steps, list):
            continue
        job_dir = _working_directory(job) or workflow_dir or "."
        for index, step in enumerate(steps):
            if not isinstance(step, dict):
                continue
            source = f"{rel}#jobs.{job_id}.steps[{index}]"
            step_dir = step.get("working-directory")
            cwd = join_cwd(".", step_dir) if isinstance(step_dir, str) and not _EXPRESSION.search(step_dir) else job_dir
            run = step.get("run")
            if isinstance(run, str):
                shell = step.get("shell") or _default_shell(job) or _default_shell(data)
                if isinstance(shell, str) and shell.split()[0] in ("pwsh", "powershell", "cmd", "python"):
                    continue  # not a POSIX shell: its lines are not commands we can read
                _read_run(c, run, cwd, source)
            uses = step.get("uses")
            if isinstance(uses, str):
                _read_action(c, uses, step.get("with"), cwd, source)


def _working_directory(node: dict[str, Any]) -> str | None:
    run_defaults = node.get("defaults", {}).get("run", {}) if isinstance(node.get("defaults"), dict) else {}
    directory = run_defaults.get("working-directory") if isinstance(run_defaults, dict) else None
    if isinstance(directory, str) and not _EXPRESSION.search(directory):
        return join_cwd(".", directory)
    return None


def _default_shell(node: Any) -> Any:
    if not isinstance(node, dict) or not isinstance(node.get("defaults"), dict):
        return None
    run_defaults = node["defaults"].get("run")
    return run_defaults.get("shell") if isinstance(run_defaults, dict) else None


def _read_run(c: Collector, script: str, cwd: str, source: str) -> None:
    for line in logical_lines(script):
        if _EXPRESSION.search(line):
            continue
        for found in recognise_line(line, cwd):
            c.add(found.command, found.kind, source, CI, cwd=found.cwd)
        # A bare `cd dir` line changes the directory for the following lines of the same step.
        parts = line.split()
        if len(parts) == 2 and parts[0] == "cd":
            cwd = join_cwd(cwd, parts[1])


def _read_action(c: Collector, uses: str, with_: Any, cwd: str, source: str) -> None:
    name = uses.split("@", 1)[0]
    inputs = with_ if isinstance(with_, dict) else {}
    for prefix, command, kind in _ACTIONS:
        if name != prefix and not name.startswith(prefix + "/"):
            continue
        directory = inputs.get("working-directory") or inputs.get("src")
        action_cwd = cwd
        if isinstance(directory, str) and not _EXPRESSION.search(directory) and prefix != "psf/black":
            action_cwd = join_cwd(".", directory)
        args = inputs.get("args") if prefix != "pre-commit/action" else inputs.get("extra_args")
        if isinstance(args, str) and args.strip() and not _EXPRESSION.search(args):
            if prefix.endswith("ruff-action"):
                command = f"ruff {args.strip()}" if args.split()[0] in ("check", "format") else f"ruff check {args}"
                if "--fix" in args.split() or (args.split()[0] == "format" and "--check" not in args.split()):
                    return
            elif prefix == "pre-commit/action":
                command = f"pre-commit run {args.strip()}"
            elif prefix == "golangci/golangci-lint-action":
                command = f"golangci-lint run {args.strip()}"
        c.add(" ".join(command.split()), kind, source, CI, cwd=action_cwd)
        return
