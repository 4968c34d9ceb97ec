"""Each shape that once made detection propose the wrong check, reproduced in a few self-written files.

A case names the files of a tiny repository and what must hold: the primary command of a kind (the one a click
runs; None when nothing may stand in for that kind), what is set aside and why, and how command lines a
contributor types are classified (approved, full or targeted). The shapes come from real repositories (see
docs/benchmarks.md); the files here are written for the test, not copied.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from freshpass.facts.classify import classify
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import ProjectFacts


@dataclass
class Case:
    files: dict[str, str]
    primary: dict[str, str | None] = field(default_factory=dict)  # kind → command (None: no check of that kind)
    aside: list[tuple[str, str]] = field(default_factory=list)  # (command, why)
    lines: list[tuple[str, str, bool, str | None]] = field(default_factory=list)  # (line, cwd, approved, scope)
    not_proposed: list[str] = field(default_factory=list)  # commands that must not be any check's primary
    no_problems: bool = False
    no_checks_under: str = ""  # a directory whose manifests are fixtures, not packages


def _write(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if (rel.startswith(("scripts/", "script/", "ci/")) and "." not in Path(rel).name) or rel.endswith(".sh"):
            path.chmod(0o755)


def _primary(facts: ProjectFacts, kind: str) -> str | None:
    return next((c.command for c in facts.verify_commands if c.kind == kind), None)


WORKFLOW = ".github/workflows/ci.yml"

CASES: dict[str, Case] = {
    # -- a narrow or special CI step never outranks the full local suite ------------------------------------------
    "nox-release-session-from-ci": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n',
            "noxfile.py": (
                "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n\n"
                "@nox.session(name='prepare-release')\ndef prepare_release(session):\n"
                "    session.run('git', 'commit', '-am', 'release')\n    session.run('git', 'tag', 'v1')\n"
            ),
            WORKFLOW: "jobs:\n  release:\n    steps:\n      - run: python -m nox -s prepare-release -- 99.9\n",
        },
        primary={"test": "nox -s tests"},
        not_proposed=["python -m nox -s prepare-release -- 99.9", "nox -s prepare-release"],
    ),
    "sanitizer-step-with-workspace-variable": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "tests/test_a.py": "def test_a():\n    pass\n",
            WORKFLOW: (
                "jobs:\n  asan:\n    steps:\n      - run: |\n"
                "          ASAN_OPTIONS=detect_leaks=0 python -m pytest ${GITHUB_WORKSPACE}/tests\n"
            ),
        },
        primary={"test": "pytest"},
        aside=[("ASAN_OPTIONS=detect_leaks=0 python -m pytest ${GITHUB_WORKSPACE}/tests", "ci-only")],
    ),
    "narrow-ci-step-beside-make-test": Case(
        files={
            "go.mod": "module example.com/m\n\ngo 1.22\n",
            "Makefile": "test:\n\tgo test ./...\n",
            WORKFLOW: "jobs:\n  t:\n    steps:\n      - run: go test ./tsdb/ -test.tsdb-isolation=false\n",
        },
        primary={"test": "make test"},
        aside=[("go test ./tsdb/ -test.tsdb-isolation=false", "narrower")],
        lines=[("go test ./...", ".", True, "full"), ("go test ./tsdb/", ".", True, "targeted")],
    ),
    "failure-ignored-ci-step": Case(
        files={
            "Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n',
            WORKFLOW: "jobs:\n  t:\n    steps:\n      - run: cargo test -p c --test mdtest || true\n",
        },
        primary={"test": "cargo test"},
        not_proposed=["cargo test -p c --test mdtest || true"],
    ),
    # -- CI-only or state-dependent steps are not local checks ----------------------------------------------------
    "other-repository-checkout": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\n',
            WORKFLOW: (
                "jobs:\n  third-party:\n    steps:\n      - uses: actions/checkout@v4\n"
                "        with:\n          repository: someone/else\n          path: else\n"
                "      - run: cd else && pytest\n"
            ),
        },
        primary={"test": "pytest"},
        not_proposed=["cd else && pytest"],
    ),
    "tool-only-ci-installs": Case(
        files={
            "go.mod": "module example.com/m\n\ngo 1.22\n",
            "Makefile": "test:\n\tgo test ./...\n\nrichtest:\n\trichgo test ./...\n",
            WORKFLOW: (
                "jobs:\n  t:\n    steps:\n      - run: go install github.com/kyoh86/richgo@latest\n"
                "      - run: make richtest\n"
            ),
        },
        primary={"test": "make test"},
    ),
    "artefact-cwd": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            WORKFLOW: ("jobs:\n  t:\n    steps:\n      - run: python -m build\n      - run: cd dist/p* && pytest\n"),
        },
        primary={"test": "pytest"},
        not_proposed=["cd dist/p* && pytest"],
    ),
    "step-env-variable-expanded": Case(
        files={
            "Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n[features]\nfull = []\n',
            WORKFLOW: (
                "env:\n  STABLE_FEATURES: full\njobs:\n  t:\n    steps:\n"
                "      - run: cargo test --features $STABLE_FEATURES\n"
                "      - run: cargo hack test --each-feature $ONLY_IN_CI\n"
            ),
        },
        primary={"test": "cargo test"},
        not_proposed=["cargo test --features $STABLE_FEATURES", "cargo hack test --each-feature $ONLY_IN_CI"],
    ),
    "pull-request-only-step": Case(
        files={
            "package.json": '{"scripts": {"test": "vitest run"}}',
            WORKFLOW: (
                "on: pull_request\njobs:\n  t:\n    steps:\n"
                "      - run: npx eslint $(git diff --name-only origin/${{ github.base_ref }})\n"
            ),
        },
        primary={"test": "npm test", "lint": None},
    ),
    # -- bodies decide, not names ---------------------------------------------------------------------------------
    "format-script-that-checks": Case(
        files={"package.json": '{"scripts": {"format": "prettier --check .", "test": "vitest run"}}'},
        primary={"lint": "npm run format", "test": "npm test"},
    ),
    "test-serve-that-tests": Case(
        files={"package.json": '{"scripts": {"test-serve": "vitest run -c vitest.config.serve.ts"}}'},
        primary={"test": "npm run test-serve"},
    ),
    "help-is-not-lint": Case(
        files={"pyproject.toml": '[project]\nname = "p"\n[tool.ruff]\n', "Makefile": "lint-help:\n\truff --help\n"},
        primary={"lint": "ruff check"},
        not_proposed=["make lint-help"],
    ),
    # -- equivalents are approved and full; narrowings approved and targeted --------------------------------------
    "cargo-all-is-workspace": Case(
        files={
            "Cargo.toml": '[workspace]\nmembers = ["a", "b"]\n',
            "a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
            "b/Cargo.toml": '[package]\nname = "b"\nversion = "0.1.0"\n',
            WORKFLOW: "jobs:\n  t:\n    steps:\n      - run: cargo test --workspace\n",
        },
        lines=[
            ("cargo test --all", ".", True, "full"),
            ("cargo test --workspace", ".", True, "full"),
            ("cargo test -p a", ".", True, "targeted"),
        ],
    ),
    "nox-session-spellings": Case(
        files={
            "noxfile.py": "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n",
            "pyproject.toml": '[project]\nname = "p"\n',
        },
        primary={"test": "nox -s tests"},
        lines=[
            ("nox --session tests", ".", True, "full"),
            ("nox -v -s tests", ".", True, "full"),
            ("nox -s tests -- -k slow", ".", True, "targeted"),
        ],
    ),
    "testpaths-make-the-directory-the-suite": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
            "Makefile": "test:\n\tpython -m pytest tests\n",
            "tests/test_a.py": "def test_a():\n    pass\n",
        },
        primary={"test": "make test"},
        lines=[("python -m pytest tests", ".", True, "full"), ("pytest tests/test_a.py", ".", True, "targeted")],
    ),
    "one-check-listed-once": Case(
        files={
            "pyproject.toml": '[project]\nname = "p"\n[tool.ruff]\nline-length = 100\n',
            "tox.ini": "[tox]\nenvlist = py\n\n[testenv]\ncommands = pytest {posargs}\n",
        },
        primary={"test": "tox -e py"},
        not_proposed=["pytest", "tox"],  # bare `tox` runs the same env: a spelling of it, not a second entry
        lines=[("tox", ".", True, "full"), ("pytest", ".", True, "full"), ("pytest -k x", ".", True, "targeted")],
    ),
    "nextest-is-the-suite": Case(
        files={"Cargo.toml": '[package]\nname = "c"\nversion = "0.1.0"\n'},
        primary={"test": "cargo test"},
        lines=[
            ("cargo nextest run", ".", True, "full"),
            ("cargo nextest run -E 'test(x)'", ".", True, "targeted"),
            ("cargo insta test", ".", True, "full"),
            ("cargo insta test --accept", ".", False, None),
        ],
    ),
    # -- runners and manifests ------------------------------------------------------------------------------------
    "rake-default-runs-the-test-task": Case(
        files={
            "Gemfile": "source 'https://rubygems.org'\n",
            "Rakefile": (
                "require 'rake/testtask'\n\ntask default: :test\n\n"
                "Rake::TestTask.new do |t|\n  t.pattern = 'test/**/*_test.rb'\nend\n"
            ),
            "test/routing_test.rb": "",
        },
        primary={"test": "bundle exec rake test"},
        lines=[
            ("bundle exec rake", ".", True, "full"),
            ("bundle exec ruby -Itest test/routing_test.rb", ".", True, "targeted"),
        ],
    ),
    "rake-variant-running-the-suite": Case(
        files={
            "Gemfile": "",
            "Rakefile": (
                "task :spec do\n  RSpecRunner.new.run\nend\n\n"
                "task :prism_spec do\n  sh('PARSER_ENGINE=prism bundle exec rake spec')\nend\n"
            ),
        },
        primary={"test": "bundle exec rake spec"},
        lines=[("bundle exec rake prism_spec", ".", True, "full")],
    ),
    "artisan-and-phpunit": Case(
        files={
            "composer.json": '{"require-dev": {"phpunit/phpunit": "^11"}}',
            "phpunit.xml": "<phpunit/>",
            "artisan": "#!/usr/bin/env php\n<?php\n",
        },
        primary={"test": "php artisan test"},
        lines=[("vendor/bin/phpunit", ".", True, "full"), ("php artisan test --filter=Foo", ".", True, "targeted")],
    ),
    "spin-command-table": Case(
        files={
            "pyproject.toml": (
                '[project]\nname = "p"\n[tool.spin]\npackage = "p"\n'
                '[tool.spin.commands]\n"Build" = ["spin.cmds.meson.build", "spin.cmds.meson.test"]\n'
            ),
        },
        primary={"test": "spin test"},
        not_proposed=["spin py:test"],
    ),
    "vusted-over-the-test-directory": Case(
        files={"Makefile": "test:\n\tvusted ./test\n", "test/a_spec.lua": ""},
        primary={"test": "make test"},
        lines=[("vusted ./test", ".", True, "full"), ("vusted ./test/a_spec.lua", ".", True, "targeted")],
    ),
    "deno-lint-and-fmt-check": Case(
        files={"deno.json": '{"tasks": {"test": "deno test"}}'},
        primary={"test": "deno task test", "lint": "deno lint"},
        lines=[("deno fmt --check", ".", True, "full"), ("deno fmt", ".", False, None)],
    ),
    "standardrb": Case(
        files={"Gemfile": "gem 'standard'\n", "Rakefile": "require 'standard/rake'\n"},
        primary={"lint": "bundle exec rake standard"},
    ),
    "pre-commit-mypy-hook": Case(
        files={
            ".pre-commit-config.yaml": (
                "repos:\n  - repo: https://github.com/pre-commit/mirrors-mypy\n    rev: v1.0.0\n"
                "    hooks:\n      - id: mypy\n"
            ),
            "pyproject.toml": '[project]\nname = "p"\n',
        },
        lines=[("pre-commit run mypy --all-files", ".", True, "full")],
    ),
    "gradle-build-and-check": Case(
        files={"gradlew": "#!/bin/sh\n", "build.gradle": "plugins { id 'java'\n id 'checkstyle' }\n"},
        primary={"test": "./gradlew test", "check": "./gradlew check"},
        lines=[("./gradlew build", ".", True, "full"), ("./gradlew test --tests Foo", ".", True, "targeted")],
    ),
    "maven-install-is-not-a-check": Case(
        files={"pom.xml": "<project/>", "mvnw": "#!/bin/sh\n"},
        primary={"test": "./mvnw test", "check": "./mvnw verify"},
        not_proposed=["./mvnw install", "mvn install"],
    ),
    # -- writers are never proposed -------------------------------------------------------------------------------
    "ruff-configured-to-fix": Case(
        files={"pyproject.toml": '[project]\nname = "p"\n[tool.ruff]\nfix = true\n'},
        primary={"lint": "ruff check --no-fix"},  # what the configuration makes the check
        aside=[("ruff check", "writes")],
        lines=[("ruff check", ".", False, None), ("ruff check --no-fix", ".", True, "full")],
    ),
    "make-default-goal-installs": Case(
        files={"Makefile": "install:\n\tpip install -e .\n\ntest:\n\tpytest\n"},
        primary={"test": "make test"},
        not_proposed=["make"],
    ),
    "nox-vendoring": Case(
        files={
            "noxfile.py": (
                "import nox\n\n@nox.session\ndef tests(session):\n    session.run('pytest')\n\n"
                "@nox.session\ndef vendoring(session):\n    session.run('vendoring', 'sync', '.')\n"
            )
        },
        aside=[("nox -s vendoring", "writes")],
    ),
    # -- where a kind has no check, nothing stands in -------------------------------------------------------------
    "no-test-check-nothing-stands-in": Case(
        files={"package.json": '{"scripts": {"lint": "eslint ."}}'},
        primary={"lint": "npm run lint", "test": None},
    ),
    # -- monorepos ------------------------------------------------------------------------------------------------
    "packages-without-root-scripts": Case(
        files={
            "package.json": '{"private": true, "workspaces": ["packages/*"]}',
            "packages/a/package.json": '{"name": "a", "scripts": {"test": "vitest run"}}',
        },
        primary={"test": "npm test"},
        lines=[("cd packages/a && npm test", ".", True, "full")],
    ),
    "playground-is-not-a-package": Case(
        files={
            "package.json": '{"private": true, "workspaces": ["packages/*", "playground/*"], '
            '"scripts": {"test": "vitest run"}}',
            "packages/a/package.json": '{"name": "a", "scripts": {"build": "tsc"}}',
            "playground/x/package.json": '{"name": "x", "scripts": {"build": "vite build"}}',
            "playground/y/package.json": '{"name": "y", "scripts": {"build": "vite build"}}',
        },
        no_checks_under="playground",
    ),
    "cd-into-the-backend": Case(
        files={
            "backend/pyproject.toml": (
                '[project]\nname = "b"\n[tool.uv]\npackage = false\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
            ),
            "backend/uv.lock": "",
            "frontend/package.json": '{"scripts": {"test": "vitest run"}}',
        },
        lines=[
            ("cd backend && uv run pytest", ".", True, "full"),
            ("cd backend && uv run pytest -k x", ".", True, "targeted"),
        ],
    ),
    # -- parsers that hold on real files --------------------------------------------------------------------------
    "makefile-dot-targets-and-conditionals": Case(
        files={
            "Makefile": (
                ".uv:\n\t@uv --version\n\n.publishenv:\n\t@echo ok\n\n"
                "ifeq ($(OS),Windows_NT)\n\tEXE := .exe\nelse\n\tEXE :=\nendif\n\n"
                "test: .uv\n\tuv run pytest\n"
            ),
        },
        primary={"test": "make test"},
        no_problems=True,
    ),
    "tox-factor-list-with-a-space": Case(
        files={"tox.ini": "[tox]\nenvlist = py310-{default, use_chardet}\n\n[testenv]\ncommands = pytest\n"},
        primary={"test": "tox -e py310-default"},
        lines=[("tox -e py310-use_chardet", ".", True, "full"), ("tox", ".", True, "full")],
        no_problems=True,
    ),
    "assignment-from-command-substitution": Case(
        files={"Makefile": "test:\n\tPYTHONPATH=$$(pwd)/src pytest\n"},
        primary={"test": "make test"},
    ),
    # -- the project's own program told a check by its verb or switch -------------------------------------------
    "make-target-running-the-projects-own-build-program": Case(
        files={
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "_scripts/make.go": "package main\n\nfunc main() {}\n",
            "Makefile": ".DEFAULT_GOAL=test\n\nbuild:\n\t@go run _scripts/make.go build\n\n"
            "test: vet\n\t@go run _scripts/make.go test -v\n\nvet:\n\t@go vet ./...\n\n"
            "vendor:\n\t@go run _scripts/make.go vendor\n",
            "CONTRIBUTING.md": "Run the tests with `make test`.\n",
        },
        primary={"test": "make test", "build": "make build", "lint": "make vet"},
        lines=[("make test", ".", True, "full"), ("make", ".", True, "full")],
        not_proposed=["make vendor"],
    ),
    "documented-project-program-told-a-verb": Case(
        files={
            "deno.json": "{}\n",
            "tools/ci.ts": "console.log(1)\n",
            "CONTRIBUTING.md": "Lint with:\n\n```\ndeno run tools/ci.ts lint\n```\n\n"
            "Release with `deno run tools/ci.ts release`.\n",
        },
        primary={"lint": "deno run tools/ci.ts lint"},
        not_proposed=["deno run tools/ci.ts release"],
        lines=[("deno run tools/ci.ts lint", ".", True, "full"), ("deno run tools/ci.ts release", ".", False, None)],
    ),
    "powershell-build-script-with-a-test-switch": Case(
        files={
            "App.sln": "Microsoft Visual Studio Solution File\n",
            "build.ps1": "param([switch]$Test)\n",
            "README.md": "## Tests\n\nIn the root folder, run:\n\n```powershell\n./build -Test\n```\n",
        },
        primary={"test": "./build -Test"},
        lines=[
            ("./build -Test", ".", True, "full"),
            ("./build.ps1 -Test", ".", True, "full"),
            ("pwsh -NoProfile -File ./build.ps1 -Test", ".", True, "full"),
            ('pwsh -Command "./build.ps1 -Test"', ".", False, None),
        ],
    ),
    "a-config-file-option-is-no-program": Case(
        files={
            "Makefile": "test:\n\tprove -l t\n",
            "t/basic.t": "use Test::More; ok(1); done_testing;\n",
            "dev/compose.yml": "services: {}\n",
            "DEVELOPERS.md": "Build the image:\n\n```\ndocker-compose -f dev/compose.yml build\n```\n",
        },
        not_proposed=["docker-compose -f dev/compose.yml build"],
    ),
    "zig-fmt-check-over-every-file": Case(
        files={
            "build.zig": 'const std = @import("std");\n',
            "src/main.zig": "pub fn main() void {}\n",
            "CONTRIBUTING.md": "Lint:\n\n```\nzig fmt --check ./*.zig ./**/*.zig\n```\n",
        },
        primary={"lint": "zig fmt --check ./*.zig ./**/*.zig"},
        lines=[
            ("zig fmt --check ./*.zig ./**/*.zig", ".", True, "full"),
            ("zig fmt --check src/main.zig", ".", True, "targeted"),
            ("zig fmt --check ./*.zig", ".", True, "targeted"),
        ],
    ),
    "a-selecting-variable-in-the-environment-of-make": Case(
        files={
            "build.zig": 'const std = @import("std");\n',
            "Makefile": "test:\n\t@TEST_FILTER='${F}' zig build test\n",
            "CONTRIBUTING.md": 'Run `make test`, or one test with `TEST_FILTER="parser" make test`.\n',
        },
        primary={"test": "make test"},
        not_proposed=['TEST_FILTER="parser" make test'],
        lines=[
            ('TEST_FILTER="parser" make test', ".", True, "targeted"),
            ("TEST_VERBOSE=true make test", ".", True, "full"),
            ("make test", ".", True, "full"),
        ],
    ),
    "a-make-variable-the-recipe-filters-by": Case(
        files={
            "build.zig": 'const std = @import("std");\n',
            "Makefile": (
                "F=\nzig ?= zig\nOPT ?= Debug\n.PHONY: t\nt:\n"
                "\tTEST_FILTER='${F}' '${zig}' build test -Doptimize=$(OPT) --summary all\n"
                ".PHONY: u\nu:\n\tzig build test -Dtest-filter=$(NAME)\n"
            ),
            "CONTRIBUTING.md": "Run `make t`; one test: `make t F=router`.\n",
        },
        primary={"test": "make t"},
        lines=[
            ("make t F=router", ".", True, "targeted"),
            ('make t F="server"', ".", True, "targeted"),
            ("make t F=", ".", True, "full"),
            ("make t OPT=ReleaseFast", ".", True, "full"),  # a variable with a value of its own picks nothing
            ("make t zig=zig-0.14", ".", True, "full"),
        ],
    ),
    "a-documented-variant-of-a-target-nobody-can-read": Case(
        files={
            "Makefile.PL": "use ExtUtils::MakeMaker;\nWriteMakefile(NAME => 'X');\n",
            "t/basic.t": "use Test::More;\nok(1);\ndone_testing;\n",
            "DEVELOPERS.md": (
                "# Testing\n\n```\nperl Makefile.PL\nmake test\n```\n\n"
                "Only the classic tests:\n\n```\nmake test_classic\n```\n\nEverything:\n\n```\nmake test_all\n```\n"
            ),
        },
        primary={"test": "make test"},
        lines=[
            ("make test", ".", True, "full"),
            ("make test_classic", ".", True, "targeted"),  # named as a variant of `make test`: a part of it
            ("make test_all", ".", True, "full"),
        ],
    ),
    "scripts-to-rule-them-all-cibuild": Case(
        files={
            "Gemfile": "source 'https://rubygems.org'\ngem 'minitest'\ngem 'rubocop'\n",
            "script/fmt": "#!/usr/bin/env bash\nbundle exec rubocop $@\n",
            "script/test": "#!/usr/bin/env bash\nbundle exec rake test\n",
            "script/cibuild": (
                '#!/usr/bin/env bash\nset -e\nif [[ -z "$TEST_SUITE" ]]\nthen\n  script/fmt\n  script/test\n'
                'elif [[ -x "script/$TEST_SUITE" ]]\nthen\n  script/$TEST_SUITE\nfi\n'
            ),
            "Rakefile": "require 'rake/testtask'\nRake::TestTask.new(:test)\ntask default: :test\n",
            "test/x_test.rb": "require 'minitest/autorun'\n",
            "CONTRIBUTING.md": "# Running tests\n\nMake sure everything passes:\n\n```sh\nscript/cibuild\n```\n",
        },
        lines=[("script/cibuild", ".", True, "full"), ("script/test", ".", True, "full")],
    ),
    "unreadable-parts-the-plain-script-runs": Case(
        files={
            "package.json": (
                '{"name": "x", "scripts": {"test": "npm run test:unit && npm run test:browser", '
                '"test:unit": "node bin/hotfix.js mocha test/unit --exit", '
                '"test:browser": "node bin/hotfix.js karma start --single-run", '
                '"test:other": "node bin/hotfix.js mocha test/other"}}'
            ),
            "bin/hotfix.js": "require('child_process').spawnSync(process.argv[2], process.argv.slice(3));\n",
        },
        primary={"test": "npm test"},
        lines=[
            ("npm test", ".", True, "full"),
            ("npm run test:unit", ".", True, "targeted"),  # a part of `npm test`, whatever its body runs
            ("npm run test:other", ".", False, None),  # only its name says it tests, and nothing runs it
        ],
    ),
    "a-task-whose-env-makes-its-tests-write": Case(
        files={
            "go.mod": "module example.com/x\n\ngo 1.22\n",
            "x_test.go": "package x\n",
            "Taskfile.yml": (
                "version: '3'\ntasks:\n  test:\n    cmds:\n      - go test ./...\n"
                "  generate:fixtures:\n    env:\n      GOLDIE_UPDATE: 'true'\n    cmds:\n      - go test ./...\n"
            ),
        },
        primary={"test": "task test"},
        not_proposed=["task generate:fixtures"],
        lines=[("task test", ".", True, "full"), ("task generate:fixtures", ".", False, None)],
    ),
    "a-script-that-updates-snapshots-through-the-test-runner": Case(
        files={
            "composer.json": json.dumps(
                {
                    "require-dev": {"pestphp/pest": "^3"},
                    "scripts": {
                        "test:refacto": "rector --dry-run",
                        "test:lint": "pint --test",
                        "test:unit": "php bin/pest --colors=always",
                        "update:snapshots": "REBUILD_SNAPSHOTS=true php bin/pest --update-snapshots",
                        "test": ["@test:refacto", "@test:lint", "@test:unit"],
                    },
                }
            ),
            "tests/Pest.php": "<?php\n",
        },
        # `test:lint` says lint in its name, `test:refacto` only in its body
        primary={"test": "composer test", "lint": "composer test:lint"},
        not_proposed=["composer update:snapshots"],
        lines=[
            ("composer test", ".", True, "full"),
            ("composer update:snapshots", ".", False, None),
            ("vendor/bin/pest --update-snapshots", ".", False, None),
            ("UPDATE_SNAPSHOTS=1 vendor/bin/pest", ".", False, None),
        ],
    ),
    "rubocop-generating-its-todo-file": Case(
        files={
            "Gemfile": "source 'https://rubygems.org'\ngem 'rspec'\ngem 'rubocop'\n",
            "Rakefile": "require 'rubocop/rake_task'\nRuboCop::RakeTask.new\ntask(default: %i[rubocop spec])\n",
            "spec/x_spec.rb": "describe 'x' do\nend\n",
        },
        lines=[
            ("bundle exec rubocop", ".", True, "full"),
            ("bundle exec rubocop --auto-gen-config", ".", False, None),
        ],
    ),
    "a-picture-of-the-tree-with-comments-in-an-agents-file": Case(
        files={
            "x.sln": "",
            "tests/X.Tests/X.Tests.csproj": '<Project Sdk="Microsoft.NET.Sdk"></Project>\n',
            "CLAUDE.md": (
                "# X\n\n## Project structure\n\n```\nsrc/\n  X/                 # the library\n"
                "tests/\n  X.Tests/           # the suite (xUnit)\n```\n"
            ),
        },
        primary={"test": "dotnet test"},
        not_proposed=["tests/", "src/"],
    ),
    "a-mix-alias-that-a-formatter-option-reaches": Case(
        files={
            "mix.exs": (
                "defmodule X.MixProject do\n  use Mix.Project\n\n  def project do\n"
                '    [app: :x, version: "0.1.0", deps: deps(), aliases: aliases()]\n  end\n\n'
                '  defp deps do\n    [\n      {:ex_check, "~> 0.12", only: [:dev, :test]},\n'
                '      {:credo, ">= 0.0.0", only: [:dev, :test]}\n    ]\n  end\n\n'
                '  defp aliases do\n    [\n      format: "format --migrate",\n      credo: "credo --strict"\n'
                "    ]\n  end\nend\n"
            ),
            "test/x_test.exs": "defmodule XTest do\n  use ExUnit.Case\nend\n",
            "CONTRIBUTING.md": "## Before a pull request\n\n```\nmix test\nmix check\n```\n\nCheck formatting: "
            "`mix format --check-formatted`\n",
        },
        # ex_check's task runs every configured tool; the alias's last task takes the arguments
        primary={"check": "mix check", "test": "mix test"},
        not_proposed=["mix format"],
        lines=[
            ("mix check", ".", True, "full"),
            ("mix check --only credo", ".", True, "targeted"),
            ("mix check --fix", ".", False, None),
            ("mix format --check-formatted", ".", True, "full"),
            ("mix format", ".", False, None),
        ],
    ),
    "sbt-command-aliases": Case(
        files={
            "build.sbt": (
                'addCommandAlias("checkCodeStyle", "scalafmtCheckAll; scalafmtSbtCheck; +headerCheckAll")\n'
                'addCommandAlias("applyCodeStyle", "+headerCreateAll; scalafmtAll; scalafmtSbt")\n'
                'addCommandAlias(\n  name = "fixall",\n  value = ";scalafixEnable; scalafixAll; scalafmtAll")\n'
                'lazy val root = (project in file("."))\n'
            ),
            "src/test/scala/XSpec.scala": "class XSpec\n",
        },
        primary={"test": "sbt test", "lint": "sbt checkCodeStyle"},
        not_proposed=["sbt applyCodeStyle", "sbt fixall"],
        lines=[
            ("sbt checkCodeStyle", ".", True, "full"),
            ("sbt applyCodeStyle", ".", False, None),
            ("sbt scalafmtAll", ".", False, None),
            ("sbt publishLocal", ".", False, None),
        ],
    ),
    "leiningen-aliases": Case(
        files={
            "project.clj": (
                '(defproject x "0.1.0"\n  :dependencies [[org.clojure/clojure "1.11.1"]]\n'
                '  :aliases {"test-all" ["with-profile" "default:+1.10:+1.11" "test"]\n'
                '            "ci" ["do" "clean," "test-all"]  ; every profile, from scratch\n'
                '            "kibit-all" ^:pass-through-help ["kibit"]}\n'
                '  :profiles {:1.10 {:dependencies [[org.clojure/clojure "1.10.0"]]}})\n'
            ),
            "test/x/core_test.clj": "(ns x.core-test)\n",
        },
        primary={"test": "lein test-all"},  # the suite under every profile the project declares
        lines=[
            ("lein test", ".", True, "full"),
            ("lein test-all", ".", True, "full"),
            ("lein test x.core-test", ".", True, "targeted"),
        ],
    ),
    "a-format-check-target-that-builds-its-formatter-first": Case(
        files={
            "rebar.config": "{erl_opts, [debug_info]}.\n",
            "test/x_SUITE.erl": "-module(x_SUITE).\n",
            "test/x_tests.erl": "-module(x_tests).\n",
            "Makefile": (
                "compile:\n\trebar3 compile\n\ntest:\n\trebar3 ct\n\nrelease:\n\trebar3 as release escriptize\n\n"
                "fmt: release\n\t_build/release/bin/erlfmt -w\n\n"
                "checkfmt: release\n\t_build/release/bin/erlfmt -c --exclude-files=src/x_parse.erl\n\n"
                "check:\n\tmake compile\n\tmake test\n\tmake checkfmt\n"
            ),
        },
        primary={"test": "make test", "lint": "make checkfmt", "check": "make check"},
        not_proposed=["make fmt", "make release"],
        lines=[
            ("make checkfmt", ".", True, "full"),
            ("rebar3 ct", ".", True, "full"),
            ("rebar3 eunit", ".", True, "full"),  # eunit is a suite of its own, never a run of `make test`
        ],
    ),
    "scripts-behind-a-prefix-variable-with-options-in-a-variable": Case(
        files={
            "pyproject.toml": "[project]\nname = 'x'\n\n[tool.pytest.ini_options]\ntestpaths = ['tests']\n",
            "tests/test_x.py": "def test_x():\n    pass\n",
            "scripts/check": (
                "#!/bin/sh -e\nexport PREFIX=''\nif [ -d 'venv' ]; then\n    export PREFIX='venv/bin/'\nfi\n"
                "${PREFIX}ruff check x tests\n${PREFIX}mypy x tests\n"
            ),
            "scripts/test": (
                "#!/bin/sh\nexport PREFIX=''\nset -ex\nif [ -z $GITHUB_ACTIONS ]; then\n    scripts/check\nfi\n"
                "branch_option=$(python -c 'print(\"--branch\")')\n${PREFIX}coverage run $branch_option -m pytest $@\n"
            ),
            "scripts/build": "#!/bin/sh -e\n${PREFIX}python -m build\n${PREFIX}twine check dist/*\n",
            "scripts/publish": "#!/bin/sh -e\n${PREFIX}twine upload dist/*\n",
            "docs/contributing.md": "## Testing\n\nTo run the tests, use:\n\n```shell\n$ scripts/test\n```\n",
        },
        # the variable among coverage's options holds more of them; `twine check` reads metadata, it uploads nothing
        primary={"test": "./scripts/test", "build": "./scripts/build"},
        not_proposed=["scripts/publish", "./scripts/publish"],
        lines=[("scripts/test", ".", True, "full"), ("scripts/build", ".", True, "full")],
    ),
    "a-second-suites-script-named-alone-in-the-guide": Case(
        files={
            "Gemfile": "source 'https://rubygems.org'\ngem 'minitest'\ngem 'cucumber'\n",
            "script/test": '#!/usr/bin/env bash\nset -e\nbundle exec ruby -Itest test/all.rb "$@"\n',
            "script/cucumber": '#!/usr/bin/env bash\ntime ruby -S bundle exec cucumber --format progress "$@"\n',
            "test/all.rb": "require 'minitest/autorun'\n",
            "features/x.feature": "Feature: x\n",
            "CONTRIBUTING.md": (
                "## Tests\n\n```sh\nscript/test test/x_test.rb\n```\n\n"
                "```sh\nscript/cucumber features/x.feature\n```\n\n"
                "Both `script/test` and `script/cucumber` can be run without arguments to run the whole suite.\n"
            ),
        },
        lines=[
            ("script/cucumber", ".", True, "full"),
            ("script/cucumber features/x.feature", ".", True, "targeted"),
        ],
    ),
    "tsc-whose-project-says-no-emit-inside-a-package": Case(
        files={
            "package.json": json.dumps({"private": True, "scripts": {"test": "vitest run"}}),
            "pnpm-workspace.yaml": "packages:\n  - packages/*\n",
            "packages/lib/package.json": json.dumps(
                {
                    "name": "lib",
                    "scripts": {
                        "check": "tsc --project tsconfig.runtime.json && tsc",
                        "generate:types": "node ./scripts/generate-types.js && tsc -p tsconfig.generated.json",
                        "build": "tsc -p tsconfig.build.json",
                    },
                }
            ),
            "packages/lib/tsconfig.json": '{\n  // shared\n  "compilerOptions": {"noEmit": true,},\n}\n',
            "packages/lib/tsconfig.runtime.json": '{"extends": "./tsconfig.json"}',
            "packages/lib/tsconfig.generated.json": '{"extends": "./tsconfig.json"}',
            "packages/lib/tsconfig.build.json": '{"extends": "./tsconfig.json", "compilerOptions": {"noEmit": false}}',
            "packages/lib/scripts/generate-types.js": "// writes types/index.d.ts\n",
            "CONTRIBUTING.md": "## Type checking\n\nTo typecheck the code, run `pnpm check` inside `packages/lib`.\n",
        },
        # a generator named for writing runs a program nobody reads: never proposed, whatever `tsc` after it does
        primary={"typecheck": "pnpm run check", "build": "pnpm run build"},
        not_proposed=["pnpm run generate:types"],
        lines=[("pnpm check", "packages/lib", True, "full"), ("pnpm generate:types", "packages/lib", False, None)],
    ),
    "a-nox-session-that-clones-through-a-helper-and-one-that-serves": Case(
        files={
            "pyproject.toml": "[project]\nname = 'x'\n",
            "tests/test_x.py": "def test_x():\n    pass\n",
            "noxfile.py": (
                "import shutil\nimport nox\n\n\ndef git_clone(session, url):\n"
                "    session.run('git', 'clone', '--depth', '1', url, external=True)\n\n\n"
                "@nox.session\ndef test(session):\n    session.install('.')\n    session.run('pytest')\n\n\n"
                "@nox.session\ndef downstream_requests(session):\n"
                "    git_clone(session, 'https://github.com/psf/requests')\n"
                "    session.run('pytest', 'tests')\n\n\n"
                "@nox.session\ndef console(session):\n"
                "    session.run('python', '-m', 'http.server', '-d', 'dist')\n\n\n"
                "@nox.session\ndef docs(session):\n    shutil.rmtree('_build')\n"
                "    session.run('sphinx-build', '-W', 'docs', '_build')\n\n\n"
                "@nox.session\ndef regen(session):\n    shutil.rmtree('tests/golden')\n"
                "    session.run('pytest', '--regen')\n"
            ),
            "tests/golden/a.txt": "a\n",
        },
        primary={"test": "nox -s test"},
        # removing what a run makes (`_build`) is cleaning up; removing the repository's own files is writing
        not_proposed=["nox -s downstream_requests", "nox -s console", "nox -s regen"],
        lines=[("nox -s test", ".", True, "full"), ("nox -s downstream_requests", ".", False, None)],
    ),
    "package-scripts-named-like-the-managers-commands-or-a-tool": Case(
        files={
            "package.json": json.dumps(
                {
                    "packageManager": "pnpm@9.0.0",
                    "scripts": {
                        "ci": "pnpm typecheck && pnpm test:ci",
                        "tsc": "tsc --noEmit",
                        "build": "tsc",
                        "test": "pnpm --filter unit test",
                        "test:ci": "CI=true pnpm -r --filter './test/*' run test",
                        "test:ecosystem-ci": "ECOSYSTEM_CI=true pnpm test:ci",
                        "typecheck": "tsc -p tsconfig.check.json --noEmit",
                        "docs:cli": "node bin/cli.js --help > docs/cli.md",
                    },
                }
            ),
            "pnpm-lock.yaml": "lockfileVersion: '9.0'\n",
            "docs/cli.md": "# CLI\n",
            "CONTRIBUTING.md": "## Tests\n\n- `pnpm run test:ci` to run all the suite\n",
        },
        # `X=1 pnpm test:ci` runs test:ci and nothing more: not a wider check it would be a part of
        primary={"test": "pnpm run test:ci", "typecheck": "pnpm run typecheck"},
        not_proposed=["pnpm ci", "pnpm run docs:cli"],
        lines=[
            ("pnpm run test:ci", ".", True, "full"),
            ("pnpm run ci", ".", True, "full"),
            ("pnpm run tsc", ".", True, "full"),
            ("tsc", ".", True, "full"),  # the build's own command, not the `tsc` script's `tsc --noEmit`
        ],
    ),
    "a-guide-whose-all-tests-heading-names-the-suite-under-a-timing-comment": Case(
        files={
            "package.json": json.dumps({"scripts": {"test": "make test"}}),
            "yarn.lock": "",
            "Makefile": "test-cov:\n\tnode Makefile.js test-cov\n\ntest: lint test-only\n\n"
            "test-only:\n\t./scripts/test.sh\n\nlint:\n\teslint .\n",
            "Makefile.js": "// a build program\n",
            "scripts/test.sh": '#!/bin/sh\nBABEL_ENV=test node scripts/run-tests.js "$@"\n',
            "scripts/run-tests.js": "// the suite's driver\n",
            "packages/x/test/fixtures/arrow/destructuring/input.js": "x\n",
            "CONTRIBUTING.md": (
                "#### All tests:\n\n```sh\n# ~13 sec on a laptop\n$ yarn jest\n```\n\n"
                "For the following path:\n\n```sh\npackages/x/test/fixtures/arrow/destructuring\n```\n\n"
                "#### Test coverage\n\n```sh\nmake test-cov\n```\n"
            ),
        },
        primary={"test": "yarn jest"},
        not_proposed=["packages/x/test/fixtures/arrow/destructuring"],
    ),
    "a-workspace-crates-tests-run-inside-the-crate": Case(
        files={
            "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\n',
            "crates/a/Cargo.toml": '[package]\nname = "a"\nversion = "0.1.0"\n',
            "crates/a/src/lib.rs": "",
            "CONTRIBUTING.md": "## Tests\n\n```\ncargo test --workspace\n```\n",
        },
        primary={"test": "cargo test --workspace"},
        lines=[
            ("cargo t", "crates/a", True, "targeted"),
            ("cargo test some_case", "crates/a", True, "targeted"),
            ("cargo build", "crates/a", False, None),  # a build run inside is no part of the test suite
        ],
    ),
    "mix-alias-running-every-check": Case(
        files={
            "mix.exs": (
                "defmodule X.MixProject do\n  use Mix.Project\n\n  def project do\n"
                '    [app: :x, version: "0.1.0", aliases: aliases()]\n  end\n\n  defp aliases do\n    [\n'
                '      release: ["cmd git tag v#{@version}", "hex.publish --yes"],\n'
                '      "test.setup": ["ecto.create --quiet", "ecto.migrate --quiet"],\n'
                '      "test.ci": [\n        "format --check-formatted",\n        "deps.unlock --check-unused",\n'
                '        "credo --strict",\n        "test --raise",\n        "dialyzer"\n      ]\n    ]\n  end\nend\n'
            ),
            "test/x_test.exs": "defmodule XTest do\n  use ExUnit.Case\nend\n",
        },
        primary={"check": "mix test.ci", "test": "mix test"},
        not_proposed=["mix release", "mix test.setup"],
        lines=[("mix test.ci", ".", True, "full"), ("mix deps.unlock", ".", False, None)],
    ),
    # -- build directories named by the run's own options -----------------------------------------------------
    "ctest-test-dir-and-cmake-build-in-the-docs": Case(
        files={
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(x)\nenable_testing()\n",
            "docs/contributing.md": "Build and test:\n\n```\ncmake -B debug-build -S .\ncmake --build debug-build\n"
            "ctest -j 4 --output-on-failure -C Debug --test-dir debug-build\n```\n",
        },
        primary={
            "test": "ctest -j 4 --output-on-failure -C Debug --test-dir debug-build",
            "build": "cmake --build debug-build",
        },
        lines=[
            ("ctest -j 4 --output-on-failure -C Debug --test-dir debug-build", ".", True, "full"),
            ("ctest -j 4 --output-on-failure -C Debug --test-dir debug-build -R Approval", ".", True, "targeted"),
            ("cmake --build debug-build", ".", True, "full"),
            ("cmake --build debug-build --target one_test", ".", True, "targeted"),
        ],
    ),
    # -- ecosystem spellings -----------------------------------------------------------------------------------
    "cabal-project-of-several-packages": Case(
        files={
            "cabal.project": "packages: . lib-tests\n",
            "lib.cabal": "name: lib\nversion: 0\n",
            "lib-tests/lib-tests.cabal": "name: lib-tests\nversion: 0\ntest-suite tests\n",
        },
        primary={"test": "cabal test all", "build": "cabal build all"},
        lines=[("cabal test all", ".", True, "full"), ("cabal build all", ".", True, "full")],
    ),
    "sbt-cross-build-and-spaced-slash-syntax": Case(
        files={"build.sbt": 'lazy val core = project\nlazy val root = (project in file(".")).aggregate(core)\n'},
        primary={"test": "sbt test"},
        lines=[
            ("sbt +test", ".", True, "full"),
            ('sbt "core / Test / testOnly x.FooSpec"', ".", True, "targeted"),
        ],
    ),
    "r-testthat-active-file": Case(
        files={
            "DESCRIPTION": "Package: p\nVersion: 0.1\n",
            "tests/testthat/test-a.R": "test_that('a', expect_true(TRUE))\n",
        },
        primary={"test": "Rscript -e 'devtools::test()'"},
        lines=[("Rscript -e \"devtools::test_active_file('R/a.R')\"", ".", True, "targeted")],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_pattern(name: str, tmp_path: Path) -> None:
    case = CASES[name]
    root = tmp_path / "repo"
    root.mkdir()
    _write(root, case.files)
    facts = detect_facts(root)
    listing = [(c.kind, c.command, c.cwd) for c in facts.verify_commands]
    for kind, command in case.primary.items():
        assert _primary(facts, kind) == command, f"{kind}: {listing}"
    primaries = {c.command for c in facts.verify_commands}
    for command in case.not_proposed:
        assert command not in primaries, listing
    aside = [(a.command, a.why) for a in facts.set_aside]
    for item in case.aside:
        assert item in aside, aside
    for line, cwd, approved, scope in case.lines:
        result = classify(line, cwd=root / cwd, root=root, facts=facts)
        assert (result.approved, result.scope if result.approved else None) == (approved, scope), (
            f"{line}: {result.to_json()} with {listing}"
        )
    if case.no_checks_under:
        assert not [c for c in facts.verify_commands if c.cwd.startswith(case.no_checks_under)], listing
    if case.no_problems:
        assert facts.problems == [], facts.problems


# -- bounds: generated files are read within limits, and say so ----------------------------------------------------


def test_a_generated_makefile_reads_the_targets_whose_names_speak(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    targets = "".join(f"obj{i}:\n\techo {i}\n" for i in range(3000))
    (tmp_path / "Makefile").write_text(f"test: lint\n\tpytest\n\nlint:\n\truff check .\n\n{targets}")
    facts = detect_facts(tmp_path)
    assert [(c.kind, c.command) for c in facts.verify_commands] == [("test", "make test"), ("lint", "make lint")]
    assert [p.message for p in facts.problems] == [
        "3002 targets; only the 2 whose names say what they do (and what they depend on) were read"
    ]


def test_a_huge_workflow_is_reported_not_read(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    workflow = tmp_path / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("jobs:\n" + "".join(f"  j{i}:\n    steps:\n      - run: pytest\n" for i in range(10000)))
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    facts = detect_facts(tmp_path)
    assert _primary(facts, "test") == "pytest"
    assert any(p.file == ".github/workflows/ci.yml" and "not read" in p.message for p in facts.problems)


def test_a_ci_step_running_part_of_a_suite_does_not_stand_in_for_it(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    workflow = tmp_path / ".github" / "workflows" / "ci.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("jobs:\n  t:\n    steps:\n      - run: pytest tests/test_api.py\n      - run: mypy src\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_api.py").write_text("")
    (tmp_path / "src").mkdir()
    facts = detect_facts(tmp_path)
    assert _primary(facts, "test") is None
    assert _primary(facts, "typecheck") == "mypy src"  # a checker given the source directory is the check
    assert ("pytest tests/test_api.py", "narrower") in [(a.command, a.why) for a in facts.set_aside]


def test_mix_aliases_are_read_as_written() -> None:
    from freshpass.facts.ecosystems.elixir import mix_aliases

    text = (
        'defp aliases do\n  [\n    setup: ["deps.get", &setup_db/1],\n    "test.ci": ["test --raise", "credo"],\n'
        '    lint: "credo --strict",\n    odd: ["cmd echo \\"a, b\\"", "format"]\n  ]\nend\n'
    )
    assert mix_aliases(text) == [
        ("setup", ("mix deps.get", "&setup_db/1")),
        ("test.ci", ("mix test --raise", "mix credo")),
        ("lint", ("mix credo --strict",)),
        ("odd", ('mix cmd echo \\"a, b\\"', "mix format")),
    ]
    assert mix_aliases('defp aliases do\n  [unclosed: ["test"\nend\n') == []
    assert mix_aliases("no aliases here") == []


def test_leiningen_aliases_are_read_as_written() -> None:
    from freshpass.facts.ecosystems.clojure import lein_aliases

    text = (
        '(defproject x "1"\n  :aliases {"test-all" ["with-profile" "default:+1.10" "test"] ; all of them\n'
        '            "ci" ["do" "clean," "test" ":all"]\n            "lint" ["do" ["kibit"] ["eastwood"]]\n'
        '            "fn" my.ns/alias-fn\n            "odd" ["run" "-m" "x.y" "a \\"b\\""]}\n  :profiles {})\n'
    )
    assert lein_aliases(text) == [
        ("test-all", ("lein with-profile default:+1.10 test",)),
        ("ci", ("lein clean", "lein test :all")),
        ("lint", ("lein kibit", "lein eastwood")),
        ("odd", ("lein run -m x.y 'a \\\"b\\\"'",)),
    ]
    assert lein_aliases('(defproject x "1" :aliases {"t" ["test"') == []
    assert lein_aliases('(defproject x "1" :aliases [:not "a map"])') == []
    assert lein_aliases("no aliases here") == []


@pytest.mark.parametrize(
    ("name", "said"),
    [("build-dev", "build"), ("build:dev", "build"), ("compile_dev", "build"), ("dev", "watches"),
     ("start:dev", "watches"), ("dev-build", "watches"), ("test:dev", "watches")],
)  # fmt: skip
def test_dev_after_a_build_verb_is_a_profile_not_a_server(name: str, said: str) -> None:
    from freshpass.facts.tools.base import script_kind

    assert script_kind(name) == said
