"""The done-check for coding agents (design §7): one decision shared by `freshpass/checkDone` and `freshpass hook`.

An agent that is about to say "done" asks whether fresh passing evidence covers what changed. The answer is a
verdict:

- `verified`: a fresh pass of a kind in `done.kinds` with a scope at least `done.scope` covers the root's content
  now. Prose never makes evidence stale, so prose edits after a pass stay `verified`.
- `nudge`: code-relevant files changed and no such pass covers them. The message names the changes, the approved
  command(s) to run, and asks the agent to report a blocker honestly instead of claiming verification. Each nudge
  spends one unit of the session's budget.
- `exhausted`: a nudge would be due but the session already spent its budget since the last pass: the caller must
  not block again (never wedge an agent). The message still says the change is not verified.
- `not_applicable`: outside any root, or nothing code-relevant changed and no qualifying pass exists (for example
  the agent only answered a question, or only edited prose).

`decide` is pure (a status in, a `Decision` out) so it is tested as a table; `evaluate` gathers its inputs from the
ledger and the repository. The language server (`freshpass/checkDone`), the hooks and the MCP server adapt it.
"""

from __future__ import annotations

import asyncio
import posixpath
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import unquote, urlparse

from freshpass.evidence import settings_defaults
from freshpass.evidence.status import ContentRules, Status, ignored_paths, root_status
from freshpass.ledger.shared import shared_of, uncounted_passes

if TYPE_CHECKING:
    import pathspec
    from freshpass.evidence.claims import Claim
    from freshpass.facts.model import ProjectFacts
    from freshpass.ledger.content import ContentSnapshot
    from freshpass.ledger.shared import SharedOptions
    from freshpass.ledger.store import Evidence

Verdict = Literal["verified", "nudge", "exhausted", "not_applicable"]
SCOPE_RANK = {"targeted": 0, "full": 1}
# The settings' defaults (package.json, through scripts/gen-settings): `freshpass hook` uses them too.
DEFAULT_BUDGET = settings_defaults.NUDGE_BUDGET
DEFAULT_DONE_KINDS: tuple[str, ...] = settings_defaults.DONE_KINDS
DEFAULT_DONE_SCOPE = settings_defaults.DONE_SCOPE
SHOWN_PATHS = 5  # changed paths named in a message; the rest are counted
# Evidence the baseline search looks at: the ledger keeps at most 1,000 events per root by default.
BASELINE_SEARCH_LIMIT = 1000
FIRST_PAGE = 20  # receipts read first; a qualifying pass is almost always among them


@dataclass(frozen=True)
class DoneRules:
    """What counts as done and how often to nudge (settings `done.kinds`, `done.scope`, `nudge.budget`)."""

    budget: int = DEFAULT_BUDGET
    kinds: tuple[str, ...] = DEFAULT_DONE_KINDS
    scope: str = DEFAULT_DONE_SCOPE

    def __post_init__(self) -> None:
        if self.budget < 0:
            raise ValueError(f"nudge budget must be ≥ 0, got {self.budget}")
        if not self.kinds:
            raise ValueError("done kinds must name at least one kind (test, lint, typecheck, build, check)")
        if self.scope not in SCOPE_RANK:
            raise ValueError(f"done scope must be full or targeted, got {self.scope!r}")

    def counts_as_done(self, kind: Any, scope: Any, status: Any) -> bool:
        return status == "passed" and kind in self.kinds and SCOPE_RANK.get(scope, -1) >= SCOPE_RANK[self.scope]

    @property
    def kinds_label(self) -> str:
        return "/".join(self.kinds)


@dataclass(frozen=True)
class Decision:
    """The answer to "may the agent say done?" (the `freshpass/checkDone` response, design §7)."""

    verdict: Verdict
    message: str
    commands: list[dict[str, str]] = field(default_factory=list)
    status: Status | None = None
    nudges_left: int = 0
    changed_paths: list[str] = field(default_factory=list)  # code-relevant paths not covered, relative to the root
    claims: list[dict[str, Any]] = field(default_factory=list)  # {kind, quote, backed} from the agent's message

    @property
    def synthetic(self) -> bool:
        # Nudge and exhausted messages are written by freshpass, not by a person: a harness keeps them out of
        # durable history (design §7).
        return self.verdict in ("nudge", "exhausted")

    def to_json(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "message": self.message,
            "synthetic": self.synthetic,
            "commands": [dict(command) for command in self.commands],
            "status": self.status.to_json() if self.status is not None else None,
            "nudgesLeft": self.nudges_left,
            "changedPaths": list(self.changed_paths),
            "claims": [dict(claim) for claim in self.claims],
        }


def run_line(command: str, cwd: str = ".") -> str:
    """The line an agent types so the run is recorded: `freshpass run -- <command>` (in `cwd` below the root)."""
    try:
        words = shlex.split(command)
        simple = shlex.join(words) == command or all(shlex.quote(word) == word for word in words)
    except ValueError:
        simple = False
    # A command with shell syntax (`&&`, pipes, quotes) is passed as one argument, so `freshpass run` hands the
    # whole line to the shell instead of this shell splitting it first.
    line = f"freshpass run -- {command}" if simple else f"freshpass run -- {shlex.quote(command)}"
    if cwd not in ("", "."):
        line = f"cd {shlex.quote(cwd)} && {line}"
    return line


def done_commands(status: Status | None, rules: DoneRules) -> list[dict[str, str]]:
    """The approved verify commands whose pass would count as done, in the facts' order of precedence."""
    commands: list[dict[str, str]] = []
    for entry in status.verify_commands if status is not None else ():
        if entry.kind not in rules.kinds or not entry.command:
            continue
        cwd = entry.cwd or "."
        commands.append(
            {
                "command": entry.command,
                "kind": entry.kind,
                "cwd": cwd,
                "source": entry.source or "",
                "run": run_line(entry.command, cwd),
            }
        )
    # Kinds in the order the rules list them (a `test` command first when both test and lint count).
    order = {kind: index for index, kind in enumerate(rules.kinds)}
    return sorted(commands, key=lambda command: order[command["kind"]])


def fresh_receipts(status: Status) -> dict[str, Evidence]:
    """Each kind's receipt that ran against the root's current content, as it counts: a flaky kind's failure,
    unless the project lets its pass count."""
    return status.counted_receipts()


def code_paths(paths: Iterable[str], ignored: pathspec.PathSpec | None = None) -> list[str]:
    """The code-relevant paths among `paths` (prose and ignored files dropped), de-duplicated, in first order."""
    ignored = ignored if ignored is not None else ignored_paths()
    seen: dict[str, None] = {}
    for path in paths:
        if path and not ignored.match_file(path):
            seen.setdefault(path, None)
    return list(seen)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _name_paths(paths: Sequence[str]) -> str:
    shown = ", ".join(paths[:SHOWN_PATHS])
    more = len(paths) - SHOWN_PATHS
    return f"{shown} and {more} more" if more > 0 else shown


def _quote(command: Any) -> str:
    return f"`{command}`"


def _evidence_gap(status: Status, rules: DoneRules, receipts: Mapping[str, Evidence]) -> str:
    """Why what exists does not count as done: the sentence after "what changed"."""
    wanted = f"{rules.kinds_label} run" if rules.scope == "targeted" else f"full {rules.kinds_label} run"
    for kind in rules.kinds:
        receipt = receipts.get(kind)
        if receipt is None:
            continue
        command = _quote(receipt.command or receipt.canonical_command or kind)
        state = status.kinds.get(kind)
        pair = state.flaky if state is not None else None
        if pair is not None:
            return (
                f"The {kind} run {command} is flaky against this content: receipt #{pair['passed'].id} passed and "
                f"receipt #{pair['failed'].id} failed, so the pass does not count (the project can opt in with "
                '[tool.freshpass] flaky = "pass-counts").'
            )
        if receipt.status == "failed":
            reason = receipt.reason or (f"exit {receipt.exit_code}" if receipt.exit_code is not None else "")
            return f"The latest {kind} run against this content, {command}, failed" + (
                f" ({reason})." if reason else "."
            )
        if receipt.counted_scope == "targeted":
            return (
                f"Only a targeted {kind} run, {command}, passed against this content: it checks part of the "
                f"project, not the whole change. No fresh passing {wanted} covers it."
            )
    for kind, receipt in receipts.items():
        if kind not in rules.kinds and receipt.status == "passed":
            command = _quote(receipt.command or kind)
            return f"Only a {kind} run, {command}, passed against this content; no fresh passing {wanted} covers it."
    headline = status.evidence
    if status.status == "stale" and headline is not None:
        command = _quote(headline.command or headline.canonical_command or "the last run")
        result = headline.status or "ran"
        return f"The last {headline.kind or 'recorded'} run, {command} ({result}), ran before these changes."
    if headline is None:
        return f"No {rules.kinds_label} run of this project is on record yet."
    return f"No fresh passing {wanted} covers them."


def _instruction(commands: Sequence[Mapping[str, str]], label: str) -> str:
    if not commands:
        return (
            f"This project declares no {label} command (see `freshpass facts`): tell the user how you "
            "checked the change, or that you could not. Do not claim it is verified."
        )
    runs = " or ".join(_quote(command["run"]) for command in commands[:3])
    return (
        f"Run {runs} so the result is recorded. If you cannot run it, or it fails for a reason you cannot fix, "
        "report that blocker plainly instead of claiming the change is verified."
    )


def claim_backed(claim: Claim, receipts: Mapping[str, Evidence], rules: DoneRules, done: Evidence | None) -> bool:
    """Whether a fresh receipt backs what the agent said passed (design §7.4): a generic claim ("verified", "CI is
    green") needs what counts as done; a claim about one kind needs a fresh pass of that kind, as wide as
    `done.scope` asks ("all tests pass" is not backed by one test file)."""
    if claim.kind == "check":
        return done is not None
    if done is not None and done.kind == claim.kind:
        return True
    receipt = receipts.get(claim.kind)
    if receipt is None or receipt.status != "passed":
        return False
    return SCOPE_RANK.get(str(receipt.counted_scope), -1) >= SCOPE_RANK[rules.scope]


def _claims_sentence(unbacked: Sequence[Claim], rules: DoneRules) -> str:
    said = " and ".join(f"“{quote}”" for quote in dict.fromkeys(claim.quote for claim in unbacked))
    kinds = sorted({rules.kinds_label if claim.kind == "check" else claim.kind for claim in unbacked})
    wanted = f"{'/'.join(kinds)} run" if rules.scope == "targeted" else f"full {'/'.join(kinds)} run"
    return f"You wrote {said}, but no fresh passing {wanted} backs it."


def _what_changed(uncovered: Sequence[str]) -> str:
    if not uncovered:  # stale, but the ledger could not list the paths (an old tree was garbage-collected)
        return "freshpass: this project's files changed since its last recorded run."
    return f"freshpass: {_plural(len(uncovered), 'file')} changed ({_name_paths(uncovered)})."


def decide(
    status: Status | None,
    *,
    changed_paths: Iterable[str] = (),
    nudges_used: int = 0,
    budget: int = DEFAULT_BUDGET,
    done_kinds: Sequence[str] = DEFAULT_DONE_KINDS,
    done_scope: str = DEFAULT_DONE_SCOPE,
    ignore: Sequence[str] = (),
    ignore_prose: bool = True,
    covering_pass: Evidence | None = None,
    content_changed: bool = False,
    claims: Sequence[Claim] = (),
) -> Decision:
    """The verdict for a root's `status` (design §4.5; None when the path is under no root).

    `changed_paths` are root-relative paths the caller knows changed (the agent's edits, uncommitted changes);
    they matter only when no qualifying pass exists, and prose and `ignore` globs are dropped from them, the same
    rules the ledger applies. The status's own `changed_paths` (what differs from the newest evidence) always
    count. `nudges_used` is how many nudges this session had since the root's last qualifying pass.
    `covering_pass` is a qualifying pass that ran against the current content even though a newer, narrower run
    (a targeted re-run) is what the status shows. `content_changed` says the content differs from the last
    qualifying pass even when no path could be named (its git tree was garbage-collected). `claims` are what the
    agent's last message says passed (design §7.4): one no fresh receipt backs is a reason to nudge by itself, and
    is quoted in the message.
    """
    rules = DoneRules(budget=budget, kinds=tuple(done_kinds), scope=done_scope)
    if status is None:
        return Decision(
            "not_applicable", "freshpass: not inside a project root; nothing to verify.", nudges_left=budget
        )
    current_status = status
    commands = done_commands(current_status, rules)
    receipts = fresh_receipts(current_status)
    left = max(0, budget - nudges_used)

    done = next(
        (
            receipts[kind]
            for kind in rules.kinds
            if kind in receipts and rules.counts_as_done(kind, receipts[kind].counted_scope, receipts[kind].status)
        ),
        None,
    )
    flaky = current_status.kinds.get(covering_pass.kind) if covering_pass is not None else None
    if (
        done is None
        and covering_pass is not None
        and rules.counts_as_done(covering_pass.kind, covering_pass.counted_scope, covering_pass.status)
        # a pass contradicted by a failure on the same content never counts, unless the project opts in
        and (flaky is None or flaky.flaky is None or current_status.flaky_counts)
    ):
        done = covering_pass
    unbacked = [claim for claim in claims if not claim_backed(claim, receipts, rules, done)]
    judged = [{"kind": claim.kind, "quote": claim.quote, "backed": claim not in unbacked} for claim in claims]
    if done is not None and not unbacked:
        command = _quote(done.command or done.canonical_command or done.kind)
        shared = shared_of(done)
        source = f" (a shared receipt from {shared.actor})" if shared is not None else ""
        return Decision(
            "verified",
            f"freshpass: verified: {command} passed ({done.scope}){source} against the current content.",
            commands,
            current_status,
            nudges_left=left,
            claims=judged,
        )

    ignored = ignored_paths(ignore, ignore_prose)
    uncovered = code_paths([*current_status.changed_paths, *changed_paths], ignored)
    contradicted = not current_status.flaky_counts and any(
        state.flaky is not None for kind, state in current_status.kinds.items() if kind in rules.kinds
    )  # a flaky result is news for the agent even when no code changed
    nothing_changed = not uncovered and not content_changed and current_status.status != "stale" and not contradicted
    if done is None and nothing_changed and not unbacked:
        return Decision(
            "not_applicable",
            "freshpass: nothing to verify: no code changed (prose and ignored files do not count), and no fresh "
            f"passing {rules.kinds_label} run is on record for this content.",
            commands,
            current_status,
            nudges_left=left,
            claims=judged,
        )

    label = rules.kinds_label
    to_run = commands
    if done is not None or nothing_changed:
        # Only the claim is due: what changed is covered (or nothing did), but the agent says more than that.
        what, gap = f"freshpass: {_claims_sentence(unbacked, rules)}", ""
        claimed = tuple(dict.fromkeys(claim.kind for claim in unbacked if claim.kind != "check"))
        if claimed:
            label = "/".join(claimed)
            to_run = done_commands(current_status, DoneRules(budget=budget, kinds=claimed, scope=done_scope))
    else:
        what = _what_changed(uncovered)
        if unbacked:
            what += f" {_claims_sentence(unbacked, rules)}"
        reasons = (_evidence_gap(current_status, rules, receipts), uncounted_passes(current_status.shared, rules.kinds))
        gap = " " + " ".join(filter(None, reasons))
    if nudges_used < budget:
        return Decision(
            "nudge",
            f"{what}{gap} {_instruction(to_run, label)} (reminder {nudges_used + 1} of {budget})",
            to_run,
            current_status,
            nudges_left=budget - nudges_used - 1,
            changed_paths=uncovered,
            claims=judged,
        )
    runs = " or ".join(_quote(command["run"]) for command in to_run[:3]) or "the project's checks"
    spent = f"{_plural(budget, 'reminder')} already given" if budget else "reminders are turned off"
    return Decision(
        "exhausted",
        f"{what}{gap} This change is not verified ({spent} for this session; freshpass will not block again "
        f"until a new pass). Say plainly that it is unverified, or run {runs}.",
        to_run,
        current_status,
        nudges_left=0,
        changed_paths=uncovered,
        claims=judged,
    )


@dataclass(frozen=True)
class PassHistory:
    """What the ledger says about the root's last qualifying pass, relative to the content it has now."""

    baseline: Any = None  # the newest passing Evidence that counts as done (fresh when recorded), or None
    covering: Any = None  # such a pass for exactly the current content, not contradicted by a newer failure

    @property
    def baseline_id(self) -> int | None:
        return int(self.baseline.id) if self.baseline is not None else None


def qualifies(event: Any, rules: DoneRules) -> bool:
    """Whether a receipt (a ledger `Evidence`) is a pass that counts as done, fresh when it was recorded."""
    return not event.stale_at_record and rules.counts_as_done(event.kind, event.counted_scope, event.status)


@dataclass(frozen=True)
class KindHistory:
    baseline: Any  # the newest qualifying pass of the kind, or None
    covering: Any  # a qualifying pass for the current content not followed by a failure on it, or None
    complete: bool  # both answers are final: older receipts cannot change them


def scan_kind(events: Iterable[Any], rules: DoneRules, content_id: str, *, ran_on_this_content: bool) -> KindHistory:
    """Read one kind's receipts, newest first, for its baseline and covering pass.

    `ran_on_this_content` says the status has a fresh receipt of the kind; without one nothing can cover the
    current content and only the baseline is looked for. On this content the newest non-targeted word wins: a
    full pass followed by a targeted re-run still covers it, a full pass followed by a failure does not.
    """
    baseline = covering = None
    looking = ran_on_this_content
    for event in events:
        if event.stale_at_record:
            continue
        passed = qualifies(event, rules)
        if looking and event.content_id == content_id:
            if passed:
                covering, looking = event, False
            elif event.status == "failed":
                looking = False
        if passed and baseline is None:
            baseline = event
        if baseline is not None and not looking:
            return KindHistory(baseline, covering, complete=True)
    return KindHistory(baseline, covering, complete=False)


def _newer(first: Any, second: Any) -> Any:
    if first is None or second is None:
        return first if second is None else second
    return first if first.id > second.id else second


async def pass_history(ledger: Any, root: str, content_id: str, rules: DoneRules, status: Status) -> PassHistory:
    """Find the baseline (the budget's key) and a covering pass among the root's receipts of the done kinds.

    A nudge budget lasts from one qualifying pass to the next, so the baseline need not be fresh: after an edit,
    the nudges spent belong to the last pass, and reaching a new pass starts a new budget (design §7). The newest
    receipts almost always answer; the rest of the history is read only when they do not.
    """
    baseline = covering = None
    for kind in rules.kinds:
        entry = status.kinds.get(kind)
        ran_on_this_content = entry is not None and entry.fresh
        for limit in (FIRST_PAGE, BASELINE_SEARCH_LIMIT):
            events = await ledger.events(root, limit, kind=kind)
            found = scan_kind(events, rules, content_id, ran_on_this_content=ran_on_this_content)
            if found.complete or len(events) < limit:
                break
        baseline, covering = _newer(baseline, found.baseline), _newer(covering, found.covering)
    return PassHistory(baseline=baseline, covering=covering)


async def uncommitted_paths(root: Path) -> list[str] | None:
    """Root-relative paths git reports as changed or untracked-not-ignored (None: not a git work tree, or its HEAD
    cannot be read). Runs `git status` against a private git directory (freshpass.ledger.git): the repository's
    fsmonitor, filters and hooks never run, and the user's index is never touched."""
    from freshpass.ledger.git import GitError, IsolatedGit, find_repository, resolve_head

    def status() -> list[str] | None:
        repository = find_repository(root)
        if repository is None:
            return None
        head = resolve_head(repository)
        if head is None:
            return None
        try:
            prefix = root.relative_to(repository.toplevel).as_posix()
        except ValueError:
            return None
        prefix = "" if prefix == "." else f"{prefix}/"
        try:
            with IsolatedGit(repository, head=head or None) as git:
                output = git.run(
                    ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--", "."], cwd=root
                )
        except GitError:
            return None
        paths: list[str] = []
        for record in output.decode("utf-8", "surrogateescape").split("\0"):
            if len(record) < 4:
                continue
            path = record[3:]  # porcelain paths are relative to the repository's top level
            paths.append(path[len(prefix) :] if prefix and path.startswith(prefix) else path)
        return paths

    return await asyncio.to_thread(status)


def relative_paths(paths: Iterable[Any], root: Path) -> list[str]:
    """Caller-supplied paths (root-relative, absolute, or `file:` URIs) made root-relative; others dropped."""
    relative: list[str] = []
    for raw in paths:
        if not isinstance(raw, str) or not raw:
            continue
        text = raw
        try:
            scheme = urlparse(text).scheme
            if scheme == "file":
                text = unquote(urlparse(text).path)
        except ValueError:  # "file://[": no file anyone can name
            continue
        if scheme != "file" and len(scheme) > 1:  # another scheme (untitled:, vscode-notebook-cell:): not a file
            continue
        path = Path(text)
        if not path.is_absolute():
            normal = posixpath.normpath(PurePosixPath(*path.parts).as_posix())
            if normal != ".." and not normal.startswith("../"):  # a relative path must stay inside the root
                relative.append(normal)
            continue
        try:
            relative.append(path.resolve().relative_to(root.resolve()).as_posix())
        except (ValueError, OSError):
            continue
    return relative


def _ignore_outcome(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


async def evaluate(
    ledger: Any,
    root: Path,
    *,
    session: str,
    rules: DoneRules,
    changed_paths: Iterable[str] = (),
    fallback_paths: Iterable[str] = (),
    facts: ProjectFacts | None = None,
    snapshot: ContentSnapshot | None = None,
    record: bool = True,
    shared: SharedOptions | None = None,
    claims: Sequence[Claim] = (),
) -> Decision:
    """Gather the inputs of `decide` for `root` from the ledger and the repository, decide, and spend the budget.

    Both `freshpass/checkDone` and `freshpass hook` call this, so they share one ledger budget per
    (session, root, baseline). What needs covering is what changed since the last qualifying pass; with no such
    pass ever, the uncommitted changes git reports plus `fallback_paths` (what the language server saw change
    since it started). `changed_paths` (the agent's own list) always counts, and so do `claims` the agent's
    last message makes (design §7.4). What is ignored is the project's `ContentRules`, as for every other door.
    Raises `LedgerError` / `ContentError` for the caller to turn into "allow".
    """
    from freshpass.ledger.content import changed_paths as diff_paths

    root_key = str(root)
    from freshpass.evidence.detection import Unavailable, detect_bounded
    from freshpass.facts.model import ProjectFacts

    root_facts: ProjectFacts
    early: asyncio.Future[ContentSnapshot] | None = None
    if facts is not None:
        root_facts = facts
    else:
        if snapshot is None:
            # The content under the default rules (nearly always the project's) is read while the facts are
            # detected: git works on the other core.
            early = asyncio.ensure_future(asyncio.to_thread(ContentRules().snapshot, root_key))
        try:
            root_facts = await detect_bounded(root)
        except Unavailable:  # a repository that breaks or stalls detection: judge it without its declared checks
            root_facts = ProjectFacts(root=str(root))
        except BaseException:
            if early is not None:
                early.add_done_callback(_ignore_outcome)
            raise
    content_rules = ContentRules.of(root_facts)
    current: ContentSnapshot
    if snapshot is not None:
        current = snapshot
    elif early is not None and content_rules == ContentRules():
        current = await early
    else:
        if early is not None:
            early.add_done_callback(_ignore_outcome)
        current = await asyncio.to_thread(content_rules.snapshot, root_key)
    status = await root_status(ledger, root_key, root_facts, current, shared=shared)
    history = await pass_history(ledger, root_key, current.content_id, rules, status)

    known = relative_paths(changed_paths, root)
    content_changed = False
    if history.covering is None:
        if history.baseline is not None:
            content_changed = history.baseline.content_id != current.content_id
            old_manifest = None if current.is_git else await ledger.manifest(history.baseline.content_id)
            known += await asyncio.to_thread(
                diff_paths, root_key, history.baseline.content_id, current, old_manifest=old_manifest
            )
        else:
            known += relative_paths(fallback_paths, root)
            known += await uncommitted_paths(root) or []
    used = await ledger.nudges_used(session, root_key, history.baseline_id)
    decision = decide(
        status,
        changed_paths=known,
        nudges_used=used,
        budget=rules.budget,
        done_kinds=rules.kinds,
        done_scope=rules.scope,
        ignore=content_rules.ignore,
        ignore_prose=content_rules.ignore_prose,
        covering_pass=history.covering,
        content_changed=content_changed,
        claims=claims,
    )
    if decision.verdict == "nudge" and record:
        await ledger.record_nudge(session, root_key, history.baseline_id)
    return decision
