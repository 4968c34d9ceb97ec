"""Content ids: what a root's files are right now, so evidence is bound to content, not clocks (design §4.3–4.4).

Git roots use git's own machinery: the tree the working directory would commit, untracked-but-not-ignored files
included. It is computed in a *temporary copy* of the index, so the user's index is never touched, and the copy's
cached stat data lets git re-hash only the files that changed. Ignored paths (prose, the ledger itself,
configured globs) are removed from that temporary index before `git write-tree`, so their changes never alter the
id. Git runs against a private git directory (`freshpass.ledger.git.IsolatedGit`): nothing the repository
configures — fsmonitor, clean filters, hooks, includes — is ever executed, trusted workspace or not. Other roots
hash the files seen (heavy dependency/build dirs skipped; symlinks hashed by their target text, as git does, never
followed; FIFOs, sockets and devices never opened) and keep the manifest so that `changed_paths` can tell which
files differ later.

Content ids are prefixed with their kind: `git:<tree>` or `files:<sha256>`. `commit_snapshot` gives the id a
clean checkout of a commit would have, without checking it out (`freshpass.ledger.trees`, design §4.6).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shutil
import stat
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freshpass.facts.files import SMALL_FILE_LIMIT, read_regular_text
from freshpass.ledger.git import (
    GitError,
    IsolatedGit,
    Repository,
    find_repository,
    object_format,
    resolve_revision,
)
from freshpass.ledger.paths import default_ledger_path

GIT_PREFIX = "git:"
FILES_PREFIX = "files:"


# The one parser and formatter of content ids: every other module reads and spells them through these.
def git_content_id(tree: str) -> str:
    """The content id of a git tree: `git:<tree>`."""
    return f"{GIT_PREFIX}{tree}"


def files_content_id(digest: str) -> str:
    """The content id of a non-git root's files: `files:<sha256 of the manifest>`."""
    return f"{FILES_PREFIX}{digest}"


def git_tree(content_id: str | None) -> str | None:
    """The tree a `git:<tree>` content id names; None for any other id (a `files:` digest, empty, None)."""
    if content_id and content_id.startswith(GIT_PREFIX):
        return content_id[len(GIT_PREFIX) :]
    return None


def is_git_content(content_id: str | None) -> bool:
    """Whether `content_id` names a git tree (`git:<tree>`)."""
    return git_tree(content_id) is not None


def is_files_content(content_id: str | None) -> bool:
    """Whether `content_id` names a non-git root's files (`files:<digest>`)."""
    return bool(content_id) and str(content_id).startswith(FILES_PREFIX)


# Prose never makes evidence stale by default (design §4.4). Build inputs that happen to be .txt are not prose.
PROSE_EXTENSIONS = (".md", ".mdx", ".rst", ".txt", ".adoc", ".org")
PROSE_BASENAMES = (
    "LICENSE",
    "LICENCE",
    "COPYING",
    "NOTICE",
    "CHANGELOG",
    "CHANGES",
    "HISTORY",
    "NEWS",
    "AUTHORS",
    "CONTRIBUTORS",
    "CONTRIBUTING",
    "CODE_OF_CONDUCT",
    "SECURITY",
)
PROSE_KEPT = ("requirements*.txt", "constraints*.txt", "CMakeLists.txt")

# Dependency caches, tool caches and build output: not the project's content. Never hashed in non-git roots, and
# never watched by the language server (server/watcher.py), so the two always agree on what counts.
HEAVY_DIRS = frozenset(
    {
        ".cache",
        ".direnv",
        ".eggs",
        ".git",
        ".gradle",
        ".hg",
        ".hypothesis",
        ".idea",
        ".mypy_cache",
        ".next",
        ".nox",
        ".nuxt",
        ".parcel-cache",
        ".pytest_cache",
        ".ruff_cache",
        ".svn",
        ".tox",
        ".turbo",
        ".venv",
        "__pycache__",
        "build",
        "coverage",
        "dist",
        "htmlcov",
        "node_modules",
        "out",
        "target",
        "venv",
    }
)

GIT_TIMEOUT = 120.0  # a first `git add -A` in a huge repo hashes everything once


class ContentError(Exception):
    """The content of a root could not be determined; the message says why."""


class NeedsGit(ContentError):
    """The root's content id is git's tree id, and the caller runs no process (an untrusted folder runs nothing,
    git included): it has no content id there."""


def needs_git(root: str | os.PathLike[str]) -> bool:
    """Is `root`'s content id computed by git (a git work tree, and git installed)? Reads files only."""
    return find_repository(Path(os.path.abspath(root))) is not None and shutil.which("git") is not None


@dataclass(frozen=True)
class ContentSnapshot:
    """The content of one root at one moment."""

    root: str  # absolute path
    content_id: str  # "git:<tree>" or "files:<sha256>"
    git_toplevel: str | None = None  # the git work tree holding the root (None for non-git roots)
    manifest: Mapping[str, str] | None = field(default=None, compare=False, repr=False)  # non-git: path -> digest

    @property
    def is_git(self) -> bool:
        return is_git_content(self.content_id)


def prose_globs() -> list[str]:
    """The default prose ignore list as gitignore-style globs (for display and non-git roots)."""
    return [f"*{ext}" for ext in PROSE_EXTENSIONS] + [f"{name}*" for name in PROSE_BASENAMES]


def snapshot(
    root: str | os.PathLike[str],
    ignore: Iterable[str] = (),
    ignore_prose: bool = True,
    *,
    ledger_path: Path | None = None,
    processes: bool = True,
) -> ContentSnapshot:
    """The content id of `root` now. `ignore` holds extra gitignore-style globs relative to the root.

    `processes=False` (an untrusted folder): no process is started, so a git root raises `NeedsGit` — its id is
    git's tree id, which only git computes exactly — and other roots are hashed as always (pure Python)."""
    root_path = Path(os.path.abspath(root))
    if not root_path.is_dir():
        raise ContentError(f"{root_path} is not a directory")
    ignore = _globs(ignore)
    ledger = Path(os.path.abspath(ledger_path or default_ledger_path()))
    repository = find_repository(root_path)
    if repository is not None and shutil.which("git") is not None:
        if not processes:
            return _pure_git_snapshot(root_path, repository, ignore, ignore_prose, ledger)
        try:
            return _git_snapshot(root_path, repository, ignore, ignore_prose, ledger)
        except GitError as exc:
            raise ContentError(str(exc)) from None
    return _files_snapshot(root_path, ignore, ignore_prose, ledger)


def commit_snapshot(
    root: str | os.PathLike[str],
    rev: str = "HEAD",
    ignore: Iterable[str] = (),
    ignore_prose: bool = True,
    *,
    ledger_path: Path | None = None,
) -> ContentSnapshot:
    """The content id `root` would have in a clean checkout of `rev` (a commit or a tree), computed from git's
    objects: the same ignore rules as `snapshot`, nothing checked out, nothing written, no blob read.

    A root that does not exist in `rev` has the empty tree's id, as an empty work tree would. `ContentError` when
    `root` is not in a git repository or `rev` names no commit or tree there."""
    from freshpass.ledger.trees import ListingError, empty_tree, filtered_tree, parse_listing

    root_path = Path(os.path.abspath(root))
    repository = find_repository(root_path)
    if repository is None or shutil.which("git") is None:
        raise ContentError(f"{root_path} is not in a git repository")
    relative = root_path.relative_to(repository.toplevel).as_posix()
    if "\n" in relative:
        raise ContentError(f"{root_path} has a line break in its name; its content cannot be named in a commit")
    ledger = Path(os.path.abspath(ledger_path or default_ledger_path()))
    ignored = _Ignorer(_globs(ignore), ignore_prose, _relative_to(ledger, root_path))
    algorithm = object_format(repository)
    try:
        rev = resolve_revision(repository, rev)
        root_spec = f"{rev}^{{tree}}" if relative == "." else f"{rev}:{relative}"
        with IsolatedGit(repository, index=False) as git:
            answers = git.run(["cat-file", "--batch-check"], stdin=f"{rev}^{{tree}}\n{root_spec}\n".encode())
            whole, here = (line.split(" ") for line in answers.decode("utf-8", "replace").splitlines()[:2])
            if whole[-1] == "missing":
                raise ContentError(f"{rev!r} names no commit or tree in {repository.toplevel}")
            if here[-1] == "missing":
                tree = empty_tree(algorithm)  # the package root does not exist in that commit
            elif here[1] != "tree":
                raise ContentError(f"{relative} is not a directory in {rev}")
            else:
                listing = git.run(["ls-tree", "-r", "-t", "-z", "--full-tree", here[0]])
                tree = filtered_tree(here[0], parse_listing(listing), ignored, algorithm)
    except (GitError, ListingError, ValueError) as exc:
        raise ContentError(str(exc)) from None
    return ContentSnapshot(root=str(root_path), content_id=git_content_id(tree), git_toplevel=str(repository.toplevel))


def differences_from_commit(
    current: ContentSnapshot, rev: str = "HEAD", ignore: Iterable[str] = (), ignore_prose: bool = True
) -> list[str]:
    """Root-relative paths (sorted) whose content in the work tree `current` was read from differs from `rev`,
    ignored paths left out: the files that keep a work tree's id from being its commit's (untracked files a set-up
    step wrote, uncommitted edits). Empty when they cannot be told."""
    root = Path(current.root)
    repository = find_repository(root)
    if repository is None or not current.is_git:
        return []
    relative = root.relative_to(repository.toplevel).as_posix()
    ignored = _Ignorer(_globs(ignore), ignore_prose, None)
    try:
        spec = resolve_revision(repository, rev) + ("^{tree}" if relative == "." else f":{relative}")
        with IsolatedGit(repository, index=False) as git:
            committed = git.call(["rev-parse", "--verify", "--quiet", "--end-of-options", spec])
            old = committed.stdout.decode().strip() if committed.returncode == 0 else empty_tree_id(repository)
            new = git_tree(current.content_id) or ""
            output = git.run(["diff-tree", "-r", "-z", "--name-only", "--no-renames", old, new])
    except GitError:
        return []
    names = output.decode("utf-8", "surrogateescape").split("\0")
    return sorted(name for name in names if name and not ignored(name))


def empty_tree_id(repository: Repository) -> str:
    from freshpass.ledger.trees import empty_tree

    return empty_tree(object_format(repository))


def changed_paths(
    root: str | os.PathLike[str],
    old_content_id: str,
    new_snapshot: ContentSnapshot,
    *,
    old_manifest: Mapping[str, str] | None = None,
    processes: bool = True,
) -> list[str]:
    """Paths (relative to the root, POSIX separators, sorted) whose content differs between the two ids.

    Git ids are compared with `git diff-tree`; file ids need the old manifest (`Ledger.manifest`). An empty list
    means nothing is known to differ — also when the old tree was garbage-collected or the old manifest is gone.
    """
    if old_content_id == new_snapshot.content_id:
        return []
    if not processes:  # only manifests compare without git (two pure git snapshots, or two file snapshots)
        new_manifest = new_snapshot.manifest
        if new_manifest is None or old_manifest is None:
            return []
        names = set(old_manifest) | set(new_manifest)
        return sorted(name for name in names if old_manifest.get(name) != new_manifest.get(name))
    old_tree, new_tree = git_tree(old_content_id), git_tree(new_snapshot.content_id)
    if old_tree is not None and new_tree is not None and new_snapshot.git_toplevel:
        repository = find_repository(Path(new_snapshot.git_toplevel))
        if repository is None or not all(re.fullmatch(r"[0-9a-f]{40,64}", tree) for tree in (old_tree, new_tree)):
            return []
        try:
            with IsolatedGit(repository, index=False) as git:
                output = git.run(["diff-tree", "-r", "-z", "--name-only", "--no-renames", old_tree, new_tree])
        except GitError:
            return []
        return sorted(name for name in output.decode("utf-8", "surrogateescape").split("\0") if name)
    if is_files_content(old_content_id) and new_snapshot.manifest is not None and old_manifest is not None:
        new_manifest = new_snapshot.manifest
        names = set(old_manifest) | set(new_manifest)
        return sorted(name for name in names if old_manifest.get(name) != new_manifest.get(name))
    return []


# ---- git roots ------------------------------------------------------------------------------------------------------


_PROSE_NAME = re.compile(
    r"(?i)^(?:.*\.(?:" + "|".join(re.escape(ext[1:]) for ext in PROSE_EXTENSIONS) + r")"
    r"|(?:" + "|".join(PROSE_BASENAMES) + r").*)$"
)


class _Ignorer:
    """Decides which root-relative paths never count as content: prose, configured globs, the ledger itself."""

    def __init__(self, ignore: Sequence[str], ignore_prose: bool, ledger_rel: str | None) -> None:
        self.globs: Any = None
        if ignore:
            import pathspec  # only when there are globs: it is a noticeable part of `freshpass run`'s start-up

            self.globs = pathspec.GitIgnoreSpec.from_lines(ignore)
        self.ignore_prose = ignore_prose
        self.ledger_rel = ledger_rel

    def __call__(self, relative: str) -> bool:
        if self.ledger_rel is not None and relative.startswith(self.ledger_rel):
            return True  # the ledger and its -wal, -shm and corrupt-* companions
        if self.globs is not None and self.globs.match_file(relative):
            return True
        if self.ignore_prose:
            name = relative.rsplit("/", 1)[-1]
            return bool(_PROSE_NAME.match(name)) and not any(fnmatch.fnmatchcase(name, kept) for kept in PROSE_KEPT)
        return False


def _globs(ignore: Iterable[str]) -> list[str]:
    return [glob for glob in (line.strip() for line in ignore) if glob and not glob.startswith("#")]


def _relative_to(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _git_snapshot(
    root: Path, repository: Repository, ignore: Sequence[str], ignore_prose: bool, ledger: Path
) -> ContentSnapshot:
    toplevel = repository.toplevel
    relative = root.relative_to(toplevel).as_posix()
    prefix = "" if relative == "." else f"{relative}/"
    ignored = _Ignorer(ignore, ignore_prose, _relative_to(ledger, root))
    with IsolatedGit(repository) as git:
        scope = [f":(top){prefix}" if prefix else ":(top)"]
        # Pathspec exclusions make git match every path against them, so only configured globs (which may name
        # big untracked data) and an in-repo ledger are kept out of `add`; prose is dropped after adding.
        exclusions = [f":(top,exclude,literal){prefix}{ignored.ledger_rel}"] if ignored.ledger_rel else []
        if ignored.globs is not None and not any(glob.startswith("!") for glob in ignore):
            exclusions += [f":(top,exclude,glob){prefix}{spec}" for spec in _directory_globs(ignore)]
        git.run(["add", "--all", "--ignore-errors", "--", *scope, *exclusions])
        listed = git.run(["ls-files", "-z", "--", *scope]).decode("utf-8", "surrogateescape")
        doomed = [path for path in listed.split("\0") if path and ignored(path[len(prefix) :])]
        if doomed:
            git.run(
                ["update-index", "--force-remove", "-z", "--stdin"],
                stdin=("\0".join(doomed) + "\0").encode("utf-8", "surrogateescape"),
            )
        # --missing-ok: a partial clone's index may name blobs that were never fetched; the tree id is the same.
        write_tree = ["write-tree", "--missing-ok", *([f"--prefix={prefix}"] if prefix else [])]
        try:
            tree = git.run(write_tree).decode().strip()
        except GitError:
            if not prefix:
                raise
            # Nothing left under the package root (all ignored or empty): its content is the empty tree.
            tree = git.run(["hash-object", "-t", "tree", os.devnull]).decode().strip()
    return ContentSnapshot(root=str(root), content_id=git_content_id(tree), git_toplevel=str(toplevel))


def _pure_git_snapshot(
    root: Path, repository: Repository, ignore: Sequence[str], ignore_prose: bool, ledger: Path
) -> ContentSnapshot:
    """`_git_snapshot`'s id computed in Python, starting no process (`freshpass.ledger.puretree`); `NeedsGit` when
    that computation cannot be sure it is git's. The manifest (path -> "<mode> <id>") lets `changed_paths` compare
    two such snapshots without git."""
    from freshpass.ledger.puretree import Unsure, pure_tree

    ignored = _Ignorer(ignore, ignore_prose, _relative_to(ledger, root))
    try:
        pure = pure_tree(root, repository, ignored)
        if ignored.globs is not None and not any(glob.startswith("!") for glob in ignore):
            # `git add` leaves paths of these pathspecs alone; the ignore rules drop nearly all of them. One they
            # keep would have its index state, not its work tree's: not reproduced.
            from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

            specs = [GitIgnoreBasicPattern("/" + spec).regex for spec in _directory_globs(ignore)]
            if any(spec is not None and spec.match(path) for path in pure.entries for spec in specs):
                raise Unsure("a kept path matches the configured ignore globs as git's pathspecs read them")
    except Unsure as exc:
        raise NeedsGit(f"{root} is a git work tree whose content id only git can compute here ({exc})") from None
    manifest = {path: f"{mode:o} {oid}" for path, (mode, oid) in pure.entries.items()}
    return ContentSnapshot(
        root=str(root), content_id=f"{GIT_PREFIX}{pure.tree}", git_toplevel=str(repository.toplevel), manifest=manifest
    )


def _directory_globs(ignore: Sequence[str]) -> list[str]:
    """Configured globs as pathspec patterns for keeping whole untracked trees out of `git add`."""
    specs: list[str] = []
    for raw in ignore:
        pattern = raw.strip().strip("/")
        if not pattern:
            continue
        anchored = raw.strip().startswith("/") or "/" in pattern
        base = pattern if anchored else f"**/{pattern}"
        specs += [base, f"{base}/**"]
    return specs


# ---- other roots ----------------------------------------------------------------------------------------------------


def _files_snapshot(root: Path, ignore: Sequence[str], ignore_prose: bool, ledger: Path) -> ContentSnapshot:
    patterns = list(ignore)
    try:  # a project that is not (yet) a repository may still say what is generated
        patterns = read_regular_text(root / ".gitignore", SMALL_FILE_LIMIT).splitlines() + patterns
    except OSError:
        pass
    ignored = _Ignorer(patterns, ignore_prose, _relative_to(ledger, root))
    manifest: dict[str, str] = {}
    for relative, full in _walk(root, ignored):
        digest = _file_digest(full)
        if digest is not None:
            manifest[relative] = digest
    encoded = json.dumps(sorted(manifest.items()), separators=(",", ":")).encode()
    content_id = files_content_id(hashlib.sha256(encoded).hexdigest())
    return ContentSnapshot(root=str(root), content_id=content_id, manifest=manifest)


def _walk(root: Path, ignored: _Ignorer) -> Iterator[tuple[str, str]]:
    stack = [("", str(root))]
    while stack:
        relative_dir, directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            relative = f"{relative_dir}{entry.name}"
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if is_dir:
                if entry.name in HEAVY_DIRS or (ignored.globs is not None and ignored.globs.match_file(f"{relative}/")):
                    continue
                stack.append((f"{relative}/", entry.path))
            elif not ignored(relative):
                yield relative, entry.path


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)

# Long-lived processes (the language server) re-hash only files whose stat data changed.
_digest_cache: dict[str, tuple[tuple[int, ...], str]] = {}


def _file_digest(path: str) -> str | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(info.st_mode):
        try:
            return "link:" + hashlib.sha1(os.readlink(path).encode("utf-8", "surrogateescape")).hexdigest()
        except OSError:
            return None
    if not stat.S_ISREG(info.st_mode):
        return None
    # ctime too: chmod and renames over the file change it even when mtime stays.
    key = (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_mode)
    cached = _digest_cache.get(path)
    if cached is not None and cached[0] == key:
        return cached[1]
    digest = hashlib.sha1()
    try:
        # O_NOFOLLOW | O_NONBLOCK: the path was a regular file at lstat, but it may have been swapped for a symlink
        # or a FIFO since; never follow the one or block on the other.
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    except OSError:
        return None
    finally:
        os.close(fd)
    # The executable bit is content too: a script losing it fails differently.
    value = digest.hexdigest() + ("+x" if info.st_mode & 0o111 else "")
    _digest_cache[path] = (key, value)
    return value
