"""The facts cache: the facts come back equal, and any change to what detection looked at makes them detected again."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import stat
import time
from pathlib import Path

import pytest
from freshpass.evidence import facts_cache
from freshpass.evidence.detection import detect_bounded
from freshpass.facts import detect as detect_module
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import ProjectFacts

from tests.conftest import FIXTURES

CORPUS = sorted(
    [p for p in (FIXTURES / "repos").iterdir() if p.is_dir()]
    + [p for p in (FIXTURES / "ecosystems").iterdir() if p.is_dir()]
)


def _copy(source: Path, tmp_path: Path) -> Path:
    repo = tmp_path / source.name
    shutil.copytree(source, repo, symlinks=True)
    (repo / "expected.json").unlink(missing_ok=True)
    (repo / ".git").mkdir(exist_ok=True)
    return repo


@pytest.fixture
def untimed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files a test just wrote count as settled (the racy-write margin is what one test below is about)."""
    monkeypatch.setattr(facts_cache, "RACY_SECONDS", -3600.0)


class Counting:
    """detect_facts, counting the calls (a hit never calls it)."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, root: Path, **options: object) -> ProjectFacts:
        self.calls += 1
        return detect_facts(root, **options)  # type: ignore[arg-type]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> Counting:
    counting = Counting()
    monkeypatch.setattr(detect_module, "detect_facts", counting)
    return counting


def _facts(root: Path) -> ProjectFacts:
    return asyncio.run(detect_bounded(root))


@pytest.mark.parametrize("source", CORPUS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_field_comes_back_equal(source: Path, tmp_path: Path) -> None:
    facts = detect_facts(_copy(source, tmp_path))
    record = json.loads(json.dumps(facts.to_record()))
    assert ProjectFacts.from_record(record) == facts


def _project(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "pyproject.toml").write_text('[project]\nname = "x"\nversion = "0"\n\n[tool.pytest.ini_options]\n')
    (repo / "tests" / "test_x.py").write_text("def test_x():\n    pass\n")
    return repo


def test_a_second_process_takes_the_facts_kept_by_the_first(tmp_path: Path, untimed: None, counted: Counting) -> None:
    repo = _project(tmp_path)
    first = _facts(repo)
    assert counted.calls == 1
    kept = facts_cache.cache_file(str(repo))
    assert kept is not None and kept.is_file()
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    assert _facts(repo) == first
    assert counted.calls == 1
    assert asyncio.run(detect_bounded(repo, cached=False)) == first
    assert counted.calls == 2


def _change_in_place(path: Path, text: str) -> None:
    """Rewrite `path` with text of the same size and its old modification time: only the change time tells."""
    before = path.stat()
    assert len(text.encode()) == before.st_size
    path.write_text(text)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


CHANGES = {
    "a manifest rewritten, same size and time": lambda repo: _change_in_place(
        repo / "pyproject.toml", (repo / "pyproject.toml").read_text().replace('"x"', '"y"')
    ),
    "a Makefile appears": lambda repo: (repo / "Makefile").write_text("test:\n\tpytest -q\n"),
    "a script in scripts/": lambda repo: (
        (repo / "scripts").mkdir(),
        (repo / "scripts" / "test").write_text("pytest\n"),
    ),
    "a contributor guide": lambda repo: (repo / "CONTRIBUTING.md").write_text("Run `make check`.\n"),
    "the project's venv (the recipe reads it)": lambda repo: (
        (repo / ".venv" / "bin").mkdir(parents=True),
        (repo / ".venv" / "bin" / "python").write_text(""),
    ),
    "a saved recipe": lambda repo: (
        (repo / ".freshpass").mkdir(),
        (repo / ".freshpass" / "recipe.json").write_text("{}"),
    ),
    "a manifest replaced by a symlink": lambda repo: (
        (repo / "other.toml").write_text((repo / "pyproject.toml").read_text()),
        (repo / "pyproject.toml").unlink(),
        (repo / "pyproject.toml").symlink_to("other.toml"),
    ),
    "a manifest removed": lambda repo: (repo / "pyproject.toml").unlink(),
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES.keys())
def test_a_change_to_what_detection_looked_at_detects_again(
    tmp_path: Path, untimed: None, counted: Counting, change: object
) -> None:
    repo = _project(tmp_path)
    _facts(repo)
    change(repo)  # type: ignore[operator]
    again = _facts(repo)
    assert counted.calls == 2
    assert again == detect_facts(repo)


def test_a_file_no_detection_reads_keeps_the_facts(tmp_path: Path, untimed: None, counted: Counting) -> None:
    repo = _project(tmp_path)
    _facts(repo)
    (repo / "tests" / "test_x.py").write_text("def test_x():\n    assert 1\n")
    (repo / "tests" / "test_new.py").write_text("def test_new():\n    pass\n")
    _facts(repo)
    assert counted.calls == 1


def test_a_workspace_above_a_package_is_an_input(tmp_path: Path, untimed: None, counted: Counting) -> None:
    workspace = tmp_path / "mono"
    package = workspace / "packages" / "app"
    package.mkdir(parents=True)
    (workspace / ".git").mkdir()
    (package / "package.json").write_text(json.dumps({"name": "app", "scripts": {"test": "vitest run"}}))
    alone = _facts(package)
    (workspace / "package.json").write_text(json.dumps({"workspaces": ["packages/*"]}))
    (workspace / "pnpm-lock.yaml").write_text("lockfileVersion: '9.0'\n")
    in_workspace = _facts(package)
    assert counted.calls == 2
    assert in_workspace == detect_facts(package)
    assert "../package.json" in alone.inputs


def test_a_nested_go_module_appearing_detects_again(tmp_path: Path, untimed: None, counted: Counting) -> None:
    repo = tmp_path / "go"
    (repo / ".git").mkdir(parents=True)
    (repo / "go.mod").write_text("module example.com/x\n\ngo 1.22\n")
    (repo / "tools").mkdir()
    first = _facts(repo)
    (repo / "tools" / "go.mod").write_text("module example.com/x/tools\n\ngo 1.22\n")
    second = _facts(repo)
    assert counted.calls == 2
    assert [c.cwd for c in second.commands_of_kind("test")] != [c.cwd for c in first.commands_of_kind("test")]


def test_new_detection_code_detects_again(
    tmp_path: Path, untimed: None, counted: Counting, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _project(tmp_path)
    _facts(repo)
    monkeypatch.setattr(facts_cache, "_code", "0.0.0+another")
    _facts(repo)
    assert counted.calls == 2


def test_inputs_written_just_before_detection_are_not_kept(tmp_path: Path, counted: Counting) -> None:
    repo = _project(tmp_path)  # written just now: within the racy margin
    _facts(repo)
    kept = facts_cache.cache_file(str(repo))
    assert kept is not None and not kept.exists()
    _facts(repo)
    assert counted.calls == 2


def test_racy_facts_replace_none_of_the_old_ones(
    tmp_path: Path, untimed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, kept, _ = _kept(tmp_path)
    monkeypatch.setattr(facts_cache, "RACY_SECONDS", 2.0)
    (repo / "Makefile").write_text("test:\n\tpytest\n")
    assert facts_cache.store(detect_facts(repo), time.time_ns()) is False
    assert not kept.exists()  # what was kept described older inputs


def _kept(tmp_path: Path) -> tuple[Path, Path, ProjectFacts]:
    """A project whose facts were detected and kept: (the project, its cache file, the facts)."""
    repo = _project(tmp_path)
    facts = _facts(repo)
    kept = facts_cache.cache_file(str(repo))
    assert kept is not None and kept.is_file()
    return repo, kept, facts


BAD_FILES = {
    "not JSON": b"{",
    "JSON of another shape": b'{"format": 1, "root": 3}',
    "another format": b'{"format": 99}',
    "a list": b"[]",
    "deeply nested": b"[" * 100_000,
}


@pytest.mark.parametrize("content", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_a_damaged_cache_file_is_a_miss(tmp_path: Path, untimed: None, counted: Counting, content: bytes) -> None:
    repo, kept, first = _kept(tmp_path)
    kept.write_bytes(content)
    assert _facts(repo) == first
    assert counted.calls == 2


def test_a_record_edited_to_name_other_facts_is_a_miss(tmp_path: Path, untimed: None, counted: Counting) -> None:
    repo, kept, _ = _kept(tmp_path)
    data = json.loads(kept.read_text())
    data["facts"]["root"] = "/elsewhere"
    kept.write_text(json.dumps(data))
    assert _facts(repo).root == str(repo)
    assert counted.calls == 2


def test_a_cache_file_that_is_a_symlink_or_a_fifo_is_not_read(tmp_path: Path, untimed: None, counted: Counting) -> None:
    repo, kept, _ = _kept(tmp_path)
    elsewhere = tmp_path / "planted.json"
    elsewhere.write_text(kept.read_text())
    kept.unlink()
    kept.symlink_to(elsewhere)
    _facts(repo)
    assert counted.calls == 2
    kept.unlink()
    os.mkfifo(kept)
    _facts(repo)  # returns: a FIFO is never opened for reading
    assert counted.calls == 3


def test_the_language_server_detects_always_and_keeps_what_it_detected(
    tmp_path: Path, untimed: None, counted: Counting
) -> None:
    from freshpass.server.backend import load_facts

    repo = _project(tmp_path)
    first = load_facts(repo)
    second = load_facts(repo)
    assert counted.calls == 2  # the server follows changes itself
    assert facts_cache.load(str(repo)) == first == second
    _facts(repo)  # a hook or the CLI next to the editor takes them
    assert counted.calls == 2
