"""Shared receipts in git: `refs/notes/freshpass`, one note per content, moved with a remote (design §4.6).

Keys: the note of a content is attached to the tree its id names (`git:<tree>` → the note of `<tree>`). The tree
need not exist anywhere — a prose-filtered tree usually exists only where it was hashed — and notes travel
without the objects they annotate. Never run `git notes prune` on this ref: it would drop nearly every note.

Writing: one commit per `add_receipts` on the repository's own ref, with a `Freshpass-Receipt: <tree> <digest>`
trailer per line it adds (what a reader checks signatures against), signed with git's own signing when asked.
`fetch` and `push` never force anything: when the local and the remote ref diverged they are merged — a commit
with both tips as parents whose notes are the union of both sides' lines (`shared.normal_form`) — and a push that
someone else beat is fetched, merged and tried again. Every receipt any writer added is therefore in the result.

Git runs only against private git directories (`freshpass.ledger.git.IsolatedGit`): the repository's own config,
hooks and filters never run; its refs are read and written by file (`resolve_ref`, `update_ref`), its objects are
shared. Remotes are the repository's `url`/`pushurl` read as data, or a URL given directly; fetching and pushing
use the user's own git configuration (credentials, `insteadOf`) and nothing the repository configures.

Reading is bounded (a note over `MAX_NOTE_BYTES` is not read) and cached by notes tip, since the language server
asks on every refresh; signatures are checked only when the trust settings require a signer, with the
allowed-signers file the settings name (never one the repository's git config names).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, TypeVar

from freshpass.facts.files import read_regular
from freshpass.facts.model import SharedTrust
from freshpass.ledger.content import ContentSnapshot, git_tree
from freshpass.ledger.git import (
    GitError,
    IsolatedGit,
    RefMoved,
    Remote,
    Repository,
    failure_detail,
    find_repository,
    resolve_ref,
    update_ref,
)
from freshpass.ledger.shared import (
    MAX_NOTE_BYTES,
    LineRejected,
    SharedReceipt,
    SharedView,
    Signature,
    judge,
    normal_form,
    parse_line,
)

NOTES_REF = "refs/notes/freshpass"
THEIRS_REF = "refs/notes/freshpass-theirs"  # the remote's tip, in a private directory only
TRAILER = "Freshpass-Receipt"
PUSH_ATTEMPTS = 12
WRITE_ATTEMPTS = 5  # local writers racing on the repository's ref
MERGE_NOTE_LIMIT = 64 << 20  # a note this large is not merged (it is not a note freshpass wrote)
HISTORY_LIMIT = 100_000  # notes commits scanned for trailers
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "freshpass",
    "GIT_AUTHOR_EMAIL": "freshpass@localhost",
    "GIT_COMMITTER_NAME": "freshpass",
    "GIT_COMMITTER_EMAIL": "freshpass@localhost",
}
_TRAILER_VALUE = re.compile(r"^([0-9a-f]{40}|[0-9a-f]{64}) (sha256:[0-9a-f]{64})$")
K = TypeVar("K")
V = TypeVar("V")
_REJECTED = re.compile(r"fetch first|non-fast-forward|cannot lock ref|failed to update ref|stale info|incorrect old")


@dataclass(frozen=True)
class Signing:
    """How notes commits are signed: `key` is an ssh key file (or `key::<public key>` held by ssh-agent) or a gpg
    key id; None uses git's own signing configuration (`user.signingKey`, `gpg.format`) from the user's config."""

    key: str | None = None

    def __post_init__(self) -> None:
        if self.key is not None and ("PRIVATE KEY" in self.key or "\n" in self.key):
            raise ValueError(
                "the signing key is the text of a key: write it to a file readable only by you (umask 077) and give "
                "its path (see docs/sharing.md)"
            )

    def config(self) -> dict[str, str]:
        if self.key is None:
            return {}
        ssh = self.key.startswith(("key::", "ssh-")) or Path(self.key).expanduser().is_file()
        key = str(Path(self.key).expanduser()) if Path(self.key).expanduser().is_file() else self.key
        return {"gpg.format": "ssh" if ssh else "openpgp", "user.signingKey": key}


@dataclass(frozen=True)
class Added:
    """What `add_receipts` did: the ref's new tip and how many lines it added (0: all were there already)."""

    tip: str
    added: int


@dataclass(frozen=True)
class Moved:
    """What `fetch` or `push` did."""

    before: str  # the local tip before ("" for none)
    after: str  # the local tip after
    remote: str  # the remote's tip after ("" when it has none)
    merged: bool = False  # the two histories had diverged and were merged
    pushed: bool = False
    attempts: int = 1


@dataclass(frozen=True)
class Reading:
    """The shared receipts of one content, newest first, and the lines that were skipped (and why)."""

    views: list[SharedView] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


# ---- reading ------------------------------------------------------------------------------------------------------


class _Cache(Generic[K, V]):
    """A small thread-safe LRU: the language server reads the same note on every refresh until the tip moves, and a
    commit's signature never changes."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, key: K) -> V | None:
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: K, value: V) -> V:
        with self._lock:
            self._items[key] = value
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value

    def get(self, key: K, make: Callable[[], V]) -> V:
        found = self.peek(key)
        return found if found is not None else self.put(key, make())


_notes_read: _Cache[tuple[Path, str, str, str], tuple[tuple[SharedReceipt, ...], tuple[str, ...]]] = _Cache(256)
_vouchers_read: _Cache[tuple[Path, str], dict[tuple[str, str], list[str]]] = _Cache(8)
_signatures_read: _Cache[tuple[str, str], Signature] = _Cache(4096)


def notes_tip(repository: Repository) -> str:
    """The repository's `refs/notes/freshpass` ("" when it has none); `GitError` when it cannot be read."""
    tip = resolve_ref(repository, NOTES_REF)
    if tip is None:
        raise GitError(f"cannot read {NOTES_REF} in {repository.toplevel}")
    return tip


def package_path(repository: Repository, root: Path) -> str:
    """A root as shared receipts name it: relative to the repository's top level, POSIX, `.` for the top."""
    return root.relative_to(repository.toplevel).as_posix()


def shared_for(current: ContentSnapshot, trust: SharedTrust) -> Reading:
    """The shared receipts of the content `current` was read as (design §4.6); never raises: what could not be
    read is a `skipped` reason. A relative `allowed_signers` is relative to the root."""
    root = Path(current.root)
    repository = find_repository(root) if current.is_git else None
    if repository is None:
        return Reading()
    try:
        allowed: bytes | None = None
        if trust.checks_signatures:
            where = Path(trust.allowed_signers).expanduser()
            allowed = load_allowed_signers(where if where.is_absolute() else root / where)
        package = package_path(repository, root)
        return read_shared(repository, current.content_id, package, trust, allowed_signers=allowed)
    except GitError as exc:
        return Reading(skipped=[str(exc)])


def read_shared(
    repository: Repository, content_id: str, root: str, trust: SharedTrust, *, allowed_signers: bytes | None = None
) -> Reading:
    """The shared receipts of `content_id` for the package root `root` (relative to the top level), judged under
    `trust`. `allowed_signers` is the content of the allowed-signers file when `trust` requires a signer."""
    tree = git_tree(content_id)
    if tree is None:
        return Reading()
    tip = notes_tip(repository)
    if not tip:
        return Reading()
    key = (repository.common_dir, tip, tree, root)
    receipts, skipped = _notes_read.get(key, lambda: _parsed_note(repository, tip, tree, content_id, root))
    signatures: Mapping[str, Signature] = {}
    if trust.checks_signatures and receipts:
        signatures = _signatures_of(repository, tip, tree, receipts, allowed_signers or b"")
    views = [judge(receipt, signatures.get(receipt.digest, Signature("none")), trust) for receipt in receipts]
    views.sort(key=lambda view: (view.receipt.finished_at, view.receipt.digest), reverse=True)
    return Reading(views, list(skipped))


def _parsed_note(
    repository: Repository, tip: str, tree: str, content_id: str, root: str
) -> tuple[tuple[SharedReceipt, ...], tuple[str, ...]]:
    """The receipts the note of `tree` holds for `content_id` at package `root`, and why other lines were skipped."""
    text = _read_note(repository, tip, tree)
    if text.startswith("\0"):  # a note too large to read: the reason, not lines
        return (), (text[1:],)
    receipts: list[SharedReceipt] = []
    skipped: list[str] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            receipts.append(parse_line(line, content=content_id, root=root))
        except LineRejected as exc:
            skipped.append(str(exc))
    return tuple(receipts), tuple(skipped)


def _read_note(repository: Repository, tip: str, tree: str) -> str:
    with IsolatedGit(repository, index=False, refs={NOTES_REF: tip}) as git:
        return _note_text(git, NOTES_REF, tree, MAX_NOTE_BYTES) or ""


def _note_text(git: IsolatedGit, ref: str, tree: str, limit: int) -> str | None:
    """The note of `tree` in `ref` (None: no note). Over `limit` bytes: "\\0" and why, never the text."""
    listed = git.call(["notes", f"--ref={ref}", "list", tree])
    if listed.returncode != 0:
        return None
    blob = listed.stdout.decode().strip()
    size = int(git.run(["cat-file", "-s", blob]).decode().strip() or "0")
    if size > limit:
        return f"\0a note of {size} bytes (more than {limit}) was not read"
    return git.run(["cat-file", "blob", blob]).decode("utf-8", "replace")


def _signatures_of(
    repository: Repository, tip: str, tree: str, receipts: Sequence[SharedReceipt], allowed_signers: bytes
) -> dict[str, Signature]:
    """For each receipt's digest, the best signature among the notes commits whose trailer names it."""
    vouchers = _vouchers_read.get((repository.common_dir, tip), lambda: _vouchers(repository, tip))
    wanted = {receipt.digest: vouchers.get((tree, receipt.digest), []) for receipt in receipts}
    trusting = hashlib.sha256(allowed_signers).hexdigest()  # a verdict holds for one allowed-signers file only
    known: dict[str, Signature | None] = {
        commit: _signatures_read.peek((commit, trusting)) for found in wanted.values() for commit in found
    }
    unknown = sorted(commit for commit, signature in known.items() if signature is None)
    if unknown:
        checked = _verify(repository, unknown, allowed_signers)
        for commit in unknown:
            known[commit] = _signatures_read.put((commit, trusting), checked.get(commit, Signature("none")))
    order = ("good", "bad", "unknown-key", "none")
    result: dict[str, Signature] = {}
    for digest, found in wanted.items():
        signatures = [signature for commit in found if (signature := known[commit]) is not None]
        result[digest] = min(signatures, key=lambda s: order.index(s.state), default=Signature("none"))
    return result


def _vouchers(repository: Repository, tip: str) -> dict[tuple[str, str], list[str]]:
    """(tree, digest) → the notes commits whose message carries that `Freshpass-Receipt` trailer."""
    with IsolatedGit(repository, index=False) as git:
        log = git.run(
            [
                "log",
                f"--max-count={HISTORY_LIMIT}",
                f"--format=%H%x00%(trailers:key={TRAILER},valueonly,separator=%x1f)%x01",
                tip,
                "--",
            ]
        ).decode("utf-8", "replace")
    found: dict[tuple[str, str], list[str]] = {}
    for record in log.split("\x01"):
        commit, _, values = record.strip().partition("\x00")
        for value in values.split("\x1f"):
            match = _TRAILER_VALUE.match(value.strip())
            if match:
                found.setdefault((match.group(1), match.group(2)), []).append(commit)
    return found


def _verify(repository: Repository, commits: Sequence[str], allowed_signers: bytes) -> dict[str, Signature]:
    """Each commit's signature checked by git, trusting only the given allowed-signers content."""
    states = {"G": "good", "B": "bad", "U": "unknown-key", "N": "none"}
    result: dict[str, Signature] = {}
    with IsolatedGit(repository, index=False) as git:
        assert git.path is not None
        signers_file = git.path / "allowed_signers"
        signers_file.write_bytes(allowed_signers)
        config = {"gpg.ssh.allowedSignersFile": str(signers_file)}
        for start in range(0, len(commits), 256):
            chunk = commits[start : start + 256]
            shown = git.run(["log", "--no-walk=unsorted", "--format=%H%x00%G?%x00%GS", *chunk, "--"], config=config)
            for row in shown.decode("utf-8", "replace").splitlines():
                commit, _, rest = row.partition("\x00")
                code, _, principal = rest.partition("\x00")
                state = states.get(code, "unknown-key" if code in ("X", "Y", "R", "E") else "none")
                if state == "good" and not principal:
                    state = "unknown-key"
                result[commit] = Signature(state, principal if state == "good" else None)
    return result


def load_allowed_signers(path: Path) -> bytes:
    """The allowed-signers file a trust setting names (a regular file, bounded); `GitError` says why not."""
    try:
        return read_regular(path, MAX_NOTE_BYTES)
    except OSError as exc:
        raise GitError(f"cannot read the allowed signers file {path}: {exc.strerror or exc}") from None


# ---- writing ------------------------------------------------------------------------------------------------------


def _identity(git: IsolatedGit) -> dict[str, str]:
    """The user's own identity for notes commits when git knows one, else freshpass's."""
    return {} if git.call(["var", "GIT_COMMITTER_IDENT"]).returncode == 0 else dict(FALLBACK_IDENTITY)


def _private(repository: Repository, refs: Mapping[str, str]) -> IsolatedGit:
    return IsolatedGit(repository, index=False, refs={name: tip for name, tip in refs.items() if tip})


def _set_note(git: IsolatedGit, ref: str, tree: str, text: str, env: Mapping[str, str]) -> None:
    blob = git.run(["hash-object", "-w", "--stdin"], stdin=text.encode("utf-8", "surrogateescape")).decode().strip()
    # -C takes the blob as it is: no reformatting, no separator line.
    git.run(["notes", f"--ref={ref}", "add", "-f", "-C", blob, tree], env=env)


def _existing_lines(git: IsolatedGit, ref: str, tree: str) -> list[str]:
    text = _note_text(git, ref, tree, MERGE_NOTE_LIMIT)
    if text is not None and text.startswith("\0"):
        raise GitError(f"the shared receipts of {tree} in {ref} are too large to add to ({text[1:]})")
    return (text or "").splitlines()


# What a run is, whoever shared it: every field but the provenance (actor, provider, job URL, commit, version). Two
# writers' runs of one check on one content that start and finish in the same millisecond are still two runs when
# anything they ran or returned differs.
_RUN_FIELDS = ("content", "root", "kind", "canonical_command", "command", "status", "exit_code", "started_at",
               "finished_at")  # fmt: skip


def run_of(line: str) -> tuple[str, ...]:
    """What identifies the run a note line tells of, whatever provenance it was shared with (the line itself when
    it cannot be read)."""
    try:
        data = json.loads(line)
    except ValueError:
        return (line,)
    if not isinstance(data, dict):
        return (line,)
    return tuple(json.dumps(data.get(name), sort_keys=True) for name in _RUN_FIELDS)


def add_receipts(
    repository: Repository, receipts: Sequence[SharedReceipt], *, summary: str, signing: Signing | None = None
) -> Added:
    """Add `receipts` to the repository's `refs/notes/freshpass` in one commit (signed when `signing` is given).
    A run already shared (`run_of`: same content, package, check, command, result and times), whoever shared it,
    is not added again; nothing to add leaves the ref as it is."""
    by_tree: dict[str, list[SharedReceipt]] = {}
    for receipt in receipts:
        by_tree.setdefault(receipt.tree, []).append(receipt)
    for _ in range(WRITE_ATTEMPTS):
        local = notes_tip(repository)
        with _private(repository, {NOTES_REF: local}) as git:
            env = _identity(git)
            added: list[SharedReceipt] = []
            for tree, group in by_tree.items():
                existing = _existing_lines(git, NOTES_REF, tree)
                runs = {run_of(line) for line in existing}
                new = [receipt for receipt in group if run_of(receipt.line) not in runs]
                if new:
                    _set_note(git, NOTES_REF, tree, normal_form([*existing, *(r.line for r in new)]), env)
                    added += new
            if not added:
                return Added(local, 0)
            notes_tree = git.run(["rev-parse", f"{NOTES_REF}^{{tree}}"]).decode().strip()
            trailers = "".join(f"{TRAILER}: {receipt.tree} {receipt.digest}\n" for receipt in added)
            message = f"{summary}\n\n{trailers}"
            parents = ["-p", local] if local else []
            sign = ["-S"] if signing is not None else []
            made = git.call(
                ["commit-tree", *sign, *parents, "-F", "-", notes_tree],
                stdin=message.encode(),
                config=signing.config() if signing is not None else None,
                env=env,
            )
            if made.returncode != 0:
                doing = "sign" if signing is not None else "write"
                raise GitError(f"cannot {doing} the shared receipts commit: {failure_detail(made)}")
            commit = made.stdout.decode().strip()
        try:
            update_ref(repository, NOTES_REF, commit, local)
            return Added(commit, len(added))
        except RefMoved:
            continue  # another freshpass wrote meanwhile: add on top of its commit
    raise GitError(f"{NOTES_REF} in {repository.toplevel} kept moving; try again")


def _merge(git: IsolatedGit, ours: str, theirs: str, env: Mapping[str, str]) -> str:
    """A commit with parents `ours` and `theirs` whose notes are the union of both (built on `NOTES_REF`, which
    must point at `ours`)."""
    mine, other = _listing(git, NOTES_REF), _listing(git, THEIRS_REF)
    for tree, blob in other.items():
        if mine.get(tree) == blob:
            continue
        lines = _existing_lines(git, THEIRS_REF, tree)
        if tree in mine:
            lines += _existing_lines(git, NOTES_REF, tree)
        _set_note(git, NOTES_REF, tree, normal_form(lines), env)
    notes_tree = git.run(["rev-parse", f"{NOTES_REF}^{{tree}}"]).decode().strip()
    message = b"freshpass: merge shared receipts\n"
    command = ["commit-tree", "-p", ours, "-p", theirs, "-F", "-", notes_tree]
    return git.run(command, stdin=message, env=env).decode().strip()


def _listing(git: IsolatedGit, ref: str) -> dict[str, str]:
    """The notes of `ref`: annotated object → note blob."""
    notes: dict[str, str] = {}
    for row in git.run(["notes", f"--ref={ref}", "list"]).decode().splitlines():
        blob, _, tree = row.partition(" ")
        if tree:
            notes[tree] = blob
    return notes


def _fetch_tip(git: IsolatedGit, url: str) -> str:
    """Fetch the remote's `refs/notes/freshpass` into the private `THEIRS_REF`; its tip, "" when it has none."""
    fetched = git.call(
        ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-auto-gc", url, f"+{NOTES_REF}:{THEIRS_REF}"]
    )
    if fetched.returncode == 0:
        return git.ref(THEIRS_REF)
    detail = failure_detail(fetched)
    if "couldn't find remote ref" in detail:
        return ""
    raise GitError(f"cannot fetch {NOTES_REF} from {url}: {detail}{_credentials_hint(detail)}")


def _credentials_hint(detail: str) -> str:
    if re.search(r"could not read Username|Authentication failed|Permission denied|403|401", detail):
        return (
            " (freshpass does not read credentials from the repository's own .git/config: set them in your global "
            "git configuration or a credential helper; see docs/sharing.md)"
        )
    return ""


def _ancestor(git: IsolatedGit, older: str, newer: str) -> bool:
    return older == newer or git.test(["merge-base", "--is-ancestor", older, newer])


def fetch(repository: Repository, remote: Remote) -> Moved:
    """Bring the remote's shared receipts into the repository's ref: a fast-forward, or a merge when both sides
    added receipts. Nothing local is ever dropped."""
    for _ in range(WRITE_ATTEMPTS):
        local = notes_tip(repository)
        with _private(repository, {NOTES_REF: local}) as git:
            theirs = _fetch_tip(git, remote.fetch_url)
            if not theirs or (local and _ancestor(git, theirs, local)):
                return Moved(local, local, theirs)
            merged = bool(local) and not _ancestor(git, local, theirs)
            new = _merge(git, local, theirs, _identity(git)) if merged else theirs
        try:
            update_ref(repository, NOTES_REF, new, local)
            return Moved(local, new, theirs, merged=merged)
        except RefMoved:
            continue
    raise GitError(f"{NOTES_REF} in {repository.toplevel} kept moving; try again")


def push(
    repository: Repository,
    remote: Remote,
    *,
    attempts: int = PUSH_ATTEMPTS,
    pause: Callable[[int], None] | None = None,
) -> Moved:
    """Publish the repository's shared receipts to the remote without force: fetch its tip, merge when the two
    diverged, push; when someone else pushed first, fetch, merge and push again (up to `attempts` times, pausing
    `pause(attempt)` between them: a short random back-off by default)."""
    wait = pause or _back_off
    before = notes_tip(repository)
    for attempt in range(1, attempts + 1):
        local = notes_tip(repository)
        with _private(repository, {NOTES_REF: local}) as git:
            theirs = _fetch_tip(git, remote.fetch_url)
            if not local or (theirs and _ancestor(git, local, theirs)):
                moved = _adopt(repository, local, theirs)
                return Moved(before, moved, theirs, attempts=attempt)
            merged = bool(theirs) and not _ancestor(git, theirs, local)
            candidate = _merge(git, local, theirs, _identity(git)) if merged else local
            if _push_once(git, remote.push_url, candidate):
                with_merge = _adopt(repository, local, candidate)
                return Moved(before, with_merge, candidate, merged=merged, pushed=True, attempts=attempt)
        if attempt < attempts:
            wait(attempt)
    raise GitError(
        f"{remote.name} kept receiving other shared receipts while freshpass pushed ({attempts} attempts); try again"
    )


def _adopt(repository: Repository, local: str, new: str) -> str:
    """Move the repository's ref from `local` to `new` (a descendant) when it did not move meanwhile."""
    if not new or new == local:
        return local
    try:
        update_ref(repository, NOTES_REF, new, local)
        return new
    except RefMoved:
        return notes_tip(repository)  # a local writer added meanwhile: the next push carries it


def _push_once(git: IsolatedGit, url: str, commit: str) -> bool:
    """Push `commit` to the remote's ref without force: True when it went, False when someone else was first."""
    pushed = git.call(["push", "--quiet", "--no-verify", "--porcelain", url, f"{commit}:{NOTES_REF}"])
    if pushed.returncode == 0:
        return True
    report = (pushed.stdout + pushed.stderr).decode("utf-8", "replace")
    if _REJECTED.search(report):
        return False
    detail = failure_detail(pushed)
    raise GitError(f"cannot push {NOTES_REF} to {url}: {detail}{_credentials_hint(report)}")


def _back_off(attempt: int) -> None:
    time.sleep(random.uniform(0, min(0.05 * 2**attempt, 2.0)))  # jitter: two writers stop colliding


def share_summary(count: int, actor: str, provider: str) -> str:
    """The first line of a notes commit: `freshpass: 2 receipts from ci (github-actions)`."""
    where = f" ({provider})" if provider else ""
    return f"freshpass: {count} receipt{'s' if count != 1 else ''} from {actor}{where}"
