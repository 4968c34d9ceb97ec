"""The file watcher: what it watches, what it ignores, and the polling fallback at the inotify limit."""

from __future__ import annotations

import errno
import threading
from pathlib import Path

import pytest
from freshpass.server import watcher as watcher_module
from freshpass.server.watcher import RootFilter, Watcher


def make_tree(root: Path) -> None:
    for directory in ("src/pkg", "tests", "node_modules/dep", ".venv/lib", "build", "generated", ".git/refs"):
        (root / directory).mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /usr\n")
    (root / "env").mkdir()
    (root / "env" / "pyvenv.cfg").write_text("home = /usr\n")  # a virtualenv by content, not by name
    (root / ".gitignore").write_text("generated/\n*.log\n")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")


def test_filter_drops_dependency_build_and_gitignored_paths(tmp_path: Path) -> None:
    make_tree(tmp_path)
    root_filter = RootFilter(tmp_path, extra_ignore=["*.snap"])
    assert not root_filter.ignored("src/pkg/mod.py")
    assert root_filter.ignored("node_modules/dep/index.js")
    assert root_filter.ignored("packages/web/node_modules/x.js")
    assert root_filter.ignored("src/__pycache__/mod.cpython-311.pyc")
    assert root_filter.ignored("generated/out.py")
    assert root_filter.ignored("debug.log")
    assert root_filter.ignored("tests/__snapshots__/a.snap")
    assert root_filter.relative(str(tmp_path.parent / "elsewhere.py")) is None


def test_ignored_top_level_directories_are_never_watched(tmp_path: Path) -> None:
    make_tree(tmp_path)
    watcher = Watcher(lambda root, paths: None, lambda message: None)
    try:
        watcher.add_root(tmp_path)
        watched = {
            (Path(path).relative_to(tmp_path).as_posix(), recursive)
            for path, recursive in watcher.watched_paths(tmp_path)
        }
    finally:
        watcher.stop()
    assert (".", False) in watched
    assert ("src", True) in watched and ("tests", True) in watched
    assert (".git", False) in watched  # HEAD only: a branch switch
    for never in ("node_modules", ".venv", "env", "build", "generated"):
        assert not any(path == never or path.startswith(f"{never}/") for path, _ in watched), never


def test_changes_are_delivered_with_relative_paths(tmp_path: Path) -> None:
    make_tree(tmp_path)
    seen: list[set[str] | None] = []
    arrived = threading.Event()

    def on_change(root: Path, paths: set[str] | None) -> None:
        seen.append(paths)
        if paths and "src/pkg/mod.py" in paths:
            arrived.set()

    watcher = Watcher(on_change, lambda message: None)
    try:
        watcher.add_root(tmp_path)
        (tmp_path / "node_modules" / "dep" / "ignored.js").write_text("x")
        (tmp_path / "src" / "pkg" / "mod.py").write_text("x = 1\n")
        assert arrived.wait(10)
    finally:
        watcher.stop()
    assert all("node_modules/dep/ignored.js" not in (paths or ()) for paths in seen)


def test_inotify_limit_falls_back_to_polling_with_one_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_tree(tmp_path)
    warnings: list[str] = []
    watcher = Watcher(lambda root, paths: None, warnings.append)

    def exhausted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "inotify watch limit reached")

    monkeypatch.setattr(type(watcher.observer), "schedule", exhausted)
    try:
        watcher.add_root(tmp_path)
        assert watcher.polling
        assert isinstance(watcher.observer, watcher_module.PollingObserver)
        assert len(warnings) == 1 and "falling back to polling" in warnings[0]
        assert watcher.watched_paths(tmp_path)  # everything worth watching is polled instead
    finally:
        watcher.stop()
