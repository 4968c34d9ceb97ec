"""How detection reads command lines from manifests: which are checks, of what kind, and which are not."""

from __future__ import annotations

import pytest
from freshpass.facts.detectors.shell import body_rejection, guess_kind, logical_lines, recognise_line, split_segments
from hypothesis import given, settings
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("pytest -q", [("pytest -q", "test", ".")]),
        ("python -m pytest tests", [("python -m pytest tests", "test", ".")]),
        ("uv run --frozen pytest", [("uv run --frozen pytest", "test", ".")]),
        ("CI=1 poetry run pytest -x", [("CI=1 poetry run pytest -x", "test", ".")]),
        (".venv/bin/mypy src", [(".venv/bin/mypy src", "typecheck", ".")]),
        ("npx tsc --noEmit", [("npx tsc --noEmit", "typecheck", ".")]),
        ("tsc -p .", [("tsc -p .", "build", ".")]),
        ("npm ci && npm test", [("npm test", "test", ".")]),
        ("cd web && pnpm run lint", [("pnpm run lint", "lint", "web")]),
        ("cd web; cd ../api && go test ./...", [("go test ./...", "test", "api")]),
        ("bun test", [("bun test", "test", ".")]),
        ("bun run build", [("bun run build", "build", ".")]),
        ("yarn workspaces foreach -A run test", [("yarn workspaces foreach -A run test", "test", ".")]),
        ("pnpm --filter web test", [("pnpm --filter web test", "test", ".")]),
        ("cargo clippy --all-targets -- -D warnings", [("cargo clippy --all-targets -- -D warnings", "lint", ".")]),
        ("cargo fmt --all -- --check", [("cargo fmt --all -- --check", "lint", ".")]),
        ("./mvnw -B verify", [("./mvnw -B verify", "check", ".")]),
        ("./gradlew build", [("./gradlew build", "build", ".")]),
        ("bundle exec rake test", [("bundle exec rake test", "test", ".")]),
        ("tox -e lint", [("tox -e lint", "lint", ".")]),
        ("nox -s tests-3.12", [("nox -s tests-3.12", "test", ".")]),
        ("make test TEST=foo", [("make test TEST=foo", "test", ".")]),
        ("./scripts/run_tests.sh -v", [("./scripts/run_tests.sh -v", "test", ".")]),
        ("bash scripts/lint.sh", [("bash scripts/lint.sh", "lint", ".")]),
        ("ruff format --check .", [("ruff format --check .", "lint", ".")]),
        (
            "pre-commit run --all-files --show-diff-on-failure",
            [("pre-commit run --all-files --show-diff-on-failure", "lint", ".")],
        ),
        ("pytest -q 2>&1 | tee pytest.log", [("pytest -q", "test", ".")]),
        ('pytest -k "a > b"', [('pytest -k "a > b"', "test", ".")]),
        ("pytest $PYTEST_ARGS", [("pytest $PYTEST_ARGS", "test", ".")]),
        ('if [ -n "$CI" ]; then pytest; fi', [("pytest", "test", ".")]),
        # Not checks: installs, writers, watchers, mentions, unknown tools.
        ("pip install -e .[test]", []),
        ("python -m pip install -U pip", []),
        ("npm ci", []),
        ("uv sync --all-extras", []),
        ("pre-commit install", []),
        ("ruff format .", []),
        ("ruff check --fix .", []),
        ("black src", []),
        ("prettier --write .", []),
        ("eslint . --fix", []),
        ("gofmt -w .", []),
        ("cargo fmt", []),
        ("jest --watch", []),
        ("vite", []),
        ("npm run dev", []),
        ("echo pytest", []),
        ("git commit -m pytest", []),
        ("docker build .", []),
        ('pytest "unbalanced', []),
    ],
)
def test_recognise_line(line: str, expected: list[tuple[str, str, str]]) -> None:
    assert [(r.command, r.kind, r.cwd) for r in recognise_line(line)] == expected


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("test", "test"),
        ("py312-django50", "test"),
        ("pypy3", "test"),
        ("coverage", "test"),
        ("typing", "typecheck"),
        ("mypy", "typecheck"),
        ("type-check", "typecheck"),
        ("flake8", "lint"),
        ("pre-commit", "lint"),
        ("style", "lint"),
        ("check", "check"),
        ("docs", "build"),
        ("format", None),
        ("lint-fix", None),
        ("dev", None),
        ("release", None),
        ("install", None),
        ("html", None),
    ],
)
def test_guess_kind(name: str, kind: str | None) -> None:
    assert guess_kind(name) == kind


def test_logical_lines_join_continuations_and_drop_comments() -> None:
    body = "#!/bin/sh\n# comment\nset -e\n\npytest \\\n  -q \\\n  tests\n"
    assert logical_lines(body) == ["set -e", "pytest -q tests"]


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("ruff check .\nmypy .", None),
        ("ruff format .\nruff check .", "rewrites files"),
        ("npm run build\nnpx vite", "never exits"),
        ("uvicorn app:app --reload", "never exits"),
    ],
)
def test_body_rejection(body: str, reason: str | None) -> None:
    assert body_rejection(logical_lines(body)) == reason


def test_split_segments_keeps_the_text_as_written() -> None:
    assert split_segments('A=1 make "test"  && echo "a;b" 2>&1 | tee x') == [
        ('A=1 make "test"', ["A=1", "make", "test"]),
        ('echo "a;b" 2>&1', ["echo", "a;b", "2>&1"]),
        ("tee x", ["tee", "x"]),
    ]


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_recognising_arbitrary_text_never_raises(line: str) -> None:
    for found in recognise_line(line):
        assert found.command
    split_segments(line)
    body_rejection(logical_lines(line))
