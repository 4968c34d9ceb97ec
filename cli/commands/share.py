"""`freshpass share [PATH] [--push | --fetch | --list]` (design §4.6, §8): receipts that travel through git.

Without an option, the receipts of the root's current content (not already stale when recorded) are added to
`refs/notes/freshpass`, keyed by content; `--push` then publishes the ref to the remote (merging, never forcing),
`--fetch` brings the remote's in, and `--list` shows the shared receipts of the current content, or of a commit's
content with `--rev` (no checkout). `freshpass run --share -- CMD` shares what that run recorded.

Only redacted fields travel (`freshpass.ledger.shared`); output never does. Signing uses git's own signing: `--sign`
with the user's git configuration, or `--signing-key KEY` (also `$FRESHPASS_SIGNING_KEY`): an ssh key file, a
`key::<public key>` held by ssh-agent, or a gpg key id.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.commands import UsageError
from freshpass.runner.terminal import safe, say

if TYPE_CHECKING:
    from freshpass.evidence.status import ContentRules
    from freshpass.facts.model import ProjectFacts
    from freshpass.ledger.content import ContentSnapshot
    from freshpass.ledger.git import Repository
    from freshpass.ledger.notes import Signing
    from freshpass.ledger.shared import SharedReceipt
    from freshpass.ledger.store import Evidence

SIGNING_KEY_ENV = "FRESHPASS_SIGNING_KEY"
SHARE_LIMIT = 200  # newest receipts of a root looked at for the current content


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Receipts are attached to refs/notes/freshpass, keyed by content: a clone with the same content reads them "
        "after fetching that ref (git config --add remote.origin.fetch '+refs/notes/freshpass:refs/notes/freshpass', "
        "or freshpass share --fetch). Only redacted fields are shared, never output. See docs/sharing.md."
    )
    parser.add_argument("path", nargs="?", default=".", help="a file or directory in the project (default: .)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--push", action="store_true", help="share, then publish refs/notes/freshpass to the remote")
    mode.add_argument("--fetch", action="store_true", help="bring the remote's shared receipts in (shares nothing)")
    mode.add_argument("--list", action="store_true", help="show the shared receipts of the current content")
    parser.add_argument("--rev", metavar="REV", help="with --list: the content of this commit, without checking it out")
    parser.add_argument("--remote", default="origin", help="remote name, URL or path (default: origin)")
    signing = parser.add_mutually_exclusive_group()
    signing.add_argument("--sign", action="store_true", help="sign with your git signing configuration")
    signing.add_argument(
        "--signing-key", metavar="KEY", help=f"ssh key file, key::<public key> or gpg key id (or ${SIGNING_KEY_ENV})"
    )
    parser.add_argument("--actor", choices=("ci", "person", "agent"), help="who ran them (default: detected)")
    parser.add_argument("--json", action="store_true", help="print what was done as JSON")


@dataclass
class _Project:
    root: Path  # the package root
    repository: Repository
    facts: ProjectFacts | None

    @property
    def rules(self) -> ContentRules:
        """The project's own content rules (`[tool.freshpass] ignore` and `ignore_prose`): ids every door agrees on."""
        from freshpass.evidence.status import ContentRules

        return ContentRules.of(self.facts)


def run(args: argparse.Namespace) -> int:
    import asyncio

    from freshpass.commands.status import detach_stdin, no_project_message, resolve_roots

    detach_stdin()
    if args.rev and not args.list:
        raise UsageError("--rev goes with --list")
    roots = resolve_roots(args.path)
    if roots is None:
        say(f"freshpass share: {no_project_message(args.path)}")
        return 1
    return asyncio.run(_share_command(roots[1], args))


def signing_from(args: argparse.Namespace) -> Signing | None:
    """`--signing-key`, else `$FRESHPASS_SIGNING_KEY`, else `--sign` (git's own configuration), else unsigned."""
    from freshpass.ledger.notes import Signing

    key = args.signing_key or os.environ.get(SIGNING_KEY_ENV, "").strip()
    if key:
        return Signing(key)
    return Signing() if args.sign else None


async def _project(root: Path) -> _Project | None:
    from freshpass.commands.status import read_facts
    from freshpass.ledger.git import find_repository

    repository = find_repository(root)
    if repository is None:
        say(f"freshpass share: {safe(root)} is not in a git repository: receipts travel through git")
        return None
    return _Project(root, repository, await read_facts(root, "share"))


async def _share_command(root: Path, args: argparse.Namespace) -> int:
    from freshpass.ledger.content import ContentError
    from freshpass.ledger.git import GitError
    from freshpass.ledger.store import LedgerError

    project = await _project(root)
    if project is None:
        return 1
    report: dict[str, Any] = {"root": str(root)}
    try:
        if args.list:
            return _list(project, args.rev, json_output=bool(args.json))
        if args.fetch:
            report["fetch"] = _fetch(project, args.remote)
        else:
            report["share"] = await _share_current(project, signing_from(args), args.actor)
            if args.push:
                report["push"] = _push(project, args.remote)
    except (GitError, ContentError, LedgerError, ValueError) as exc:
        say(f"freshpass share: {exc}")
        return 1
    if args.json:
        print(json.dumps({"root": report["root"], **{k: _without_message(v) for k, v in report.items() if k != "root"}},
                         indent=2))  # fmt: skip
    else:
        for step in ("share", "push", "fetch"):
            if step in report:
                print(safe(report[step]["message"]))
    return 0


def _without_message(step: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in step.items() if key != "message"}


# ---- sharing ------------------------------------------------------------------------------------------------------


async def _share_current(project: _Project, signing: Signing | None, actor: str | None) -> dict[str, Any]:
    """Share the receipts of the project's current content (not already stale when recorded)."""
    import asyncio

    from freshpass.ledger.store import Ledger

    current = await asyncio.to_thread(project.rules.snapshot, project.root)
    if not current.is_git:
        raise ValueError(f"{project.root} has no git content id; receipts travel through git")
    async with await Ledger.open(read_only=True) as ledger:
        for warning in ledger.warnings:
            say(warning)
        events = await ledger.events(str(project.root), SHARE_LIMIT)
    receipts = [event for event in events if event.content_id == current.content_id and not event.stale_at_record]
    return await asyncio.to_thread(_publish_locally, project, current, receipts, signing, actor)


async def share_recorded(receipt_ids: Sequence[int], *, actor: str | None = None) -> list[str]:
    """`freshpass run --share`: share the receipts a run just recorded (signed with `$FRESHPASS_SIGNING_KEY` when
    set). Returns what to tell the user, one line each; never raises for what a repository or the ledger does."""
    import asyncio

    from freshpass.ledger.content import ContentError, ContentSnapshot, is_git_content
    from freshpass.ledger.git import GitError
    from freshpass.ledger.notes import Signing
    from freshpass.ledger.store import Ledger, LedgerError

    said: list[str] = []
    try:
        key = os.environ.get(SIGNING_KEY_ENV, "").strip()
        signing = Signing(key) if key else None
        async with await Ledger.open(read_only=True) as ledger:
            found = [await ledger.get(receipt_id) for receipt_id in receipt_ids]
        by_content: dict[tuple[str, str], list[Evidence]] = {}
        for evidence in found:
            if evidence is not None and not evidence.stale_at_record and is_git_content(evidence.content_id):
                by_content.setdefault((evidence.root, evidence.content_id), []).append(evidence)
        if not by_content:
            return ["not shared: no receipt of git content that was fresh when recorded"]
        for (root, content_id), receipts in by_content.items():
            project = await _project(Path(root))
            if project is None:
                continue
            toplevel = str(project.repository.toplevel)
            ran_on = ContentSnapshot(root=root, content_id=content_id, git_toplevel=toplevel)
            result = await asyncio.to_thread(_publish_locally, project, ran_on, receipts, signing, actor)
            said.append(result["message"])
    except (GitError, ContentError, LedgerError, ValueError) as exc:
        said.append(f"not shared: {exc}")
    return said


def _publish_locally(
    project: _Project,
    current: ContentSnapshot,
    receipts: Sequence[Evidence],
    signing: Signing | None,
    actor: str | None,
) -> dict[str, Any]:
    """Add `receipts` (of `current`'s content) to the local notes ref; what was done, with a `message` for people.
    When that content is not its commit's, says which files differ: no clone of the commit would match."""
    from freshpass import __version__
    from freshpass.ledger.content import differences_from_commit
    from freshpass.ledger.git import resolve_head
    from freshpass.ledger.notes import add_receipts, package_path, share_summary
    from freshpass.ledger.shared import from_evidence, provenance_for

    content = current.content_id
    if not receipts:
        message = f"nothing to share: no receipt of the current content ({content[:16]}…) of {project.root}"
        return {"content_id": content, "added": 0, "receipts": 0, "message": message}
    commit = resolve_head(project.repository) or ""
    rules = project.rules
    differing = differences_from_commit(current, commit, rules.ignore, rules.ignore_prose) if commit else []
    if differing:
        shown = ", ".join(safe(path) for path in differing[:5]) + (" …" if len(differing) > 5 else "")
        say(
            f"freshpass share: the work tree differs from its commit ({shown}): a clone of {commit[:12]} will not "
            "match these receipts; commit, ignore or remove those files before the run"
        )
    shared: list[SharedReceipt] = []
    package = package_path(project.repository, project.root)
    for evidence in receipts:
        provenance = provenance_for(evidence, actor)
        shared.append(
            from_evidence(
                evidence,
                root=package,
                provenance=provenance,
                commit=commit,
                version=__version__,
                ignore=rules.ignore,
                ignore_prose=rules.ignore_prose,
            )
        )
    first = shared[0]
    added = add_receipts(
        project.repository,
        shared,
        summary=share_summary(len(shared), first.actor, first.provider),
        signing=signing,
    )
    signed = " (signed)" if signing is not None and added.added else ""
    message = (
        f"shared {added.added} receipt{'s' if added.added != 1 else ''} of {content[:16]}… in refs/notes/freshpass"
        f"{signed}" + (f" ({len(shared) - added.added} already there)" if added.added < len(shared) else "")
    )
    return {"content_id": content, "added": added.added, "receipts": len(shared), "tip": added.tip, "message": message}


# ---- moving -------------------------------------------------------------------------------------------------------


def _push(project: _Project, remote_name: str) -> dict[str, Any]:
    from freshpass.ledger.git import find_remote
    from freshpass.ledger.notes import push

    remote = find_remote(project.repository, remote_name)
    moved = push(project.repository, remote)
    for skipped in moved.skipped:
        say(f"freshpass share: merging: {skipped}")
    if moved.pushed:
        merged = " (merged with receipts others pushed meanwhile)" if moved.merged else ""
        message = f"pushed refs/notes/freshpass to {remote_name}{merged}"
    elif not moved.after:
        message = "nothing to push: no shared receipts here yet"
    else:
        message = f"{remote_name} already has every shared receipt of this repository"
    return {"remote": remote_name, "pushed": moved.pushed, "merged": moved.merged, "tip": moved.after,
            "skipped": list(moved.skipped), "message": message}  # fmt: skip


def _fetch(project: _Project, remote_name: str) -> dict[str, Any]:
    from freshpass.ledger.git import find_remote
    from freshpass.ledger.notes import fetch

    remote = find_remote(project.repository, remote_name)
    moved = fetch(project.repository, remote)
    for skipped in moved.skipped:
        say(f"freshpass share: merging: {skipped}")
    if not moved.remote:
        message = f"{remote_name} has no shared receipts yet"
    elif moved.after == moved.before:
        message = f"up to date with {remote_name}'s shared receipts"
    else:
        merged = " (merged with the receipts shared here)" if moved.merged else ""
        message = f"fetched the shared receipts of {remote_name}{merged}"
    changed = moved.after != moved.before
    return {"remote": remote_name, "merged": moved.merged, "tip": moved.after, "changed": changed,
            "skipped": list(moved.skipped), "message": message}  # fmt: skip


# ---- listing ------------------------------------------------------------------------------------------------------


def _list(project: _Project, rev: str | None, *, json_output: bool) -> int:
    from freshpass.facts.model import SharedTrust
    from freshpass.ledger.anchors import anchors_for, worktree_note
    from freshpass.ledger.content import commit_snapshot
    from freshpass.ledger.notes import shared_for

    rules = project.rules
    current = (
        commit_snapshot(project.root, rev, rules.ignore, rules.ignore_prose) if rev else rules.snapshot(project.root)
    )
    # The same anchors as every status: the user's settings, else the default branch's committed ones.
    anchors = anchors_for(current)
    reading = shared_for(current, anchors.trust)
    entries = [view.to_json() for view in reading.views]
    worktree = project.facts.shared_trust if project.facts is not None else SharedTrust()
    note = worktree_note(project.repository, project.root, anchors, worktree)
    if json_output:
        trust = {"source": anchors.source or None, "default_branch": anchors.branch.name if anchors.branch else None,
                 "note": note or None, "problems": list(anchors.problems)}  # fmt: skip
        print(json.dumps({"root": str(project.root), "content_id": current.content_id, "shared": entries,
                          "skipped": reading.skipped, "trust": trust}, indent=2))  # fmt: skip
        return 0
    what = f"{rev} ({current.content_id[:16]}…)" if rev else f"the current content ({current.content_id[:16]}…)"
    if not entries:
        print(safe(f"no shared receipts for {what} of {project.root}"))
    else:
        print(safe(f"shared receipts for {what} of {project.root}:"))
        for entry in entries:
            print(describe_shared(entry))
    if note:
        print(safe(note))
    for problem in anchors.problems:
        say(f"freshpass share: {problem}")
    for reason in reading.skipped:
        say(f"freshpass share: skipped a line of the note: {reason}")
    return 0


def describe_shared(entry: dict[str, Any], *, indent: str = "  ") -> str:
    """One shared receipt for a terminal: label, command, where it ran, and whether it counts (made safe)."""
    from freshpass.commands.status import age
    from freshpass.evidence.present import shared_label as label

    where = ", ".join(part for part in (entry.get("provider"), entry.get("job_url")) if part)
    signature = f", signed by {entry['signer']}" if entry.get("signer") else ""
    counted = "counted" if entry.get("counted") else f"not counted: {entry.get('why')}"
    text = (
        f"{indent}{label(entry, age(entry['finished_at']))}  `{entry['command']}`"
        + (f" ({where}{signature})" if where or signature else "")
        + f" — {counted}"
    )
    return safe(text)
