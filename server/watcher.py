"""Watching roots for changes nobody tells the server about: terminals, agents, `git checkout`.

One watchdog observer serves every root. Directories whose changes never make evidence stale (`.git/` internals,
`node_modules/`, virtualenvs, build output, top-level gitignored directories) are not watched at all: each root gets
a non-recursive watch of itself plus one recursive watch per top-level directory worth watching, and `.git/` is
watched only for `HEAD`, which moves on a branch switch. Events below nested ignored directories are dropped by the
same filter. The filter is an optimisation only: freshness is decided by the content id, so a stray event costs one
snapshot and changes nothing.

When the kernel runs out of inotify watches or instances (ENOSPC / EMFILE) the watcher switches to watchdog's
polling observer once, with one warning, instead of silently missing changes.
"""

from __future__ import annotations

import errno
import logging
import os
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

import pathspec
from freshpass.facts.files import SMALL_FILE_LIMIT, read_regular_text
from freshpass.ledger.content import HEAVY_DIRS
from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirModifiedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch
from watchdog.observers.polling import PollingObserver

logger = logging.getLogger(__name__)

# Names of directories that never hold content a verify command checks, wherever they appear: the same the
# content snapshot skips.
EXCLUDED_DIR_NAMES = HEAVY_DIRS
# Only these events mean content changed: opening or reading a file (which the snapshot itself does) must not
# trigger another snapshot.
CONTENT_EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
# Above this many top-level directories one recursive watch of the root is cheaper in inotify instances than one
# per directory; nested filtering still drops the ignored ones' events.
MAX_TOP_LEVEL_WATCHES = 12
WATCH_LIMIT_ERRNOS = (errno.ENOSPC, errno.EMFILE)

ChangeCallback = Callable[[Path, "set[str] | None"], None]  # (root, relative paths | None = "something changed")


def is_virtualenv(path: Path) -> bool:
    return (path / "pyvenv.cfg").is_file()


def load_gitignore(root: Path) -> pathspec.PathSpec | None:
    """The root's own `.gitignore` and `.git/info/exclude` (nested ignore files are left to the snapshot)."""
    lines: list[str] = []
    for candidate in (root / ".gitignore", root / ".git" / "info" / "exclude"):
        try:
            lines += read_regular_text(candidate, SMALL_FILE_LIMIT).splitlines()
        except OSError:  # missing, unreadable, or not a regular file of sane size
            continue
    if not lines:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


class RootFilter:
    """Decides which paths below one root can matter."""

    def __init__(self, root: Path, extra_ignore: Iterable[str] = ()) -> None:
        self.root = root
        self.gitignore = load_gitignore(root)
        extra = list(extra_ignore)
        self.extra = pathspec.GitIgnoreSpec.from_lines(extra) if extra else None

    def relative(self, path: str) -> str | None:
        try:
            rel = os.path.relpath(path, self.root)
        except ValueError:
            return None
        if rel == "." or rel.startswith(".."):
            return None
        return rel.replace(os.sep, "/")

    def ignored(self, rel: str, *, is_dir: bool = False) -> bool:
        parts = rel.split("/")
        if any(part in EXCLUDED_DIR_NAMES for part in (parts if is_dir else parts[:-1])):
            return True
        candidate = f"{rel}/" if is_dir else rel
        return any(spec is not None and spec.match_file(candidate) for spec in (self.gitignore, self.extra))

    def directory_worth_watching(self, path: Path) -> bool:
        rel = self.relative(str(path))
        return rel is not None and not self.ignored(rel, is_dir=True) and not is_virtualenv(path)


class _RootHandler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher, root: Path, root_filter: RootFilter) -> None:
        self.watcher = watcher
        self.root = root
        self.filter = root_filter

    def on_any_event(self, event: FileSystemEvent) -> None:
        try:
            self._handle(event)
        except Exception:  # a watcher thread must never die: the server would stop noticing changes
            logger.exception("file watcher event %r", event)

    def _handle(self, event: FileSystemEvent) -> None:
        changed: set[str] = set()
        git_dir = os.path.join(self.root, ".git")
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = os.fsdecode(raw)
            if os.path.dirname(path) == git_dir:
                if os.path.basename(path) == "HEAD":  # a branch switch: the working tree follows
                    self.watcher.deliver(self.root, None)
                continue
            rel = self.filter.relative(path)
            if rel is None or self.filter.ignored(rel, is_dir=event.is_directory):
                continue
            if event.is_directory:
                if isinstance(event, DirModifiedEvent):
                    continue  # a child changed; its own event says which
                if isinstance(event, (DirCreatedEvent, DirMovedEvent)) and os.path.dirname(path) == str(self.root):
                    self.watcher.watch_new_top_level(self.root, Path(path))
            changed.add(rel)
        if changed:
            self.watcher.deliver(self.root, changed)


class Watcher:
    """All file watching of one server; `on_change` is called from watchdog threads."""

    def __init__(self, on_change: ChangeCallback, on_warning: Callable[[str], None]) -> None:
        self.on_change = on_change
        self.on_warning = on_warning
        self.observer: BaseObserver = Observer()
        self.polling = False
        self._lock = threading.RLock()
        self._watches: dict[Path, list[ObservedWatch]] = {}
        self._handlers: dict[Path, _RootHandler] = {}
        self._started = False

    def deliver(self, root: Path, paths: set[str] | None) -> None:
        self.on_change(root, paths)

    def _ensure_started(self) -> None:
        if not self._started:
            self.observer.daemon = True
            self.observer.start()
            self._started = True

    def _schedule(self, handler: _RootHandler, path: Path, *, recursive: bool) -> None:
        try:
            watch = self.observer.schedule(handler, str(path), recursive=recursive, event_filter=CONTENT_EVENTS)
        except OSError as exc:
            if exc.errno in WATCH_LIMIT_ERRNOS and not self.polling:
                self._fall_back_to_polling(exc)
                watch = self.observer.schedule(handler, str(path), recursive=recursive, event_filter=CONTENT_EVENTS)
            elif exc.errno in (errno.ENOENT, errno.ENOTDIR):
                return  # removed between listing and watching
            else:
                raise
        self._watches.setdefault(handler.root, []).append(watch)

    def _fall_back_to_polling(self, exc: OSError) -> None:
        """Move every watch to a polling observer: slower to notice, but nothing is missed."""
        self.on_warning(
            f"freshpass: the file watcher hit the system limit ({exc.strerror}); falling back to polling, which "
            "notices changes within a few seconds. Raise fs.inotify.max_user_watches / max_user_instances to "
            "restore instant updates."
        )
        old = self.observer
        with_watches = [(self._handlers[root], list(watches)) for root, watches in self._watches.items()]
        self.observer = PollingObserver(timeout=1.0)
        self.polling = True
        self._watches = {}
        self._started = False
        self._ensure_started()
        try:
            old.unschedule_all()
            old.stop()
        except Exception:
            logger.debug("stopping the inotify observer", exc_info=True)
        for handler, watches in with_watches:
            for watch in watches:
                self._schedule(handler, Path(watch.path), recursive=watch.is_recursive)

    def add_root(self, root: Path, extra_ignore: Iterable[str] = ()) -> None:
        with self._lock:
            if root in self._handlers:
                return
            self._ensure_started()
            root_filter = RootFilter(root, extra_ignore)
            handler = _RootHandler(self, root, root_filter)
            self._handlers[root] = handler
            self._watches[root] = []
            try:
                children = sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
            except OSError as exc:
                self.on_warning(f"freshpass: cannot watch {root}: {exc.strerror}")
                return
            worth = [child for child in children if root_filter.directory_worth_watching(child)]
            if len(worth) > MAX_TOP_LEVEL_WATCHES:
                self._schedule(handler, root, recursive=True)
            else:
                self._schedule(handler, root, recursive=False)
                for child in worth:
                    self._schedule(handler, child, recursive=True)
            if (root / ".git").is_dir():
                self._schedule(handler, root / ".git", recursive=False)

    def watch_new_top_level(self, root: Path, directory: Path) -> None:
        with self._lock:
            handler = self._handlers.get(root)
            if handler is None or not directory.is_dir():
                return
            watches = self._watches.get(root, [])
            if any(w.is_recursive and Path(w.path) in (root, directory) for w in watches):
                return
            if handler.filter.directory_worth_watching(directory):
                self._schedule(handler, directory, recursive=True)

    def remove_root(self, root: Path) -> None:
        with self._lock:
            self._handlers.pop(root, None)
            for watch in self._watches.pop(root, []):
                try:
                    self.observer.unschedule(watch)
                except (KeyError, OSError):
                    pass

    def watched_paths(self, root: Path) -> list[tuple[str, bool]]:
        """(path, recursive) of every watch of `root`: tests check that ignored directories are never watched."""
        with self._lock:
            return [(str(w.path), w.is_recursive) for w in self._watches.get(root, [])]

    def stop(self) -> None:
        with self._lock:
            if not self._started:
                return
            try:
                self.observer.unschedule_all()
                self.observer.stop()
                self.observer.join(timeout=2)
            except Exception:
                logger.debug("stopping the file watcher", exc_info=True)
            self._started = False
