"""Running git on a repository without executing anything the repository configures.

A repository's own configuration can name programs git runs during the most ordinary commands: `core.fsmonitor`
(run by `git add` and `git status` to ask what changed), `filter.<driver>.clean` and `.process` (run for every
file `.gitattributes` assigns to the driver), `diff.<driver>.textconv`, hooks, and `include.path` can pull in any
file. A folder that arrives with its `.git` directory — an archive, a shared directory, another user's checkout,
exactly what an editor's Restricted Mode is for — carries that configuration. So freshpass never lets git read it:

every git command runs against a **private git directory** made for the occasion (`IsolatedGit`): our own
`config`, `HEAD`, `refs/`, a copy of the index and of `info/exclude`, with `GIT_OBJECT_DIRECTORY` pointing at the
repository's object store (new blobs and trees go there, so a later `diff-tree` finds them) and `GIT_WORK_TREE`
at its work tree. Git still reads the user's own global and system configuration (they are the user's), but not
one line of the repository's: no fsmonitor, no filter, no hook, no include. Only settings that change how content
is hashed and cannot run anything (`core.filemode`, `core.symlinks`, `core.ignorecase`, `core.precomposeunicode`,
`core.autocrlf`, `core.eol`, `core.safecrlf`, `core.checkStat`, `core.trustctime` and the object format) are
copied, validated, into the private config, so tree ids are exactly those git computes for the repository — minus
clean filters, which is the point. The same isolation is used whether or not the workspace is trusted, so the CLI
and the language server always agree on content ids.

Every file freshpass itself reads here (`.git` pointer files, `HEAD`, refs, `config`, `info/exclude`, the index)
must be a regular file of bounded size (`freshpass.facts.files`); git runs with stdin closed and a timeout.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from freshpass.facts.files import (
    SMALL_FILE_LIMIT,
    FileTooLarge,
    NotRegularFile,
    copy_regular,
    read_regular,
    read_regular_text,
)
from freshpass.facts.lazyre import LazyPattern, lazy

GIT_TIMEOUT = 120.0  # a first `git add` in a huge repo hashes everything once
INDEX_LIMIT = 1 << 30  # 1 GiB: an index of several million entries; a larger "index" is not one
MAX_GIT_DIR_ENTRIES = 10_000  # entries of a git dir looked at for shared index files

# Environment variables that would point git at another repository, index or work tree than the one we set up.
_GIT_LOCATION_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_PREFIX",
        "GIT_NAMESPACE",
        "GIT_COMMON_DIR",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_ATTR_SOURCE",
    }
)

# Repository settings that change how content is hashed and cannot execute anything: copied (validated) into the
# private config so that content ids stay those git itself computes.
_BOOLEAN = lazy(r"^(?:true|false|yes|no|on|off|1|0)$", re.IGNORECASE)
_COPIED_CORE_SETTINGS: dict[str, LazyPattern] = {
    "filemode": _BOOLEAN,
    "symlinks": _BOOLEAN,
    "ignorecase": _BOOLEAN,
    "precomposeunicode": _BOOLEAN,
    "trustctime": _BOOLEAN,
    "autocrlf": lazy(r"^(?:true|false|yes|no|on|off|1|0|input)$", re.IGNORECASE),
    "eol": lazy(r"^(?:lf|crlf|native)$", re.IGNORECASE),
    "safecrlf": lazy(r"^(?:true|false|yes|no|on|off|1|0|warn)$", re.IGNORECASE),
    "checkstat": lazy(r"^(?:default|minimal)$", re.IGNORECASE),
}
_OBJECT_FORMATS = ("sha1", "sha256")
_HEX_ID = lazy(r"^(?:[0-9a-f]{40}|[0-9a-f]{64})$")
_REF_NAME = lazy(r"^refs/[A-Za-z0-9._/+@-]+$")


class GitError(Exception):
    """git could not answer; the message says why."""


@dataclass(frozen=True)
class Repository:
    """Where a work tree's repository lives, found by reading files (no git process)."""

    toplevel: Path  # the work tree
    git_dir: Path  # `.git`, or what a `.git` file points at (linked worktrees, submodules)
    common_dir: Path  # objects, shared refs, config: the git dir itself unless it has a `commondir` file

    @property
    def objects(self) -> Path:
        return self.common_dir / "objects"


def find_repository(start: Path) -> Repository | None:
    """The repository whose work tree holds `start` (a directory), or None."""
    for candidate in (start, *start.parents):
        marker = candidate / ".git"
        if marker.is_dir():
            return Repository(candidate, marker, _common_dir(marker))
        if os.path.lexists(marker):  # worktrees and submodules: a file saying "gitdir: <path>"
            try:
                text = read_regular_text(marker).strip()
            except OSError:
                return None
            if not text.startswith("gitdir:"):
                return None
            git_dir = Path(text[len("gitdir:") :].strip())
            if not git_dir.is_absolute():
                git_dir = candidate / git_dir
            git_dir = Path(os.path.normpath(git_dir))
            if not git_dir.is_dir():
                return None
            return Repository(candidate, git_dir, _common_dir(git_dir))
    return None


def _common_dir(git_dir: Path) -> Path:
    try:
        text = read_regular_text(git_dir / "commondir").strip()
    except OSError:
        return git_dir
    if not text:
        return git_dir
    common = Path(text)
    common = Path(os.path.normpath(common if common.is_absolute() else git_dir / common))
    return common if common.is_dir() else git_dir


def base_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every git command runs with: ours wins over whatever a hook or wrapper exported."""
    source = os.environ if environ is None else environ
    env = {key: value for key, value in source.items() if key not in _GIT_LOCATION_VARIABLES}
    env["GIT_OPTIONAL_LOCKS"] = "0"  # never take the user's index lock
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_NO_REPLACE_OBJECTS"] = "1"  # `refs/replace` is repository content too
    env["LC_ALL"] = "C"
    return env


def _config_values(repository: Repository) -> tuple[dict[str, str], str]:
    """(copied core settings, object format) from the repository's config, read as data, never executed."""
    try:
        text = read_regular_text(repository.common_dir / "config")
    except OSError:
        return {}, "sha1"
    core: dict[str, str] = {}
    object_format = "sha1"
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        header = re.match(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\](.*)$', line)
        if header:
            section = header.group(1).lower() if '"' not in line else ""  # subsections are never ours to copy
            line = header.group(2).strip()
            if not line:
                continue
        pair = re.match(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$", line)
        if not pair:
            continue
        key = pair.group(1).lower()
        value = (pair.group(2) or "true").split("#", 1)[0].split(";", 1)[0].strip().strip('"').strip()
        if section == "core" and key in _COPIED_CORE_SETTINGS and _COPIED_CORE_SETTINGS[key].match(value):
            core[key] = value.lower()
        elif section == "extensions" and key == "objectformat" and value.lower() in _OBJECT_FORMATS:
            object_format = value.lower()
    return core, object_format


def resolve_head(repository: Repository) -> str | None:
    """The commit `HEAD` names, read from files: an object id, "" for a branch without commits yet, or None when it
    cannot be told (a ref storage freshpass does not read, a damaged ref)."""
    try:
        head = read_regular_text(repository.git_dir / "HEAD").strip()
    except OSError:
        return None
    for _ in range(5):  # symbolic refs may chain; git allows a few levels
        if _HEX_ID.match(head):
            return head
        if not head.startswith("ref:"):
            return None
        ref = head[len("ref:") :].strip()
        if not _REF_NAME.match(ref) or ".." in ref or ref.endswith(".lock"):
            return None
        per_worktree = ref.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
        base = repository.git_dir if per_worktree else repository.common_dir
        try:
            head = read_regular_text(base / ref).strip()
            continue
        except FileNotFoundError:
            pass
        except OSError:
            return None
        packed = _packed_ref(repository.common_dir, ref)
        if packed is None:
            return None if _uses_other_ref_storage(repository) else ""
        head = packed
    return None


def _packed_ref(common_dir: Path, ref: str) -> str | None:
    try:
        text = read_regular_text(common_dir / "packed-refs", 256 << 20)
    except OSError:
        return None
    suffix = f" {ref}"
    for line in text.splitlines():
        if line.endswith(suffix) and _HEX_ID.match(line[: -len(suffix)]):
            return line[: -len(suffix)]
    return None


def _uses_other_ref_storage(repository: Repository) -> bool:
    try:
        text = read_regular_text(repository.common_dir / "config")
    except OSError:
        return False
    return re.search(r"(?im)^\s*refstorage\s*=", text) is not None


class IsolatedGit:
    """A private git directory for one repository; use as a context manager (it is removed on exit).

    `index=True` starts from a copy of the repository's index (so git re-hashes only files whose stat data
    changed); otherwise the index starts empty. `head` is the commit `HEAD` points at (None: a branch without
    commits).
    """

    def __init__(self, repository: Repository, *, index: bool = True, head: str | None = None) -> None:
        self.repository = repository
        self._with_index = index
        self._head = head
        self.path: Path | None = None

    def __enter__(self) -> IsolatedGit:
        self.open()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.close()

    @property
    def index_file(self) -> Path:
        assert self.path is not None, "IsolatedGit used outside its context"
        return self.path / "index"

    def open(self) -> None:
        repository = self.repository
        if not repository.objects.is_dir():
            raise GitError(f"{repository.objects} is not a directory: not a usable git repository")
        alternates = repository.objects / "info" / "alternates"
        if os.path.lexists(alternates):  # git reads it: it must not be a FIFO or a device
            try:
                read_regular(alternates, SMALL_FILE_LIMIT)
            except OSError as exc:
                raise GitError(f"{alternates} {exc.strerror or exc}") from None
        core, object_format = _config_values(repository)
        path = Path(tempfile.mkdtemp(prefix="freshpass-git-"))
        self.path = path
        try:
            (path / "refs").mkdir()
            (path / "info").mkdir()
            lines = ["[core]", f"\trepositoryformatversion = {1 if object_format != 'sha1' else 0}", "\tbare = false"]
            lines += [f"\t{key} = {value}" for key, value in sorted(core.items())]
            if object_format != "sha1":
                lines += ["[extensions]", f"\tobjectformat = {object_format}"]
            (path / "config").write_text("\n".join(lines) + "\n")
            (path / "HEAD").write_text(f"{self._head}\n" if self._head else "ref: refs/heads/freshpass-unborn\n")
            try:
                exclude = read_regular(repository.common_dir / "info" / "exclude", SMALL_FILE_LIMIT)
            except OSError:
                exclude = b""
            (path / "info" / "exclude").write_bytes(exclude)
            if self._with_index:
                self._copy_index(path)
        except BaseException:
            self.close()
            raise

    def _copy_index(self, path: Path) -> None:
        source = self.repository.git_dir / "index"
        try:
            copy_regular(source, path / "index", INDEX_LIMIT)
        except (FileNotFoundError, NotRegularFile, FileTooLarge):
            # No commits or staged files yet — or an "index" that is a FIFO, a device or absurdly large: start from
            # an empty index. The tree id is the same; git only re-hashes every file once.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path / "index")
            return
        except OSError as exc:
            raise GitError(f"cannot read the git index {source}: {exc.strerror or exc}") from None
        # A split index names its shared part, which git looks for next to the index.
        try:
            with os.scandir(self.repository.git_dir) as entries:
                for count, entry in enumerate(entries):
                    if count >= MAX_GIT_DIR_ENTRIES:
                        break
                    if entry.name.startswith("sharedindex.") and entry.is_file(follow_symlinks=False):
                        os.symlink(entry.path, path / entry.name)
        except OSError:
            pass

    def close(self) -> None:
        path, self.path = self.path, None
        if path is not None:
            shutil.rmtree(path, ignore_errors=True)

    def env(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        assert self.path is not None, "IsolatedGit used outside its context"
        env = base_env(environ)
        env["GIT_DIR"] = str(self.path)
        env["GIT_WORK_TREE"] = str(self.repository.toplevel)
        env["GIT_OBJECT_DIRECTORY"] = str(self.repository.objects)
        env["GIT_INDEX_FILE"] = str(self.index_file)
        return env

    def argv(self, args: Sequence[str]) -> list[str]:
        return ["git", *args]

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        stdin: bytes | None = None,
        timeout: float = GIT_TIMEOUT,
    ) -> bytes:
        """git's stdout; `GitError` when it fails, times out, or cannot start."""
        try:
            completed = subprocess.run(
                self.argv(args),
                cwd=str(cwd or self.repository.toplevel),
                env=self.env(),
                input=stdin,
                stdin=None if stdin is not None else subprocess.DEVNULL,
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]} in {self.repository.toplevel} took longer than {timeout:g} s") from None
        except OSError as exc:
            raise GitError(f"cannot run git in {self.repository.toplevel}: {exc}") from None
        if completed.returncode != 0:
            message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
            detail = message[-1] if message else f"exit code {completed.returncode}"
            raise GitError(f"git {args[0]} failed in {self.repository.toplevel}: {detail}")
        return completed.stdout
