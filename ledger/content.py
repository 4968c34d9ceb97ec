"""Content ids: what a root's files are right now, so evidence is bound to content, not clocks (design §4.3–4.4).

Git roots use git's own machinery: the tree the working directory would commit, untracked-but-not-ignored files
included. It is computed in a *temporary copy* of the index (`GIT_INDEX_FILE`), so the user's index is never
touched, and the copy's cached stat data lets git re-hash only the files that changed. Ignored paths (prose,
the ledger itself, configured globs) are removed from that temporary index before `git write-tree`, so their
changes never alter the id. Other roots hash the files seen (heavy dependency/build dirs skipped) and keep the
manifest so that `changed_paths` can tell which files differ later.

Content ids are prefixed with their kind: `git:<tree>` or `files:<sha256>`.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from freshpass.ledger.paths import default_ledger_path

GIT_PREFIX = "git:"
FILES_PREFIX = "files:"

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


@dataclass(frozen=True)
class ContentSnapshot:
    """The content of one root at one moment."""

    root: str  # absolute path
    content_id: str  # "git:<tree>" or "files:<sha256>"
    git_toplevel: str | None = None  # the git work tree holding the root (None for non-git roots)
    manifest: Mapping[str, str] | None = field(default=None, compare=False, repr=False)  # non-git: path -> digest

    @property
    def is_git(self) -> bool:
        return self.content_id.startswith(GIT_PREFIX)


def prose_globs() -> list[str]:
    """The default prose ignore list as gitignore-style globs (for display and non-git roots)."""
    return [f"*{ext}" for ext in PROSE_EXTENSIONS] + [f"{name}*" for name in PROSE_BASENAMES]


def snapshot(
    root: str | os.PathLike[str],
    ignore: Iterable[str] = (),
    ignore_prose: bool = True,
    *,
    ledger_path: Path | None = None,
) -> ContentSnapshot:
    """The content id of `root` now. `ignore` holds extra gitignore-style globs relative to the root."""
    root_path = Path(os.path.abspath(root))
    if not root_path.is_dir():
        raise ContentError(f"{root_path} is not a directory")
    ignore = [glob for glob in (line.strip() for line in ignore) if glob and not glob.startswith("#")]
    ledger = Path(os.path.abspath(ledger_path or default_ledger_path()))
    found = _find_git(root_path)
    if found is not None and shutil.which("git") is not None:
        toplevel, git_dir = found
        return _git_snapshot(root_path, toplevel, git_dir, ignore, ignore_prose, ledger)
    return _files_snapshot(root_path, ignore, ignore_prose, ledger)


def changed_paths(
    root: str | os.PathLike[str],
    old_content_id: str,
    new_snapshot: ContentSnapshot,
    *,
    old_manifest: Mapping[str, str] | None = None,
) -> list[str]:
    """Paths (relative to the root, POSIX separators, sorted) whose content differs between the two ids.

    Git ids are compared with `git diff-tree`; file ids need the old manifest (`Ledger.manifest`). An empty list
    means nothing is known to differ — also when the old tree was garbage-collected or the old manifest is gone.
    """
    if old_content_id == new_snapshot.content_id:
        return []
    if old_content_id.startswith(GIT_PREFIX) and new_snapshot.is_git and new_snapshot.git_toplevel:
        old_tree = old_content_id[len(GIT_PREFIX) :]
        new_tree = new_snapshot.content_id[len(GIT_PREFIX) :]
        command = ["git", "-C", new_snapshot.git_toplevel, "diff-tree", "-r", "-z", "--name-only", "--no-renames"]
        try:
            completed = subprocess.run(
                [*command, old_tree, new_tree],
                env=_git_env(),
                capture_output=True,
                timeout=GIT_TIMEOUT,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return []
        if completed.returncode != 0:
            return []
        return sorted(name for name in completed.stdout.decode("utf-8", "surrogateescape").split("\0") if name)
    if old_content_id.startswith(FILES_PREFIX) and new_snapshot.manifest is not None and old_manifest is not None:
        new_manifest = new_snapshot.manifest
        names = set(old_manifest) | set(new_manifest)
        return sorted(name for name in names if old_manifest.get(name) != new_manifest.get(name))
    return []


# ---- git roots ------------------------------------------------------------------------------------------------------


def _find_git(root: Path) -> tuple[Path, Path] | None:
    """(work tree top level, git dir) of the repository holding `root`, found without starting a process."""
    for candidate in (root, *root.parents):
        marker = candidate / ".git"
        if marker.is_dir():
            return candidate, marker
        if marker.is_file():  # worktrees and submodules: "gitdir: <path>"
            try:
                text = marker.read_text(encoding="utf-8", errors="replace").strip()
            except OSError:
                return None
            if text.startswith("gitdir:"):
                git_dir = Path(text[len("gitdir:") :].strip())
                if not git_dir.is_absolute():
                    git_dir = (candidate / git_dir).resolve()
                return candidate, git_dir
            return None
    return None


def _git_env(index_file: Path | None = None) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        # A hook or wrapper may have set these; our own -C and index must win.
        if key not in {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_NAMESPACE"}
    }
    env["GIT_OPTIONAL_LOCKS"] = "0"
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["LC_ALL"] = "C"
    if index_file is not None:
        env["GIT_INDEX_FILE"] = str(index_file)
    return env


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


def _relative_to(path: Path, base: Path) -> str | None:
    try:
        return path.relative_to(base).as_posix()
    except ValueError:
        return None


def _run_git(
    args: list[str], toplevel: Path, env: dict[str, str], *, stdin: str | None = None, strip: bool = True
) -> str:
    try:
        completed = subprocess.run(
            ["git", "-C", str(toplevel), *args],
            env=env,
            input=stdin.encode("utf-8", "surrogateescape") if stdin is not None else None,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ContentError(f"git {args[0]} in {toplevel} took longer than {GIT_TIMEOUT:g} s") from None
    except OSError as exc:
        raise ContentError(f"cannot run git in {toplevel}: {exc}") from None
    if completed.returncode != 0:
        message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = message[-1] if message else f"exit code {completed.returncode}"
        raise ContentError(f"git {args[0]} failed in {toplevel}: {detail}")
    text = completed.stdout.decode("utf-8", "surrogateescape")
    return text.strip() if strip else text


def _git_snapshot(
    root: Path, toplevel: Path, git_dir: Path, ignore: Sequence[str], ignore_prose: bool, ledger: Path
) -> ContentSnapshot:
    relative = root.relative_to(toplevel).as_posix()
    prefix = "" if relative == "." else f"{relative}/"
    ignored = _Ignorer(ignore, ignore_prose, _relative_to(ledger, root))
    with tempfile.TemporaryDirectory(prefix="freshpass-index-") as scratch:
        index = Path(scratch) / "index"
        user_index = git_dir / "index"
        try:
            # copy2 keeps the mtime, so git's racy-clean checks behave exactly as with the user's own index.
            shutil.copy2(user_index, index)
        except FileNotFoundError:
            pass  # a repository without commits or staged files: start from an empty index
        except OSError as exc:
            raise ContentError(f"cannot read the git index {user_index}: {exc}") from None
        env = _git_env(index)
        scope = [f":(top){prefix}" if prefix else ":(top)"]
        # Pathspec exclusions make git match every path against them, so only configured globs (which may name
        # big untracked data) and an in-repo ledger are kept out of `add`; prose is dropped after adding.
        exclusions = [f":(top,exclude,literal){prefix}{ignored.ledger_rel}"] if ignored.ledger_rel else []
        if ignored.globs is not None and not any(glob.startswith("!") for glob in ignore):
            exclusions += [f":(top,exclude,glob){prefix}{spec}" for spec in _directory_globs(ignore)]
        _run_git(["add", "--all", "--ignore-errors", "--", *scope, *exclusions], toplevel, env)
        listed = _run_git(["ls-files", "-z", "--", *scope], toplevel, env, strip=False)
        doomed = [path for path in listed.split("\0") if path and ignored(path[len(prefix) :])]
        if doomed:
            _run_git(["update-index", "--force-remove", "-z", "--stdin"], toplevel, env, stdin="\0".join(doomed) + "\0")
        try:
            tree = _run_git(["write-tree", *([f"--prefix={prefix}"] if prefix else [])], toplevel, env)
        except ContentError:
            if not prefix:
                raise
            # Nothing left under the package root (all ignored or empty): its content is the empty tree.
            tree = _run_git(["hash-object", "-t", "tree", os.devnull], toplevel, env)
    return ContentSnapshot(root=str(root), content_id=f"{GIT_PREFIX}{tree}", git_toplevel=str(toplevel))


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
    gitignore = root / ".gitignore"
    if gitignore.is_file():  # a project that is not (yet) a repository may still say what is generated
        try:
            patterns = gitignore.read_text(encoding="utf-8", errors="replace").splitlines() + patterns
        except OSError:
            pass
    ignored = _Ignorer(patterns, ignore_prose, _relative_to(ledger, root))
    manifest: dict[str, str] = {}
    for relative, full in _walk(root, ignored):
        digest = _file_digest(full)
        if digest is not None:
            manifest[relative] = digest
    encoded = json.dumps(sorted(manifest.items()), separators=(",", ":")).encode()
    content_id = f"{FILES_PREFIX}{hashlib.sha256(encoded).hexdigest()}"
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
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return None
    # The executable bit is content too: a script losing it fails differently.
    value = digest.hexdigest() + ("+x" if info.st_mode & 0o111 else "")
    _digest_cache[path] = (key, value)
    return value
