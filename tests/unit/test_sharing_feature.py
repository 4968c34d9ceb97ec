"""The server's sharing feature (server/sharing.py, design §4.6): it fetches only when the user turned fetching on and
the workspace is trusted, and it notices the notes ref move without running git."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from freshpass.ledger.git import find_repository
from freshpass.server.settings import Settings
from freshpass.server.sharing import SharingFeature, ref_stamp
from freshpass.server.state import RootState

from tests.conftest import git, make_calc_project


def _feature(root: RootState, *, fetch: bool, trusted: bool) -> SharingFeature:
    server: Any = SimpleNamespace(settings=Settings(shared_fetch=fetch), trusted=trusted, roots={root.path: root})
    return SharingFeature(server)


async def test_fetching_needs_the_setting_and_a_trusted_workspace(tmp_path: Path) -> None:
    root = RootState(path=make_calc_project(tmp_path / "repo"))
    for fetch, trusted, expected in ((False, True, 0), (True, False, 0), (False, False, 0), (True, True, 1)):
        feature = _feature(root, fetch=fetch, trusted=trusted)
        feature._repositories[root.path] = find_repository(root.path)
        feature._maybe_fetch(root)
        assert len(feature._fetching) == expected, (fetch, trusted)
        for task in feature._fetching.values():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


def test_the_ref_stamp_moves_with_the_notes_ref_loose_or_packed(tmp_path: Path) -> None:
    root = make_calc_project(tmp_path / "repo")
    repository = find_repository(root)
    assert repository is not None
    before = ref_stamp(repository)
    git(root, "notes", "--ref=refs/notes/freshpass", "add", "-m", "x", "HEAD")
    loose = ref_stamp(repository)
    assert loose != before
    git(root, "pack-refs", "--all")
    assert ref_stamp(repository) != loose
