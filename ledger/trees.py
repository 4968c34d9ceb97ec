"""Git trees rebuilt without the ignored paths, hashed in Python: content ids of a commit without a checkout
(design §4.6).

A work tree's content id is the tree `git write-tree` gives after the ignored paths (prose, configured globs, the
ledger) are removed from a copy of the index (`freshpass.ledger.content`). For a commit the same tree follows from
the commit's own tree: drop the ignored files, drop the directories left without a file (an index cannot hold an
empty directory, so `write-tree` never writes one), and hash again only the directories that changed, with git's
tree encoding. One `git ls-tree -r -t` is all git is asked for: nothing is written to any object store, no blob is
needed (a blobless partial clone works), and both object formats (SHA-1, SHA-256) hash the same way.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

TREE = "tree"


@dataclass(frozen=True)
class TreeEntry:
    """One line of `git ls-tree -r -t -z`: a file, a submodule (kind `commit`) or a directory."""

    mode: str  # as git prints it: 100644, 100755, 120000, 160000, 040000
    kind: str  # blob | commit | tree
    oid: str
    path: str  # relative to the listed tree, POSIX separators; undecodable bytes kept as surrogate escapes

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def parent(self) -> str:
        return self.path.rpartition("/")[0]


class ListingError(ValueError):
    """`git ls-tree` printed something that is not a tree listing."""


def parse_listing(raw: bytes) -> list[TreeEntry]:
    """The entries of `git ls-tree -r -t -z` output."""
    entries: list[TreeEntry] = []
    for record in raw.split(b"\0"):
        if not record:
            continue
        meta, tab, path = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split(" ")
        if not tab or len(fields) != 3 or not path:
            raise ListingError(f"not a tree listing line: {record[:80]!r}")
        mode, kind, oid = fields
        entries.append(TreeEntry(mode, kind, oid, path.decode("utf-8", "surrogateescape")))
    return entries


def empty_tree(algorithm: str) -> str:
    """The id of the tree with no entries (`4b825dc6…` in SHA-1 repositories)."""
    return hashlib.new(algorithm, b"tree 0\0").hexdigest()


def tree_id(entries: Sequence[TreeEntry], algorithm: str) -> str:
    """The id git gives a tree holding `entries` (their names; paths are not looked at beyond the last part)."""

    def order(entry: TreeEntry) -> bytes:  # git compares a directory's name as if it ended with "/"
        name = entry.name.encode("utf-8", "surrogateescape")
        return name + b"/" if entry.kind == TREE else name

    body = b"".join(
        (entry.mode.lstrip("0") if entry.kind == TREE else entry.mode).encode()
        + b" "
        + entry.name.encode("utf-8", "surrogateescape")
        + b"\0"
        + bytes.fromhex(entry.oid)
        for entry in sorted(entries, key=order)
    )
    return hashlib.new(algorithm, b"tree %d\0" % len(body) + body).hexdigest()


def filtered_tree(root: str, entries: Sequence[TreeEntry], ignored: Callable[[str], bool], algorithm: str) -> str:
    """The id of tree `root` (listed recursively, with its directories, in `entries`) without the files `ignored`
    rejects and without directories left holding no file: exactly what `write-tree` gives after those files are
    removed from an index read from `root`."""
    children: dict[str, list[TreeEntry]] = defaultdict(list)
    directories = [""]
    for entry in entries:
        children[entry.parent].append(entry)
        if entry.kind == TREE:
            directories.append(entry.path)
    rebuilt: dict[str, str | None] = {}  # directory -> its new id, None when nothing is left in it
    originals = {entry.path: entry.oid for entry in entries if entry.kind == TREE}
    originals[""] = root
    for directory in sorted(directories, key=lambda path: path.count("/") + bool(path), reverse=True):
        kept: list[TreeEntry] = []
        changed = False
        for entry in children.get(directory, ()):
            if entry.kind == TREE:
                new = rebuilt[entry.path]
                changed = changed or new != entry.oid
                if new is not None:
                    kept.append(TreeEntry(entry.mode, entry.kind, new, entry.path))
            elif ignored(entry.path):
                changed = True
            else:
                kept.append(entry)
        if not kept:
            rebuilt[directory] = None
        else:
            rebuilt[directory] = tree_id(kept, algorithm) if changed else originals[directory]
    return rebuilt[""] or empty_tree(algorithm)
