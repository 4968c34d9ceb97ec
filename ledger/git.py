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

# Settings of every private git directory. Its refs are not the repository's, but its objects are: an automatic gc
# or maintenance run there would prune every object of the repository that only the repository's refs reach.
_PRIVATE_SETTINGS = [
    "[gc]",
    "\tauto = 0",
    "[maintenance]",
    "\tauto = false",
    "[fetch]",
    "\twriteCommitGraph = false",
    "\trecurseSubmodules = false",
    "[transfer]",
    "\tfsckObjects = true",  # what a remote sends is checked before it reaches the repository's object store
    '[protocol "ext"]',
    "\tallow = never",  # a remote URL `ext::<command>` would run a command
    "[log]",
    "\tshowSignature = false",  # `--format` output is parsed: no signature text in it
    "[i18n]",
    "\tlogOutputEncoding = UTF-8",
]


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


@dataclass(frozen=True)
class _ConfigEntry:
    section: str  # lower case
    subsection: str | None  # `origin` of `[remote "origin"]`, as written (None for `[core]`)
    key: str  # lower case
    value: str


_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$')
_PAIR = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _config_value(raw: str) -> str:
    """A config value as git reads it: quotes removed, backslash escapes resolved, a comment outside quotes cut."""
    value: list[str] = []
    quoted = False
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            value.append({"n": "\n", "t": "\t", "b": "\b"}.get(raw[index + 1], raw[index + 1]))
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            value.append(char)
        index += 1
    return "".join(value).strip()


def _config_entries(repository: Repository) -> list[_ConfigEntry]:
    """The entries of the repository's own config file, read as data (never executed; includes are not followed)."""
    try:
        text = read_regular_text(repository.common_dir / "config")
    except OSError:
        return []
    entries: list[_ConfigEntry] = []
    section, subsection = "", None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        header = _SECTION.match(line)
        if header:
            name, quoted = header.group(1), header.group(2)
            if quoted is not None:
                section, subsection = name.lower(), re.sub(r"\\(.)", r"\1", quoted)
            elif "." in name:  # the legacy `[branch.main]` spelling
                head, _, tail = name.partition(".")
                section, subsection = head.lower(), tail.lower()
            else:
                section, subsection = name.lower(), None
            line = header.group(3).strip()
            if not line:
                continue
        pair = _PAIR.match(line)
        if pair and section:
            value = "true" if pair.group(2) is None else _config_value(pair.group(2))
            entries.append(_ConfigEntry(section, subsection, pair.group(1).lower(), value))
    return entries


def _config_values(repository: Repository) -> tuple[dict[str, str], str]:
    """(copied core settings, object format) from the repository's config, read as data, never executed."""
    core: dict[str, str] = {}
    object_format = "sha1"
    for entry in _config_entries(repository):
        if entry.subsection is not None:
            continue  # subsections are never ours to copy
        value = entry.value
        copied = _COPIED_CORE_SETTINGS.get(entry.key) if entry.section == "core" else None
        if copied is not None and copied.match(value):
            core[entry.key] = value.lower()
        elif entry.section == "extensions" and entry.key == "objectformat" and value.lower() in _OBJECT_FORMATS:
            object_format = value.lower()
    return core, object_format


def config_value(repository: Repository, section: str, key: str) -> str | None:
    """The last value of `section.key` (no subsection) in the repository's own config file, read as data."""
    found = None
    for entry in _config_entries(repository):
        if entry.section == section.lower() and entry.subsection is None and entry.key == key.lower():
            found = entry.value
    return found


def object_format(repository: Repository) -> str:
    """`sha1` or `sha256`: how the repository names its objects."""
    return _config_values(repository)[1]


def resolve_head(repository: Repository) -> str | None:
    """The commit `HEAD` names, read from files: an object id, "" for a branch without commits yet, or None when it
    cannot be told (a ref storage freshpass does not read, a damaged ref)."""
    try:
        head = read_regular_text(repository.git_dir / "HEAD").strip()
    except OSError:
        return None
    if _HEX_ID.match(head):
        return head
    if not head.startswith("ref:"):
        return None
    return resolve_ref(repository, head[len("ref:") :].strip())


def resolve_ref(repository: Repository, ref: str) -> str | None:
    """The object a full ref name (`refs/…`) points at, read from files (loose, then packed): an object id, "" when
    the ref does not exist, or None when it cannot be told (a ref storage freshpass does not read, a damaged ref)."""
    for _ in range(5):  # symbolic refs may chain; git allows a few levels
        if not _valid_ref(ref):
            return None
        per_worktree = ref.startswith(("refs/bisect/", "refs/worktree/", "refs/rewritten/"))
        base = repository.git_dir if per_worktree else repository.common_dir
        try:
            value = read_regular_text(base / ref).strip()
        except FileNotFoundError:
            packed = _packed_ref(repository.common_dir, ref)
            if packed is None:
                return None if _uses_other_ref_storage(repository) else ""
            return packed
        except OSError:
            return None
        if _HEX_ID.match(value):
            return value
        if not value.startswith("ref:"):
            return None
        ref = value[len("ref:") :].strip()
    return None


_REVISION = re.compile(r"^(?P<base>[^~^:\s]+)(?P<suffix>(?:[~^][0-9]*|\^\{(?:tree|commit)\})*)$")


def resolve_revision(repository: Repository, rev: str) -> str:
    """`rev` with its name replaced by the object it names, so a private git directory (which has none of the
    repository's refs) can read it: `HEAD`, a branch, a tag, a remote-tracking branch (the order git looks them up
    in), or an object id, optionally followed by `~N`, `^N`, `^{tree}`. `GitError` when it names nothing."""
    match = _REVISION.match(rev)
    if match is None:
        raise GitError(f"{rev!r} is not a revision freshpass reads (a name or an id, then ~N, ^N or ^{{tree}})")
    base, suffix = match.group("base"), match.group("suffix")
    if re.fullmatch(r"[0-9a-f]{4,64}", base):
        return rev
    if base == "HEAD":
        oid = resolve_head(repository)
    else:
        candidates = (f"refs/{base}", f"refs/tags/{base}", f"refs/heads/{base}", f"refs/remotes/{base}")
        oid = next((found for found in (resolve_ref(repository, ref) for ref in candidates) if found), None)
    if not oid:
        raise GitError(f"{rev!r} names nothing in {repository.toplevel}")
    return oid + suffix


def _valid_ref(ref: str) -> bool:
    return bool(_REF_NAME.match(ref)) and ".." not in ref and not ref.endswith((".lock", "/")) and "//" not in ref


class RefMoved(GitError):
    """The ref no longer points where the caller last saw it (another writer was first): read it again, retry."""


def update_ref(repository: Repository, ref: str, new: str, old: str) -> None:
    """Point the repository's `ref` at `new` if it still points at `old` ("" = it must not exist yet).

    Written the way git writes a loose ref — an exclusive `<ref>.lock`, the old value checked while holding it, then
    renamed over the ref — by freshpass itself, because running git on the repository would read its configuration
    (a `reference-transaction` hook runs on every ref update). Raises `RefMoved` when another writer was first,
    `GitError` when the ref cannot be written (locked, a ref storage freshpass does not write, permissions)."""
    if not _valid_ref(ref) or not _HEX_ID.match(new) or (old and not _HEX_ID.match(old)):
        raise ValueError(f"not a ref update freshpass makes: {ref} {old or '(new)'} -> {new}")
    if _uses_other_ref_storage(repository):
        raise GitError(f"{repository.toplevel} keeps its refs in a storage freshpass does not write (reftable)")
    path = repository.common_dir / ref
    lock = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GitError(f"cannot write {ref} in {repository.toplevel}: {exc.strerror or exc}") from None
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except FileExistsError:
        raise GitError(f"{ref} in {repository.toplevel} is locked by another git process ({lock}); try again") from None
    except OSError as exc:
        raise GitError(f"cannot write {ref} in {repository.toplevel}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(f"{new}\n")
        current = resolve_ref(repository, ref)
        if current is None:
            raise GitError(f"cannot read {ref} in {repository.toplevel} to update it")
        if current != old:
            raise RefMoved(f"{ref} in {repository.toplevel} moved to {current or 'nothing'} meanwhile")
        os.replace(lock, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        raise GitError(f"cannot write {ref} in {repository.toplevel}: {exc.strerror or exc}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        raise


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


@dataclass(frozen=True)
class Remote:
    """Where a fetch or a push goes: a configured remote's URLs, or a URL or path given directly."""

    name: str  # as the user named it
    fetch_url: str
    push_url: str


_REMOTE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_URL_LIMIT = 4096


def find_remote(repository: Repository, name: str) -> Remote:
    """The remote `name` of the repository: its `url` and `pushurl`, read from the repository's config as data
    (nothing else of that section applies: no `uploadpack`, `receivepack` or `proxy` a repository chose), or `name`
    itself when it is a URL or the path of a repository. `GitError` says why when it is neither."""
    if _REMOTE_NAME.match(name):
        urls = [
            entry
            for entry in _config_entries(repository)
            if entry.section == "remote" and entry.subsection == name and entry.key in ("url", "pushurl")
        ]
        fetch_url = next((entry.value for entry in urls if entry.key == "url"), "")
        push_url = next((entry.value for entry in urls if entry.key == "pushurl"), fetch_url)
        if fetch_url:
            return Remote(name, _outside(repository, fetch_url, name), _outside(repository, push_url, name))
    if "://" in name or os.path.isdir(name) or re.match(r"^[^/:]+@[^/:]+:", name):
        url = os.path.abspath(name) if os.path.isdir(name) else name
        return Remote(name, _outside(repository, url, name), _outside(repository, url, name))
    raise GitError(f"{repository.toplevel} has no remote named {name!r} (give a remote name, a URL or a path)")


def local_path_of(url: str) -> str | None:
    """The directory a URL names when git would reach it on this machine (a path, `file://`), else None."""
    if url.lower().startswith("file://"):
        from urllib.parse import unquote, urlsplit

        return unquote(urlsplit(url).path) or None
    if "://" in url or re.match(r"^[^/]*:", url):  # another scheme, or scp-like `host:path`
        return None
    return url


def _outside(repository: Repository, url: str, name: str) -> str:
    """`url`, checked (`_checked_url`) and refused when it resolves inside the work tree or the repository's own git
    directory: a repository committed in the tree (or planted in `.git`) would run its hooks on every push."""
    checked = _checked_url(url, name)
    local = local_path_of(checked)
    if local is None:
        return checked
    homes = [repository.toplevel, repository.git_dir, repository.common_dir]
    bases = [os.getcwd(), str(repository.toplevel)] if not os.path.isabs(local) else [""]
    for base in bases:
        target = os.path.realpath(os.path.join(base, os.path.expanduser(local)))
        for home in homes:
            inside = os.path.realpath(home)
            if target == inside or target.startswith(inside.rstrip(os.sep) + os.sep):
                raise GitError(
                    f"remote {name!r} ({url}) is inside {repository.toplevel}: a repository that is the project's own "
                    "content would run its hooks on push; freshpass shares only with repositories outside the work tree"
                )
    return checked


def _checked_url(url: str, name: str) -> str:
    if not url or len(url) > _URL_LIMIT or url.startswith("-") or re.search(r"[\x00-\x1f\x7f]", url):
        raise GitError(f"the URL of remote {name!r} is not one freshpass uses")
    if re.match(r"^(?:ext|fd)::", url, re.IGNORECASE):
        raise GitError(f"the URL of remote {name!r} runs a command ({url.split('::', 1)[0]}::); freshpass does not")
    return url


class IsolatedGit:
    """A private git directory for one repository; use as a context manager (it is removed on exit).

    `index=True` starts from a copy of the repository's index (so git re-hashes only files whose stat data
    changed); otherwise the index starts empty. `head` is the commit `HEAD` points at (None: a branch without
    commits). `refs` are refs of the private directory (`{"refs/notes/freshpass": <commit>}`): what the repository's
    own refs say is read from files (`resolve_ref`) and handed in; what git leaves in them is read back with
    `ref()` and written to the repository with `update_ref`.
    """

    def __init__(
        self,
        repository: Repository,
        *,
        index: bool = True,
        head: str | None = None,
        refs: Mapping[str, str] | None = None,
    ) -> None:
        self.repository = repository
        self._with_index = index
        self._head = head
        self._refs = dict(refs or {})
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
            lines += _PRIVATE_SETTINGS
            (path / "config").write_text("\n".join(lines) + "\n")
            (path / "HEAD").write_text(f"{self._head}\n" if self._head else "ref: refs/heads/freshpass-unborn\n")
            for ref, value in self._refs.items():
                if not _valid_ref(ref) or not _HEX_ID.match(value):
                    raise ValueError(f"not a ref freshpass sets: {ref} = {value}")
                (path / ref).parent.mkdir(parents=True, exist_ok=True)
                (path / ref).write_text(f"{value}\n")
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

    def argv(self, args: Sequence[str], config: Mapping[str, str] | None = None) -> list[str]:
        options = [item for key, value in (config or {}).items() for item in ("-c", f"{key}={value}")]
        return ["git", *options, *args]

    def call(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        stdin: bytes | None = None,
        timeout: float = GIT_TIMEOUT,
        config: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[bytes]:
        """git's completed process whatever its exit code; `GitError` when it times out or cannot start. `config`
        adds `-c key=value` settings for this call; `env` adds variables (never the ones `base_env` removes)."""
        environment = self.env()
        for key, value in (env or {}).items():
            if key not in _GIT_LOCATION_VARIABLES:
                environment[key] = value
        try:
            return subprocess.run(
                self.argv(args, config),
                cwd=str(cwd or self.repository.toplevel),
                env=environment,
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

    def run(
        self,
        args: Sequence[str],
        *,
        cwd: Path | None = None,
        stdin: bytes | None = None,
        timeout: float = GIT_TIMEOUT,
        config: Mapping[str, str] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> bytes:
        """git's stdout; `GitError` when it fails, times out, or cannot start."""
        completed = self.call(args, cwd=cwd, stdin=stdin, timeout=timeout, config=config, env=env)
        if completed.returncode != 0:
            raise GitError(f"git {args[0]} failed in {self.repository.toplevel}: {failure_detail(completed)}")
        return completed.stdout

    def test(self, args: Sequence[str], *, timeout: float = GIT_TIMEOUT) -> bool:
        """True for exit 0, False for exit 1 (`merge-base --is-ancestor`, `notes list` of an object without one);
        `GitError` for anything else."""
        completed = self.call(args, timeout=timeout)
        if completed.returncode not in (0, 1):
            raise GitError(f"git {args[0]} failed in {self.repository.toplevel}: {failure_detail(completed)}")
        return completed.returncode == 0

    def ref(self, ref: str) -> str:
        """What a ref of the private directory points at now ("" when it does not exist)."""
        assert self.path is not None, "IsolatedGit used outside its context"
        completed = self.call(["rev-parse", "--verify", "--quiet", "--end-of-options", ref])
        return completed.stdout.decode().strip() if completed.returncode == 0 else ""


def failure_detail(completed: subprocess.CompletedProcess[bytes]) -> str:
    """The last line git wrote on stderr (what went wrong), or its exit code."""
    message = completed.stderr.decode("utf-8", "replace").strip().splitlines()
    return message[-1] if message else f"exit code {completed.returncode}"
