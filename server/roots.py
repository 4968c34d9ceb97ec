"""The roots the server knows: workspace folders, the monorepo packages inside them, and which one holds a path.

`Roots` is a read-only mapping (resolved path → `RootState`) for everyone else; only it adds and removes roots, and
only it knows which directory belongs to which package (design §6). A new root is announced to the features
(`on_root_added`) and refreshed at once; the file watcher's events are routed to the roots they concern.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from freshpass.facts.model import ProjectFacts
from freshpass.server.state import RootState
from freshpass.server.tracking import DEBOUNCE
from freshpass.server.wire import uri_to_path
from lsprotocol import types

if TYPE_CHECKING:
    from freshpass.server.app import FreshpassServer

logger = logging.getLogger(__name__)


class Roots(Mapping[Path, RootState]):
    def __init__(self, server: FreshpassServer) -> None:
        self.server = server
        self._roots: dict[Path, RootState] = {}
        # workspace root → {directory → the package holding it}: cleared when a package manifest comes or goes
        self._packages: dict[Path, dict[Path, Path]] = {}

    # ---- the mapping ---------------------------------------------------------------------------------------------

    def __getitem__(self, path: Path) -> RootState:
        return self._roots[path]

    def __iter__(self) -> Iterator[Path]:
        return iter(self._roots)

    def __len__(self) -> int:
        return len(self._roots)

    # ---- which root holds what -----------------------------------------------------------------------------------

    def for_path(self, path: Path) -> RootState | None:
        """The deepest root holding `path`."""
        best: RootState | None = None
        for root in self._roots.values():
            if (path == root.path or root.path in path.parents) and (
                best is None or len(root.path.parts) > len(best.path.parts)
            ):
                best = root
        return best

    def for_uri(self, uri: str) -> RootState | None:
        path = uri_to_path(uri)
        return None if path is None else self.for_path(path)

    def locate(self, path: Path) -> tuple[RootState, Path] | None:
        """The root holding `path` and the path as that root spells it. Roots are stored resolved (symlinks
        followed); an editor may spell the same file through a symlinked directory, so try that too."""
        root = self.for_path(path)
        if root is None:
            resolved = path.resolve()
            if resolved != path:
                root, path = self.for_path(resolved), resolved
        return None if root is None else (root, path)

    def holding(self, path: Path) -> list[tuple[RootState, str]]:
        """Every root holding `path` — its workspace root and the package it is in, when that package is known — with
        the path as each spells it: a change in a package changes the workspace root's content too."""
        located = self.locate(path)
        if located is None:
            return []
        deepest, path = located
        found = []
        root: RootState | None = deepest
        while root is not None:
            relative = root.relative(path)
            if relative is not None:
                found.append((root, relative))
            root = root.parent
        return found

    def find(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        """Resolve a `{root}` or `{uri}` argument; neither → the only/first root."""
        if isinstance(root, str) and root:
            as_path = uri_to_path(root) if root.startswith("file:") else Path(root)
            if as_path is None:
                return None
            wanted = Path(os.path.abspath(as_path))
            return self._roots.get(wanted) or self.for_path(wanted)
        if isinstance(uri, str) and uri:
            return self.for_uri(uri)
        return next(iter(self._roots.values()), None)

    async def resolve(self, *, root: Any = None, uri: Any = None) -> RootState | None:
        """`find` for a request's `{root}` or `{uri}`, after giving the package it names its own root: a status, a
        verify or a done-check asked for a package directory is the package's, as in the terminal."""
        asked = uri or root
        if isinstance(asked, str) and asked:
            if asked.startswith("file:"):
                await self.enter(asked)
            elif Path(asked).is_absolute():
                await self.enter((Path(asked) / "_").as_uri())  # a name inside the directory: its package
        return self.find(root=root, uri=uri)

    # ---- adding and removing -------------------------------------------------------------------------------------

    async def enter(self, uri: str) -> None:
        """Make sure the package a file is in has its own root (design §6): its status, lenses and diagnostics are
        the package's, as `freshpass run` and `freshpass status` in that directory see it."""
        from freshpass.facts.roots import PACKAGE_MARKERS, find_package_root

        path = uri_to_path(uri)
        located = None if path is None else self.locate(path)
        if located is None:
            return
        root, path = located
        workspace = root.parent or root
        packages = self._packages.setdefault(workspace.path, {})
        if path.name in PACKAGE_MARKERS:
            packages.clear()  # a package manifest came or went: packages may have moved
        directory = path.parent
        package = packages.get(directory)
        if package is None:
            try:
                package = await asyncio.to_thread(find_package_root, path, workspace.path)
            except OSError:
                return
            packages[directory] = package
        if package == workspace.path or package in self._roots or workspace.relative(package) is None:
            return
        await self._add(RootState(path=package, parent=workspace))

    async def add_folder(self, folder: Path) -> RootState | None:
        from freshpass.facts.roots import find_root

        def root_of(folder: Path) -> Path | None:
            if not folder.is_dir():
                return None
            # A folder inside a project belongs to that project's root; a folder that is no project is its own.
            found = find_root(folder)
            return Path(os.path.abspath(found)) if found is not None else folder

        server = self.server
        path = await asyncio.to_thread(root_of, folder)
        if path is None:
            server.log(types.MessageType.Info, f"freshpass: workspace folder {folder} does not exist; ignored")
            return None
        if path in self._roots:
            return self._roots[path]
        root = RootState(path=path)
        self._roots[path] = root  # before watching starts: its first events find the root
        if server.watcher is not None:
            try:
                await asyncio.to_thread(server.watcher.add_root, path)  # every change may change the content id
            except Exception as exc:
                logger.exception("watching %s", path)
                server.log(types.MessageType.Warning, f"freshpass: cannot watch {path} for changes: {exc}")
        await self._add(root)
        return root

    async def _add(self, root: RootState) -> None:
        self._roots[root.path] = root
        await self.server.fan_out("on_root_added", root)
        self.server.tracker.request_refresh(root, delay=0)

    async def remove_folder(self, folder: Path) -> None:
        server = self.server
        for path, root in list(self._roots.items()):
            if path == folder or folder in path.parents or path in folder.parents:
                del self._roots[path]
                self._packages.pop(path, None)
                server.tracker.cancel(root)
                if server.watcher is not None:
                    server.watcher.remove_root(path)
                await server.fan_out("on_root_removed", root)

    # ---- changes from elsewhere ----------------------------------------------------------------------------------

    def on_watcher_change(self, root_path: Path, paths: set[str] | None) -> None:
        """Called from watchdog threads."""
        loop = self.server.loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._watcher_change, root_path, paths)

    def _watcher_change(self, root_path: Path, paths: set[str] | None) -> None:
        root = self._roots.get(root_path)
        tracker = self.server.tracker
        if root is None or self.server.shut_down:
            return
        tracker.request_refresh(root, paths or set(), delay=DEBOUNCE, facts=paths is None)
        for package in [state for state in self._roots.values() if state.parent is root]:  # watched through root
            prefix = root.relative(package.path) or ""
            inside = None if paths is None else {p[len(prefix) + 1 :] for p in paths if p.startswith(prefix + "/")}
            if inside is None or inside:
                tracker.request_refresh(package, inside or set(), delay=DEBOUNCE, facts=inside is None)

    def on_late_facts(self, root_path: Path, facts: ProjectFacts) -> None:
        """Facts whose detection outlasted a refresh's wait: use them now and refresh the root's status."""
        root = self._roots.get(root_path)
        if root is None or self.server.shut_down:
            return
        self.server.tracker.late_facts(root, facts)
