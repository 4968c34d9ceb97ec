"""What CI runs: `run:` steps of `.github/workflows/*.yml` and a few well-known check actions.

CI is read for two reasons: a local check that CI also runs is stronger, and for a kind nothing local declares, a
CI step a contributor can run locally is the fallback. So each step keeps its context — the variables of its
workflow, job and step `env:` (expanded into the command where they are plain values), whether its failure is
ignored, whether it runs only on pull requests, which other repositories the job checks out and where, and which
tools earlier steps of the job install — and `facts.checks` decides from it whether the step is runnable locally.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from freshpass.facts.lazyre import lazy
from freshpass.facts.model import Kind

from .base import Candidate, Collector, join_cwd

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
EXPRESSION = lazy(r"\$\{\{")
_VARIABLE = lazy(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")
# How CI steps install tools: the installed program's name, when it can be read off the step.
_INSTALLS = (
    lazy(r"\bgo\s+install\s+(?:-\S+\s+)*(\S+)"),
    lazy(r"\bcargo\s+(?:b?install)\s+(?:--\S+\s+)*([A-Za-z0-9_-]+)"),
    lazy(r"\bnpm\s+(?:i|install)\s+(?:-g|--global)\s+(?:-\S+\s+)*([@\w/.-]+)"),
    lazy(r"\b(?:apt-get|apt)\s+install\s+(?:-\S+\s+)*([\w.+-]+(?:\s+[\w.+-]+)*)"),
    lazy(r"\bbrew\s+install\s+([\w.+-]+(?:\s+[\w.+-]+)*)"),
    lazy(r"\bgem\s+install\s+([\w.+-]+)"),
)


@dataclass
class StepContext:
    """What a CI step depends on, for deciding whether a contributor can run the same command locally."""

    workflow: str
    job: str
    env: dict[str, str] = field(default_factory=dict)  # plain values only (no `${{ }}`)
    expression_env: set[str] = field(default_factory=set)  # names whose value is a workflow expression
    failure_ignored: bool = False  # `continue-on-error: true`
    pull_request_only: bool = False
    checkout_paths: list[str] = field(default_factory=list)  # where other repositories are checked out
    installed: set[str] = field(default_factory=set)  # programs earlier steps of the job install
    action: str = ""  # the action the step uses, for action-run checks


def read(c: Collector) -> None:
    names = [n for n in c.listdir(WORKFLOWS_DIR) if n.endswith((".yml", ".yaml"))]
    for name in names:
        rel = f"{WORKFLOWS_DIR}/{name}"
        if c.is_file(rel):
            _read_workflow(c, rel)


def _env(node: Any) -> tuple[dict[str, str], set[str]]:
    plain: dict[str, str] = {}
    expressions: set[str] = set()
    env = node.get("env") if isinstance(node, dict) else None
    if isinstance(env, dict):
        for key, value in env.items():
            if not isinstance(key, str):
                continue
            text = str(value).lower() if isinstance(value, bool) else str(value)
            if EXPRESSION.search(text):
                expressions.add(key)
            else:
                plain[key] = text
    return plain, expressions


def _pull_request_only(condition: Any) -> bool:
    return isinstance(condition, str) and bool(
        re.search(r"github\.event_name\s*==\s*['\"]pull_request", condition)
        or re.search(r"github\.event\.pull_request", condition)
    )


def _read_workflow(c: Collector, rel: str) -> None:
    data = c.load_yaml(rel)
    if data is None:
        return
    if not isinstance(data, dict) or not isinstance(data.get("jobs"), dict):
        c.problem(rel, "not a GitHub workflow: no 'jobs' mapping")
        return
    c.manifest(rel)
    c.context(rel)
    workflow_env, workflow_expr = _env(data)
    workflow_dir = _working_directory(data)
    triggers = data.get("on", data.get(True))  # PyYAML reads a bare `on:` key as True
    pr_only_workflow = triggers in ("pull_request", ["pull_request"]) or (
        isinstance(triggers, dict) and set(map(str, triggers)) <= {"pull_request", "pull_request_target"}
    )
    for job_id, job in data["jobs"].items():
        if not isinstance(job, dict):
            continue
        steps = job.get("steps")
        if not isinstance(steps, list):
            continue
        job_env, job_expr = _env(job)
        job_dir = _working_directory(job) or workflow_dir or "."
        checkouts: list[str] = []
        installed: set[str] = set()
        job_pr_only = pr_only_workflow or _pull_request_only(job.get("if"))
        for index, step in enumerate(steps):
            c.check_time()
            if not isinstance(step, dict):
                continue
            source = f"{rel}#jobs.{job_id}.steps[{index}]"
            step_env, step_expr = _env(step)
            context = StepContext(
                workflow=rel,
                job=str(job_id),
                env={**workflow_env, **job_env, **step_env},
                expression_env=(workflow_expr | job_expr | step_expr) - set(step_env) - set(job_env),
                failure_ignored=step.get("continue-on-error") is True,
                pull_request_only=job_pr_only or _pull_request_only(step.get("if")),
                checkout_paths=list(checkouts),
                installed=set(installed),
            )
            step_dir = step.get("working-directory")
            cwd = join_cwd(".", step_dir) if isinstance(step_dir, str) and not EXPRESSION.search(step_dir) else job_dir
            if isinstance(step_dir, str) and EXPRESSION.search(step_dir):
                cwd = "${{ }}"  # a directory only CI knows: never runnable as is
            uses = step.get("uses")
            if isinstance(uses, str):
                name = uses.split("@", 1)[0]
                given = step.get("with")
                inputs: dict[str, Any] = given if isinstance(given, dict) else {}
                if name == "actions/checkout" and (inputs.get("repository") or inputs.get("path")):
                    if isinstance(inputs.get("path"), str):
                        checkouts.append(join_cwd(".", inputs["path"]))
                elif name.split("/")[-1].startswith("setup-") or "install" in name:
                    tool = inputs.get("tool") if isinstance(inputs.get("tool"), str) else None
                    for program in (tool or "").replace(",", " ").split():
                        installed.add(program.split("@", 1)[0])
                _read_action(c, name, inputs, cwd, source, context)
            run = step.get("run")
            if isinstance(run, str):
                shell = step.get("shell") or _default_shell(job) or _default_shell(data)
                if isinstance(shell, str) and shell.split()[:1] != [] and not _posix_shell(shell.split()[0]):
                    continue  # not a POSIX shell (`pwsh`, `python`, `Rscript {0}`): its lines are not commands
                for pattern in _INSTALLS:
                    for match in pattern.finditer(run):
                        for spec in match.group(1).split():
                            installed.add(_program_of(spec))
                text = expand_variables(run, context.env)
                label = step.get("name")
                c.add(Candidate(text, cwd, source, "ci", name=label if isinstance(label, str) else "", body=(text,),
                                ci=context))  # fmt: skip


def _program_of(spec: str) -> str:
    """`github.com/kyoh86/richgo@latest` → richgo; `cargo-nextest` stays; `@scope/pkg` → pkg."""
    spec = spec.split("@", 1)[0] if not spec.startswith("@") else spec[1:].split("@", 1)[0]
    name = spec.rstrip("/").rsplit("/", 1)[-1]
    return re.sub(r"/v\d+$", "", name) or spec


def expand_variables(text: str, env: dict[str, str]) -> str:
    """`cargo test $FEATURES` with `FEATURES: --features x` in the step's env → `cargo test --features x`."""
    if "$" not in text:
        return text

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return env[name] if name in env and "$" not in env[name] else match.group(0)

    return _VARIABLE.sub(value, text)


def _working_directory(node: dict[str, Any]) -> str | None:
    run_defaults = node.get("defaults", {}).get("run", {}) if isinstance(node.get("defaults"), dict) else {}
    directory = run_defaults.get("working-directory") if isinstance(run_defaults, dict) else None
    if isinstance(directory, str) and not EXPRESSION.search(directory):
        return join_cwd(".", directory)
    return None


def _posix_shell(program: str) -> bool:
    return program.rsplit("/", 1)[-1] in ("bash", "sh", "zsh", "dash", "ksh")


def _default_shell(node: Any) -> Any:
    if not isinstance(node, dict) or not isinstance(node.get("defaults"), dict):
        return None
    run_defaults = node["defaults"].get("run")
    return run_defaults.get("shell") if isinstance(run_defaults, dict) else None


def _read_action(c: Collector, name: str, inputs: dict[str, Any], cwd: str, source: str, context: StepContext) -> None:
    for prefix, command, kind in _ACTIONS:
        if name != prefix and not name.startswith(prefix + "/"):
            continue
        directory = inputs.get("working-directory") or inputs.get("src")
        action_cwd = cwd
        if isinstance(directory, str) and not EXPRESSION.search(directory) and prefix != "psf/black":
            action_cwd = join_cwd(".", directory)
        args = inputs.get("args") if prefix != "pre-commit/action" else inputs.get("extra_args")
        if isinstance(args, str) and args.strip() and not EXPRESSION.search(args):
            if prefix.endswith("ruff-action"):
                first = args.split()[0]
                command = f"ruff {args.strip()}" if first in ("check", "format") else f"ruff check {args.strip()}"
            elif prefix == "pre-commit/action":
                command = f"pre-commit run {args.strip()}"
            elif prefix == "golangci/golangci-lint-action":
                command = f"golangci-lint run {args.strip()}"
        command = " ".join(command.split())
        context.action = name
        c.add(Candidate(command, action_cwd, source, "ci", kind=kind, body=(command,), ci=context))
        return
