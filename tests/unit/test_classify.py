"""Classification of command lines, rule by rule (design §3). Facts are built directly, not detected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from freshpass.facts.classify import Classification, classify, ran_no_tests
from freshpass.facts.model import ProjectFacts, VerifyCommand

V = VerifyCommand


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("project")
    for directory in ("app", "tests/unit", "pkg/sub", "src/pkg", "scripts", "web"):
        (root / directory).mkdir(parents=True)
    for file in ("tests/test_x.py", "tests/unit/test_y.py", "src/pkg/foo.py", "scripts/run_tests.sh", "README.md"):
        (root / file).write_text("")
    return root


PYTHON = [
    V("uv run pytest", "test", ".", "pyproject.toml#tool.pytest.ini_options"),
    V("ruff check .", "lint", ".", "pyproject.toml#tool.ruff"),
    V("mypy", "typecheck", ".", "pyproject.toml#tool.mypy"),
    V("./scripts/run_tests.sh", "test", ".", "scripts/run_tests.sh"),
    V("tox -e lint", "lint", ".", "tox.ini"),
]
NODE = [
    V("npm test", "test", ".", "package.json#scripts.test", ("npm run test",)),
    V("npm run lint", "lint", ".", "package.json#scripts.lint"),
    V("pnpm test", "test", "web", "web/package.json#scripts.test"),
    V("bun run test", "test", "app", "app/package.json#scripts.test"),
]
GO = [V("go test ./...", "test", ".", "go.mod"), V("golangci-lint run", "lint", ".", ".golangci.yml")]
RUST = [V("cargo test --workspace", "test", ".", "Cargo.toml"), V("cargo clippy", "lint", ".", "Cargo.toml")]
MAKE = [V("make test", "test", ".", "Makefile:test"), V("make lint", "lint", ".", "Makefile:lint")]
FACTS = {"py": PYTHON, "node": NODE, "go": GO, "rust": RUST, "make": MAKE, "none": []}


def run(
    project: Path,
    line: str,
    exit_code: int | None = 0,
    *,
    facts: str = "py",
    cwd: str = ".",
    output: str | None = None,
) -> Classification:
    declared = ProjectFacts(root=str(project), verify_commands=list(FACTS[facts]))
    return classify(line, cwd=project / cwd, root=project, facts=declared, exit_code=exit_code, output=output)


def check(result: Classification, expected: dict[str, Any]) -> None:
    data = result.to_json()
    data["matches_count"] = len(data["matches"])
    if data["matches"]:
        data["cwd"] = data["matches"][0]["cwd"]
        data["args"] = data["matches"][0]["args"]
    mismatched = {k: (data.get(k), v) for k, v in expected.items() if data.get(k) != v}
    assert not mismatched, f"(actual, expected): {mismatched}\nfull: {data}"


PASSED_FULL = {"matched": True, "approved": True, "scope": "full", "attributable": True, "status": "passed"}
NO_EVIDENCE = {"matched": True, "attributable": False, "status": None, "matches_count": 0}


# (line, exit code, facts, cwd, expected subset of the JSON)
ATTRIBUTION = [
    # §3.2 only the line's own exit status counts
    ("pytest", 0, "py", ".", {**PASSED_FULL, "canonical_command": "uv run pytest", "kind": "test"}),
    ("pytest", 1, "py", ".", {"status": "failed", "reason": None, "attributable": True}),
    ("pytest || true", 0, "py", ".", {**NO_EVIDENCE, "canonical_command": "uv run pytest"}),
    ("pytest || true", 1, "py", ".", NO_EVIDENCE),
    ("pytest | tee log", 0, "py", ".", NO_EVIDENCE),
    ("pytest |& tee log", 0, "py", ".", NO_EVIDENCE),
    ("set -o pipefail; pytest | tee log", 0, "py", ".", {**PASSED_FULL, "matches_count": 1}),
    ("set -o pipefail; pytest | tee log", 1, "py", ".", NO_EVIDENCE),
    ("set -euo pipefail\npytest 2>&1 | tee log", 0, "py", ".", PASSED_FULL),
    ("set -o pipefail; set +o pipefail; pytest | tee log", 0, "py", ".", NO_EVIDENCE),
    ("pytest; echo done", 0, "py", ".", {**NO_EVIDENCE, "canonical_command": "uv run pytest"}),
    ("echo start; pytest", 1, "py", ".", {"status": "failed", "attributable": True}),
    ("pytest\n", 0, "py", ".", PASSED_FULL),
    ("pytest;", 0, "py", ".", PASSED_FULL),
    ("pytest &", 0, "py", ".", {"matched": False, "matches_count": 0}),
    ("sleep 5 & pytest", 0, "py", ".", NO_EVIDENCE),
    ("! pytest", 1, "py", ".", NO_EVIDENCE),
    ("npm install && npm test", 0, "node", ".", {**PASSED_FULL, "canonical_command": "npm test", "matches_count": 1}),
    ("npm install && npm test", 1, "node", ".", {**NO_EVIDENCE, "canonical_command": "npm test"}),
    ("ruff check . && mypy && pytest", 0, "py", ".", {**PASSED_FULL, "kind": "test", "matches_count": 3}),
    ("ruff check . && pytest || echo failed", 0, "py", ".", NO_EVIDENCE),
    ("pytest", None, "py", ".", {**PASSED_FULL, "status": None, "reason": None}),
    ("npm ci && npm test", None, "node", ".", {"attributable": True, "status": None,
                                              "reason": "counts only if the whole && chain exits 0"}),
    # §3.1 cd changes the cwd of what follows
    ("cd app; pytest", 0, "py", ".", {"approved": False, "scope": "targeted", "cwd": "app", "status": "passed"}),
    ("cd app && bun run test", 0, "node", ".", {**PASSED_FULL, "cwd": "app", "canonical_command": "bun run test"}),
    ("cd web && pnpm run test", 0, "node", ".", {**PASSED_FULL, "cwd": "web", "canonical_command": "pnpm test"}),
    ("cd app && cd .. && pytest", 0, "py", ".", {**PASSED_FULL, "cwd": "."}),
    ("pytest", 0, "py", "app", {"approved": False, "cwd": "app"}),
    ("cd .. && pytest", 0, "py", "app", {**PASSED_FULL, "cwd": "."}),
    ('cd "$DIR" && pytest', 0, "py", ".", {"approved": False, "cwd": None, "scope": "targeted"}),
    ("pnpm --dir web test", 0, "node", ".", {**PASSED_FULL, "cwd": "web"}),
    # a package's script is one check whichever manager runs it (`bun run test` declared, npm used)
    ("npm --prefix app run test", 0, "node", ".", {**PASSED_FULL, "cwd": "app"}),
    ("make -C app test", 0, "make", ".", {"approved": False, "cwd": "app"}),
    # §3.1 a single bash -c is unwrapped
    ("bash -c 'pytest -q'", 0, "py", ".", {**PASSED_FULL, "canonical_command": "uv run pytest -q"}),
    ("sh -ec 'cd app && pytest'", 0, "py", ".", {"cwd": "app", "approved": False}),
    ("bash -lc 'pytest || true'", 0, "py", ".", NO_EVIDENCE),
    ("zsh -c \"set -o pipefail; pytest | tee out\"", 0, "py", ".", PASSED_FULL),
    ("echo x && bash -c 'pytest'", 0, "py", ".", {**PASSED_FULL, "matches_count": 1}),
    ("set -o pipefail; bash -c 'pytest | tee x'", 0, "py", ".", NO_EVIDENCE),  # a new shell: no pipefail
    ("bash -o pipefail -c 'pytest | tee x'", 0, "py", ".", PASSED_FULL),
    ("bash -euo pipefail -c 'pytest | tee x'", 0, "py", ".", PASSED_FULL),
    ("bash -c 'pytest &'", 0, "py", ".", {"matched": False}),
    ("bash -c 'pytest \"'", 0, "py", ".", {"matched": False}),
    # subshells: their cd does not outlive them, their status is their last statement's
    ("(cd app && pytest)", 0, "py", ".", {"approved": False, "cwd": "app", "status": "passed"}),
    ("(cd app && pytest); pytest", 0, "py", ".", {**PASSED_FULL, "cwd": ".", "matches_count": 1}),
    ("npm ci && (cd web && pnpm test)", 0, "node", ".", {**PASSED_FULL, "cwd": "web"}),
    ("npm ci && (cd web && pnpm test)", 1, "node", ".", NO_EVIDENCE),
    ("(pytest; echo done)", 0, "py", ".", NO_EVIDENCE),
    ("(pytest || true)", 0, "py", ".", NO_EVIDENCE),
    ("(set -o pipefail; pytest | tee log)", 0, "py", ".", PASSED_FULL),
    ("set -o pipefail; (pytest | tee log) > out", 0, "py", ".", PASSED_FULL),
    ("(pytest &)", 0, "py", ".", NO_EVIDENCE),
    ("(pytest) &", 0, "py", ".", {"matched": False}),
    ("(cd app && pytest", 0, "py", ".", {"matched": False}),
    # unbalanced quotes and dangling operators: no match
    ("pytest 'tests", 0, "py", ".", {"matched": False, "matches_count": 0}),
    ("pytest &&", 0, "py", ".", {"matched": False}),
    ("pytest |", 0, "py", ".", {"matched": False}),
    ("", 0, "py", ".", {"matched": False, "reason": "empty command line"}),
]  # fmt: skip


@pytest.mark.parametrize(("line", "exit_code", "facts", "cwd", "expected"), ATTRIBUTION)
def test_attribution(project: Path, line: str, exit_code: int | None, facts: str, cwd: str, expected: dict) -> None:
    check(run(project, line, exit_code, facts=facts, cwd=cwd), expected)


NORMALISATION = [
    # §3.3 wrappers are stripped, interpreters and environments resolve to the tool
    ("CI=1 uv run pytest tests/test_x.py::test_y", "py",
     {"approved": True, "canonical_command": "uv run pytest tests/test_x.py::test_y", "scope": "targeted",
      "args": ["tests/test_x.py::test_y"]}),
    ("python3.12 -m pytest -k slow", "py", {"approved": True, "scope": "targeted", "args": ["-k", "slow"]}),
    ("python -m pytest", "py", PASSED_FULL),
    ("python3 -X dev -m pytest -q", "py", PASSED_FULL),
    (".venv/bin/pytest", "py", PASSED_FULL),
    (".venv/bin/python -m pytest", "py", PASSED_FULL),
    ("/usr/local/bin/pytest", "py", PASSED_FULL),
    ("uv run --frozen --with pytest-xdist pytest -n auto", "py", PASSED_FULL),
    ("uv run -- pytest", "py", PASSED_FULL),
    ("poetry run pytest", "py", PASSED_FULL),
    ("pdm run pytest", "py", PASSED_FULL),
    ("pipenv run python -m pytest", "py", PASSED_FULL),
    ("hatch run test:pytest", "py", PASSED_FULL),
    ("hatch run pytest", "py", PASSED_FULL),
    ("env -i PATH=/usr/bin FOO=bar pytest", "py", PASSED_FULL),
    ("command time -p nice -n 10 noglob pytest", "py", PASSED_FULL),
    ("exec pytest", "py", PASSED_FULL),
    ("timeout -s KILL 600 pytest", "py", PASSED_FULL),
    ("timeout --kill-after=5 10m uv run pytest", "py", PASSED_FULL),
    ("coverage run -m pytest", "py", PASSED_FULL),
    ("py.test", "py", PASSED_FULL),
    ("sudo pytest", "py", {"matched": False, "reason": "`sudo pytest`: sudo runs it as another user, outside this "
                                                       "workspace's environment"}),
    ("python -c 'import pytest; pytest.main()'", "py", {"matched": False}),
    ("command -v pytest", "py", {"matched": False}),
    # package scripts
    ("npm test", "node", {**PASSED_FULL, "canonical_command": "npm test"}),
    ("npm run test", "node", {**PASSED_FULL, "canonical_command": "npm test"}),
    ("npm run-script test", "node", {**PASSED_FULL, "canonical_command": "npm test"}),
    ("npm t", "node", {**PASSED_FULL, "canonical_command": "npm test"}),
    ("npm test -- --coverage", "node", {**PASSED_FULL, "canonical_command": "npm test -- --coverage"}),
    ("npm test -- src/a.test.ts", "node", {"approved": True, "scope": "targeted"}),
    ("npm run lint", "node", {**PASSED_FULL, "kind": "lint"}),
    ("npm run format", "node", {"matched": False}),
    ("npm run lint:fix", "node", {"matched": False}),
    ("npm run dev", "node", {"matched": False}),
    ("npm run test:watch", "node", {"matched": False}),
    ("npm run test:unit", "node", {"matched": True, "kind": "test", "approved": False}),
    ("npm run type-check", "node", {"matched": True, "kind": "typecheck"}),
    ("npm run lint:fix", "none", {"matched": False}),
    ("npm run check", "none", {"matched": True, "kind": "check"}),
    ("npm run build", "none", {"matched": True, "kind": "build"}),
    ("npm run", "node", {"matched": False}),
    ("pnpm test", "none", {"matched": True, "approved": False, "canonical_command": "pnpm test", "kind": "test"}),
    ("pnpm run test", "none", {"matched": True, "approved": False, "canonical_command": "pnpm test"}),
    ("pnpm t", "none", {"canonical_command": "pnpm test"}),
    ("yarn test", "none", {"canonical_command": "yarn test"}),
    ("yarn run typecheck", "none", {"canonical_command": "yarn run typecheck", "kind": "typecheck"}),
    ("pnpm --filter web test", "none", {"canonical_command": "pnpm test", "scope": "targeted"}),
    ("bun test", "none", {"canonical_command": "bun test", "kind": "test", "approved": False}),
    ("bun run test", "none", {"canonical_command": "bun run test", "kind": "test", "approved": False}),
    ("npx jest", "none", {"canonical_command": "jest", "kind": "test"}),
    ("pnpm exec vitest run", "none", {"canonical_command": "vitest run", "kind": "test"}),
    ("bunx vitest run", "none", {"canonical_command": "vitest run"}),
    ("yarn jest --ci", "none", {"canonical_command": "jest --ci"}),
    ("./node_modules/.bin/jest", "none", {"canonical_command": "jest"}),
    ("npx --yes jest@29 --ci", "none", {"canonical_command": "jest --ci", "kind": "test"}),
    ("npx @biomejs/biome@1.9.0 check .", "none", {"canonical_command": "biome check .", "kind": "lint"}),
    ("uvx ruff@0.6.0 check", "none", {"canonical_command": "ruff check", "kind": "lint"}),
    ("uvx --from 'ruff==0.6' ruff check .", "none", {"canonical_command": "ruff check .", "kind": "lint"}),
    # ./x ≡ x ≡ bash x ≡ sh x
    ("./scripts/run_tests.sh", "py", {**PASSED_FULL, "canonical_command": "./scripts/run_tests.sh"}),
    ("scripts/run_tests.sh", "py", PASSED_FULL),
    ("bash scripts/run_tests.sh", "py", PASSED_FULL),
    ("sh -e ./scripts/run_tests.sh", "py", PASSED_FULL),
    ("./scripts/run_tests.sh tests/test_x.py", "py", {"approved": True, "scope": "targeted"}),
    ("./runtests.py", "none", {"matched": True, "approved": False, "kind": "test"}),
    ("bundle exec rspec spec/a_spec.rb:12", "none", {"canonical_command": "rspec spec/a_spec.rb:12", "kind": "test"}),
    ("bundle exec rubocop -a", "none", {"matched": False}),
    ("php artisan test --filter X", "none", {"kind": "test"}),
    ("hatch run test", "none", {"canonical_command": "hatch run test", "kind": "test"}),
    ("hatch run lint:check", "none", {"canonical_command": "hatch run lint:check", "kind": "lint"}),
    ("hatch test -k x", "none", {"canonical_command": "hatch test -k x", "kind": "test"}),
    ("pdm run lint", "none", {"canonical_command": "pdm run lint", "kind": "lint"}),
    ("uv run poe test", "none", {"canonical_command": "poe test", "kind": "test"}),
    ("deno task test", "none", {"canonical_command": "deno task test", "kind": "test"}),
    ("nx run-many -t test", "none", {"kind": "test"}),
    ("nx affected --target=lint", "none", {"kind": "lint"}),
    ("make -n test", "make", {"matched": False}),
    ("python runtests.py", "none", {"matched": True, "approved": False, "kind": "test"}),
]  # fmt: skip


@pytest.mark.parametrize(("line", "facts", "expected"), NORMALISATION)
def test_normalisation(project: Path, line: str, facts: str, expected: dict) -> None:
    check(run(project, line, facts=facts), expected)


MATCHING_AND_KIND = [
    # §3.4 mentions never match
    ("echo pytest", "py", {"matched": False}),
    ("git commit -m pytest", "py", {"matched": False}),
    ("grep -r pytest .", "py", {"matched": False}),
    ("cat Makefile", "make", {"matched": False}),
    # options anywhere, trailing args
    ("go test -v ./...", "go", {**PASSED_FULL, "args": ["-v"], "canonical_command": "go test ./... -v"}),
    ("go test ./... -count=1", "go", PASSED_FULL),
    ("go test ./pkg/...", "go", {"approved": True, "scope": "targeted", "kind": "test"}),
    ("go test ./pkg/...", "none", {"approved": False, "scope": "targeted", "kind": "test"}),
    ("go test -run TestX ./...", "go", {"approved": True, "scope": "targeted"}),
    ("cargo test --workspace", "rust", PASSED_FULL),
    ("cargo test --workspace -- --nocapture", "rust", PASSED_FULL),
    ("cargo test --workspace -- parse", "rust", {"approved": True, "scope": "targeted"}),
    ("cargo test -p core", "rust", {"approved": True, "scope": "targeted", "kind": "test"}),
    ("cargo test -p core --workspace", "rust", {"approved": True, "scope": "targeted"}),
    ("cargo +nightly clippy", "rust", {**PASSED_FULL, "kind": "lint"}),
    ("cargo clippy --fix", "rust", {"matched": False}),
    ("make test", "make", {**PASSED_FULL, "canonical_command": "make test"}),
    ("make test TEST=foo", "make", {"approved": True, "scope": "targeted", "args": ["TEST=foo"]}),
    ("make test V=1 -j4", "make", PASSED_FULL),
    ("make test TEST=foo", "none", {"approved": False, "scope": "targeted", "kind": "test"}),
    ("make lint test", "make", {**PASSED_FULL, "kind": "test", "matches_count": 2}),
    ("make install", "make", {"matched": False}),
    ("make fmt", "none", {"matched": False}),
    ("golangci-lint run", "go", {**PASSED_FULL, "kind": "lint"}),
    ("tox -e lint", "py", {**PASSED_FULL, "kind": "lint"}),
    ("tox -e py312", "py", {"approved": False, "scope": "targeted", "kind": "test"}),
    # recognised runners outside the facts never give full scope
    ("pytest", "none", {"matched": True, "approved": False, "scope": "targeted", "kind": "test"}),
    ("python -m unittest", "none", {"approved": False, "kind": "test", "scope": "targeted"}),
    ("node --test", "none", {"kind": "test", "canonical_command": "node --test"}),
    ("mvn -q verify", "none", {"kind": "test"}),
    ("./gradlew test --tests Foo", "none", {"kind": "test", "canonical_command": "gradle test --tests Foo"}),
    ("tsc --noEmit", "none", {"kind": "typecheck"}),
    ("tsc -p tsconfig.build.json", "none", {"kind": "build"}),
    ("pyright", "none", {"kind": "typecheck"}),
    ("flake8 src", "none", {"kind": "lint"}),
    ("pylint src", "none", {"kind": "lint"}),
    ("eslint .", "none", {"kind": "lint"}),
    ("nox -s tests", "none", {"kind": "test"}),
    ("mocha", "none", {"kind": "test"}),
    # §3.5 writers and fixers are never evidence; check-mode formatters are lint
    ("prettier --write .", "none", {"matched": False}),
    ("prettier --check .", "none", {"matched": True, "kind": "lint"}),
    ("ruff format .", "py", {"matched": False}),
    ("ruff format --check .", "py", {"matched": True, "kind": "lint", "approved": False}),
    ("ruff check --fix .", "py", {"matched": False}),
    ("ruff check .", "py", {**PASSED_FULL, "kind": "lint"}),
    ("ruff .", "none", {"matched": True, "kind": "lint"}),
    ("ruff clean", "none", {"matched": False}),
    ("cd app && bun test", "node", {"matched": True, "approved": False, "canonical_command": "bun test"}),
    ("black .", "none", {"matched": False}),
    ("black --check .", "none", {"kind": "lint"}),
    ("isort --check-only .", "none", {"kind": "lint"}),
    ("cargo fmt", "none", {"matched": False}),
    ("cargo fmt --check", "none", {"kind": "lint"}),
    ("cargo fmt -- --check", "none", {"kind": "lint"}),
    ("eslint --fix .", "none", {"matched": False}),
    ("gofmt -w .", "none", {"matched": False}),
    ("gofmt -l .", "none", {"kind": "lint"}),
    ("rubocop -A", "none", {"matched": False}),
    ("ruff format . && pytest", "py", {**PASSED_FULL, "matches_count": 1}),
    # help, collection and watch modes are not runs
    ("pytest --collect-only -q", "py", {"matched": False}),
    ("pytest --version", "py", {"matched": False}),
    ("jest --watch", "none", {"matched": False}),
    ("vitest watch", "none", {"matched": False}),
]  # fmt: skip


@pytest.mark.parametrize(("line", "facts", "expected"), MATCHING_AND_KIND)
def test_matching_and_kind(project: Path, line: str, facts: str, expected: dict) -> None:
    check(run(project, line, facts=facts), expected)


def test_writer_reason_says_why(project: Path) -> None:
    result = run(project, "prettier --write .", facts="none")
    assert result.reason is not None and "rewrites files" in result.reason
    assert "rewrites files" in (run(project, "eslint --fix .", facts="none").reason or "")


SCOPE = [
    # §3.6 narrowing arguments and flags; the full command stays full with harmless flags
    ("pytest -q", "full"),
    ("pytest -v -x --tb=short -n auto --cov=src --color=yes", "full"),
    ("pytest .", "full"),
    ("pytest ./", "full"),
    ("pytest --some-unknown-flag", "full"),
    ("pytest > out.txt 2>&1", "full"),
    ("pytest tests", "targeted"),
    ("pytest tests/unit", "targeted"),
    ("pytest tests/test_x.py", "targeted"),
    ("pytest tests/test_missing.py", "targeted"),
    ("pytest tests/test_x.py::test_y", "targeted"),
    ("pytest -k slow", "targeted"),
    ("pytest -kslow", "targeted"),
    ("pytest -m 'not slow'", "targeted"),
    ("pytest --lf", "targeted"),
    ("pytest --last-failed", "targeted"),
    ("pytest --deselect tests/test_x.py::t", "targeted"),
    ("pytest --ignore=tests/unit", "targeted"),
    ("pytest --sw", "targeted"),
    ("pytest -p no:randomly", "full"),
    ("ruff check . --statistics", "full"),
    ("mypy src/pkg/foo.py", "targeted"),
]


@pytest.mark.parametrize(("line", "scope"), SCOPE)
def test_scope_of_approved_commands(project: Path, line: str, scope: str) -> None:
    result = run(project, line)
    assert (result.approved, result.scope) == (True, scope), result.to_json()


def test_a_different_path_than_the_declared_one_is_not_the_declared_command(project: Path) -> None:
    # `ruff check .` declared: `.` is one of its tokens, so `ruff check src/pkg` is the runner, not the command
    result = run(project, "ruff check src/pkg")
    assert (result.matched, result.approved, result.scope, result.kind) == (True, False, "targeted", "lint")


def test_root_and_cwd_themselves_do_not_narrow(project: Path) -> None:
    assert run(project, f"pytest {project}").scope == "full"
    assert run(project, "cd app && pytest ..").scope == "targeted"  # unapproved in app: never full
    assert run(project, f"pytest {project / 'tests'}").scope == "targeted"


RUNNER_SCOPE = [
    # selection flags of other runners (unapproved runs are targeted anyway; the reason names the flag)
    ("jest -t parses", "option -t"),
    ("jest --testNamePattern=x", "option --testNamePattern=x"),
    ("jest src/a", "argument src/a"),
    ("vitest run --changed", "option --changed"),
    ("mocha -g api", "option -g"),
    ("go test -run TestX ./...", "option -run"),
    ("go test ./pkg/...", "argument ./pkg/..."),
    ("cargo test parse", "argument parse"),
    ("cargo test --lib", "option --lib"),
    ("cargo test --test api", "option --test"),
    ("./gradlew test --tests Foo", "option --tests"),
    ("mvn test -Dtest=FooTest", "option -Dtest=FooTest"),
    ("mvn test -pl core", "option -pl"),
    ("make test TESTS=a", "variable TESTS=a"),
    ("tox -e py -- -k x", "after --: option -k"),
]


@pytest.mark.parametrize(("line", "reason"), RUNNER_SCOPE)
def test_selection_flags_are_named(project: Path, line: str, reason: str) -> None:
    result = run(project, line, facts="none")
    assert result.scope == "targeted"
    assert result.headline is not None and reason in result.headline.narrowed_by, result.headline


@pytest.mark.parametrize(
    ("line", "declared", "scope"),
    [
        ("jest", V("jest", "test"), "full"),
        ("jest -t x", V("jest", "test"), "targeted"),
        ("jest --ci --coverage", V("jest", "test"), "full"),
        ("vitest run src/a.test.ts", V("vitest run", "test"), "targeted"),
        ("mocha --grep api", V("mocha", "test"), "targeted"),
        ("go test -skip Slow ./...", V("go test ./...", "test"), "targeted"),
        ("go test -race ./...", V("go test ./...", "test"), "full"),
        ("cargo nextest run -E 'test(x)'", V("cargo nextest run", "test"), "targeted"),
        ("mvn verify -pl core", V("mvn verify", "test"), "targeted"),
        ("mvn -B verify", V("mvn verify", "test"), "full"),
        ("./gradlew test --tests Foo", V("./gradlew test", "test"), "targeted"),
        ("tox -- tests/a.py", V("tox", "test"), "targeted"),
        ("tox -e py312", V("tox", "test"), "targeted"),
        ("nox -s tests", V("nox", "test"), "targeted"),
        ("pre-commit run --all-files", V("pre-commit run --all-files", "lint"), "full"),
    ],
)
def test_scope_of_declared_runners(project: Path, line: str, declared: VerifyCommand, scope: str) -> None:
    facts = ProjectFacts(root=str(project), verify_commands=[declared])
    result = classify(line, cwd=project, root=project, facts=facts, exit_code=0)
    assert (result.approved, result.scope) == (True, scope), result.to_json()


def test_pre_commit_without_all_files_is_the_declared_command_on_a_part(project: Path) -> None:
    # without --all-files pre-commit checks only the staged files: the project's check, narrower
    facts = ProjectFacts(root=str(project), verify_commands=[V("pre-commit run --all-files", "lint")])
    result = classify("pre-commit run", cwd=project, root=project, facts=facts, exit_code=0)
    assert (result.matched, result.approved, result.scope) == (True, True, "targeted")
    assert classify("pre-commit run -a", cwd=project, root=project, facts=facts).scope == "full"


STATUS = [
    # §3.7 status from the exit code and the output
    ("pytest", 0, None, "passed", None),
    ("pytest", 1, None, "failed", None),
    ("pytest", 5, None, "failed", "no tests ran"),
    ("pytest", 5, "==== no tests ran in 0.01s ====", "failed", "no tests ran"),
    ("pytest -k none", 0, "3 deselected\n==== no tests ran in 0.1s ====", "failed", "no tests ran"),
    ("pytest", 0, "==== 3 passed in 0.1s ====", "passed", None),
    ("python -m unittest", 0, "\nRan 0 tests in 0.000s\n\nOK\n", "failed", "no tests ran"),
    ("npx jest --passWithNoTests", 0, "No tests found, exiting with code 0", "failed", "no tests ran"),
    ("npx vitest run", 1, "No test files found, exiting with code 1", "failed", "no tests ran"),
    ("go test ./...", 0, "?   \texample.com/a\t[no test files]\n", "failed", "no tests ran"),
    ("go test ./...", 0, "?   \texample.com/a\t[no test files]\nok  \texample.com/b\t0.01s\n", "passed", None),
    ("cargo test", 0, "running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n", "failed", "no tests ran"),
    ("cargo test", 0, "test result: ok. 4 passed; 0 failed; 0 ignored\ntest result: ok. 0 passed; 0 failed;", "passed",
     None),
    ("timeout 5 pytest", 124, None, "failed", "aborted"),
    ("pytest", 130, None, "failed", "aborted"),
    ("pytest", 137, None, "failed", "aborted"),
    ("pytest", 143, None, "failed", "aborted"),
    ("pytest", -15, None, "failed", "aborted"),
    ("ruff check .", 1, "no tests ran", "failed", None),  # not a test run: the wording does not apply
    ("npm test", 5, None, "failed", None),  # exit 5 means "no tests" only for pytest/unittest
    ("pytest", 127, None, "failed", "command not found"),  # the shell never found it
    ("pytest", 126, None, "failed", "command not executable"),
]  # fmt: skip


@pytest.mark.parametrize(("line", "exit_code", "output", "status", "reason"), STATUS)
def test_status(project: Path, line: str, exit_code: int, output: str | None, status: str, reason: str | None) -> None:
    facts = "node" if line.startswith("npm") else "py"
    result = run(project, line, exit_code, facts=facts, output=output)
    assert (result.attributable, result.status, result.reason) == (True, status, reason), result.to_json()


def test_no_exit_code_means_no_status(project: Path) -> None:
    result = run(project, "pytest", None)
    assert result.matched and result.attributable and result.status is None


def test_ran_no_tests_is_specific() -> None:
    assert ran_no_tests("==== no tests ran in 0.02s ====")
    assert not ran_no_tests("==== 12 passed in 0.02s ====")
    assert not ran_no_tests("ok  \texample.com/b\t0.01s\n")


def test_json_shape_is_exactly_the_contract(project: Path) -> None:
    data = run(project, "npm install && npm test", facts="node").to_json()
    assert list(data) == [
        "matched",
        "canonical_command",
        "approved",
        "kind",
        "scope",
        "attributable",
        "status",
        "reason",
        "matches",
    ]
    assert list(data["matches"][0]) == ["canonical_command", "approved", "kind", "scope", "cwd", "source", "args"]
    assert data["matches"][0]["source"] == "package.json#scripts.test"


def test_headline_prefers_the_test_match(project: Path) -> None:
    result = run(project, "ruff check . && pytest && mypy")
    assert [m.kind for m in result.matches] == ["lint", "test", "typecheck"]
    assert (result.kind, result.canonical_command) == ("test", "uv run pytest")


def test_without_facts_or_root(tmp_path: Path) -> None:
    result = classify("pytest -q", cwd=tmp_path)
    assert (result.matched, result.approved, result.scope, result.status) == (True, False, "targeted", None)
    assert result.matches[0].cwd == str(tmp_path)


def test_facts_root_is_used_when_root_is_not_given(project: Path) -> None:
    facts = ProjectFacts(root=str(project), verify_commands=PYTHON)
    assert classify("pytest", cwd=project, facts=facts, exit_code=0).approved


def test_declared_command_with_cd_matches_in_its_cwd(project: Path) -> None:
    facts = ProjectFacts(root=str(project), verify_commands=[V("cd app && npm test", "test", ".")])
    assert classify("cd app && npm test", cwd=project, facts=facts, exit_code=0).approved
    assert classify("npm test", cwd=project / "app", facts=facts, exit_code=0).approved
    assert not classify("npm test", cwd=project, facts=facts, exit_code=0).approved


# --- the obvious targeted check for a file ---------------------------------------------------------------------


@pytest.fixture
def polyglot(tmp_path: Path) -> tuple[Path, ProjectFacts]:
    files = {
        "src/pkg/foo.py": "",
        "src/pkg/bar.py": "",
        "src/pkg/__init__.py": "",
        "tests/test_foo.py": "",
        "web/package.json": '{"scripts": {"test": "vitest"}}',
        "web/src/a.ts": "",
        "web/src/a.test.ts": "",
        "web/src/b.ts": "",
        "go/pkg/x/x.go": "",
        "go/main.go": "",
        "Cargo.toml": '[workspace]\nmembers = ["crates/core"]\n',
        "crates/core/Cargo.toml": '[package]\nname = "core"\n',
        "crates/core/src/lib.rs": "",
        "crates/core/tests/api.rs": "",
        "README.md": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    facts = ProjectFacts(
        root=str(tmp_path),
        package_managers=["uv", "pnpm", "cargo"],
        verify_commands=[
            V("uv run pytest", "test", ".", "pyproject.toml"),
            V("ruff check .", "lint", ".", "pyproject.toml"),
            V("pnpm test", "test", "web", "web/package.json#scripts.test"),
            V("go test ./...", "test", "go", "go/go.mod"),
            V("cargo test --workspace", "test", ".", "Cargo.toml"),
        ],
    )
    return tmp_path, facts


@pytest.mark.parametrize(
    ("path", "command"),
    [
        ("tests/test_foo.py", "uv run pytest tests/test_foo.py"),
        ("src/pkg/foo.py", "uv run pytest tests/test_foo.py"),
        ("src/pkg/bar.py", None),  # no matching test file: nothing obvious
        ("src/pkg/__init__.py", None),
        ("web/src/a.test.ts", "cd web && pnpm test src/a.test.ts"),
        ("web/src/a.ts", "cd web && pnpm test src/a.test.ts"),
        ("web/src/b.ts", None),
        ("go/pkg/x/x.go", "cd go && go test ./pkg/x"),
        ("go/main.go", "cd go && go test ."),
        ("crates/core/src/lib.rs", "cargo test -p core"),
        ("crates/core/tests/api.rs", "cargo test -p core --test api"),
        ("README.md", None),
        ("/etc/hostname", None),
    ],
)
def test_targeted_command_for(polyglot: tuple[Path, ProjectFacts], path: str, command: str | None) -> None:
    from freshpass.facts.targeted import targeted_command_for

    root, facts = polyglot
    assert targeted_command_for(path, root, facts) == command
    if command is not None:
        # what it proposes is, by the classifier's own rules, an attributable targeted test run
        result = classify(command, cwd=root, root=root, facts=facts, exit_code=0)
        assert (result.kind, result.scope, result.status) == ("test", "targeted", "passed"), result.to_json()
        # a narrower run of the project's own test command is approved (and targeted)
        assert result.approved


@pytest.mark.parametrize(
    ("declared", "script", "command"),
    [
        ("npm test", "jest --ci", "npm test -- src/a.test.ts"),
        ("npm run test", "tsc --noEmit && vitest run", "npm run test -- src/a.test.ts"),
        ("yarn test", "vitest", "yarn test src/a.test.ts"),
        ("npx jest", "", "npx jest src/a.test.ts"),
        ("npx vitest", "", "npx vitest run src/a.test.ts"),
        ("npm test", "jest && eslint .", None),  # the file would reach eslint, not jest
        ("npm test", "mocha", None),
    ],
)
def test_targeted_js_command(tmp_path: Path, declared: str, script: str, command: str | None) -> None:
    from freshpass.facts.targeted import targeted_command_for

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.ts").write_text("")
    (tmp_path / "src" / "a.test.ts").write_text("")
    (tmp_path / "package.json").write_text(json.dumps({"scripts": {"test": script}}))
    facts = ProjectFacts(root=str(tmp_path), verify_commands=[V(declared, "test", ".", "package.json")])
    assert targeted_command_for("src/a.ts", tmp_path, facts) == command
    if command is not None:
        result = classify(command, cwd=tmp_path, facts=facts, exit_code=0)
        assert (result.kind, result.scope, result.approved) == ("test", "targeted", True), result.to_json()


def test_targeted_command_needs_the_project_runner(tmp_path: Path) -> None:
    from freshpass.facts.targeted import targeted_command_for

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text("")
    facts = ProjectFacts(root=str(tmp_path), verify_commands=[V("make test", "test", ".", "Makefile:test")])
    assert targeted_command_for("tests/test_a.py", tmp_path, facts) is None


def test_package_script_arguments_are_read_as_its_runner(tmp_path: Path) -> None:
    (tmp_path / "package.json").write_text('{"scripts": {"test": "tsc --noEmit && jest --ci", "lint": "eslint ."}}')
    facts = ProjectFacts(
        root=str(tmp_path),
        verify_commands=[V("npm test", "test", ".", "package.json#scripts.test"), V("npm run lint", "lint")],
    )

    def scope(line: str) -> str | None:
        result = classify(line, cwd=tmp_path, facts=facts, exit_code=0)
        assert result.approved, result.to_json()
        return result.scope

    assert scope("npm test -- -t parses") == "targeted"  # jest's -t selects tests
    assert scope("npm test -- --coverage") == "full"
    assert scope("npm test -- --testPathPattern=api") == "targeted"
    assert scope("npm run lint -- --max-warnings=0") == "full"


def test_a_declared_chain_typed_as_such_is_one_approved_match(project: Path) -> None:
    facts = ProjectFacts(
        root=str(project), verify_commands=[V("npm ci && npm test", "test", ".", ".github/workflows/ci.yml")]
    )
    result = classify("npm ci && npm test", cwd=project, facts=facts, exit_code=0)
    assert [m.to_json() for m in result.matches] == [
        {
            "canonical_command": "npm ci && npm test",
            "approved": True,
            "kind": "test",
            "scope": "full",
            "cwd": ".",
            "source": ".github/workflows/ci.yml",
            "args": [],
        }
    ]
    # its last member alone is the package script, recognised but not the declared command
    alone = classify("npm test", cwd=project, facts=facts, exit_code=0)
    assert (alone.approved, alone.scope) == (False, "targeted")


@pytest.mark.parametrize(
    ("line", "scope"),
    [
        ("python manage.py test", "full"),
        ("./manage.py test --parallel 4", "full"),
        ("python manage.py test polls", "targeted"),
        ("python manage.py test -k views", "targeted"),
    ],
)
def test_django_test_runner(project: Path, line: str, scope: str) -> None:
    facts = ProjectFacts(root=str(project), verify_commands=[V("python manage.py test", "test", ".", "manage.py")])
    result = classify(line, cwd=project, facts=facts, exit_code=0)
    assert (result.approved, result.kind, result.scope) == (True, "test", scope), result.to_json()


def test_wrapper_script_positionals_select(project: Path) -> None:
    facts = ProjectFacts(root=str(project), verify_commands=[V("./runtests.py", "test", ".", "runtests.py")])
    assert classify("./runtests.py --parallel=1", cwd=project, facts=facts, exit_code=0).scope == "full"
    assert classify("python runtests.py admin_views", cwd=project, facts=facts, exit_code=0).scope == "targeted"


@pytest.mark.parametrize(
    ("line", "scope"),
    [
        ("./scripts/run_tests.sh --parallel 4", "full"),  # an unknown option's value is not a selection
        ("./scripts/run_tests.sh --parallel 4 tests/unit", "targeted"),
        ("./scripts/run_tests.sh --ci", "full"),
        ("./scripts/run_tests.sh unit", "targeted"),
    ],
)
def test_wrapper_script_options_and_values(project: Path, line: str, scope: str) -> None:
    result = run(project, line)
    assert (result.approved, result.scope) == (True, scope), result.to_json()


@pytest.mark.parametrize(
    ("line", "tokens"),
    [
        ("npm test foo --silent -- --x", ("npm", "run", "test", "foo", "--x")),
        ("npm test --silent", ("npm", "run", "test")),
        ("make -j test", ("make", "test", "-j")),
        ("make -j 4 lint", ("make", "lint", "-j", "4")),
    ],
)
def test_package_manager_and_make_options(line: str, tokens: tuple[str, ...]) -> None:
    from freshpass.facts.tools import normalise

    result = normalise(tuple(line.split()), Path("/"))
    assert isinstance(result, list) and result[0].tokens == tokens


FIXTURE_REPOS = sorted(
    p for p in (Path(__file__).resolve().parent.parent / "fixtures" / "repos").glob("*") if p.is_dir()
)


@pytest.mark.parametrize("repo", FIXTURE_REPOS, ids=[p.name for p in FIXTURE_REPOS])
def test_every_detected_command_typed_as_declared_is_approved_and_full(repo: Path) -> None:
    """Detection and classification agree: each declared spelling, run in its cwd, is that command at full scope."""
    from freshpass.facts.detect import detect_facts

    facts = detect_facts(repo)
    for command in facts.verify_commands:
        for spelling in (command.command, *command.equivalents):
            result = classify(spelling, cwd=repo / command.cwd, root=repo, facts=facts, exit_code=0)
            observed = (result.approved, result.scope, result.attributable, result.kind, result.status)
            assert observed == (True, "full", True, command.kind, "passed"), (spelling, command, result.to_json())


@pytest.mark.parametrize(
    "line", ["cd 'a\x00b' && npm test -- x", "pytest 'a\x00.py'", "cd 'a\x00' && pytest", "npm --prefix 'x\x00' test"]
)
def test_nul_bytes_in_paths_do_not_crash(project: Path, line: str) -> None:
    result = run(project, line, facts="node")
    assert result.matched and result.scope == "targeted"


def test_equivalents_given_as_a_list_still_match(project: Path) -> None:
    declared = VerifyCommand("npm test", "test", ".", "package.json", ["npm run test"])  # type: ignore[arg-type]
    facts = ProjectFacts(root=str(project), verify_commands=[declared])
    assert classify("npm run test", cwd=project, facts=facts, exit_code=0).approved
