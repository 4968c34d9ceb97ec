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

Merging is bounded work: a constant number of git processes however many notes there are (`_merge`: two
`ls-tree`, one `cat-file --batch`, one `fast-import`), no note over `MAX_NOTE_BYTES` read, no line over
`MAX_LINE_BYTES` kept, and what was left out said (`Moved.skipped`).

Reading is bounded (a note over `MAX_NOTE_BYTES` is not read) and cached by notes tip, since the language server
asks on every refresh; signatures are checked only when the trust settings require a signer, with the
allowed-signers file the trust anchors name (`freshpass.ledger.anchors`: the user's own file, or the project's as
the default branch has it committed; never the work tree's, never one the repository's git config names).
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

from freshpass.facts.model import SharedTrust
from freshpass.ledger import anchors
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
    MAX_LINE_BYTES,
    MAX_NOTE_BYTES,
    NOTES_REF,
    LineRejected,
    SharedReceipt,
    SharedView,
    Signature,
    judge,
    normal_form,
    parse_line,
)

THEIRS_REF = "refs/notes/freshpass-theirs"  # the remote's tip, in a private directory only
TRAILER = "Freshpass-Receipt"
PUSH_ATTEMPTS = 12
WRITE_ATTEMPTS = 5  # local writers racing on the repository's ref
MERGED_REF = "refs/notes/freshpass-merged"  # the merge fast-import writes, in a private directory only
# What one merge reads at most: every note that differs on both sides is read whole (each at most MAX_NOTE_BYTES,
# each line at most MAX_LINE_BYTES: the bounds readers apply), until this budget is spent.
MERGE_READ_LIMIT = 64 << 20
HISTORY_LIMIT = 100_000  # notes commits scanned for trailers
FALLBACK_IDENTITY = {
    "GIT_AUTHOR_NAME": "freshpass",
    "GIT_AUTHOR_EMAIL": "freshpass@localhost",
    "GIT_COMMITTER_NAME": "freshpass",
    "GIT_COMMITTER_EMAIL": "freshpass@localhost",
}
_OBJECT_NAME = re.compile(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
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
    skipped: tuple[str, ...] = ()  # what a merge left out (notes or lines over the bounds)


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
    """The shared receipts of the content `current` was read as (design §4.6), judged under `trust` (see
    `freshpass.ledger.anchors.trust_anchors` for where it comes from); never raises: what could not be read is a
    `skipped` reason. The allowed-signers file is read as `anchors.allowed_signers` says: a relative path from the
    default branch's commit, never from the work tree."""
    root = Path(current.root)
    repository = find_repository(root) if current.is_git else None
    if repository is None:
        return Reading()
    package = package_path(repository, root)
    problems: list[str] = []
    allowed: bytes | None = None
    if trust.checks_signatures:
        try:
            allowed = anchors.allowed_signers(repository, package, trust)
        except GitError as exc:
            problems.append(str(exc))  # every signature then checks against no key: nothing signed counts
    try:
        reading = read_shared(repository, current.content_id, package, trust, allowed_signers=allowed)
    except GitError as exc:
        return Reading(skipped=[*problems, str(exc)])
    return Reading(reading.views, [*problems, *reading.skipped])


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
    """The lines of a content's note to add to: none when the note is over `MAX_NOTE_BYTES` (no reader reads such a
    note, so the new receipts replace it rather than being lost in it), and none over `MAX_LINE_BYTES`."""
    text = _note_text(git, ref, tree, MAX_NOTE_BYTES)
    if text is None or text.startswith("\0"):
        return []
    return [line for line in text.splitlines() if len(line.encode("utf-8", "surrogateescape")) <= MAX_LINE_BYTES]


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


@dataclass(frozen=True)
class _Note:
    blob: str
    size: int


class _Skipped:
    """What a merge left out, told in a few lines however much there was."""

    def __init__(self) -> None:
        self.notes: list[str] = []  # annotated objects whose too-large note was not read
        self.lines = 0
        self.lines_in: set[str] = set()
        self.unread: list[str] = []  # notes left as one side had them: the merge's read budget was spent
        self.strays = 0  # tree entries that are not notes

    def report(self) -> tuple[str, ...]:
        said: list[str] = []
        if self.notes:
            shown = ", ".join(tree[:12] for tree in self.notes[:3]) + (" …" if len(self.notes) > 3 else "")
            said.append(
                f"{len(self.notes)} note{'s' if len(self.notes) != 1 else ''} larger than {MAX_NOTE_BYTES >> 20} MiB "
                f"not merged (not read; the other side's kept): {shown}"
            )
        if self.lines:
            said.append(
                f"{self.lines} line{'s' if self.lines != 1 else ''} longer than {MAX_LINE_BYTES >> 10} KiB dropped "
                f"from {len(self.lines_in)} note{'s' if len(self.lines_in) != 1 else ''} (no receipt is that long)"
            )
        if self.unread:
            said.append(
                f"{len(self.unread)} notes kept as one side had them: the merge reads at most "
                f"{MERGE_READ_LIMIT >> 20} MiB of notes"
            )
        if self.strays:
            said.append(f"{self.strays} entries of the notes tree that are not notes were left out")
        return tuple(said)


def _merge(git: IsolatedGit, ours: str, theirs: str) -> tuple[str, tuple[str, ...]]:
    """A commit with parents `ours` and `theirs` whose notes are the union of both, and what was left out — in a
    constant number of git processes however many notes there are: both trees listed with their sizes
    (`ls-tree -r -l`), the notes that differ read in one `cat-file --batch`, the merged tree and its commit written
    by one `fast-import`. A note over `MAX_NOTE_BYTES` is never read (the other side's note is kept; readers skip
    such a note anyway), a line over `MAX_LINE_BYTES` is dropped (no receipt is that long), and at most
    `MERGE_READ_LIMIT` bytes are read in all."""
    skipped = _Skipped()
    mine, other = _tree_notes(git, ours, skipped), _tree_notes(git, theirs, skipped)
    union: dict[str, str] = {}  # annotated object → blob of its merged note ("" for a note written below)
    both: dict[str, tuple[_Note, _Note]] = {}
    for tree in set(mine) | set(other):
        a, b = mine.get(tree), other.get(tree)
        if a is None or b is None or a.blob == b.blob:
            only = a if a is not None else b
            assert only is not None
            union[tree] = only.blob
            continue
        readable = [note for note in (a, b) if note.size <= MAX_NOTE_BYTES]
        if len(readable) < 2:
            skipped.notes.append(tree)
            union[tree] = (readable[0] if readable else a).blob
            continue
        both[tree] = (a, b)
    budget = MERGE_READ_LIMIT
    wanted: list[str] = []
    for tree in sorted(both):
        a, b = both[tree]
        if a.size + b.size > budget:
            skipped.unread.append(tree)
            union[tree] = a.blob
            continue
        budget -= a.size + b.size
        wanted += [a.blob, b.blob]
    texts = _read_blobs(git, wanted)
    merged: dict[str, bytes] = {}
    for tree, (a, b) in both.items():
        if tree in union:
            continue
        lines: list[str] = []
        for note in (a, b):
            for line in texts.get(note.blob, b"").decode("utf-8", "surrogateescape").splitlines():
                if len(line.encode("utf-8", "surrogateescape")) > MAX_LINE_BYTES:
                    skipped.lines += 1
                    skipped.lines_in.add(tree)
                else:
                    lines.append(line)
        text = normal_form(lines).encode("utf-8", "surrogateescape")
        if text:
            merged[tree] = text
            union[tree] = ""
    return _import_merge(git, ours, theirs, union, merged), skipped.report()


def _tree_notes(git: IsolatedGit, commit: str, skipped: _Skipped) -> dict[str, _Note]:
    """The notes of a notes commit, in one `ls-tree`: annotated object → its note's blob and size (fan-out
    directories joined back into the object id, as git reads them)."""
    listed = git.run(["ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--"])
    found: dict[str, _Note] = {}
    for entry in listed.split(b"\0"):
        if not entry:
            continue
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        name = path.decode("utf-8", "replace").replace("/", "")
        if len(fields) != 4 or fields[1] != b"blob" or not _OBJECT_NAME.match(name) or not fields[3].isdigit():
            skipped.strays += 1
            continue
        found[name] = _Note(fields[2].decode(), int(fields[3]))
    return found


def _read_blobs(git: IsolatedGit, blobs: Sequence[str]) -> dict[str, bytes]:
    """The contents of `blobs` (already known to be small enough), in one `cat-file --batch`."""
    if not blobs:
        return {}
    unique = list(dict.fromkeys(blobs))
    out = git.run(["cat-file", "--batch"], stdin="".join(f"{blob}\n" for blob in unique).encode())
    texts: dict[str, bytes] = {}
    at = 0
    for blob in unique:
        header_end = out.find(b"\n", at)
        header = out[at:header_end].split() if header_end >= 0 else []
        if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit():
            raise GitError(f"git cat-file did not return the note {blob}")
        size = int(header[2])
        texts[blob] = out[header_end + 1 : header_end + 1 + size]
        at = header_end + 1 + size + 1
    return texts


def _import_merge(
    git: IsolatedGit, ours: str, theirs: str, union: Mapping[str, str], merged: Mapping[str, bytes]
) -> str:
    """The merge commit of `ours` and `theirs` holding exactly the notes of `union`, written by one `fast-import`
    (blobs of `merged` inline, the others by id), fanned out as git fans out a large notes tree."""
    ident = git.call(["var", "GIT_COMMITTER_IDENT"])
    committer = ident.stdout.decode("utf-8", "replace").strip() if ident.returncode == 0 else ""
    if not committer:
        committer = f"freshpass <freshpass@localhost> {int(time.time())} +0000"
    message = b"freshpass: merge shared receipts\n"
    stream = bytearray()
    stream += b"feature done\n"
    stream += f"commit {MERGED_REF}\ncommitter {committer}\n".encode()
    stream += b"data %d\n%s" % (len(message), message)
    stream += f"from {ours}\nmerge {theirs}\ndeleteall\n".encode()
    fan_out = len(union) > 255
    for tree in sorted(union):
        path = f"{tree[:2]}/{tree[2:]}" if fan_out else tree
        if tree in merged:
            data = merged[tree]
            stream += f"M 100644 inline {path}\n".encode() + b"data %d\n" % len(data) + data + b"\n"
        else:
            stream += f"M 100644 {union[tree]} {path}\n".encode()
    stream += b"done\n"
    git.run(["fast-import", "--quiet", "--done"], stdin=bytes(stream))
    commit = git.ref(MERGED_REF)
    if not commit:
        raise GitError("git fast-import wrote no merge of the shared receipts")
    return commit


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
            new, skipped = _merge(git, local, theirs) if merged else (theirs, ())
        try:
            update_ref(repository, NOTES_REF, new, local)
            return Moved(local, new, theirs, merged=merged, skipped=skipped)
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
            candidate, skipped = _merge(git, local, theirs) if merged else (local, ())
            if _push_once(git, remote.push_url, candidate):
                with_merge = _adopt(repository, local, candidate)
                return Moved(
                    before, with_merge, candidate, merged=merged, pushed=True, attempts=attempt, skipped=skipped
                )
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
