"""A root's status: is there evidence for exactly the content it has now, and did it pass? (design §4.5)

`build_status` is a pure function of the receipts and the changed paths, so the language server can reuse it with
its own cached snapshot; `root_status` gathers those inputs from the ledger and the working tree.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.ledger.content import PROSE_KEPT, ContentSnapshot, changed_paths, prose_globs
from freshpass.ledger.content import snapshot as take_snapshot

if TYPE_CHECKING:
    # Types only: `freshpass run` imports this module for ContentRules on every command, and the ledger's store and
    # shared receipts (SQLite, git notes) load only when a status is built (bench/bench_run.py).
    import pathspec
    from freshpass.ledger.shared import SharedOptions, SharedView
    from freshpass.ledger.store import Evidence, Ledger

HEADLINE_KIND = "test"


@dataclass(frozen=True)
class ContentRules:
    """What never makes evidence stale, as the project says (design §4.4): its `[tool.freshpass] ignore` globs and
    whether prose counts (`ignore_prose`, default true). Every door — the CLI, the server, the hooks — computes a
    content id with these and nothing else, so they agree; an editor's own settings only hide diagnostics."""

    ignore: tuple[str, ...] = ()
    ignore_prose: bool = True

    @classmethod
    def of(cls, facts: ProjectFacts | None) -> ContentRules:
        if facts is None:
            return cls()
        return cls(tuple(facts.ignore), facts.ignore_prose)

    def snapshot(self, root: str | os.PathLike[str], *, processes: bool = True) -> ContentSnapshot:
        """The content id of `root` now under these rules (reads the tree: call it off the event loop).
        `processes=False`: start none (an untrusted folder); a git root then raises `NeedsGit`."""
        return take_snapshot(root, list(self.ignore), self.ignore_prose, processes=processes)

    def ignored(self) -> pathspec.PathSpec:
        """Which root-relative paths these rules leave out of the content."""
        return ignored_paths(self.ignore, self.ignore_prose)


def ignored_paths(ignore: Iterable[str] = (), ignore_prose: bool = True) -> pathspec.PathSpec:
    """Gitignore-style globs (and prose, unless turned off) as one matcher of root-relative paths."""
    import pathspec  # not at import time: `freshpass run` starts faster without it

    patterns = [line.strip() for line in ignore if line.strip() and not line.strip().startswith("#")]
    if ignore_prose:
        patterns += prose_globs() + [f"!{name}" for name in PROSE_KEPT]
    return pathspec.GitIgnoreSpec.from_lines(patterns)


def pick_headline(receipts: Mapping[str, Evidence]) -> Evidence | None:
    """The receipt a status is about: the one of kind `test` if any, else the newest of any kind."""
    if HEADLINE_KIND in receipts:
        return receipts[HEADLINE_KIND]
    return max(receipts.values(), key=lambda evidence: evidence.id, default=None)


@dataclass(frozen=True)
class KindState:
    """One kind of check in a status: its newest receipt, and whether that receipt covers the content now."""

    status: str  # the receipt's `passed` | `failed` when fresh (`flaky` when contradicted), else `stale`
    scope: str | None  # the receipt's `full` | `targeted` when fresh, else None
    fresh: bool
    evidence: Evidence
    # The receipt that contradicts `evidence`: the same full check on the same content with the other outcome.
    contradicted_by: Evidence | None = None

    @property
    def flaky(self) -> dict[str, Evidence] | None:
        """Both receipts of a flaky result, `{"passed": …, "failed": …}`, else None."""
        if self.contradicted_by is None:
            return None
        pair = (self.evidence, self.contradicted_by)
        return {outcome: next(r for r in pair if r.status == outcome) for outcome in ("passed", "failed")}

    def to_json(self) -> dict[str, Any]:
        pair = self.flaky
        return {
            "status": self.status,
            "scope": self.scope,
            "fresh": self.fresh,
            "evidence": self.evidence.status_json(),
            "flaky": {outcome: receipt.status_json() for outcome, receipt in pair.items()} if pair else None,
        }


@dataclass(frozen=True)
class Status:
    """A root's status (design §4.5): what the CLI prints, the server shows and the done-check decides on.

    `to_json()` is the stable wire form (`freshpass status --json`, `freshpass/status`, `freshpass/statusChanged`);
    docs/status.schema.json describes it for the TypeScript and Lua clients.
    """

    root: str
    status: str = "unverified"  # passed | failed | flaky | stale | unverified | unchecked (`unchecked_status`)
    scope: str | None = None  # full | targeted, when the headline receipt is fresh
    kinds: Mapping[str, KindState] = field(default_factory=dict)
    evidence: Evidence | None = None  # the headline receipt
    changed_paths: tuple[str, ...] = ()  # root-relative files that differ from what a stale headline ran against
    verify_commands: tuple[VerifyCommand, ...] = ()
    shared: tuple[SharedView, ...] = ()  # shared receipts of the current content, newest first (design §4.6)
    flaky_counts: bool = False  # [tool.freshpass] flaky = "pass-counts": a flaky kind's pass counts as verified

    @property
    def has_evidence(self) -> bool:
        return self.evidence is not None

    def uncovered_paths(self, *, failed: Iterable[str] = (), unverified: Iterable[str] = ()) -> set[str]:
        """Files whose current content no passing receipt covers, by this status: what changed since a stale
        headline ran, plus `failed` (files that were uncovered when a run failed, which a failure does not cover);
        with no receipt at all, `unverified` (what changed since the content was first seen)."""
        if self.status == "stale":
            return set(self.changed_paths) | set(failed)
        if self.status == "unverified" and not self.has_evidence:
            return set(unverified)
        if self.status == "failed" or (self.status == "flaky" and not self.flaky_counts):
            return set(failed)
        return set()

    def fresh_kinds(self) -> dict[str, KindState]:
        """The kinds whose newest receipt covers the content now."""
        return {kind: state for kind, state in self.kinds.items() if state.fresh}

    def counted_receipts(self) -> dict[str, Evidence]:
        """Each fresh kind's receipt as evidence counts it: a flaky kind gives its failure (never verified) unless
        the project lets the pass count (`flaky = "pass-counts"`)."""
        counted: dict[str, Evidence] = {}
        for kind, state in self.fresh_kinds().items():
            pair = state.flaky
            counted[kind] = state.evidence if pair is None else pair["passed" if self.flaky_counts else "failed"]
        return counted

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "status": self.status,
            "scope": self.scope,
            "kinds": {kind: state.to_json() for kind, state in self.kinds.items()},
            "evidence": self.evidence.status_json() if self.evidence is not None else None,
            "changed_paths": list(self.changed_paths),
            "verify_commands": [command.to_json() for command in self.verify_commands],
            "shared": [view.to_json() for view in self.shared],
            "flaky_counts": self.flaky_counts,
        }


def build_status(
    root: str,
    fresh: Mapping[str, Evidence],
    newest: Mapping[str, Evidence],
    changed: Sequence[str] = (),
    verify_commands: Iterable[VerifyCommand] = (),
    contradicting: Mapping[str, Evidence] | None = None,
    *,
    flaky_counts: bool = False,
) -> Status:
    """The status from each kind's freshest and newest receipts.

    `fresh`: per kind, the newest evidence recorded against the current content (and not already stale when
    recorded). `newest`: per kind, the newest evidence at all. `changed`: paths that differ from the content of
    the stale headline evidence (ignored when something is fresh). `contradicting`: per kind, a receipt of the
    same full check on the same content with the other outcome (`Ledger.opposites`): that kind is `flaky`.
    """
    contradicting = contradicting or {}
    kinds: dict[str, KindState] = {}
    for kind in sorted(set(fresh) | set(newest)):
        receipt = fresh.get(kind)
        other = contradicting.get(kind)
        if receipt is not None and other is not None and {receipt.status, other.status} == {"passed", "failed"}:
            kinds[kind] = KindState("flaky", receipt.counted_scope, True, receipt, other)
        elif receipt is not None:
            kinds[kind] = KindState(receipt.status, receipt.counted_scope, True, receipt)
        else:
            kinds[kind] = KindState("stale", None, False, newest[kind])

    headline = pick_headline(fresh)
    if headline is not None:
        status, scope, changed = kinds[headline.kind].status, headline.counted_scope, ()
    else:
        headline = pick_headline(newest)
        status = "stale" if headline is not None else "unverified"
        scope = None
        if headline is None:
            changed = ()
    return Status(
        root, status, scope, kinds, headline, tuple(changed), tuple(verify_commands), flaky_counts=flaky_counts
    )


UNCHECKED = "unchecked"


def unchecked_status(
    root: str, newest: Mapping[str, Evidence], verify_commands: Iterable[VerifyCommand] = ()
) -> Status:
    """The status of a root whose content id only git computes, where nothing may run (an untrusted workspace):
    `unchecked` — freshness is not checked, which accuses nothing. The newest receipt is shown for what it is, a
    past run; no kind is called fresh or stale, no path changed, nothing is uncovered."""
    return Status(root, UNCHECKED, None, {}, pick_headline(newest), (), tuple(verify_commands))


async def root_status(
    ledger: Ledger,
    root: str | os.PathLike[str],
    facts: ProjectFacts | None,
    snapshot: ContentSnapshot | None = None,
    *,
    shared: SharedOptions | None = None,
    processes: bool = True,
) -> Status:
    """The status of `root` now (design §4.5), with the shared receipts of its content judged as `shared` says
    (design §4.6; by default under the user's config file, else the project's `[tool.freshpass.shared]` as the
    default branch has it committed: `with_shared_receipts`).

    Without `snapshot` the content is read from disk (git runs in a worker thread) under the project's
    `ContentRules`. Raises `ContentError` when the content cannot be read, `LedgerError` when the ledger cannot.
    `processes=False` (an untrusted folder) starts none: the content id is computed in Python (`NeedsGit` when it
    cannot be), what changed since a git receipt is read from loose objects when it can be (else nothing is named),
    and shared receipts, which only git reads, are not read.
    """
    root_key = os.fspath(root)
    rules = ContentRules.of(facts)
    current = (
        snapshot
        if snapshot is not None
        else await asyncio.to_thread(lambda: rules.snapshot(root_key, processes=processes))
    )
    fresh, newest = await ledger.heads(root_key, current.content_id)
    contradicting = await ledger.opposites(root_key, fresh) if fresh else {}
    changed: list[str] = []
    if not fresh:
        reference = pick_headline(newest)
        if reference is not None:
            old_manifest: Mapping[str, str] | None
            if not current.is_git:
                old_manifest = await ledger.manifest(reference.content_id)
            elif not processes:
                old_manifest = await asyncio.to_thread(_loose_manifest, current, reference.content_id)
            else:
                old_manifest = None
            changed = await asyncio.to_thread(
                changed_paths, root_key, reference.content_id, current, old_manifest=old_manifest, processes=processes
            )
    status = build_status(
        root_key,
        fresh,
        newest,
        changed,
        facts.verify_commands if facts is not None else (),
        contradicting,
        flaky_counts=facts is not None and facts.flaky == "pass-counts",
    )
    if not processes:
        return status
    from freshpass.ledger.shared import SharedOptions

    return await with_shared_receipts(status, current, shared or SharedOptions())


def _loose_manifest(current: ContentSnapshot, content_id: str) -> Mapping[str, str] | None:
    """The manifest of a git content id read without git (loose objects of `current`'s repository), or None."""
    from freshpass.ledger.content import git_tree
    from freshpass.ledger.git import find_repository
    from freshpass.ledger.puretree import loose_tree_entries

    tree = git_tree(content_id)
    if tree is None or current.git_toplevel is None:
        return None
    repository = find_repository(Path(current.git_toplevel))
    return None if repository is None else loose_tree_entries(repository, tree)


async def with_shared_receipts(status: Status, current: ContentSnapshot, shared: SharedOptions) -> Status:
    """`status` with the shared receipts of `current`'s content (design §4.6), judged under trust anchors that come
    from outside that content (`freshpass.ledger.anchors`: the user's settings, else the project's as the default
    branch has them committed — never the work tree's `facts.shared_trust`). An untrusted workspace reads no
    anchors (no git runs for them) and counts nothing."""
    if not await asyncio.to_thread(_has_shared_notes, current):
        return with_shared(status, ())  # nothing shared here: no anchors, no notes to read
    from freshpass.facts.model import SharedTrust
    from freshpass.ledger.anchors import anchors_for
    from freshpass.ledger.notes import shared_for

    policy = SharedTrust()
    if shared.workspace_trusted:
        policy = (await asyncio.to_thread(anchors_for, current, shared.trust)).trust
    reading = await asyncio.to_thread(shared_for, current, policy)
    return with_shared(status, shared.judged(reading.views))


def _has_shared_notes(current: ContentSnapshot) -> bool:
    """Could `current`'s repository hold shared receipts: a git root whose notes ref exists, or cannot be told?"""
    from freshpass.ledger.git import find_repository, resolve_ref
    from freshpass.ledger.shared import NOTES_REF

    if not current.is_git:
        return False
    repository = find_repository(Path(current.root))
    return repository is not None and resolve_ref(repository, NOTES_REF) != ""


def with_shared(status: Status, views: Sequence[SharedView]) -> Status:
    """`status` with the shared receipts of its content (design §4.6): listed under `shared`, and a counted one
    standing in for a kind with no fresh local receipt or only a targeted local pass. A fresh local receipt — a
    failure above all — wins."""
    ordered = sorted(views, key=lambda view: (view.receipt.finished_at, view.receipt.digest), reverse=True)
    kinds = dict(status.kinds)
    stood_in: set[str] = set()
    for view in ordered:
        receipt = view.receipt
        local = kinds.get(receipt.kind)
        if not view.counted or receipt.kind in stood_in:
            continue  # not evidence here, or a newer counted shared receipt already stands for this kind
        if local is not None and local.fresh:
            local_pass_is_narrower = local.status == "passed" and local.scope == "targeted"
            if not (local_pass_is_narrower and receipt.status == "passed" and receipt.scope == "full"):
                continue
        kinds[receipt.kind] = KindState(receipt.status, receipt.scope, True, view.evidence(status.root))
        stood_in.add(receipt.kind)
    from freshpass.ledger.shared import MAX_SHOWN

    shown = tuple(ordered[:MAX_SHOWN])
    if not stood_in:
        return replace(status, shared=shown)
    fresh = {kind: state.evidence for kind, state in kinds.items() if state.fresh}
    # The headline is the test receipt, else the newest (shared receipts have no ledger id to order by).
    headline = fresh.get(HEADLINE_KIND) or max(fresh.values(), key=lambda evidence: evidence.finished_at)
    state = kinds[headline.kind]
    return replace(
        status,
        status=state.status,
        scope=state.scope,
        kinds=dict(sorted(kinds.items())),
        evidence=headline,
        changed_paths=(),
        shared=shown,
    )
