"""Python: pyproject/setup files, uv/Poetry/PDM/Pipenv lockfiles and their `run` wrappers, pytest's vocabulary.

Its manifests are read by the signal readers of their own sources (`signals/python.py`: pyproject tables, tox, nox,
hatch, the tools' configuration); this record is what the rest of facts shares about Python."""

from __future__ import annotations

from freshpass.facts.tools.summary import TestCounts

from .base import Ecosystem, Vocabulary

# pytest's own settings that choose what is collected: `-o python_functions=test_ok` runs part of the suite.
PYTEST_SELECTING_SETTINGS = frozenset({"python_functions", "python_files", "python_classes", "addopts", "testpaths"})


def _counts(text: str) -> TestCounts | None:
    from freshpass.facts.tools.python import pytest_counts, unittest_counts

    return pytest_counts(text) or unittest_counts(text)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.python import PYTEST

    return Vocabulary(
        runners=("pytest", "py.test", "python", "tox", "nox", "hatch", "uv", "poetry", "pdm", "pipenv", "ruff", "mypy"),
        narrowing=(
            *sorted(PYTEST.narrowing_options),
            *(f"-o {name}=…" for name in sorted(PYTEST_SELECTING_SETTINGS)),
            "a test path or node id",
        ),
        narrowing_env=(("PYTEST_ADDOPTS", "pytest"),),
        watch=("ptw", "pytest-watch", "--looponfail"),
        writers=("--snapshot-update", "--inline-snapshot=fix", "ruff --fix", "ruff format", "black"),
        test_dirs=("tests", "test"),
    )


ECOSYSTEM = Ecosystem(
    name="python",
    title="Python",
    manifests=("pyproject.toml", "setup.py"),
    root_markers=("setup.cfg", "tox.ini", "noxfile.py"),
    lockfiles=(("uv.lock", "uv"), ("poetry.lock", "poetry"), ("pdm.lock", "pdm"), ("Pipfile.lock", "pipenv")),
    wrappers=("uv run", "poetry run", "pdm run", "pipenv run", "hatch run", "rye run", "pixi run"),
    vocabulary=_vocabulary(),
    summary=_counts,
    read=lambda c, package: None,  # signals/python.py reads pyproject, tox, nox and hatch
    docs="https://docs.pytest.org/en/stable/how-to/usage.html",
)
