"""`run_environment`: what both doors put first on PATH for a run (design §5), as tables over small file trees."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from freshpass.runner.environment import (
    FIX_IN_EDITOR,
    RunEnvironment,
    missing_program,
    not_found_message,
    poetry_env_name,
    run_environment,
)

BASE_PATH = "/usr/local/bin:/usr/bin:/bin"
HOME = str(Path(sys.base_prefix) / "bin")  # a Python this machine has


def venv(path: Path, *, home: str = HOME) -> Path:
    """The shape `python -m venv` leaves: pyvenv.cfg and bin/ (no interpreter needed: nothing is executed)."""
    (path / "bin").mkdir(parents=True)
    (path / "pyvenv.cfg").write_text(f"home = {home}\ninclude-system-site-packages = false\nversion = 3.11.4\n")
    return path


def fifo(path: Path) -> None:
    os.mkfifo(path)


def steps(*_done: object) -> None:
    """A layout's steps, run in order as the arguments are evaluated."""


Layout = Callable[[Path], None]

# (name, layout of the project at `p`, cwd below p, environ additions, expected prepended (relative to the tmp dir,
# `{p}` is the project), expected virtualenv, a fragment every note list must contain or None)
CASES: list[tuple[str, Layout, str, dict[str, str], list[str], str | None, str | None]] = [
    ("nothing", lambda p: None, ".", {}, [], None, None),
    (".venv", lambda p: steps(venv(p / ".venv")), ".", {}, ["{p}/.venv/bin"], "{p}/.venv", None),
    ("venv", lambda p: steps(venv(p / "venv")), ".", {}, ["{p}/venv/bin"], "{p}/venv", None),
    (
        ".venv before venv",
        lambda p: steps(venv(p / "venv"), venv(p / ".venv")),
        ".",
        {},
        ["{p}/.venv/bin"],
        "{p}/.venv",
        None,
    ),
    (
        "the package's own, nearest first",
        lambda p: steps(venv(p / ".venv"), venv(p / "backend" / ".venv")),
        "backend",
        {},
        ["{p}/backend/.venv/bin"],
        "{p}/backend/.venv",
        None,
    ),
    (
        "the root's for a package without one",
        lambda p: steps(venv(p / ".venv"), (p / "backend").mkdir()),
        "backend",
        {},
        ["{p}/.venv/bin"],
        "{p}/.venv",
        None,
    ),
    (".venv is a file", lambda p: steps((p / ".venv").write_text("myenv\n")), ".", {}, [], None, "not a directory"),
    (
        ".venv is a symlink to an environment elsewhere",
        lambda p: steps(venv(p.parent / "elsewhere"), (p / ".venv").symlink_to(p.parent / "elsewhere")),
        ".",
        {},
        [],
        None,
        "symbolic link",
    ),
    (
        ".venv/bin is a symlink elsewhere",
        lambda p: steps(
            (p / ".venv").mkdir(),
            (p / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n"),
            (p / ".venv" / "bin").symlink_to("/usr/bin"),
        ),
        ".",
        {},
        [],
        None,
        "bin is a symbolic link",
    ),
    (".venv without pyvenv.cfg", lambda p: (p / ".venv" / "bin").mkdir(parents=True), ".", {}, [], None, "pyvenv.cfg"),
    (
        "pyvenv.cfg is a FIFO (never opened)",
        lambda p: steps((p / ".venv" / "bin").mkdir(parents=True), fifo(p / ".venv" / "pyvenv.cfg")),
        ".",
        {},
        [],
        None,
        "pyvenv.cfg",
    ),
    (
        "made by a Python this machine lacks: not used, with a note",
        lambda p: steps(venv(p / ".venv", home="/nonexistent/python/bin")),
        ".",
        {},
        [],
        None,
        "recreate it",
    ),
    ("already active", lambda p: steps(venv(p / ".venv")), ".", {"VIRTUAL_ENV": "{p}/.venv"}, [], None, None),
    (
        "already first on PATH",
        lambda p: steps(venv(p / ".venv")),
        ".",
        {"PATH": "{p}/.venv/bin:" + BASE_PATH},
        [],
        None,
        None,
    ),
    (
        "another environment active",
        lambda p: steps(venv(p / ".venv"), venv(p.parent / "other")),
        ".",
        {"VIRTUAL_ENV": "{p}/../other"},
        ["{p}/.venv/bin"],
        "{p}/.venv",
        None,
    ),
    (
        "node_modules/.bin after the virtualenv",
        lambda p: steps(
            venv(p / ".venv"),
            (p / "package.json").write_text("{}"),
            (p / "node_modules" / ".bin").mkdir(parents=True),
        ),
        ".",
        {},
        ["{p}/.venv/bin", "{p}/node_modules/.bin"],
        "{p}/.venv",
        None,
    ),
    (
        "node_modules/.bin without a package.json",
        lambda p: (p / "node_modules" / ".bin").mkdir(parents=True),
        ".",
        {},
        [],
        None,
        None,
    ),
    (
        "the interpreter .pdm-python names",
        lambda p: steps(
            venv(p.parent / "pdm-env"), (p / ".pdm-python").write_text(f"{p.parent / 'pdm-env/bin/python'}\n")
        ),
        ".",
        {},
        ["{p}/../pdm-env/bin"],
        "{p}/../pdm-env",
        None,
    ),
    (
        "uv's UV_PROJECT_ENVIRONMENT",
        lambda p: steps(venv(p / "envs" / "uv"), (p / "uv.lock").write_text("")),
        ".",
        {"UV_PROJECT_ENVIRONMENT": "envs/uv"},
        ["{p}/envs/uv/bin"],
        "{p}/envs/uv",
        None,
    ),
]


def _expand(text: str, project: Path) -> str:
    return os.path.normpath(text.replace("{p}", str(project)))


@pytest.mark.parametrize(
    ("layout", "cwd", "environ", "prepended", "virtualenv", "note"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_run_environment(
    tmp_path: Path,
    layout: Layout,
    cwd: str,
    environ: dict[str, str],
    prepended: list[str],
    virtualenv: str | None,
    note: str | None,
) -> None:
    project = tmp_path / "p"
    project.mkdir()
    layout(project)
    env = {"PATH": BASE_PATH, "HOME": str(tmp_path / "home"), **{k: _expand(v, project) for k, v in environ.items()}}
    if "PATH" in environ:
        env["PATH"] = environ["PATH"].replace("{p}", str(project))
    result = run_environment(project / cwd, project, env)

    assert result.path_prepended == [_expand(item, project) for item in prepended]
    assert result.virtualenv == (_expand(virtualenv, project) if virtualenv else None)
    if note is None:
        assert result.notes == ()
    else:
        assert any(note in item for item in result.notes), result.notes


def test_a_selected_interpreter_wins_over_the_projects_virtualenv(tmp_path: Path) -> None:
    venv(tmp_path / "p" / ".venv")
    selected = venv(tmp_path / "selected")
    result = run_environment(tmp_path / "p", tmp_path / "p", {"PATH": BASE_PATH}, interpreter=f"{selected}/bin/python")
    assert result.path_prepended == [f"{selected}/bin"]
    assert result.added[0].why == "the interpreter the editor selected"


@pytest.mark.parametrize("interpreter", ["/usr/bin/python3", "python", ""])
def test_an_interpreter_outside_any_environment_leaves_the_projects(tmp_path: Path, interpreter: str) -> None:
    venv(tmp_path / "p" / ".venv")
    result = run_environment(tmp_path / "p", tmp_path / "p", {"PATH": BASE_PATH}, interpreter=interpreter)
    assert result.path_prepended == [f"{tmp_path}/p/.venv/bin"]
    assert bool(result.notes) == interpreter.startswith("/")  # a bare `python` names nothing worth a note


def test_verify_path_setting_comes_first_relative_to_the_root(tmp_path: Path) -> None:
    project = tmp_path / "p"
    venv(project / ".venv")
    (project / "tools" / "bin").mkdir(parents=True)
    result = run_environment(
        project, project, {"PATH": BASE_PATH}, extra_path=["tools/bin", str(tmp_path / "missing"), "tools/bin"]
    )
    assert result.path_prepended == [f"{project}/tools/bin", f"{project}/.venv/bin"]
    assert result.added[0].why == "freshpass.verify.path"
    assert any("missing is not a directory" in note for note in result.notes)


def test_poetry_environment_in_its_cache(tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    (project / "pyproject.toml").write_text('[tool.poetry]\nname = "My_App"\nversion = "0"\n')
    (project / "poetry.lock").write_text("")
    cache = tmp_path / "venvs"
    name = poetry_env_name("My_App", project)
    assert name.startswith("my-app-") and len(name) == len("my-app-") + 8
    venv(cache / f"{name}-py3.9")
    venv(cache / f"{name}-py3.11")
    environ = {"PATH": BASE_PATH, "POETRY_VIRTUALENVS_PATH": str(cache), "HOME": str(tmp_path)}

    newest = run_environment(project, project, environ)
    assert newest.virtualenv == str(cache / f"{name}-py3.11")
    assert any("2 environments" in note for note in newest.notes)

    (cache / "envs.toml").write_text(f'[{name}]\nminor = "3.9"\npatch = "3.9.18"\n')
    chosen = run_environment(project, project, environ)
    assert chosen.virtualenv == str(cache / f"{name}-py3.9")
    assert chosen.added[0].why == "the project's poetry environment"


def test_poetry_name_matches_poetrys_own() -> None:
    """Poetry's `EnvManager.generate_env_name`: the canonical name, `-`, the first 8 characters of the URL-safe
    base64 of the SHA-256 of the project directory's real path (pinned, so a change to it shows up here)."""
    assert poetry_env_name("poetry", Path("/root/poetry")) == "poetry-jnXdAoz0"
    assert poetry_env_name("My_App", Path("/home/u/my-app")) == "my-app-BxukD-lE"


def test_no_root_no_project_environment(tmp_path: Path) -> None:
    venv(tmp_path / ".venv")
    assert run_environment(tmp_path, None, {"PATH": BASE_PATH}).added == ()


def test_apply_activates_the_virtualenv(tmp_path: Path) -> None:
    venv(tmp_path / ".venv")
    result = run_environment(tmp_path, tmp_path, {"PATH": BASE_PATH})
    applied = result.apply({"PATH": BASE_PATH, "PYTHONHOME": "/x", "KEEP": "1"})
    assert applied == {"PATH": f"{tmp_path}/.venv/bin:{BASE_PATH}", "VIRTUAL_ENV": f"{tmp_path}/.venv", "KEEP": "1"}
    assert result.summary() == f"put {tmp_path}/.venv/bin first on PATH (the project's virtualenv)"
    assert result.to_json() == {"path_prepended": [f"{tmp_path}/.venv/bin"], "virtualenv": f"{tmp_path}/.venv"}


def test_another_active_virtualenv_is_named(tmp_path: Path) -> None:
    venv(tmp_path / ".venv")
    result = run_environment(tmp_path, tmp_path, {"PATH": BASE_PATH, "VIRTUAL_ENV": "/envs/other"})
    assert result.summary() == (
        f"put {tmp_path}/.venv/bin first on PATH (the project's virtualenv); the active virtualenv was /envs/other"
    )
    assert result.apply({"VIRTUAL_ENV": "/envs/other"})["VIRTUAL_ENV"] == f"{tmp_path}/.venv"
    assert (result.to_json() or {})["replaced"] == "/envs/other"


def test_two_directories_are_listed(tmp_path: Path) -> None:
    venv(tmp_path / ".venv")
    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "node_modules" / ".bin").mkdir(parents=True)
    assert run_environment(tmp_path, tmp_path, {"PATH": BASE_PATH}).summary() == (
        f"put {tmp_path}/.venv/bin (the project's virtualenv) and {tmp_path}/node_modules/.bin (the project's "
        "node_modules/.bin) first on PATH"
    )


def test_nothing_added_changes_nothing(tmp_path: Path) -> None:
    result = run_environment(tmp_path, tmp_path, {"PATH": BASE_PATH})
    assert result.apply({"PATH": BASE_PATH}) == {"PATH": BASE_PATH}
    assert (result.summary(), result.to_json()) == (None, None)
    assert result.looked == (f"{tmp_path}/.venv", f"{tmp_path}/venv")


@pytest.mark.parametrize(
    ("line", "output", "expected"),
    [
        ("pytest -q", "/bin/bash: line 1: pytest: command not found\n", "pytest"),
        ("pytest -q", "bash: pytest: command not found\n", "pytest"),
        ("pytest -q", "sh: 1: pytest: not found\n", "pytest"),
        ("pytest -q", "zsh:1: command not found: pytest\n", "pytest"),
        ("make test", "/usr/bin/env: 'python': No such file or directory\n", "python"),
        ("./run-tests", "bash: line 1: ./run-tests: No such file or directory\n", "./run-tests"),
        ("X=1 nosuchtool --flag", "", "nosuchtool"),  # said nothing: the first program not on PATH
        ("ls -l", "", None),  # found on PATH: the 127 came from elsewhere
        ("'unbalanced", "", "'unbalanced"),
    ],
)
def test_missing_program(line: str, output: str, expected: str | None, tmp_path: Path) -> None:
    assert missing_program(line, output, "/usr/bin:/bin", tmp_path) == expected


def test_not_found_message_says_what_where_and_the_fix(tmp_path: Path) -> None:
    environment = run_environment(tmp_path, tmp_path, {"PATH": BASE_PATH})
    message = not_found_message("pytest", environment, FIX_IN_EDITOR)
    assert message == (
        "`pytest` was not found: freshpass looked on PATH (/usr/local/bin, /usr/bin, /bin) and for a project "
        f"virtualenv at {tmp_path}/.venv or {tmp_path}/venv. Set `freshpass.verify.path` to the directory that holds "
        "it, or create the project's virtualenv (.venv) with it."
    )
    venv(tmp_path / ".venv")
    with_venv = not_found_message("ruff", run_environment(tmp_path, tmp_path, {"PATH": "/bin"}), "Fix it.")
    assert with_venv == (
        f"`ruff` was not found: freshpass looked on PATH ({tmp_path}/.venv/bin, /bin), which starts with the "
        f"virtualenv {tmp_path}/.venv. Fix it."
    )
    long_path = RunEnvironment(base_path=":".join(f"/d{i}" for i in range(14)))
    assert "/d9, … (4 more))" in not_found_message(None, long_path, "")
