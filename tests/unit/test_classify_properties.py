"""Property-based tests: classification is total and keeps its invariants on any input."""

from __future__ import annotations

from pathlib import Path

from freshpass.facts.classify import Classification, classify
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.facts.shell import join_words
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path("/nonexistent-freshpass-root")  # nothing exists there: scope decisions are purely syntactic
FACTS = ProjectFacts(
    root=str(ROOT),
    verify_commands=[
        VerifyCommand("uv run pytest", "test", ".", "pyproject.toml"),
        VerifyCommand("npm test", "test", "web", "web/package.json", ("npm run test",)),
        VerifyCommand("go test ./...", "test", ".", "go.mod"),
        VerifyCommand("make lint", "lint", ".", "Makefile:lint"),
        VerifyCommand("cd app && cargo test", "test", ".", "Cargo.toml"),
        VerifyCommand("bash -c 'pytest &&'", "test", ".", "broken"),
    ],
)

WORDS = st.sampled_from(
    [
        "pytest", "uv", "run", "python", "-m", "npm", "test", "t", "pnpm", "bun", "go", "./...", "cargo", "make",
        "lint", "TEST=x", "-k", "slow", "tests/test_x.py::t", ".", "cd", "app", "web", "..", "&&", "||", "|", "|&",
        ";", "&", "\n", "set", "-o", "pipefail", "bash", "-c", "'pytest'", '"', "'", "\\", "echo", "sudo", "env",
        "X=1", "timeout", "5", "--", "--fix", "--check", "prettier", "--write", "ruff", "format", "check", "2>&1",
        ">", "log", "$(x)", "`", "#", "!", "(", ")", "{", "}", "exec", "nice", "-n", "time", "npx", "jest", "-t",
        "hatch", "test:pytest", "poetry", "coverage", "./scripts/run_tests.sh", "sh", "-lc", "--prefix", "-C",
    ]
)  # fmt: skip
EXIT_CODES = st.one_of(st.none(), st.integers(min_value=-64, max_value=300))
OUTPUT = st.one_of(
    st.none(), st.text(max_size=80), st.sampled_from(["no tests ran", "No tests found", "Ran 0 tests in 0s"])
)


def _invariants(result: Classification) -> None:
    data = result.to_json()
    assert set(data) == {"matched", "canonical_command", "approved", "kind", "scope", "attributable", "status",
                         "reason", "matches"}  # fmt: skip
    if not result.matched:
        assert result.matches == () and not result.attributable and result.status is None
        assert result.canonical_command is None and not result.approved
        assert result.reason  # a no-match always says why
        return
    assert result.kind in ("test", "lint", "typecheck", "build", "check")
    assert result.scope in ("full", "targeted")
    assert result.canonical_command
    if result.attributable:
        assert result.matches, "an attributable line lists its matches"
        assert result.headline in result.matches
    else:
        assert result.matches == () and result.status is None
    for match in (*result.matches, result.headline):
        assert match is not None
        if not match.approved:
            assert match.scope == "targeted", "an unapproved runner is never full scope"
            assert match.source is None
    if result.status is not None:
        assert result.attributable
        assert result.status in ("passed", "failed")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=60), EXIT_CODES, OUTPUT)
def test_never_raises_on_arbitrary_text(line: str, exit_code: int | None, output: str | None) -> None:
    _invariants(classify(line, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code, output=output))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WORDS, max_size=12), EXIT_CODES, OUTPUT, st.sampled_from(["", "app", "web"]))
def test_never_raises_on_token_soup(words: list[str], exit_code: int | None, output: str | None, cwd: str) -> None:
    _invariants(classify(" ".join(words), cwd=ROOT / cwd, root=ROOT, facts=FACTS, exit_code=exit_code, output=output))


@settings(max_examples=100, deadline=None)
@given(st.lists(WORDS, max_size=8))
def test_without_facts_nothing_is_approved(words: list[str]) -> None:
    result = classify(" ".join(words), cwd=ROOT, exit_code=0)
    _invariants(result)
    assert not result.approved


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["pytest", "go test ./...", "npm test", "make lint"]), st.integers(min_value=1, max_value=255))
def test_a_failed_chain_records_nothing(command: str, exit_code: int) -> None:
    result = classify(f"echo setup && {command}", cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code)
    assert result.matched and not result.attributable and result.matches == ()


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(["pytest", "go test ./...", "make lint"]), st.sampled_from(["", " -q", " -v"]))
def test_wrappers_do_not_change_the_answer(command: str, flag: str) -> None:
    bare = classify(command + flag, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=0)
    for wrapped in (f"env CI=1 {command}{flag}", f"timeout 600 {command}{flag}", f"bash -c '{command}{flag}'"):
        result = classify(wrapped, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=0)
        assert _essence(result) == _essence(bare)
        if bare.matched:
            assert result.to_json() == bare.to_json()


def _essence(result: Classification) -> tuple[object, ...]:
    return (result.matched, result.attributable, result.status, tuple(m.to_json().items() for m in result.matches))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WORDS, max_size=10), EXIT_CODES)
def test_bash_c_of_a_line_is_the_line(words: list[str], exit_code: int | None) -> None:
    line = " ".join(words)
    if line.lstrip()[:1] in ("-", "+"):
        return  # bash reads such a script argument as more options, not as the script
    direct = classify(line, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code)
    wrapped = classify(f"bash -c {join_words([line])}", cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code)
    assert _essence(wrapped) == _essence(direct)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(WORDS, max_size=10), EXIT_CODES)
def test_a_subshell_around_the_line_changes_nothing(words: list[str], exit_code: int | None) -> None:
    line = " ".join(words)
    direct = classify(line, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code)
    if not direct.matched:
        return  # lines that do not parse may parse differently once wrapped (`a )` vs `(a ))`)
    wrapped = classify(f"( {line}\n)", cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code)
    assert _essence(wrapped) == _essence(direct)


# Every program the runner table knows, so arbitrary arguments reach each of their branches.
PROGRAMS = [
    "pytest", "py.test", "unittest", "green", "nose2", "tox", "nox", "jest", "vitest", "mocha", "node", "bun",
    "deno", "go", "gofmt", "goimports", "golangci-lint", "staticcheck", "cargo", "rustfmt", "mvn", "mvnw", "gradle",
    "gradlew", "ruff", "black", "isort", "autopep8", "yapf", "clang-format", "shfmt", "stylua", "prettier", "eslint",
    "stylelint", "oxlint", "xo", "standard", "biome", "dprint", "flake8", "pylint", "rubocop", "codespell", "typos",
    "ktlint", "swiftlint", "djlint", "semgrep", "detekt", "php-cs-fixer", "phpcbf", "terraform", "pre-commit",
    "mypy", "dmypy", "pyright", "basedpyright", "phpstan", "tsc", "vue-tsc", "svelte-check", "rspec", "rails",
    "rake", "artisan", "manage.py", "django-admin", "phpunit", "pest", "playwright", "cypress", "ava", "ctest",
    "pytest-watch", "dotnet", "swift", "mix", "stack", "cabal", "sbt", "lein", "zig", "flutter", "dart", "elm-test",
    "bazel", "turbo", "nx", "npm", "pnpm", "yarn", "composer", "pdm", "hatch", "rye", "pixi", "poe", "make", "gmake",
    "just", "task", "env", "command", "time", "nice", "timeout", "stdbuf", "xvfb-run", "python", "python3.12",
    "ruby", "php", "coverage", "bash", "sh", "uv", "uvx", "poetry", "pipenv", "conda", "npx", "bunx", "bundle",
    "sudo", "exec",
]  # fmt: skip
ARGUMENT = st.one_of(
    st.sampled_from(["run", "test", "check", "format", "--fix", "--check", "-c", "-m", "--", "-t", "-k", "-p", "-C",
                     "exec", "-j", "--write", "-e", "help", "--target", "-o", "pipefail", "x", " ", ""]),
    st.text(max_size=8),
)  # fmt: skip


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(PROGRAMS), st.lists(ARGUMENT, max_size=6), EXIT_CODES)
def test_every_runner_takes_arbitrary_arguments(program: str, arguments: list[str], exit_code: int | None) -> None:
    line = join_words([program, *arguments])
    _invariants(classify(line, cwd=ROOT, root=ROOT, facts=FACTS, exit_code=exit_code, output="no tests ran"))
