"""Facts kept between processes: a root whose inputs did not change is not detected again.

Every command-line door detects the facts of the root it works on, and for a short-lived process (an agent's Stop
hook, `freshpass status`) that is most of its time: importing the detector and reading the manifests. Detection
records everything it looked at (`ProjectFacts.inputs`, present or absent, `../` paths above the root included,
the recipe's reads too) and every directory whose entries it read (`input_dirs`, `globbed_dirs`). The cache keeps,
per root, the facts with a signature of those inputs: each path's `lstat` and `stat` (device, inode, size, mode,
modification and change times), each directory's entry names. The facts are used again only when every
signature is the same and freshpass's own detection code is the same (its files' sizes and times).

A signature taken while a file is being written could match the new file and the facts of the old one: like
git's "racily clean" index entries, facts whose inputs were changed less than `RACY_SECONDS` before detection
began are not kept. Nothing here is trusted more than a fresh detection would be: a cache file that cannot be
read, parsed or matched is a miss, and the facts are detected again. The files are private (0600 in a 0700
directory beside the ledger), one per root, replaced atomically.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import stat
import sys
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.facts.files import write_private

if TYPE_CHECKING:
    from freshpass.facts.model import ProjectFacts

FORMAT = 1
RACY_SECONDS = 2.0  # file times this close to the start of detection may hide a write (coarse or remote clocks)
MAX_CACHE_BYTES = 16 << 20  # a cache file larger than this is not one freshpass wrote
MAX_LISTED = 4096  # entries of one directory kept in a signature; more and the facts are not kept
_code: str | None = None


def cache_file(root: str, env: Mapping[str, str] | None = None) -> Path | None:
    """Where `root`'s facts are kept: beside the ledger (`$FRESHPASS_LEDGER`'s directory), in `facts/`, named by
    the root's escaped path as the shell hook's caches are; None for a path too long to name a file."""
    from freshpass.evidence.shell_hook import cache_name
    from freshpass.ledger.paths import default_ledger_path

    name = cache_name(root)
    if name is None or len(name) > 250:
        return None
    return default_ledger_path(env).parent / "facts" / f"{name}.json"


def code_version() -> str:
    """What freshpass's detection code is: its version, the interpreter's, and each detection source file's size
    and time."""
    global _code
    if _code is None:
        import freshpass
        import freshpass.facts

        parts = [freshpass.__version__, sys.version]  # the interpreter's parsers (tomllib, json) are inputs too
        base = Path(freshpass.facts.__file__).parent
        for directory, subdirectories, files in os.walk(base):
            subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    found = os.stat(path)
                    parts.append(f"{os.path.relpath(path, base)}:{found.st_size}:{found.st_mtime_ns}")
        _code = f"{freshpass.__version__}+{zlib.crc32(chr(0).join(parts).encode()):08x}:{len(parts)}"
    return _code


def _stat(path: str, *, follow: bool) -> list[int] | None:
    try:
        found = os.stat(path, follow_symlinks=follow)
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(found.st_mode):  # a directory asked about is there or not; its entries are signed when listed
        return [found.st_dev, found.st_ino, 0, found.st_mode, 0, 0]
    return [found.st_dev, found.st_ino, found.st_size, found.st_mode, found.st_mtime_ns, found.st_ctime_ns]


def _times(path: str) -> list[int] | None:
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return [found.st_mtime_ns, found.st_ctime_ns]


def _names(path: str) -> list[str] | None:
    try:
        with os.scandir(path) as entries:
            names = [entry.name for entry in itertools.islice(entries, MAX_LISTED + 1)]
    except (OSError, ValueError):
        return None
    return sorted(names)


def signature(root: str, files: Iterable[str], directories: Iterable[str]) -> dict[str, Any]:
    """The signature of `root`'s inputs now: each file's `[lstat, stat]`, each directory's sorted entry names."""
    return {
        "files": {
            rel: [_stat(os.path.join(root, rel), follow=False), _stat(os.path.join(root, rel), follow=True)]
            for rel in sorted(files)
        },
        "dirs": {rel: _names(os.path.join(root, rel) if rel else root) for rel in sorted(directories)},
    }


def _racy(root: str, signed: dict[str, Any], started_ns: int) -> bool:
    """Was an input (or a listed directory) written too close to the start of detection to trust its times?"""
    limit = started_ns - int(RACY_SECONDS * 1e9)
    times = [found[4:] for pair in signed["files"].values() for found in pair if found is not None]
    times += [_times(os.path.join(root, rel) if rel else root) for rel in signed["dirs"]]
    return any(found is not None and max(found) >= limit for found in times)


def store(facts: ProjectFacts, started_ns: int) -> bool:
    """Keep `facts` (detected from a start at `started_ns`, `time.time_ns()`) for the next process; whether they
    were kept. Never raises."""
    with contextlib.suppress(OSError, ValueError, TypeError):
        return _store(facts, started_ns)
    return False


def _store(facts: ProjectFacts, started_ns: int) -> bool:
    where = cache_file(facts.root)
    if where is None:
        return False
    signed = signature(facts.root, facts.inputs, facts.input_dirs | facts.globbed_dirs)
    if _racy(facts.root, signed, started_ns) or any(
        names is not None and len(names) > MAX_LISTED for names in signed["dirs"].values()
    ):
        with contextlib.suppress(OSError):
            where.unlink()  # what is there describes older inputs
        return False
    text = json.dumps({"format": FORMAT, "code": code_version(), "root": facts.root, **signed,
                       "facts": facts.to_record()}, separators=(",", ":"))  # fmt: skip
    write_private(where, text, prefix=".facts-")
    return True


def load(root: str) -> ProjectFacts | None:
    """The facts kept for `root` (an absolute path, as detection names it) if none of their inputs changed since,
    else None. Never raises."""
    try:
        return _load(root)
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return None


def _load(root: str) -> ProjectFacts | None:
    from freshpass.facts.files import read_regular

    where = cache_file(root)
    if where is None:
        return None
    try:
        data = json.loads(read_regular(where, MAX_CACHE_BYTES, follow_symlinks=False))
    except FileNotFoundError:
        return None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("root") != root:
        return None
    if data.get("code") != code_version():
        return None
    files, directories = data["files"], data["dirs"]
    if signature(root, files, directories) != {"files": files, "dirs": directories}:
        return None
    from freshpass.facts.model import ProjectFacts

    facts = ProjectFacts.from_record(data["facts"])
    return facts if facts.root == root else None
