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
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.commands import UsageError
from freshpass.runner.terminal import say

if TYPE_CHECKING:
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.model import ProjectFacts
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


def _receipt_kind(plan: VerifyPlan, result: VerifyResult, facts: ProjectFacts) -> tuple[str, bool]:
    """(kind, approved) of the receipt.

    `test` when a test command ran, unless every command of the test phase is one the project declares as a
    non-test check (lint, typecheck, …): then `check`. Approved when every command that ran is one the project
    declares, or the recipe itself was declared (config or a saved recipe).
    """
    declared = {(c.command, c.cwd): c.kind for c in facts.verify_commands}
    test_runs = [run for run in result.runs if run.phase == "test"]
    only_other_checks = all(declared.get((run.command, run.cwd), "test") != "test" for run in test_runs)
    kind = "test" if test_runs and not only_other_checks else "check"
    approved = not plan.recipe_source.startswith("detected") or all(
        (run.command, run.cwd) in declared for run in result.runs if run.phase in ("build", "test")
    )
    return kind, approved


async def _record(
    args: argparse.Namespace,
    plan: VerifyPlan,
    result: VerifyResult,
    facts: ProjectFacts,
    content_before: Any,
    rules: ContentRules,
) -> tuple[Any, str | None]:
    """Record the run's receipt; returns (evidence or None, a message when it could not be recorded)."""
    import asyncio

    from freshpass.evidence.receipts import Content, Finished, actor_from_environment, receipt
    from freshpass.ledger.content import ContentError
    from freshpass.ledger.store import Ledger, LedgerError

    try:
        content_after = await asyncio.to_thread(rules.snapshot, plan.root)
    except ContentError as exc:
        return None, f"evidence not recorded: {exc}"
    kind, approved = _receipt_kind(plan, result, facts)
    line = shlex.join(["freshpass", *sys.argv[1:]]) if sys.argv[1:2] == ["verify"] else _canonical(args)
    draft = receipt(
        finished=Finished(
            line, str(plan.root), result.exit_code, result.output_text(), 0, result.started_at, result.finished_at
        ),
        actor=actor_from_environment(),
        content=Content(
            str(plan.root), content_before.content_id, content_after.content_id != content_before.content_id
        ),
        canonical_command=_canonical(args),
        kind=kind,
        scope=plan.scope,
        status="passed" if result.passed else "failed",
        approved=approved,
        reason=result.reason,
        details={"verify": result.to_json()},
    )
    try:
        ledger = await Ledger.open()
        for warning in ledger.warnings:
            say(warning)
        try:
            evidence = await ledger.record(draft, manifest=getattr(content_before, "manifest", None))
        finally:
            await ledger.close()
    except LedgerError as exc:
        return None, f"evidence not recorded: {exc}"
    return evidence, None


async def _verify(
    args: argparse.Namespace, plan: VerifyPlan, facts: ProjectFacts, rules: ContentRules
) -> tuple[VerifyResult, int, Any, str | None]:
    """Run the plan with live output, then record; returns (result, signal that stopped it or 0, evidence, why
    it was not recorded)."""
    import asyncio
    import signal

    from freshpass.ledger.content import ContentError
    from freshpass.runner.console import PlainReporter, TtyReporter
    from freshpass.runner.verify import VerifyReporter, run_verify

    try:
        content_before = await asyncio.to_thread(rules.snapshot, plan.root)
    except ContentError as exc:
        content_before = None
        say(f"freshpass verify: cannot take the content id, no receipt will be recorded: {exc}")

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

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, stop, sig)
    try:
        result = await run_verify(plan, reporter=reporter, cancel=cancel)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)

    interrupted = received[0] if received else 0
    if interrupted:
        result.passed, result.reason = False, "aborted"
        result.detail = result.detail or "interrupted; every process the run started was torn down"
    evidence, record_problem = None, None
    if content_before is not None:
        evidence, record_problem = await _record(args, plan, result, facts, content_before, rules)
    return result, interrupted, evidence, record_problem


def run(args: argparse.Namespace) -> int:
    import asyncio
    import json

    from freshpass.commands.status import detach_stdin
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.recipes import load_recipe, recipe_for, save_recipe
    from freshpass.runner.verify import VerifyPlanError, compose_preflight, plan_verify

    detach_stdin()  # commands run with stdin closed; freshpass itself never reads the terminal either
    root = _project_root(args.path)
    try:
        facts = asyncio.run(detect_bounded(root))
    except Unavailable as exc:
        say(f"freshpass verify: {exc}")
        return 1
    recipe, problems = recipe_for(root, facts)
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

    refusal = asyncio.run(compose_preflight(plan))
    if refusal is not None:
        say(f"freshpass verify: refused: {refusal}")
        return 1

    from freshpass.evidence.status import ContentRules

    result, interrupted, evidence, record_problem = asyncio.run(_verify(args, plan, facts, ContentRules.of(facts)))
    if record_problem:
        say(f"freshpass verify: {record_problem}")

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
