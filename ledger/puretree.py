"""Git's content id without git: the tree `_git_snapshot` computes, reproduced in Python, or None when unsure.

An untrusted folder runs nothing, git included. `pure_tree` computes the same tree id `freshpass.ledger.content`'s
git snapshot computes — git's tree of the work tree after `git add --all` over a copy of the index, untracked files
under the `.gitignore` rules, tracked files kept even when ignored, then the project's ignored paths removed — by
reading files only: the index (versions 2–4), `.gitignore` files, `info/exclude`, the user's global excludes file,
the work tree. It starts no process and writes nothing (not even objects).

Precision first: it answers only when it is sure its answer is git's. Anything it does not reproduce exactly gives
None — the caller then has no content id and says freshness is not checked:

- an index it does not read: a split or sparse index, a required extension it does not know, entries that are
  unmerged, skip-worktree, intent-to-add or assume-unchanged, a damaged checksum, the SHA-256 object format;
- configuration that changes hashing (`core.symlinks`, `core.ignorecase`, `core.precomposeunicode` on, or any core
  setting, include or attribute file in the user's global or system configuration that freshpass does not model);
- attributes that may rewrite content (`filter`, `ident`, `working-tree-encoding`, macros), and, where end-of-line
  conversion may apply (a `text`/`eol`/`crlf` attribute anywhere, `core.autocrlf`), any file it must hash that
  holds a carriage return (check-in conversion only ever rewrites CRLF, so a file without CR is stored as is);
- an ignore pattern it does not translate exactly (POSIX classes, a `**` inside a name, a CR, a BOM);
- an embedded repository that is not a submodule, a submodule whose checked-out commit is not the index's, a FIFO,
  socket or device, a file it cannot read, a `.gitignore` that is a symlink.

Stat data in the index is trusted exactly as git trusts it (same size, mtime, ctime, inode, owner; not racily clean),
so an unchanged file is not re-read; everything else is hashed (`blob <size>\\0<bytes>`).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from freshpass.facts.files import SMALL_FILE_LIMIT, read_regular
from freshpass.ledger.git import INDEX_LIMIT, Repository, resolve_head

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
GITLINK = 0o160000
SYMLINK = 0o120000
MAX_ENTRIES = 2_000_000  # entries of the walk and the index: beyond this, no answer


class Unsure(Exception):
    """The pure computation cannot be sure it equals git's; the message says why (for logs and tests)."""


@dataclass(frozen=True)
class PureTree:
    tree: str  # the tree id of the root (hex)
    entries: Mapping[str, tuple[int, str]]  # root-relative path -> (mode, blob or commit id), after ignore rules


class _IndexEntry(NamedTuple):
    mode: int
    oid: str
    ctime: tuple[int, int]
    mtime: tuple[int, int]
    ino: int
    uid: int
    gid: int
    size: int


_ENTRY_HEAD = struct.Struct(">10I20sH")  # ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size, id, flags


# ---- the index ------------------------------------------------------------------------------------------------------


def read_index(repository: Repository) -> tuple[dict[bytes, _IndexEntry], int | None]:
    """(path -> entry, the index file's mtime in ns) of the repository's index; empty without one. `Unsure` for
    anything this reader does not reproduce exactly."""
    path = repository.git_dir / "index"
    if not os.path.lexists(path):
        return {}, None
    try:
        info = os.lstat(path)
        data = read_regular(path, INDEX_LIMIT)
    except OSError as exc:
        raise Unsure(f"the index cannot be read: {exc}") from None
    if len(data) < 32 or data[:4] != b"DIRC":
        raise Unsure("the index is not an index")
    body, checksum = data[:-20], data[-20:]
    if checksum != b"\0" * 20 and hashlib.sha1(body).digest() != checksum:
        raise Unsure("the index checksum does not match")
    version, count = struct.unpack(">II", data[4:12])
    if version not in (2, 3, 4) or count > MAX_ENTRIES:
        raise Unsure(f"index version {version} with {count} entries")
    entries: dict[bytes, _IndexEntry] = {}
    offset, previous = 12, b""
    for _ in range(count):
        if offset + 62 > len(body):
            raise Unsure("the index is truncated")
        *fields, raw_oid, flags = _ENTRY_HEAD.unpack_from(body, offset)
        cursor = offset + 62
        if flags & 0x4000:  # extended flags: skip-worktree, intent-to-add
            if version < 3:
                raise Unsure("extended flags in a version 2 index")
            (extended,) = struct.unpack(">H", body[cursor : cursor + 2])
            cursor += 2
            if extended:
                raise Unsure("skip-worktree or intent-to-add entries")
        if flags & 0x8000:
            raise Unsure("assume-unchanged entries")
        if flags & 0x3000:
            raise Unsure("unmerged entries")
        if version == 4:
            strip, cursor = _varint(body, cursor)
            end = body.find(b"\0", cursor)
            if end < 0 or strip > len(previous):
                raise Unsure("the index is damaged")
            name = previous[: len(previous) - strip] + body[cursor:end]
            offset = end + 1
        else:
            end = body.find(b"\0", cursor)
            if end < 0:
                raise Unsure("the index is damaged")
            name = body[cursor:end]
            offset = offset + ((cursor - offset + len(name) + 8) & ~7)
        previous = name
        ctime_s, ctime_ns, mtime_s, mtime_ns, _dev, ino, mode, uid, gid, size = fields
        kind = mode & 0o170000
        if kind not in (0o100000, SYMLINK, GITLINK) or b"\0" in name or not name or name in entries:
            raise Unsure("an index entry freshpass does not read")
        entries[name] = _IndexEntry(mode, raw_oid.hex(), (ctime_s, ctime_ns), (mtime_s, mtime_ns), ino, uid, gid, size)
    while offset + 8 <= len(body):  # extensions: optional ones (upper case) are caches; required ones change meaning
        signature = body[offset : offset + 4]
        (size,) = struct.unpack(">I", body[offset + 4 : offset + 8])
        if not (65 <= signature[0] <= 90):
            raise Unsure(f"index extension {signature!r}")
        offset += 8 + size
    if offset != len(body):
        raise Unsure("the index is damaged")
    return entries, info.st_mtime_ns


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    if offset >= len(data):
        raise Unsure("the index is damaged")
    byte = data[offset]
    value = byte & 0x7F
    offset += 1
    while byte & 0x80:
        if offset >= len(data):
            raise Unsure("the index is damaged")
        byte = data[offset]
        value = ((value + 1) << 7) | (byte & 0x7F)
        offset += 1
    return value, offset


# ---- configuration and attributes -----------------------------------------------------------------------------------

_HASHING_CORE_KEYS = frozenset(
    {"filemode", "symlinks", "ignorecase", "precomposeunicode", "autocrlf", "eol", "safecrlf", "excludesfile",
     "attributesfile", "checkstat", "trustctime", "bigfilethreshold", "fsmonitor", "untrackedcache",
     "sparsecheckout", "sparsecheckoutcone", "splitindex", "worktree", "bare"}
)  # fmt: skip
_TRUE = ("true", "yes", "on", "1")


def _user_config_files(env: Mapping[str, str]) -> list[Path]:
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    files: list[Path] = []
    if env.get("GIT_CONFIG_GLOBAL") is not None:
        files.append(Path(env["GIT_CONFIG_GLOBAL"]))
    else:
        files += [Path(xdg, "git", "config")] if xdg else []
        files += [Path(home, ".gitconfig")] if home else []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        if env.get("GIT_CONFIG_SYSTEM") is not None:
            files.append(Path(env["GIT_CONFIG_SYSTEM"]))
        else:
            files += [Path(base, "etc", "gitconfig") for base in ("/", "/usr", "/usr/local", "/opt/homebrew")]
    return files


def _user_config(env: Mapping[str, str]) -> tuple[list[Path], bool]:
    """(the user's excludes files, whether any global or system setting may change hashing)."""
    excludes: list[Path] = []
    home = env.get("HOME", "")
    xdg = env.get("XDG_CONFIG_HOME") or (os.path.join(home, ".config") if home else "")
    excludes_setting: str | None = None
    for path in _user_config_files(env):
        if str(path) == os.devnull or not os.path.lexists(path):
            continue
        try:
            text = read_regular(path, SMALL_FILE_LIMIT).decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return [], True
        section = ""
        for raw in text.splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", ";")):
                continue
            if line.startswith("["):
                section = line[1:].split("]", 1)[0].strip().lower()
                if section.startswith("include"):
                    return [], True  # an include may say anything
                rest = line.split("]", 1)[1].strip() if "]" in line else ""
                if not rest:
                    continue
                line = rest
            key, _, value = line.partition("=")
            key = key.strip().lower()
            if section == "core" and key == "excludesfile":
                excludes_setting = value.strip().strip('"')
            elif section == "core" and key in _HASHING_CORE_KEYS:
                return [], True
    if excludes_setting is not None:
        if excludes_setting.startswith("~/") and home:
            excludes_setting = os.path.join(home, excludes_setting[2:])
        excludes.append(Path(excludes_setting))
    elif xdg:
        excludes.append(Path(xdg, "git", "ignore"))
    attributes = [Path(xdg, "git", "attributes")] if xdg else []
    attributes += [Path(base, "etc", "gitattributes") for base in ("/", "/usr", "/usr/local", "/opt/homebrew")]
    if any(os.path.lexists(path) for path in attributes):
        return [], True
    return excludes, False


_REWRITING_ATTRIBUTE = re.compile(rb"(?:^|[\s!-])(?:filter|ident|working-tree-encoding)(?:[\s=]|$)")
_EOL_ATTRIBUTE = re.compile(rb"(?:^|[\s!-])(?:text|eol|crlf)(?:[\s=]|$)")


def _attribute_effect(data: bytes) -> bool:
    """True when the attributes may convert line ends (the caller then refuses files with CR); `Unsure` when they
    may rewrite content otherwise (filters, ident, encodings, macros)."""
    converts = False
    for line in data.split(b"\n"):
        stripped = line.strip()
        if not stripped or stripped.startswith(b"#"):
            continue
        if stripped.startswith(b"[attr]") or _REWRITING_ATTRIBUTE.search(stripped):
            raise Unsure("attributes that rewrite content (a filter, ident, an encoding or a macro)")
        converts = converts or bool(_EOL_ATTRIBUTE.search(stripped))
    return converts


# ---- ignore rules ---------------------------------------------------------------------------------------------------


@dataclass
class _Rule:
    regex: Any
    negated: bool
    directory_only: bool


def _rules(data: bytes) -> list[_Rule]:
    """A `.gitignore`'s patterns, or `Unsure` when one is not translated exactly."""
    from pathspec.patterns.gitignore.basic import GitIgnoreBasicPattern

    if data.startswith(b"\xef\xbb\xbf") or b"\r" in data:
        raise Unsure("an ignore file with a BOM or carriage returns")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Unsure("an ignore file that is not UTF-8") from None
    rules: list[_Rule] = []
    for line in text.split("\n"):
        if line.startswith("#"):
            continue
        if "\\" in line:
            raise Unsure(f"an ignore pattern with an escape: {line!r}")
        line = line.rstrip(" ")
        if not line:
            continue
        negated = line.startswith("!")
        body = line[1:] if negated else line
        if "[[:" in body or re.search(r"[^/]\*\*|\*\*[^/]", body):
            raise Unsure(f"an ignore pattern freshpass does not translate exactly: {line!r}")
        directory_only = body.endswith("/")
        core = body.rstrip("/") if directory_only else body
        if not core or core == "/":
            continue
        try:
            compiled = GitIgnoreBasicPattern(core)
        except Exception:
            raise Unsure(f"an ignore pattern freshpass cannot read: {line!r}") from None
        if compiled.regex is None:
            continue
        rules.append(_Rule(compiled.regex, negated, directory_only))
    return rules


class _Ignores:
    """git's precedence: the deepest `.gitignore` with a matching pattern decides (its last match), then
    `info/exclude`, then the user's excludes file."""

    def __init__(self, base: list[list[_Rule]]) -> None:
        self.base = base  # info/exclude, then the user's file: matched against the top-level-relative path

    def ignored(self, stack: Sequence[tuple[str, list[_Rule]]], relative: str, is_dir: bool) -> bool:
        for directory, rules in reversed(stack):
            verdict = _last_match(rules, relative[len(directory) :], is_dir)
            if verdict is not None:
                return verdict
        for rules in self.base:
            verdict = _last_match(rules, relative, is_dir)
            if verdict is not None:
                return verdict
        return False


def _last_match(rules: list[_Rule], relative: str, is_dir: bool) -> bool | None:
    for rule in reversed(rules):
        if rule.directory_only and not is_dir:
            continue
        if rule.regex.match(relative):
            return not rule.negated
    return None


def _read_ignore_file(path: Path, *, required_regular: bool = True) -> list[_Rule]:
    if not os.path.lexists(path):
        return []
    if os.path.islink(path):
        raise Unsure(f"{path} is a symlink")
    try:
        return _rules(read_regular(path, SMALL_FILE_LIMIT))
    except OSError as exc:
        if required_regular:
            raise Unsure(f"{path} cannot be read: {exc}") from None
        return []


# ---- the work tree --------------------------------------------------------------------------------------------------


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _read_file(path: str) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW)
    except OSError as exc:
        raise Unsure(f"{path} cannot be read: {exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unsure(f"{path} changed while it was read")
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError as exc:
        raise Unsure(f"{path} cannot be read: {exc}") from None
    finally:
        os.close(fd)


class _Hasher:
    def __init__(self, index: Mapping[bytes, _IndexEntry], index_mtime: int | None, converts: bool, filemode: bool):
        self.index = index
        self.index_mtime = index_mtime
        self.converts = converts
        self.filemode = filemode

    def entry(self, name: bytes, full: str, info: os.stat_result) -> tuple[int, str]:
        """(mode, blob id) `git add` gives the file or symlink at `full` (`info` is its lstat)."""
        known = self.index.get(name)
        if stat.S_ISLNK(info.st_mode):
            try:
                target = os.readlink(os.fsencode(full))
            except OSError as exc:
                raise Unsure(f"{full} cannot be read: {exc}") from None
            if known is not None and known.mode == SYMLINK and self._stat_clean(known, info):
                return SYMLINK, known.oid
            return SYMLINK, _blob_id(target)
        if self.filemode:
            mode = 0o100755 if info.st_mode & stat.S_IXUSR else 0o100644
        else:  # the index's executable bit stays; new files are not executable
            mode = known.mode if known is not None and known.mode & 0o170000 == 0o100000 else 0o100644
        if known is not None and known.mode == mode and self._stat_clean(known, info):
            return mode, known.oid  # unchanged since the index saw it, as git judges it: not read again
        data = _read_file(full)
        if self.converts and b"\r" in data:
            raise Unsure(f"{full} holds a carriage return where line ends may be converted")
        return mode, _blob_id(data)

    def _stat_clean(self, known: _IndexEntry, info: os.stat_result) -> bool:
        mask = 0xFFFFFFFF
        if (
            known.size != info.st_size & mask
            or known.mtime != (int(info.st_mtime) & mask, info.st_mtime_ns % 1_000_000_000)
            or known.ctime != (int(info.st_ctime) & mask, info.st_ctime_ns % 1_000_000_000)
            or known.ino != info.st_ino & mask
            or known.uid != info.st_uid & mask
            or known.gid != info.st_gid & mask
        ):
            return False
        # Racily clean: modified in the same instant the index was written; git looks at the content again.
        mtime_ns = known.mtime[0] * 1_000_000_000 + known.mtime[1]
        return self.index_mtime is not None and mtime_ns < self.index_mtime


def _submodule_head(path: str) -> str | None:
    from freshpass.ledger.git import find_repository

    inner = find_repository(Path(path))
    if inner is None or os.path.normpath(str(inner.toplevel)) != os.path.normpath(path):
        return None
    return resolve_head(inner)


def pure_tree(
    root: Path,
    repository: Repository,
    ignored: Callable[[str], bool],
    *,
    env: Mapping[str, str] | None = None,
) -> PureTree:
    """The tree `_git_snapshot` computes for `root` (inside `repository`'s work tree), with `ignored` (root-relative
    paths the project leaves out) removed; `Unsure` when it cannot be sure it is git's."""
    from freshpass.ledger.git import _config_values

    environment = os.environ if env is None else env
    core, object_format = _config_values(repository)
    if object_format != "sha1":
        raise Unsure("the SHA-256 object format")
    if core.get("symlinks") is not None and core["symlinks"] not in _TRUE:
        raise Unsure("core.symlinks is off")
    if core.get("ignorecase") in _TRUE or core.get("precomposeunicode") in _TRUE:
        raise Unsure("case-insensitive or precomposed names")
    filemode = core.get("filemode") not in ("false", "no", "off", "0")
    converts = core.get("autocrlf") in (*_TRUE, "input")
    user_excludes, user_hashing = _user_config(environment)
    if user_hashing:
        raise Unsure("the user's git configuration sets something that changes hashing")
    # The repository's own `core.excludesFile` and `core.attributesFile` are never read: git runs without the
    # repository's configuration (freshpass.ledger.git), so they do not count there either.
    info_attributes = repository.common_dir / "info" / "attributes"
    if os.path.lexists(info_attributes):
        try:
            converts = _attribute_effect(read_regular(info_attributes, SMALL_FILE_LIMIT)) or converts
        except OSError:
            raise Unsure("info/attributes cannot be read") from None
    index, index_mtime = read_index(repository)
    toplevel = str(repository.toplevel)
    relative_root = root.relative_to(repository.toplevel).as_posix()
    prefix = "" if relative_root == "." else f"{relative_root}/"
    base = [_read_ignore_file(repository.common_dir / "info" / "exclude", required_regular=False)]
    base += [_read_ignore_file(path, required_regular=False) for path in user_excludes]
    ignores = _Ignores(base)

    # Attributes and ignore rules of the directories above the root apply under it.
    stack: list[tuple[str, list[_Rule]]] = []
    above = ""
    for part in [] if not prefix else prefix.rstrip("/").split("/"):
        directory = os.path.join(toplevel, above)
        converts = _directory_attributes(directory) or converts
        stack.append((above, _read_ignore_file(Path(directory, ".gitignore"))))
        above = f"{above}{part}/"

    tracked = {name: entry for name, entry in index.items() if name.startswith(os.fsencode(prefix))}
    # Directories of tracked files: their `.gitattributes` apply even when the walk does not enter them.
    top = os.fsencode(toplevel)
    tracked_dirs = {name.rsplit(b"/", 1)[0] if b"/" in name else b"" for name in tracked}
    for parent in list(tracked_dirs):
        while b"/" in parent:
            parent = parent.rsplit(b"/", 1)[0]
            tracked_dirs.add(parent)
    for parent in sorted(tracked_dirs):
        converts = _directory_attributes(os.fsdecode(os.path.join(top, parent) if parent else top)) or converts
    found: dict[str, tuple[int, str]] = {}
    seen_tracked: set[bytes] = set()
    count = 0
    walk: list[tuple[str, list[tuple[str, list[_Rule]]]]] = [(prefix, stack)]
    files: list[tuple[bytes, str, os.stat_result]] = []
    while walk:
        relative_dir, rules = walk.pop()
        directory = os.path.join(toplevel, relative_dir) if relative_dir else toplevel
        converts = _directory_attributes(directory) or converts
        here = [*rules, (relative_dir, _read_ignore_file(Path(directory, ".gitignore")))]
        try:
            with os.scandir(directory) as scan:
                listing = list(scan)
        except OSError as exc:
            raise Unsure(f"{directory} cannot be listed: {exc}") from None
        for item in listing:
            count += 1
            if count > MAX_ENTRIES:
                raise Unsure("too many files")
            if item.name == ".git":
                if relative_dir:
                    raise Unsure(f"{relative_dir} holds a repository of its own")
                continue
            if _UNUSUAL_NAME.search(item.name):
                raise Unsure(f"{relative_dir}{item.name!r}: a name git may refuse (core.protectNTFS)")
            relative = f"{relative_dir}{item.name}"
            name = relative.encode("utf-8", "surrogateescape")
            try:
                info = os.lstat(item.path)
            except OSError as exc:
                raise Unsure(f"{item.path} cannot be read: {exc}") from None
            known = index.get(name)
            if stat.S_ISDIR(info.st_mode):
                if known is not None and known.mode == GITLINK:
                    seen_tracked.add(name)
                    if os.path.lexists(os.path.join(item.path, ".git")):
                        head = _submodule_head(item.path)
                        if head != known.oid:
                            raise Unsure(f"the submodule {relative} has another commit checked out")
                    found[relative] = (GITLINK, known.oid)
                    continue
                if known is not None:
                    seen_tracked.add(name)  # a tracked file became a directory: `git add --all` removes it
                if os.path.lexists(os.path.join(item.path, ".git")):
                    if not ignores.ignored(here, relative, True) or _tracked_under(tracked, name):
                        raise Unsure(f"{relative} is a repository inside the work tree")
                    continue
                if ignores.ignored(here, relative, True):
                    continue  # tracked files under it are handled below
                walk.append((f"{relative}/", here))
            elif stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
                if known is not None and known.mode != GITLINK:
                    seen_tracked.add(name)
                    files.append((name, item.path, info))
                elif known is None and not ignores.ignored(here, relative, False):
                    files.append((name, item.path, info))
                elif known is not None:  # a gitlink replaced by a file
                    seen_tracked.add(name)
                    files.append((name, item.path, info))
            else:
                if known is not None or not ignores.ignored(here, relative, False):
                    raise Unsure(f"{relative} is not a file, a symlink or a directory")
    hasher = _Hasher(index, index_mtime, converts, filemode)
    for name, full, info in files:
        found[os.fsdecode(name)] = hasher.entry(name, full, info)
    # Tracked files the walk did not reach: under an ignored directory (still tracked), or gone.
    for name, known in tracked.items():
        if name in seen_tracked:
            continue
        full_name = os.path.join(top, name)
        if _behind_symlink(top, name):
            continue  # git does not follow a symlink in a path: the tracked file is gone
        try:
            info = os.lstat(full_name)
        except FileNotFoundError:
            continue  # deleted: `git add --all` removes it
        except NotADirectoryError:
            continue
        except OSError as exc:
            raise Unsure(f"{os.fsdecode(full_name)} cannot be read: {exc}") from None
        relative = os.fsdecode(name)
        if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode):
            if known.mode == GITLINK:
                raise Unsure(f"the submodule {relative} is a file now")
            found[relative] = hasher.entry(name, os.fsdecode(full_name), info)
        elif stat.S_ISDIR(info.st_mode):
            if known.mode == GITLINK:
                checked_out = os.path.lexists(os.path.join(full_name, b".git"))
                if checked_out and _submodule_head(os.fsdecode(full_name)) != known.oid:
                    raise Unsure(f"the submodule {relative} has another commit checked out")
                found[relative] = (GITLINK, known.oid)
            # else: a tracked file became a directory under an ignored one; removed, its files ignored
        else:
            raise Unsure(f"{relative} is not a file, a symlink or a directory")
    entries = {path[len(prefix) :]: value for path, value in found.items() if not ignored(path[len(prefix) :])}
    return PureTree(tree=tree_id(entries), entries=entries)


# Names core.protectNTFS / protectHFS make git refuse or treat specially: `.git` in another spelling, 8.3 names.
_UNUSUAL_NAME = re.compile(r"(?i)^\.git[. :]|^\.git$|^git~|\\|[\x00-\x1f]")


def _behind_symlink(toplevel: bytes, name: bytes) -> bool:
    parts = name.split(b"/")[:-1]
    current = toplevel
    for part in parts:
        current = os.path.join(current, part)
        try:
            if not stat.S_ISDIR(os.lstat(current).st_mode):
                return True
        except OSError:
            return True
    return False


def _tracked_under(tracked: Mapping[bytes, _IndexEntry], name: bytes) -> bool:
    return any(path.startswith(name + b"/") for path in tracked)


def _directory_attributes(directory: str) -> bool:
    path = os.path.join(directory, ".gitattributes")
    if not os.path.lexists(path):
        return False
    if os.path.islink(path):
        raise Unsure(f"{path} is a symlink")
    try:
        return _attribute_effect(read_regular(path, SMALL_FILE_LIMIT))
    except OSError:
        raise Unsure(f"{path} cannot be read") from None


# ---- trees ----------------------------------------------------------------------------------------------------------


def tree_id(entries: Mapping[str, tuple[int, str]]) -> str:
    """git's tree id of root-relative paths (POSIX separators) → (mode, object id); EMPTY_TREE for none."""
    return _write(_nest(entries))


def _nest(entries: Mapping[str, tuple[int, str]]) -> dict[bytes, Any]:
    tree: dict[bytes, Any] = {}
    for path, value in entries.items():
        parts = os.fsencode(path).split(b"/")
        node = tree
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise Unsure(f"{path} is both a file and a directory")
            node = child
        node[parts[-1]] = value
    return tree


def _write(node: Mapping[bytes, Any]) -> str:
    def key(name: bytes) -> bytes:
        return name + b"/" if isinstance(node[name], dict) else name

    body = bytearray()
    for name in sorted(node, key=key):
        value = node[name]
        if isinstance(value, dict):
            if not value:
                continue
            body += b"40000 " + name + b"\0" + bytes.fromhex(_write(value))
        else:
            mode, oid = value
            body += b"%o " % mode + name + b"\0" + bytes.fromhex(oid)
    return hashlib.sha1(b"tree %d\0" % len(body) + bytes(body)).hexdigest()


# ---- reading trees back (loose objects only) ------------------------------------------------------------------------

TREE_OBJECT_LIMIT = 64 << 20  # bytes of one inflated tree object


def loose_tree_entries(repository: Repository, tree: str, *, limit: int = MAX_ENTRIES) -> dict[str, str] | None:
    """The blobs and gitlinks of `tree` (path -> "<mode> <id>", the manifest a pure snapshot keeps), read from the
    repository's loose objects without git; None when a tree is not there as a loose object (packed, pruned, in an
    alternate) or is damaged. Trees `git write-tree` wrote for recent receipts are loose until a gc packs them."""
    import zlib

    found: dict[str, str] = {}
    pending = [("", tree)]
    while pending:
        prefix, oid = pending.pop()
        if not re.fullmatch(r"[0-9a-f]{40}", oid):
            return None
        path = repository.objects / oid[:2] / oid[2:]
        try:
            compressed = read_regular(path, TREE_OBJECT_LIMIT)
            inflater = zlib.decompressobj()
            data = inflater.decompress(compressed, TREE_OBJECT_LIMIT)
        except (OSError, zlib.error):
            return None
        if hashlib.sha1(data).hexdigest() != oid:
            return None
        header, _, body = data.partition(b"\0")
        if not header.startswith(b"tree "):
            return None
        offset = 0
        while offset < len(body):
            space = body.find(b" ", offset)
            nul = body.find(b"\0", space + 1)
            if space < 0 or nul < 0 or nul + 21 > len(body):
                return None
            mode = int(body[offset:space], 8)
            name = os.fsdecode(body[space + 1 : nul])
            child = body[nul + 1 : nul + 21].hex()
            offset = nul + 21
            if mode == 0o40000:
                pending.append((f"{prefix}{name}/", child))
            else:
                found[f"{prefix}{name}"] = f"{mode:o} {child}"
                if len(found) > limit:
                    return None
    return found
