"""Detection rules of design §2 that the fixture repositories do not pin down one by one: precedence and merging,
bounded reads (never a walk of the tree), problems, and the `freshpass facts` command line."""

from __future__ import annotations

import glob
import json
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import ProjectFacts
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_cli


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))
    return root


def _commands(facts: ProjectFacts) -> list[tuple[str, str, str, str]]:
    return [(c.command, c.kind, c.cwd, c.source) for c in facts.verify_commands]


def _problem_files(facts: ProjectFacts) -> list[str]:
    return [p.file for p in facts.problems]


# -- precedence and merging -------------------------------------------------------------------------------------


def test_the_local_script_is_the_check_and_ci_running_it_corroborates(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "package.json": '{"scripts": {"test": "jest"}}',
            "package-lock.json": "{}",
            ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: npm run test\n",
        },
    )
    facts = detect_facts(tmp_path)
    assert len(facts.verify_commands) == 1
    command = facts.verify_commands[0]
    assert (command.command, command.source, command.origin) == ("npm test", "package.json#scripts.test", "local")
    assert set(command.equivalents) == {"npm run test", "npm t", "jest"}
    assert command.also == (".github/workflows/ci.yml#jobs.t.steps[0]",)
    # Both the manifest that declares the script and the workflow that runs it are worth reading.
    assert facts.context_files == ["package.json", ".github/workflows/ci.yml"]


def test_env_manager_spelling_merges_with_the_bare_tool(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pyproject.toml": "[tool.pytest.ini_options]\n",
            "uv.lock": "version = 1\n",
            ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: uv sync\n      - run: uv run pytest\n",
        },
    )
    facts = detect_facts(tmp_path)
    assert _commands(facts) == [("uv run pytest", "test", ".", "pyproject.toml#tool.pytest.ini_options")]
    assert facts.verify_commands[0].also == (".github/workflows/ci.yml#jobs.t.steps[1]",)


def test_same_command_in_different_directories_is_not_merged(tmp_path: Path) -> None:
    _write(tmp_path, {"go.mod": "module a\n", "tools/go.mod": "module b\n"})
    facts = detect_facts(tmp_path)
    assert [(c.command, c.cwd) for c in facts.verify_commands if c.kind == "test"] == [
        ("go test ./...", "."),
        ("go test ./...", "tools"),
    ]


def test_explicit_configuration_comes_first_and_sets_ignore(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "pyproject.toml": """
                [tool.freshpass]
                verify = [{command = "pytest -x", kind = "test"}]
                ignore = ["fixtures/**"]
                [tool.ruff]
            """,
            ".github/workflows/ci.yml": "jobs:\n  l:\n    steps:\n      - run: ruff check .\n",
        },
    )
    facts = detect_facts(tmp_path)
    assert _commands(facts)[0] == ("pytest -x", "test", ".", "pyproject.toml#tool.freshpass.verify[0]")
    assert facts.ignore == ["fixtures/**"]
    assert "ignore" not in facts.to_json()  # design §8 shape is unchanged


# -- package.json ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("script", "listed"),
    [
        ("jest", True),
        ('echo "Error: no test specified" && exit 1', False),
        ("jest --watch", False),
        ("prettier --write . && eslint .", False),
        ("eslint . --fix", False),
        ("vite", False),
        ("vitest run --coverage", True),
        ("tsc --noEmit", True),
    ],
)
def test_package_script_writers_watchers_and_placeholder(tmp_path: Path, script: str, listed: bool) -> None:
    _write(tmp_path, {"package.json": json.dumps({"scripts": {"test": script}})})
    assert bool(detect_facts(tmp_path).verify_commands) is listed


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"pnpm-lock.yaml": ""}, "pnpm test"),
        ({"yarn.lock": ""}, "yarn test"),
        ({"bun.lock": ""}, "bun run test"),  # `bun test` is bun's own runner, not the script
        ({"package-lock.json": "{}"}, "npm test"),
        ({}, "npm test"),
    ],
)
def test_package_manager_from_lockfile(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    _write(tmp_path, {"package.json": '{"scripts": {"test": "jest"}}', **files})
    assert detect_facts(tmp_path).verify_commands[0].command == expected


def test_package_manager_field_wins_over_lockfile(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "package.json": '{"packageManager": "pnpm@9.0.0", "scripts": {"lint": "eslint ."}}',
            "package-lock.json": "{}",
        },
    )
    assert detect_facts(tmp_path).verify_commands[0].command == "pnpm run lint"


@pytest.mark.parametrize(
    ("workspace_root", "expected"),
    [
        ({"pnpm-workspace.yaml": "packages: ['packages/*']\n", "pnpm-lock.yaml": ""}, "pnpm test"),
        ({"package.json": '{"workspaces": ["packages/*"]}', "yarn.lock": ""}, "yarn test"),
        ({"package.json": '{"workspaces": ["packages/*"], "packageManager": "bun@1.1.0"}'}, "bun run test"),
        # A lockfile above that belongs to no workspace says nothing about this package.
        ({"package.json": '{"name": "parent"}', "pnpm-lock.yaml": ""}, "npm test"),
    ],
)
def test_workspace_package_uses_the_manager_of_its_workspace(
    tmp_path: Path, workspace_root: dict[str, str], expected: str
) -> None:
    _write(tmp_path, {**workspace_root, "packages/a/package.json": '{"scripts": {"test": "vitest run"}}'})
    (tmp_path / ".git").mkdir()
    facts = detect_facts(tmp_path / "packages" / "a")
    assert _commands(facts) == [(expected, "test", ".", "package.json#scripts.test")]


def test_workspace_globs_look_at_most_two_levels_down(tmp_path: Path) -> None:
    test_script = '{"scripts": {"test": "jest"}}'
    _write(
        tmp_path,
        {
            "package.json": '{"workspaces": ["packages/**"]}',
            "packages/a/package.json": test_script,
            "packages/group/b/package.json": test_script,
            "packages/group/deep/c/package.json": test_script,
            "packages/a/node_modules/dep/package.json": test_script,
        },
    )
    cwds = [c.cwd for c in detect_facts(tmp_path).verify_commands]
    assert cwds == ["packages/a", "packages/group/b"]


# -- Python ----------------------------------------------------------------------------------------------------


def test_tox_generative_envlist_and_skipped_envs(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "tox.ini": """
                [tox]
                envlist = py{311,312}-django{42,50}, lint, format
                [testenv]
                commands = pytest {posargs}
                [testenv:lint]
                commands = ruff check .
                [testenv:format]
                commands = ruff format .
            """
        },
    )
    facts = detect_facts(tmp_path)
    # One test check: the generated envs all run the same pytest; the formatter env is set aside, and so is bare
    # `tox`, which would run it.
    assert [(c.command, c.kind) for c in facts.verify_commands] == [
        ("tox -e py311-django42", "test"),
        ("tox -e lint", "lint"),
    ]
    assert set(facts.verify_commands[0].equivalents) == {
        "tox -e py311-django50",
        "tox -e py312-django42",
        "tox -e py312-django50",
        "pytest",
    }
    assert {(a.command, a.why) for a in facts.set_aside} == {("tox -e format", "writes"), ("tox", "writes")}


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {
                "tox.toml": 'env_list = ["py312", "type"]\n[env_run_base]\ncommands = [["pytest"]]\n'
                '[env.type]\ncommands = [["mypy", "src"]]\n'
            },
            [
                ("tox -e py", "test", ".", "tox.toml#env_list"),
                ("tox -e type", "typecheck", ".", "tox.toml#env.type"),
                ("tox", "check", ".", "tox.toml#env_list"),
            ],
        ),
        (
            {
                "pyproject.toml": '[tool.tox]\nenv_list = ["lint"]\n'
                '[tool.tox.env.lint]\ncommands = [["ruff", "check"]]\n'
            },
            [("tox -e lint", "lint", ".", "pyproject.toml#tool.tox.env.lint")],
        ),
        (
            {
                "pyproject.toml": '[tool.tox]\nlegacy_tox_ini = """\n[tox]\nenvlist = py3\n'
                '[testenv]\ncommands = pytest\n"""\n'
            },
            [("tox -e py", "test", ".", "pyproject.toml#tool.tox.legacy_tox_ini")],
        ),
        (
            {"setup.cfg": "[tox:tox]\nenvlist = py311\n[testenv]\ncommands = pytest\n"},
            [("tox -e py", "test", ".", "setup.cfg#tox:tox.envlist")],
        ),
    ],
)
def test_tox_configuration_in_every_place_tox_reads_it(
    tmp_path: Path, files: dict[str, str], expected: list[tuple[str, str, str, str]]
) -> None:
    assert _commands(detect_facts(_write(tmp_path, files))) == expected


def test_noxfile_is_parsed_never_imported(tmp_path: Path) -> None:
    marker = tmp_path / "imported"
    _write(
        tmp_path,
        {
            "noxfile.py": f"""
                import pathlib
                import nox
                pathlib.Path({str(marker)!r}).write_text("ran")

                @nox.session(python=["3.11", "3.12"], name="unit-tests")
                def unit(session):
                    session.run("pytest")
            """
        },
    )
    assert [c.command for c in detect_facts(tmp_path).verify_commands] == ["nox -s unit-tests"]
    assert not marker.exists()


def test_invalid_noxfile_is_a_problem_and_other_signals_still_work(tmp_path: Path) -> None:
    _write(tmp_path, {"noxfile.py": "def broken(:\n", "pytest.ini": "[pytest]\n"})
    facts = detect_facts(tmp_path)
    assert [c.command for c in facts.verify_commands] == ["pytest"]
    assert facts.problems[0].file == "noxfile.py"
    assert "line 1" in facts.problems[0].message


def test_runtests_is_the_project_s_own_test_runner(tmp_path: Path) -> None:
    _write(tmp_path, {"runtests.py": "import sys\n", "setup.cfg": "[tool:pytest]\n"})
    # the project's own runner is a local entry point: it outranks pytest's configuration
    assert [c.command for c in detect_facts(tmp_path).verify_commands] == ["python runtests.py", "pytest"]


# -- task runners ---------------------------------------------------------------------------------------------


def test_makefile_include_missing_is_a_problem_optional_include_is_not(tmp_path: Path) -> None:
    _write(tmp_path, {"Makefile": "include config.mk\n-include local.mk\n\ntest:\n\tpytest\n"})
    facts = detect_facts(tmp_path)
    assert [c.command for c in facts.verify_commands] == ["make test"]
    assert [p.message for p in facts.problems] == ["line 1: included file 'config.mk' not found"]


def test_make_target_that_runs_a_writer_prerequisite_is_not_a_check(tmp_path: Path) -> None:
    _write(tmp_path, {"Makefile": "lint: fmt\n\truff check .\n\nfmt:\n\truff format .\n\ntest:\n\tpytest\n"})
    assert [c.command for c in detect_facts(tmp_path).verify_commands] == ["make test"]


def test_invalid_taskfile_yaml_is_a_problem(tmp_path: Path) -> None:
    _write(tmp_path, {"Taskfile.yml": "tasks:\n  test:\n    cmds: [go test\n", "go.mod": "module x\n"})
    facts = detect_facts(tmp_path)
    assert _problem_files(facts) == ["Taskfile.yml"]
    assert [c.command for c in facts.verify_commands] == ["go test ./...", "go vet ./...", "go build ./..."]


def test_not_a_directory(tmp_path: Path) -> None:
    facts = detect_facts(tmp_path / "missing")
    assert facts.verify_commands == []
    assert "not a directory" in facts.problems[0].message


# -- never walk the tree ----------------------------------------------------------------------------------------


def test_detection_reads_only_known_places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A large tree with every kind of manifest: only known names are read, only known directories listed."""
    _write(
        tmp_path,
        {
            "package.json": '{"workspaces": ["packages/*"], "scripts": {"test": "jest"}}',
            "packages/a/package.json": '{"scripts": {"test": "jest"}}',
            "pyproject.toml": "[tool.pytest.ini_options]\n[tool.ruff]\n",
            "go.mod": "module x\n",
            "Makefile": "test:\n\tgo test ./...\n",
            ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: make test\n",
            "scripts/test": "#!/bin/sh\npytest\n",
        },
    )
    for index in range(300):
        _write(tmp_path, {f"src/pkg{index % 10}/sub{index % 7}/deep/module{index}.py": "x = 1\n"})
    # A manifest far below the root must never be seen.
    _write(tmp_path, {"src/pkg1/sub1/deep/package.json": '{"scripts": {"test": "never-read"}}'})

    listed: list[str] = []
    read: list[str] = []
    globbed: list[str] = []
    real_scandir, real_read_bytes, real_glob, real_open = os.scandir, Path.read_bytes, glob.glob, os.open

    def scandir(path: Any = ".") -> Any:
        listed.append(os.path.relpath(os.fspath(path), tmp_path))
        return real_scandir(path)

    def read_bytes(self: Path) -> bytes:
        read.append(os.path.relpath(self, tmp_path))
        return real_read_bytes(self)

    def opener(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        read.append(os.path.relpath(os.fspath(path), tmp_path))
        return real_open(path, flags, *args, **kwargs)

    def globber(pattern: str, **kwargs: Any) -> list[str]:
        globbed.append(os.path.relpath(pattern, tmp_path))
        return real_glob(pattern, **kwargs)

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("detection walked the tree")

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    monkeypatch.setattr(os, "open", opener)
    monkeypatch.setattr(glob, "glob", globber)
    monkeypatch.setattr(os, "walk", forbidden)
    monkeypatch.setattr(Path, "rglob", forbidden)

    facts = detect_facts(tmp_path)

    assert "never-read" not in json.dumps(facts.to_json())
    # Listed: the known script and workflow directories, plus the root and its direct children for the bounded
    # globs (`packages/*` workspaces, `*/*/go.mod` nested modules). Nothing deeper: src/pkg0/... is never listed.
    known = {".github/workflows", "scripts", "script", "bin", "tools", "ci", "dev", "hack", ".github", "docs", "doc"}
    known |= {"docs/_docs", "docs/src", "docs/dev", "docs/development", "docs/contributing"}
    packages = {"packages/a"}  # a workspace member is listed once rather than probed name by name
    deeper = [rel for rel in listed if rel not in known | packages and len(Path(rel).parts) > 1]
    assert deeper == [], deeper
    assert not any(rel.startswith("src/") for rel in listed)
    assert all(len(Path(rel).parts) <= 3 for rel in read), read
    assert all("**" not in pattern and len(Path(pattern).parts) <= 3 for pattern in globbed), globbed
    # known manifests, each read once by the signals and at most once more by recipe detection (§5)
    assert read and len(read) <= 24 and len(set(read)) <= 16, read


# -- robustness -------------------------------------------------------------------------------------------------

_MANIFESTS = [
    "package.json",
    "pyproject.toml",
    "Makefile",
    "tox.ini",
    "noxfile.py",
    "justfile",
    "Taskfile.yml",
    ".github/workflows/ci.yml",
    "deno.jsonc",
    "composer.json",
    "go.work",
    "setup.cfg",
    ".freshpass.toml",
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(_MANIFESTS), text=st.text(max_size=400))
def test_detection_never_raises_on_arbitrary_manifest_text(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    facts = detect_facts(tmp_path)
    json.dumps(facts.to_json())
    path.unlink()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scripts=st.dictionaries(st.sampled_from(["test", "lint", "build", "check", "types"]), st.text(max_size=80)))
def test_any_package_scripts_are_read_without_raising(tmp_path: Path, scripts: dict[str, str]) -> None:
    (tmp_path / "package.json").write_text(json.dumps({"scripts": scripts}))
    facts = detect_facts(tmp_path)
    assert all(c.source.startswith("package.json#scripts.") for c in facts.verify_commands)


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4),
    max_leaves=12,
)
_KEYS = [
    "scripts",
    "workspaces",
    "packageManager",
    "tasks",
    "jobs",
    "steps",
    "run",
    "uses",
    "with",
    "cmds",
    "deps",
    "packages",
    "repos",
    "test",
    "lint",
    "build",
    "check",
    "defaults",
    "working-directory",
    "command",
]
_SHAPED = st.recursive(
    st.none() | st.integers() | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.sampled_from(_KEYS), children, max_size=5),
    max_leaves=20,
)
_STRUCTURED = [
    "package.json",
    "composer.json",
    "deno.json",
    "Taskfile.yml",
    ".github/workflows/ci.yml",
    "pnpm-workspace.yaml",
    ".pre-commit-config.yaml",
    "pyrightconfig.json",
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(_STRUCTURED), value=_SHAPED | _JSON_VALUES)
def test_detection_never_raises_on_unexpected_shapes(tmp_path: Path, name: str, value: Any) -> None:
    """Valid JSON/YAML whose shape is not what the tool expects (a number where a list goes) is not a crash."""
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))  # JSON is YAML too
    if name == "pnpm-workspace.yaml":
        (tmp_path / "package.json").write_text("{}")
    json.dumps(detect_facts(tmp_path).to_json())
    path.unlink()


@pytest.mark.parametrize(
    "table",
    [
        "[tool.hatch.envs.default.scripts]\ntest = 5\nlint = [1, 'ruff check']\n",
        "[tool.pdm.scripts]\ntest = {composite = 3}\nlint = true\n",
        "[tool.spin]\ncommands = 7\n",
        "[tool.tox]\nenv_list = 'py'\n[tool.tox.env.py]\ncommands = 'pytest'\n",
        "[tool.freshpass]\nverify = 'pytest'\nignore = 'docs'\n",
        "[tool.freshpass]\nverify = [3, {command = 5}]\n",
    ],
)
def test_odd_pyproject_tables_are_not_a_crash(tmp_path: Path, table: str) -> None:
    (tmp_path / "pyproject.toml").write_text(table)
    json.dumps(detect_facts(tmp_path).to_json())


def test_binary_manifest_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_bytes(b"\xff\xfe\x00garbage")
    (tmp_path / "go.mod").write_text("module x\n")
    facts = detect_facts(tmp_path)
    assert _problem_files(facts) == ["package.json"]
    assert "not UTF-8" in facts.problems[0].message
    assert facts.verify_commands[0].command == "go test ./..."


# -- command line ----------------------------------------------------------------------------------------------


def test_cli_human_output_shows_the_primary_per_kind_its_equivalents_and_problems(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "Makefile": "test:\n\tpytest\n\nfmt:\n\truff format .\n",
            "pytest.ini": "[pytest]\n",
            "web/package.json": '{"scripts": {"test": "jest"}}',
            "package.json": "{nope",
        },
    )
    result = run_cli("facts", str(tmp_path))
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == f"root: {tmp_path.resolve()}"
    first = lines.index(next(line for line in lines if line.startswith("test")))
    assert lines[first].split() == ["test", "make", "test", "Makefile:test"]
    assert lines[first + 1].split()[:2] == ["same", "check:"] and "pytest" in lines[first + 1]
    assert "other checks:" in lines
    assert any(
        line.split() == ["test", "npm", "test", "(in", "web)", "web/package.json#scripts.test"] for line in lines
    )
    assert any("--all shows why" in line for line in lines)
    assert "problems:" in lines
    assert any(line.strip().startswith("package.json: invalid JSON") for line in lines)


def test_cli_all_lists_what_was_set_aside_and_why(tmp_path: Path) -> None:
    _write(tmp_path, {"Makefile": "test:\n\tpytest\n\nfmt:\n\truff format .\n\nrelease:\n\ttwine upload dist/*\n"})
    lines = run_cli("facts", "--all", str(tmp_path)).stdout.splitlines()
    aside = lines[lines.index("set aside:") + 1 :]
    assert aside[0].strip() == "make fmt" and aside[1].strip().startswith("writes: `ruff format` rewrites files")
    assert aside[2].strip() == "make release" and aside[3].strip().startswith("publishes:")


def test_cli_path_resolves_to_its_root(tmp_path: Path) -> None:
    _write(tmp_path, {"go.mod": "module x\n", "internal/deep/file.go": "package deep\n"})
    result = run_cli("facts", "--json", str(tmp_path / "internal" / "deep" / "file.go"))
    assert json.loads(result.stdout)["root"] == str(tmp_path.resolve())


def test_cli_default_path_is_the_current_directory(tmp_path: Path) -> None:
    _write(tmp_path, {"Cargo.toml": "[package]\nname='x'\n"})
    result = run_cli("facts", "--json", cwd=tmp_path)
    assert [c["command"] for c in json.loads(result.stdout)["verify_commands"]] == [
        "cargo test",
        "cargo clippy",
        "cargo build",
    ]


def test_cli_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli("facts", str(tmp_path / "nope"))
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "no such file or directory" in result.stderr


def test_cli_no_root(tmp_path: Path) -> None:
    (tmp_path / "loose").mkdir()
    result = run_cli("facts", "--json", str(tmp_path / "loose"))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {
        "root": None,
        "manifests": [],
        "package_managers": [],
        "verify_commands": [],
        "set_aside": [],
        "context_files": [],
        "recipe": None,
        "problems": [],
        "ambiguous": [],
    }
    human = run_cli("facts", str(tmp_path / "loose"))
    assert "not inside a project" in human.stdout


def test_tox_changedir_is_where_a_runtests_script_runs(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "tox.ini": "[testenv]\nchangedir = suite\ncommands = {envpython} runtests.py {posargs}\n",
            "suite/runtests.py": "import sys\n",
        },
    )
    facts = detect_facts(tmp_path)
    assert _commands(facts)[0] == ("python runtests.py", "test", "suite", "suite/runtests.py")


def test_shared_trust_from_the_project(tmp_path: Path) -> None:
    from freshpass.facts.model import SharedTrust

    (tmp_path / "pyproject.toml").write_text(
        '[tool.freshpass.shared]\ntrust = ["ci"]\nsigners = ["ci@acme"]\nallowed_signers = ".github/signers"\n'
    )
    assert detect_facts(tmp_path).shared_trust == SharedTrust(("ci",), ("ci@acme",), ".github/signers")
    for table, problem in (
        ('shared = {trust = ["everyone"]}', "is not one of ci, person, agent"),
        ('shared = {trust = ["ci"], signers = ["x"]}', "needs shared.allowed_signers"),
        ('shared = {allowed_signers = "/etc/keys"}', "relative to the root"),
        ('shared = {allowed_signers = "../keys"}', "relative to the root"),
        ("shared = 3", "must be a table"),
    ):
        (tmp_path / "pyproject.toml").write_text(f"[tool.freshpass]\n{table}\n")
        facts = detect_facts(tmp_path)
        assert facts.shared_trust == SharedTrust()
        assert any(problem in p.message for p in facts.problems), (table, facts.problems)
