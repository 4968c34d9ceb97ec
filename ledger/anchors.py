"""Where the trust in shared receipts comes from: never from the content it judges (design §4.6).

Whose shared receipts count (`trust`), whose signature they need (`signers`) and the keys those signers hold
(`allowed_signers`) are the *trust anchors*. A branch under review is content like any other: if its own
`.freshpass.toml` could say `trust = ["ci"]`, or its own allowed-signers file could list a key its author holds,
it could vouch for the notes it forged. So the anchors are read from, in this order:

1. **the user's settings** when they trust anyone: the editor's `freshpass.shared.*` settings, else the user's own
   file `$XDG_CONFIG_HOME/freshpass/config.toml` (XDG default `~/.config`), table `[shared]` with the same keys as
   the project's (`allowed_signers` may be absolute there; `~` is the home directory);
2. else **the project's settings as the default branch has them committed**: `[tool.freshpass.shared]` of the
   package root's `pyproject.toml`, then `shared` of its `.freshpass.toml` (which wins, as in the work tree),
   read from the blob at the default branch's commit — never the work tree, never the commit being judged.

The default branch is the first of `refs/remotes/origin/HEAD` (what the remote said its default branch is),
`refs/remotes/origin/main`, `refs/remotes/origin/master`, then the local `main`, `master` — a local branch only
when it is not the checked-out branch, whose commits are the ones being judged. With none of them, only the
user's settings count. A relative `allowed_signers` (the project's always, the user's when they write one) names
a file of the package root in that same commit; an absolute one (the user's only) is read from the disk, and
refused when it lies inside the work tree being judged.

Nothing here runs the repository's configuration: refs are read from files, blobs through the isolated git runner
(`freshpass.ledger.git.IsolatedGit`, two `cat-file` processes for every file of one commit), every read is
bounded, and a result is cached by commit (the language server asks on every refresh). A caller in an untrusted
folder reads no anchors at all (nothing shared counts there), so no git runs for them.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freshpass.facts.files import read_regular
from freshpass.facts.model import SharedTrust
from freshpass.facts.signals.explicit import shared_trust_of
from freshpass.ledger.content import ContentSnapshot
from freshpass.ledger.git import GitError, IsolatedGit, Repository, find_repository, resolve_ref
from freshpass.ledger.shared import MAX_NOTE_BYTES

USER_CONFIG = "config.toml"
USER_CONFIG_LIMIT = 64 << 10  # the user's own settings file: a few lines
COMMITTED_FILE_LIMIT = 1 << 20  # a committed pyproject.toml or .freshpass.toml read for its trust settings
ALLOWED_SIGNERS_LIMIT = MAX_NOTE_BYTES  # an allowed-signers file: one line per key
REMOTE = "origin"
_LOCAL_DEFAULTS = ("main", "master")
_SAFE_PATH = re.compile(r"^[^\x00-\x1f\x7f]+$")


@dataclass(frozen=True)
class DefaultBranch:
    """The commit the project's trust settings are read from, and how it is named to people (`origin/HEAD`)."""

    name: str
    commit: str


@dataclass(frozen=True)
class Anchors:
    """The trust in force for one package root, and where it came from."""

    trust: SharedTrust
    source: str  # "your settings", "origin/HEAD" (a default branch's name), or "" when no one is trusted
    branch: DefaultBranch | None = None
    committed: SharedTrust | None = None  # the project's settings at `branch` (None: no branch to read them from)
    problems: tuple[str, ...] = ()

    @property
    def users(self) -> bool:
        return self.source == "your settings"


def worktree_note(repository: Repository, root: Path, anchors: Anchors, worktree: SharedTrust) -> str:
    """One line for someone whose work tree's own trust settings (`worktree`, what detection read from the work
    tree) or allowed-signers file differ from the default branch's: they count for nothing until merged. "" when
    they do not differ, or when the user's settings are in force anyway."""
    if anchors.users:
        return ""
    if anchors.branch is None:
        if worktree == SharedTrust():
            return ""
        return (
            "the work tree's trust settings count for nothing: there is no default branch (origin/HEAD, "
            "origin/main, or main/master not checked out) to read them from; your own settings still count"
        )
    committed = anchors.committed or SharedTrust()
    differs = worktree != committed
    if not differs and committed.allowed_signers:
        package = root.relative_to(repository.toplevel).as_posix()
        try:
            mine: bytes | None = read_regular(root / committed.allowed_signers, ALLOWED_SIGNERS_LIMIT)
        except OSError:
            mine = None
        try:
            theirs: bytes | None = allowed_signers(repository, package, committed)
        except GitError:
            theirs = None
        differs = mine != theirs
    if differs:
        return f"the work tree's trust settings differ from {anchors.branch.name}'s; they count once merged"
    return ""


# ---- the user's settings ------------------------------------------------------------------------------------------


def user_config_file(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/freshpass/config.toml` (XDG default `~/.config`; a relative variable is ignored)."""
    env = os.environ if env is None else env
    config_home = env.get("XDG_CONFIG_HOME", "").strip()
    base = Path(config_home) if config_home and Path(config_home).is_absolute() else Path.home() / ".config"
    return base / "freshpass" / USER_CONFIG


def user_trust(env: Mapping[str, str] | None = None) -> tuple[SharedTrust | None, str]:
    """The `[shared]` table of the user's config file (None when there is none), and why it was not usable."""
    where = user_config_file(env)
    try:
        data = read_regular(where, USER_CONFIG_LIMIT)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"{where}: {exc.strerror or exc}; your shared-receipt settings are not used"
    import tomli

    try:
        parsed: Any = tomli.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomli.TOMLDecodeError, RecursionError):
        return None, f"{where} is not valid TOML; your shared-receipt settings are not used"
    shared = parsed.get("shared")
    if shared is None:
        return None, ""
    if not isinstance(shared, dict):
        return None, f"{where}: [shared] must be a table; your shared-receipt settings are not used"
    allowed = shared.get("allowed_signers", "")
    if not isinstance(allowed, str) or len(allowed) > 4096 or (allowed and not _SAFE_PATH.match(allowed)):
        return None, f"{where}: shared.allowed_signers must be a file path; your shared-receipt settings are not used"
    checked, problem = shared_trust_of({**shared, "allowed_signers": "x" if allowed else ""}, "")
    if checked is None:
        return None, f"{where}: {problem}; your shared-receipt settings are not used"
    return SharedTrust(checked.actors, checked.signers, allowed), ""


# ---- the default branch -------------------------------------------------------------------------------------------


def default_branch(repository: Repository) -> DefaultBranch | None:
    """The commit the project's trust settings are read from (see the module's docstring), read from files."""
    candidates = [
        (f"{REMOTE}/HEAD", f"refs/remotes/{REMOTE}/HEAD"),
        *((f"{REMOTE}/{name}", f"refs/remotes/{REMOTE}/{name}") for name in _LOCAL_DEFAULTS),
    ]
    checked_out = _checked_out_branch(repository)
    candidates += [(name, f"refs/heads/{name}") for name in _LOCAL_DEFAULTS if name != checked_out]
    for name, ref in candidates:
        commit = resolve_ref(repository, ref)
        if commit:
            return DefaultBranch(name, commit)
    return None


def _checked_out_branch(repository: Repository) -> str | None:
    """The branch `HEAD` names: None when detached, `*` (no branch's name) when `HEAD` cannot be read, so that
    no local branch is taken for the default when it might be the one being judged."""
    try:
        head = read_regular(repository.git_dir / "HEAD", 4096).decode("utf-8", "replace").strip()
    except OSError:
        return "*"  # cannot tell which branch is being judged: trust no local one
    if head.startswith("ref: refs/heads/"):
        return head[len("ref: refs/heads/") :]
    return None


# ---- committed files ----------------------------------------------------------------------------------------------


def committed_files(repository: Repository, commit: str, paths: Sequence[str], limit: int) -> dict[str, bytes | str]:
    """The blobs at `paths` in `commit`, without a checkout: each path → its bytes, or a text saying why not (absent,
    not a file, over `limit` bytes). Two git processes whatever the number of paths."""
    return _read_committed(repository, commit, tuple(paths), limit)


def _read_committed(repository: Repository, commit: str, paths: tuple[str, ...], limit: int) -> dict[str, bytes | str]:

    result: dict[str, bytes | str] = {}
    asked = [path for path in paths if _SAFE_PATH.match(path) and not path.startswith("-")]
    for path in paths:
        if path not in asked:
            result[path] = "not a path freshpass reads"
    if not asked:
        return result
    with IsolatedGit(repository, index=False) as git:
        checked = git.run(["cat-file", "--batch-check"], stdin="".join(f"{commit}:{path}\n" for path in asked).encode())
        rows = checked.decode("utf-8", "replace").splitlines()
        if len(rows) != len(asked):
            raise GitError(f"git cat-file did not describe every file of {commit[:12]}")
        wanted: list[tuple[str, str, int]] = []
        for path, row in zip(asked, rows, strict=True):
            fields = row.split()
            if len(fields) != 3 or fields[1] != "blob" or not fields[2].isdigit():
                result[path] = "not in that commit" if row.endswith(" missing") else "not a file in that commit"
            elif int(fields[2]) > limit:
                result[path] = f"{fields[2]} bytes, more than {limit}"
            else:
                wanted.append((path, fields[0], int(fields[2])))
        if wanted:
            out = git.run(["cat-file", "--batch"], stdin="".join(f"{blob}\n" for _, blob, _ in wanted).encode())
            at = 0
            for path, _, size in wanted:
                start = out.find(b"\n", at) + 1
                if start == 0 or len(out) < start + size:
                    raise GitError(f"git cat-file did not return {path} of {commit[:12]}")
                result[path] = out[start : start + size]
                at = start + size + 1
    return result


@functools.lru_cache(maxsize=256)  # small results, asked on every refresh of the language server
def committed_trust(repository: Repository, branch: DefaultBranch, package: str) -> tuple[SharedTrust, tuple[str, ...]]:
    """The project's trust settings at `branch` for the package root `package` (relative to the top level), and
    what could not be read. `.freshpass.toml`'s `shared` wins over `pyproject.toml`'s, as in the work tree."""
    names = [_join(package, "pyproject.toml"), _join(package, ".freshpass.toml")]
    files = committed_files(repository, branch.commit, names, COMMITTED_FILE_LIMIT)
    trust = SharedTrust()
    problems: list[str] = []
    for name, table in ((names[0], ("tool", "freshpass", "shared")), (names[1], ("shared",))):
        data = files.get(name)
        if not isinstance(data, bytes):
            if isinstance(data, str) and "more than" in data:
                problems.append(f"{branch.name}'s {name} is not read ({data})")
            continue
        shared = _table(data, table)
        if isinstance(shared, str):
            problems.append(f"{branch.name}'s {name}: {shared}")
            continue
        if shared is None:
            continue
        found, problem = shared_trust_of(shared, "tool.freshpass." if table[0] == "tool" else "")
        if found is None:
            problems.append(f"{branch.name}'s {name}: {problem}")
        else:
            trust = found
    return trust, tuple(problems)


def _table(data: bytes, path: Sequence[str]) -> Any:
    """The table at `path` of a TOML document (None when absent), or a text saying why it cannot be read."""
    import tomli

    try:
        value: Any = tomli.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomli.TOMLDecodeError, RecursionError):
        return "not valid TOML"
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _join(package: str, name: str) -> str:
    return name if package in ("", ".") else posixpath.join(package, name)


# ---- what is in force ---------------------------------------------------------------------------------------------


def trust_anchors(
    repository: Repository, package: str, editor: SharedTrust | None = None, env: Mapping[str, str] | None = None
) -> Anchors:
    """The trust in force for the package root `package` of `repository`: the editor's settings when they trust
    anyone, else the user's config file's, else the project's as the default branch has them committed."""
    from freshpass.ledger.shared import SharedOptions

    if editor is not None and editor.actors:
        return Anchors(editor, "your settings")
    mine, problem = user_trust(env)
    problems = [problem] if problem else []
    if mine is not None and mine.actors:
        return Anchors(SharedOptions(mine).policy(None), "your settings", problems=tuple(problems))
    branch = default_branch(repository)
    if branch is None:
        return Anchors(SharedTrust(), "", problems=tuple(problems))
    try:
        committed, found = committed_trust(repository, branch, package)
    except GitError as exc:
        return Anchors(SharedTrust(), "", branch, None, (*problems, str(exc)))
    return Anchors(committed, branch.name if committed.actors else "", branch, committed, (*problems, *found))


def anchors_for(current: ContentSnapshot, editor: SharedTrust | None = None) -> Anchors:
    """`trust_anchors` for the package root `current` was read at (no repository: no one is trusted)."""
    root = Path(current.root)
    repository = find_repository(root) if current.is_git else None
    if repository is None:
        return Anchors(SharedTrust(), "")
    return trust_anchors(repository, root.relative_to(repository.toplevel).as_posix(), editor)


def allowed_signers(repository: Repository, package: str, trust: SharedTrust) -> bytes:
    """The allowed-signers file `trust` names: an absolute path (the user's own file) from the disk — refused inside
    the work tree being judged — and a relative one from the package root at the default branch's commit.
    `GitError` says why it cannot be read."""
    named = trust.allowed_signers
    if not named:
        raise GitError("no allowed signers file is named (shared.allowed_signers)")
    if named.startswith(("/", "~")):
        path = Path(named).expanduser()
        real = os.path.realpath(path)
        for home in (repository.toplevel, repository.git_dir, repository.common_dir):
            inside = os.path.realpath(home)
            if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
                raise GitError(
                    f"the allowed signers file {path} is inside the repository being judged, which may have edited "
                    "it: name it relative to the project, so it is read from the default branch"
                )
        try:
            return read_regular(path, ALLOWED_SIGNERS_LIMIT)
        except OSError as exc:
            raise GitError(f"cannot read the allowed signers file {path}: {exc.strerror or exc}") from None
    relative = posixpath.normpath(_join(package, named))
    if relative.startswith("../") or relative == ".." or not _SAFE_PATH.match(relative):
        raise GitError(f"the allowed signers file {named} is outside the repository")
    branch = default_branch(repository)
    if branch is None:
        raise GitError(
            f"no default branch (origin/HEAD, origin/main, or main/master not checked out) to read the allowed "
            f"signers file {named} from; a work tree's own copy is never used"
        )
    data = _committed_signers(repository, branch.commit, relative)
    if isinstance(data, str):
        raise GitError(f"cannot read the allowed signers file {relative} at {branch.name}: {data}")
    return data


@functools.lru_cache(maxsize=16)  # at most ALLOWED_SIGNERS_LIMIT each; one or two per project in practice
def _committed_signers(repository: Repository, commit: str, path: str) -> bytes | str:
    return committed_files(repository, commit, [path], ALLOWED_SIGNERS_LIMIT)[path]
