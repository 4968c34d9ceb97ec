"""Which check is primary: evidence ranked by its strength, bodies followed for safety, close calls flagged.

Each case is a tiny self-written repository of a shape that once made detection propose the wrong check (or
none): what must be primary, what must never be offered, what is set aside and why, how a contributor's command
lines are read, and which kinds are a close call (`ambiguous`). docs/ranking.md explains the order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from freshpass.facts.classify import classify
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import ProjectFacts

WORKFLOW = ".github/workflows/ci.yml"
PY = '[project]\nname = "p"\n'
TEST_FILE = {"tests/test_a.py": "def test_a():\n    pass\n"}
# Two entry points named alike that run different things: a close call unless a document chooses.
TWO_ENTRY_POINTS = {
    "pyproject.toml": PY,
    "Makefile": "test:\n\tpython -m unittest discover\n",
    "noxfile.py": "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n",
    **TEST_FILE,
}


def _ci(*runs: str) -> str:
    steps = "".join(f"      - run: {run}\n" for run in runs)
    return f"jobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n{steps}"


@dataclass
class Case:
    files: dict[str, str]
    primary: dict[str, tuple[str, str] | None] = field(default_factory=dict)  # kind → (command, cwd) or None
    basis: dict[str, str] = field(default_factory=dict)  # kind → the primary's basis
    never: list[str] = field(default_factory=list)  # commands no check may be spelled as, primary or not
    aside: list[tuple[str, str]] = field(default_factory=list)  # (command, why)
    listed: list[str] = field(default_factory=list)  # commands that must be a check (any rank)
    lines: list[tuple[str, str, bool, str | None]] = field(default_factory=list)  # (line, cwd, approved, scope)
    ambiguous: tuple[str, ...] = ()


CASES: dict[str, Case] = {
    # -- safety follows bodies --------------------------------------------------------------------------------------
    "a-lint-script-whose-tools-run-from-a-prefix-directory-writes": Case(
        files={
            "pyproject.toml": PY + "[tool.pytest.ini_options]\n",
            **TEST_FILE,
            "scripts/lint": (
                '#!/bin/sh -e\nexport PREFIX=""\nif [ -d venv ]; then\n    export PREFIX="venv/bin/"\nfi\n'
                "${PREFIX}ruff check --fix p tests\n${PREFIX}ruff format p tests\n"
            ),
            "scripts/check": (
                '#!/bin/sh -e\nexport PREFIX=""\n${PREFIX}ruff check p tests\n${PREFIX}ruff format --check p tests\n'
            ),
            "CONTRIBUTING.md": (
                "# Contributing\n\n## Linting\n\n```shell\n$ scripts/lint\n```\n\n```shell\n$ scripts/check\n```\n"
            ),
        },
        primary={"lint": ("bash scripts/check", ".")},  # the checking script, not the one that rewrites files
        never=["./scripts/lint", "scripts/lint", "bash scripts/lint"],
    ),
    "taskfile-test-with-a-guarded-install-dependency": Case(
        files={
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "x_test.go": "package x\n",
            "Taskfile.yml": (
                "version: '3'\n\ntasks:\n  tools:gotestsum:\n    cmds:\n"
                "      - go install gotest.tools/gotestsum@latest\n"
                "    status:\n      - command -v gotestsum\n\n  test:\n    deps: [tools:gotestsum]\n    cmds:\n"
                "      - gotestsum ./...\n\n  generate:fixtures:\n    cmds:\n      - rm -f testdata/*.golden\n"
                "      - GOLDIE_UPDATE=true go test ./...\n"
            ),
            WORKFLOW: _ci("task test"),
        },
        primary={"test": ("task test", ".")},
        never=["task generate:fixtures"],
        aside=[("task generate:fixtures", "writes")],
    ),
    "a-shell-guarded-install-is-setup": Case(
        files={
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "Makefile": "test:\n\tcommand -v gotestsum >/dev/null || go install gotest.tools/gotestsum@latest\n"
            "\tgo test ./...\n",
        },
        primary={"test": ("make test", ".")},
    ),
    "vitest-watch-mode-never-over-vitest-run": Case(
        files={
            "package.json": json.dumps(
                {
                    "scripts": {
                        "dev": "vitest",
                        "test": "vitest run",
                        "test-jest": "jest",
                        "watch": "npm run test-jest -- --watch",
                    }
                }
            ),
            "package-lock.json": "{}",
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\nWhile you work, keep the watcher running:\n\n"
            "```sh\nnpm run watch\n```\n",
        },
        primary={"test": ("npm test", ".")},
        never=["npm run dev", "npm run watch"],
        aside=[("npm run dev", "watches"), ("npm run watch", "watches")],
    ),
    "bare-vitest-in-a-variant-watches": Case(
        files={"package.json": json.dumps({"scripts": {"test": "vitest run", "test:ui": "vitest"}})},
        primary={"test": ("npm test", ".")},
        never=["npm run test:ui"],
        aside=[("npm run test:ui", "watches")],
    ),
    "a-nox-session-cloning-another-project-is-never-the-test": Case(
        files={
            "pyproject.toml": PY,
            "noxfile.py": (
                "import nox\n\nPYTHONS = ['3.8', '3.9', '3.10', '3.11', '3.12', '3.13', '3.14', 'pypy3']\n\n"
                "@nox.session(python=PYTHONS)\ndef test(session):\n    session.install('.')\n"
                "    session.run('pytest')\n\n@nox.session\ndef downstream(session):\n"
                "    session.run('git', 'clone', 'https://example.com/other.git')\n    session.chdir('other')\n"
                "    session.run('pytest')\n"
            ),
            **TEST_FILE,
        },
        primary={"test": ("nox -s test", ".")},
        never=["nox -s downstream"],
        aside=[("nox -s downstream", "fetches")],
    ),
    "a-download-then-run-is-not-a-check": Case(
        files={
            "Makefile": "test:\n\tpytest\n\nconformance:\n\tcurl -sSfLO https://example.com/suite.tar.gz\n"
            "\tpytest conformance\n",
            "pyproject.toml": PY,
            **TEST_FILE,
        },
        primary={"test": ("make test", ".")},
        never=["make conformance"],
        aside=[("make conformance", "fetches")],
    ),
    "make-lint-under-ruff-fix-true-writes": Case(
        files={
            "pyproject.toml": PY + "\n[tool.ruff]\nfix = true\n",
            "Makefile": "lint:\n\truff check .\n\ntest:\n\tpytest\n",
            **TEST_FILE,
        },
        primary={"lint": ("ruff check --no-fix", "."), "test": ("make test", ".")},
        never=["make lint"],
        aside=[("make lint", "writes")],
    ),
    # -- a variant never outranks the plain entry point ---------------------------------------------------------
    "make-test-over-a-one-package-variant": Case(
        files={
            "Makefile": "test:\n\tcargo test --workspace\n\ntest-cabi:\n\tcargo test -p cabi\n",
            "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
            "CONTRIBUTING.md": "# Contributing\n\n## Tests\n\nTo run all tests:\n\n```\nmake test\n```\n",
        },
        primary={"test": ("make test", ".")},
        basis={"test": "documented"},
    ),
    "nox-tests-over-property-tests": Case(
        files={
            "pyproject.toml": PY,
            "noxfile.py": "import nox\n\n@nox.session\ndef property_tests(session):\n"
            "    session.run('pytest', 'tests/property')\n\n"
            "@nox.session\ndef tests(session):\n    session.run('pytest')\n",
            **TEST_FILE,
        },
        primary={"test": ("nox -s tests", ".")},
    ),
    "a-ci-script-never-over-the-documented-ctest": Case(
        files={
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(x)\nenable_testing()\n",
            "ci/test.sh": "#!/bin/sh\nset -e\ncmake -B build\ncmake --build build\n"
            "cd build && ctest --output-on-failure -L fast\n",
            "README.md": "# x\n\n## Testing\n\n```sh\ncmake -B build\ncmake --build build\ncd build && ctest\n```\n",
            WORKFLOW: _ci("ci/test.sh"),
        },
        primary={"test": ("ctest", "build")},
        basis={"test": "documented"},
    ),
    "gradle-build-the-guide-names-runs-the-tests": Case(
        files={
            "settings.gradle.kts": 'rootProject.name = "x"\n',
            "build.gradle.kts": 'plugins { id("io.gitlab.arturbosch.detekt") }\n'
            'tasks.register("detektTest") { dependsOn("detekt") }\n',
            "gradlew": '#!/bin/sh\nexec java -jar gradle/wrapper/gradle-wrapper.jar "$@"\n',
            "CONTRIBUTING.md": (
                "# Contributing\n\n## Building\n\n`./gradlew build` compiles the project and runs the tests.\n"
            ),
            "src/test/kotlin/XTest.kt": "class XTest\n",
            WORKFLOW: _ci("./gradlew detektTest"),
        },
        primary={"test": ("./gradlew build", "."), "build": ("./gradlew build", ".")},
        basis={"test": "documented"},
        never=["./gradlew detektTest"],
    ),
    # -- contributor lines understood -------------------------------------------------------------------------------
    "just-test-running-cargo-test-all": Case(
        files={
            "justfile": "test:\n    cargo test --all\n",
            "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\n```\njust test\n```\n",
        },
        primary={"test": ("just test", ".")},
        lines=[("just test", ".", True, "full"), ("cargo test --all", ".", True, "full")],
    ),
    "make-test-through-a-pattern-rule-forwarding-every-goal": Case(
        files={
            "Makefile": "%:\n\tgo run scripts/build.go $@\n",
            "scripts/build.go": "package main\n",
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\nRun the tests with `make test`.\n",
        },
        primary={"test": ("make test", ".")},
        basis={"test": "documented"},
        lines=[("make test", ".", True, "full")],
    ),
    "tox-whose-envlist-is-docs-and-tests-is-a-test": Case(
        files={
            "pyproject.toml": PY,
            "tox.ini": "[tox]\nenvlist = docs, py311, py312\n\n[testenv]\ncommands = pytest\n\n"
            "[testenv:docs]\ncommands = sphinx-build -W docs docs/_build\n",
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\n```\ntox\n```\n",
            **TEST_FILE,
        },
        primary={"test": ("tox", ".")},
        lines=[("tox", ".", True, "full")],
    ),
    "a-monorepo-guide-runs-the-tests-in-its-package": Case(
        files={
            "package.json": json.dumps({"private": True, "scripts": {"build": "pnpm -r build"}}),
            "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
            "pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n",
            "packages/x/package.json": json.dumps({"name": "x", "scripts": {"test": "vitest run"}}),
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\n```sh\ncd packages/x && pnpm test\n```\n",
        },
        primary={"test": ("pnpm test", "packages/x")},
        never=["pnpm test"],  # checked at the root below
        lines=[("cd packages/x && pnpm test", ".", True, "full")],
    ),
    "make-test-running-a-program-kept-with-the-tests": Case(
        files={"Makefile": "test:\n\tpython3 tests/check_app.py\n", "tests/check_app.py": "print('ok')\n"},
        primary={"test": ("make test", "."), "check": None},
        lines=[("make test", ".", True, "full")],
    ),
    # -- what is not a command at all -------------------------------------------------------------------------------
    "a-short-target-running-the-suite-in-two-configurations-is-the-test": Case(
        files={
            "build.zig": 'const std = @import("std");\n',
            "Makefile": "t:\n\tzig build test -Dblocking=false\n\tzig build test -Dblocking=true\n\n"
            "tb:\n\tzig build test -Dblocking=true\n",
        },
        primary={"test": ("make t", ".")},
        aside=[("make tb", "narrower")],
    ),
    "a-ci-step-whose-program-the-workflow-fills-in-is-not-a-build": Case(
        files={
            "Makefile": "test:\n\tpytest\n",
            "pyproject.toml": PY,
            WORKFLOW: _ci("${{ matrix.CXX }} -c src/one.cc -std=${{ matrix.STD }}"),
            **TEST_FILE,
        },
        primary={"test": ("make test", "."), "build": None},
    ),
    "a-ci-step-in-another-language-is-not-shell": Case(
        files={
            "DESCRIPTION": "Package: p\n",
            WORKFLOW: "jobs:\n  cov:\n    runs-on: ubuntu-latest\n    steps:\n      - shell: Rscript {0}\n"
            "        run: |\n          cov <- covr::package_coverage(\n            quiet = FALSE\n          )\n"
            '          lintr::lint_package("R/x.R",\n            "R/y.R")\n',
        },
        primary={"test": None, "lint": None},
    ),
    "a-directory-tree-in-the-testing-guide-is-no-command": Case(
        files={
            "Package.swift": "// swift-tools-version:5.9\n",
            "docs/testing.md": "# Testing\n\n## Layout\n\n```\nTests/\n├── Helpers/\n└── CoreTests/\n```\n",
        },
        never=["Tests/"],
    ),
    "a-lowercase-readme-is-read": Case(
        files={
            **TWO_ENTRY_POINTS,
            "readme.md": "# p\n\n## Development\n\n```\nnox -s tests\n```\n",
        },
        primary={"test": ("nox -s tests", ".")},
        basis={"test": "documented"},
    ),
    "instructions-for-coding-agents-are-contributor-documents": Case(
        files={
            **TWO_ENTRY_POINTS,
            "AGENTS.md": "# Agents\n\nBefore you finish, run the whole suite with `nox -s tests`.\n",
        },
        primary={"test": ("nox -s tests", ".")},
        basis={"test": "documented"},
    ),
    # -- what documents name ------------------------------------------------------------------------------------------
    "a-document-listing-where-files-may-live-names-no-command": Case(
        files={
            "Gemfile": "source 'https://rubygems.org'\ngem 'rspec'\n",
            "Rakefile": "task default: [:all_specs]\ntask :all_specs do\n  sh 'rspec'\nend\n",
            "spec/a_spec.rb": "describe 1 do\nend\n",
            "GETTING_STARTED.md": (
                "# Getting started\n\nFactories are loaded from these paths:\n\n"
                "    factories.rb\n    test/factories.rb\n    spec/factories/**/*.rb\n"
            ),
        },
        primary={"test": ("bundle exec rake all_specs", ".")},
        never=["test/factories.rb", "spec/factories/**/*.rb"],
    ),
    "a-documented-tool-the-install-puts-in-place-is-still-documented": Case(
        files={
            "composer.json": '{"name": "demo/demo", "require-dev": {"phpunit/phpunit": "^11"}}',
            "phpunit.xml": "<phpunit><testsuites><testsuite name='all'><directory>tests</directory></testsuite>"
            "</testsuites></phpunit>\n",
            "tests/DemoTest.php": "<?php\n",
            "CONTRIBUTING.md": "# Contributing\n\nRun the tests:\n\n```\nvendor/bin/phpunit\n```\n",
        },
        primary={"test": ("vendor/bin/phpunit", ".")},
        basis={"test": "documented"},
    ),
    "a-document-naming-automakes-check-in-a-project-cmake-builds-too-names-the-tests": Case(
        files={
            "configure.ac": "AC_INIT([demo], [0.1])\nAM_INIT_AUTOMAKE([foreign])\nAC_CONFIG_FILES([Makefile])\n",
            "Makefile.am": "check_PROGRAMS = demo_test\nTESTS = demo_test\n",
            "CMakeLists.txt": "project(demo C)\nenable_testing()\nadd_test(NAME demo_test COMMAND demo_test)\n",
            "tests/demo_test.c": "int main(void) { return 0; }\n",
            "CONTRIBUTING.md": "# Contributing\n\nCover a change with tests and run `make check` before sending it.\n",
        },
        # the build follows the ecosystem whose tests the document names
        primary={"test": ("make check", "."), "build": ("make", ".")},
        basis={"test": "documented", "build": "convention"},
        lines=[("make check", ".", True, "full"), ("ctest --test-dir build", ".", True, "full")],
    ),
    "make-test-documented-for-a-cmake-project-is-ctest-in-its-build-tree": Case(
        files={
            "CMakeLists.txt": "project(demo C)\nenable_testing()\nadd_test(NAME demo_test COMMAND demo_test)\n",
            "tests/demo_test.c": "int main(void) { return 0; }\n",
            "CONTRIBUTING.md": (
                "# Contributing\n\n```\nmkdir mybuild\ncd mybuild\ncmake ..\n```\n\nthen\n\n```\nmake\n```\n\n"
                "To run the tests, do\n\n```\nmake test\n```\n"
            ),
        },
        primary={"test": ("make test", "build")},
        basis={"test": "documented"},
        never=["make test"],  # not at the root, where no Makefile is
        lines=[("make test", "build", True, "full"), ("ctest --test-dir build", ".", True, "full")],
    ),
    "a-release-build-of-every-platform-is-not-the-local-build": Case(
        files={
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "main_test.go": "package main\n",
            "Makefile": (
                "all: target/x\n\ntarget/x:\n\tgo build -o target/x\n\ntest:\n\tgo test ./...\n\n"
                "build:\n\tgoreleaser build --clean --snapshot\n"
            ),
            "BUILD.md": (
                "# Building\n\n```sh\n# Build the binary for your platform\nmake\n\n"
                "# Build binaries and archives for all platforms\nmake build\n```\n\n"
                "## Tests\n\n```sh\nmake test\n```\n"
            ),
        },
        primary={"test": ("make test", "."), "build": ("make all", ".")},
        basis={"test": "documented", "build": "documented"},
        lines=[("make", ".", True, "full"), ("make build", ".", True, "full")],
    ),
    # -- what narrows a run -----------------------------------------------------------------------------------------
    "plenarys-one-file-harness-is-a-targeted-run-of-the-directory-suite": Case(
        files={
            "Makefile": "test:\n\tnvim --headless --noplugin -c 'PlenaryBustedDirectory tests/plugin'\n",
            "lua/plugin/init.lua": "return {}\n",
            "tests/plugin/path_spec.lua": "describe('x', function() end)\n",
        },
        primary={"test": ("make test", ".")},
        lines=[
            ('nvim --headless -c "PlenaryBustedFile tests/plugin/path_spec.lua"', ".", True, "targeted"),
            ("nvim --headless --noplugin -c 'PlenaryBustedDirectory tests/plugin'", ".", True, "full"),
        ],
    ),
    # -- confidence: close calls, and clear choices -----------------------------------------------------------------
    "two-entry-points-alike-and-no-document-is-a-close-call": Case(
        files={
            **TWO_ENTRY_POINTS,
        },
        basis={"test": "declared"},
        ambiguous=("test",),
    ),
    "two-documented-full-commands-disagreeing-is-a-close-call": Case(
        files={
            **TWO_ENTRY_POINTS,
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\n```\nmake test\n```\n\nor\n\n```\nnox -s tests\n```\n",
        },
        primary={"test": ("make test", ".")},
        basis={"test": "documented"},
        ambiguous=("test",),
    ),
    "a-document-breaking-the-tie-is-a-clear-choice": Case(
        files={
            **TWO_ENTRY_POINTS,
            "CONTRIBUTING.md": "# Contributing\n\n## Testing\n\n```\nnox -s tests\n```\n",
        },
        primary={"test": ("nox -s tests", ".")},
        basis={"test": "documented"},
    ),
    "a-plain-name-over-a-variant-is-a-clear-choice": Case(
        files={
            "Makefile": "test:\n\tcargo test --workspace\n\ntest-cabi:\n\tcargo test -p cabi\n",
            "Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n',
        },
        primary={"test": ("make test", ".")},
        basis={"test": "declared"},
    ),
    "a-convention-is-a-choice-to-confirm-but-not-a-close-call": Case(
        files={"Cargo.toml": '[package]\nname = "x"\nversion = "0.1.0"\n'},
        primary={"test": ("cargo test", ".")},
        basis={"test": "convention"},
    ),
}


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if rel.endswith(".sh") or rel == "gradlew":
            path.chmod(0o755)


def _primary(facts: ProjectFacts, kind: str) -> tuple[str, str] | None:
    found = facts.primary(kind)
    return (found.command, found.cwd) if found is not None else None


@pytest.mark.parametrize("name", sorted(CASES))
def test_ranking(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    root = tmp_path / "repo"
    root.mkdir()
    _write(root, case.files)
    facts = detect_facts(root)
    listing = [(c.kind, c.command, c.cwd, c.basis) for c in facts.verify_commands]
    for kind, expected in case.primary.items():
        assert _primary(facts, kind) == expected, f"{kind}: {listing}"
    for kind, basis in case.basis.items():
        primary = facts.primary(kind)
        assert primary is not None and primary.basis == basis, f"{kind}: {listing}"
    at_root = {c.command for c in facts.verify_commands if c.cwd == "."}
    for command in case.never:
        assert command not in at_root, listing
        assert not any(command in c.equivalents for c in facts.verify_commands), listing
    aside = [(a.command, a.why) for a in facts.set_aside]
    for item in case.aside:
        assert item in aside, aside
    for line, cwd, approved, scope in case.lines:
        result = classify(line, cwd=root / cwd, root=root, facts=facts)
        assert (result.approved, result.scope if result.approved else None) == (approved, scope), (
            f"{line}: {result.to_json()} with {listing}"
        )
    assert facts.ambiguous == case.ambiguous, listing
    for kind in case.ambiguous:
        assert facts.needs_choice(kind)
    if not case.ambiguous and "test" in case.basis:
        assert facts.needs_choice("test") == (case.basis["test"] in ("convention", "ci"))


def test_the_interpreters_a_nox_session_is_parametrized_over_are_one_check(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _write(root, CASES["a-nox-session-cloning-another-project-is-never-the-test"].files)
    facts = detect_facts(root)
    [test] = facts.commands_of_kind("test")
    assert test.command == "nox -s test"
    for spelling in ("nox -s test", "nox --session test", "pytest"):
        result = classify(spelling, cwd=root, root=root, facts=facts)
        assert (result.approved, result.scope) == (True, "full"), result.to_json()


def test_ci_running_the_taskfile_test_corroborates_it(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _write(root, CASES["taskfile-test-with-a-guarded-install-dependency"].files)
    facts = detect_facts(root)
    test = facts.primary("test")
    assert test is not None and test.command == "task test"
    assert WORKFLOW + "#jobs.test.steps[1]" in test.also
    assert not [a for a in facts.set_aside if a.command == "task test"], facts.set_aside


def test_a_session_over_eight_interpreters_is_listed_with_each_spelling(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    versions = ", ".join(f'"{v}"' for v in ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "pypy3.10"))
    noxfile = (
        f"import nox\n\n@nox.session(python=[{versions}])\ndef test(session):\n"
        "    session.install('.')\n    session.run('pytest', *session.posargs)\n"
    )
    _write(root, {"noxfile.py": noxfile, "pyproject.toml": PY, **TEST_FILE})
    facts = detect_facts(root)
    test = facts.primary("test")
    assert test is not None and test.command == "nox -s test"
    assert {f"nox -s test-{v}" for v in ("3.8", "3.12", "pypy3.10")} <= set(test.equivalents)
