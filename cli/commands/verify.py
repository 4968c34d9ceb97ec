"""`freshpass verify` (design §5, §8): run the project's recipe and record one receipt for the run.

Exit 0 when every selected phase passed (and the app answered, when `start` ran), 1 otherwise, 2 on usage errors
(including a selection that cannot run, such as a start command without a known port), 128+N when stopped by
signal N (130 for Ctrl-C), after tearing everything down and recording the aborted run.

The receipt is kind `test` when the run executed test commands (a full verify is a superset of the approved test
run), else `check` (a build-and-boot check); scope `full` only when every declared phase was selected, `targeted`
with `--phase` or `--skip-start`. Its details hold each command's phase, exit code, duration and output tail.

`--json` prints one object on stdout (live output goes to stderr as `[phase] line`): `{root, recipe_source, status,
scope, reason, detail, failed_phase, declared_phases, selected_phases, ran_phases, port, duration, commands:
[{phase, command, cwd, exit_code, duration, passed, timed_out, cancelled, output_tail, notes}], readiness: {url,
ready, last_status, attempts, waited} | null, evidence: <the receipt> | null, problems: [{file, message}]}`.
`reason` is `aborted` (timeout or interrupt), `exit code N`, `cannot start`, `port in use`, `start exited`, `not
ready`, or null. `notes` says what a person should know about a command's processes (one that left its process
group and was stopped).
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.commands import UsageError
from freshpass.runner.terminal import say

if TYPE_CHECKING:
    from freshpass.evidence.runs import RecipeOutcome
    from freshpass.facts.model import ProjectFacts
    from freshpass.runner.environment import RunEnvironment
    from freshpass.runner.verify import VerifyPlan, VerifyResult

PHASE_NAMES = ("bootstrap", "build", "test", "start")


def _positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _port(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number 1-65535, got {text!r}")
    return int(text)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", metavar="PATH", help="a directory of the project (default: .)")
    parser.add_argument(
        "--phase",
        action="append",
        choices=PHASE_NAMES,
        default=[],
        metavar="P",
        help="run only this phase (repeatable): bootstrap, build, test, start; makes the receipt targeted",
    )
    parser.add_argument("--skip-start", action="store_true", help="do not start the app (receipt is targeted)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON on stdout (output to stderr)")
    parser.add_argument("--timeout", type=_positive_seconds, metavar="S", help="abort any phase running longer")
    parser.add_argument(
        "--ready-timeout", type=_positive_seconds, metavar="S", help="how long the app may take to answer (60)"
    )
    parser.add_argument("--port", type=_port, metavar="N", help="the port the app serves on ($PORT for commands)")
    parser.add_argument("--save", action="store_true", help="write the recipe to .freshpass/recipe.json")
    parser.add_argument("--detect-only", action="store_true", help="print the recipe and run nothing")


def _project_root(path_arg: str) -> Path:
    from freshpass.facts.roots import find_package_root, find_root

    path = Path(path_arg).expanduser()
    if not path.is_dir():
        raise UsageError(f"{path_arg}: not a directory")
    path = path.resolve()
    root = find_root(path)
    return find_package_root(path, root) if root is not None else path


def _describe_recipe(recipe: dict[str, Any]) -> str:
    from freshpass.runner.terminal import safe

    lines = [f"recipe ({safe(recipe.get('source', '?'))}):"]
    for phase in PHASE_NAMES:
        commands = recipe["phases"].get(phase) or []
        if not commands:
            lines.append(f"  {phase}: (none)")
        for command in commands:
            where = f"  (in {safe(command['cwd'])})" if command.get("cwd", ".") != "." else ""
            lines.append(f"  {phase}: {safe(command['command'])}{where}")
    port = recipe.get("port")
    lines.append(f"  port: {safe(port) if port else 'unknown'}")
    if recipe.get("ready_url"):
        lines.append(f"  ready_url: {safe(recipe['ready_url'])}")
    for command in recipe.get("stop") or []:
        lines.append(f"  stop: {safe(command['command'])}")
    return "\n".join(lines)


def _canonical(args: argparse.Namespace) -> str:
    """The receipt's canonical command: what selected the phases, never paths or timing knobs."""
    words = ["freshpass", "verify"]
    for phase in args.phase:
        words += ["--phase", phase]
    if args.skip_start:
        words.append("--skip-start")
    return shlex.join(words)


async def _verify(
    args: argparse.Namespace, plan: VerifyPlan, facts: ProjectFacts, environment: RunEnvironment
) -> tuple[RecipeOutcome, int]:
    """Run the plan with live output, then record; returns (what it came to, the signal that stopped it or 0)."""
    import asyncio
    import signal

    from freshpass.evidence.runs import actor_from_environment, run_recipe
    from freshpass.runner.console import PlainReporter, TtyReporter
    from freshpass.runner.verify import VerifyReporter

    reporter: VerifyReporter
    if args.json:
        reporter = PlainReporter(sys.stderr)
    elif sys.stdout.isatty():
        tty = TtyReporter(sys.stdout)
        tty.start()
        reporter = tty
    else:
        reporter = PlainReporter(sys.stdout)

    # Ctrl-C and TERM cancel the run: the runner then tears every process group down and we still record.
    cancel = asyncio.Event()
    received: list[int] = []

    def stop(signum: int) -> None:
        received.append(signum)
        cancel.set()

    def aborted(result: VerifyResult) -> None:
        if received:
            result.passed, result.reason = False, "aborted"
            result.detail = result.detail or "interrupted; every process the run started was torn down"

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop, sig)
    try:
        line = shlex.join(["freshpass", *sys.argv[1:]]) if sys.argv[1:2] == ["verify"] else _canonical(args)
        outcome = await run_recipe(
            plan,
            facts,
            actor=actor_from_environment(),
            line=line,
            canonical_command=_canonical(args),
            environment=environment,
            reporter=reporter,
            cancel=cancel,
            aborted=aborted,
            say=lambda text: say(f"freshpass verify: {text}"),
        )
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
    return outcome, received[0] if received else 0


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from freshpass.commands.status import detach_stdin
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.recipes import load_recipe, save_recipe
    from freshpass.runner.verify import VerifyPlanError, compose_preflight, plan_verify

    detach_stdin()  # commands run with stdin closed; freshpass itself never reads the terminal either
    root = _project_root(args.path)
    try:
        facts = asyncio.run(detect_bounded(root))
    except Unavailable as exc:
        say(f"freshpass verify: {exc}")
        return 1
    recipe, problems = facts.recipe, facts.recipe_problems  # detection decided the recipe with the facts
    for problem in problems:
        say(f"freshpass verify: {problem.file}: {problem.message}")
    if recipe is None:
        raise UsageError(
            f"no recipe for {root}: no manifest says how to build, test or start it; "
            "declare one in .freshpass/recipe.json or [tool.freshpass.recipe]"
        )
    if args.port:
        recipe = {**recipe, "port": args.port}

    if args.save:
        try:
            path = save_recipe(root, recipe)
        except OSError as exc:
            say(f"freshpass verify: cannot save the recipe: {exc}")
            return 1
        say(f"freshpass verify: saved the recipe to {path}")
        recipe = load_recipe(root)[0] or recipe
    if args.detect_only:
        if args.json:
            print(json.dumps({"root": str(root), "recipe": recipe, "problems": [p.to_json() for p in problems]}))
        else:
            print(_describe_recipe(recipe))
        return 0

    try:
        plan = plan_verify(
            root,
            recipe,
            phases=args.phase,
            skip_start=args.skip_start,
            timeout=args.timeout,
            ready_timeout=args.ready_timeout,
            port=args.port,
        )
    except VerifyPlanError as exc:
        raise UsageError(str(exc)) from None

    from freshpass.evidence.runs import recipe_environment

    environment = recipe_environment(plan)
    for said in (environment.summary(), *environment.notes):
        if said:
            say(f"freshpass verify: {said}")
    refusal = asyncio.run(compose_preflight(plan, environment.apply(os.environ)))
    if refusal is not None:
        say(f"freshpass verify: refused: {refusal}")
        return 1

    outcome, interrupted = asyncio.run(_verify(args, plan, facts, environment))
    result, evidence = outcome.result, outcome.evidence
    if outcome.problem:
        say(f"freshpass verify: {outcome.problem}")

    if args.json:
        payload = result.to_json()
        payload["evidence"] = evidence.to_json() if evidence is not None else None
        payload["problems"] = [p.to_json() for p in problems]
        print(json.dumps(payload))
    else:
        _print_summary(result, evidence)
    if interrupted:
        return 128 + interrupted
    return 0 if result.passed else 1


def _print_summary(result: VerifyResult, evidence: Any) -> None:
    from freshpass.runner.terminal import safe

    plan = result.plan
    ran = ", ".join(result.ran_phases) or "nothing"
    if result.passed:
        ready = f"; {result.readiness.url} answered {result.readiness.last_status}" if result.readiness else ""
        line = f"✓ verify passed ({plan.scope}: {ran}){ready}"
    else:
        line = f"✗ verify failed ({plan.scope}, reason: {result.reason})"
        if result.detail:
            line += f"\n  {result.detail.replace(chr(10), chr(10) + '    ')}"
    if evidence is not None:
        line += f"\n  receipt #{evidence.id} recorded"
    print(safe(line, multiline=True), flush=True)
