"""How detection reads what a script, recipe, session or CI step runs: which checks, of what kind, where, and what
makes it not a check (it writes, publishes, never finishes, or installs on the machine)."""

from __future__ import annotations

from pathlib import Path

import pytest
from freshpass.facts.checks import Reader, canonical_tokens
from freshpass.facts.shell import script_commands
from freshpass.facts.signals.base import Candidate, Collector
from freshpass.facts.tools import script_kind
from hypothesis import given, settings
from hypothesis import strategies as st


def read(tmp_path: Path, body: str, *, dirs: tuple[str, ...] = ("web", "api")) -> tuple[list, str | None]:
    for directory in dirs:
        (tmp_path / directory).mkdir(exist_ok=True)
    reader = Reader(Collector(tmp_path))
    analysis = reader.analyse(Candidate("x", ".", "x", "local", body=(body,)))
    runs = [(r.text, r.kind, r.key[0]) for r in analysis.runs if r.depth == 0]
    return runs, analysis.effect.effect if analysis.effect else None


@pytest.mark.parametrize(
    ("line", "runs"),
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
        ("cargo clippy --all-targets -- -D warnings", [("cargo clippy --all-targets -- -D warnings", "lint", ".")]),
        ("cargo fmt --all -- --check", [("cargo fmt --all -- --check", "lint", ".")]),
        ("bundle exec rake test", [("bundle exec rake test", "test", ".")]),
        ("ruff format --check .", [("ruff format --check .", "lint", ".")]),
        ("prettier --check .", [("prettier --check .", "lint", ".")]),
        ("pytest -q 2>&1 | tee pytest.log", [("pytest -q", "test", ".")]),
        ('if [ -n "$CI" ]; then pytest; fi', [("pytest", "test", ".")]),
        # `|` inside backticks or `$( )` does not split the line; `X=$(pwd)/src pytest` is pytest
        ("echo `ls | wc -l` && pytest", [("pytest", "test", ".")]),
        ("X=$(pwd)/src pytest", [("X=$(pwd)/src pytest", "test", ".")]),
        ("case $1 in\n  a) make lint ;;\n  *) pytest ;;\nesac", [("make lint", "lint", "."), ("pytest", "test", ".")]),
        ("pytest || true", []),  # its failure is ignored: not a check of this body
        ("echo pytest", []),
        ("docker build .", []),
        ('pytest "unbalanced', []),
    ],
)
def test_what_a_body_runs(tmp_path: Path, line: str, runs: list[tuple[str, str, str]]) -> None:
    assert read(tmp_path, line)[0] == runs


@pytest.mark.parametrize(
    ("line", "effect"),
    [
        ("ruff format .", "writes"),
        ("ruff check --fix .", "writes"),
        ("black src", "writes"),
        ("prettier --write .", "writes"),
        ("prettier --check --write .", "writes"),  # --write wins over --check
        ("eslint . --fix", "writes"),
        ("gofmt -w .", "writes"),
        ("cargo fmt", "writes"),
        ("jest -u", "writes"),  # snapshot update
        ("pytest --snapshot-update", "writes"),
        ("go test ./... -update", "writes"),
        ("UPDATE_SNAPSHOTS=1 cargo test", "writes"),
        ("INSTA_UPDATE=always cargo test", "writes"),
        ("git commit -am wip", "writes"),
        ("npm install", "writes"),  # may rewrite package-lock.json
        ("sed -i s/a/b/ setup.cfg", "writes"),
        ("scripts/main.py generate", "writes"),  # an unknown program told to generate
        ("git tag v1 && git push --tags", "publishes"),
        ("twine upload dist/*", "publishes"),
        ("cargo publish", "publishes"),
        ("jest --watch", "watches"),
        ("vite", "watches"),
        ("uvicorn app:app --reload", "watches"),
        ("xdg-open coverage/index.html", "watches"),
        # preparing the project's own environment is no effect: a check may do that first
        ("npm ci && npm test", None),
        ("pip install -e .[test] && pytest", None),
        ("uv sync --all-extras && uv run pytest", None),
        ("git clone https://example.invalid/dep deps/dep && pytest", None),
        ("INSTA_UPDATE=no cargo test", None),
    ],
)
def test_what_makes_a_body_not_a_check(tmp_path: Path, line: str, effect: str | None) -> None:
    assert read(tmp_path, line)[1] == effect


def test_a_body_that_installs_software_on_the_machine_is_set_aside(tmp_path: Path) -> None:
    reader = Reader(Collector(tmp_path))
    analysis = reader.analyse(
        Candidate("x", ".", "x", "local", body=("sudo apt-get install -y jq\napt-get install jq && pytest",))
    )
    assert analysis.installs == ["apt-get install jq"]


def test_script_commands_read_compound_commands_and_skip_heredocs() -> None:
    body = "set -e\nif ! make lint; then\n  exit 1\nfi\ncat <<EOF\npytest\nEOF\npytest -q tests/\n"
    commands = [(c.argv, c.condition) for c in script_commands(body)]
    assert commands == [(("set", "-e"), False), (("make", "lint"), True), (("exit", "1"), False), (("cat",), False),
                        (("pytest", "-q", "tests/"), False)]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("test", "test"),
        ("py312-django50", "test"),
        ("pypy3", "test"),
        ("test:unit", "test"),
        ("typing", "typecheck"),
        ("type-check", "typecheck"),
        ("lint", "lint"),
        ("check", "check"),
        ("build", "build"),
        ("format", "writes"),
        ("lint-fix", "writes"),
        ("update-snapshots", "writes"),
        ("release", "publishes"),
        ("deploy", "publishes"),
        ("dev", "watches"),
        ("test:watch", "watches"),
        ("test:ui", "watches"),
        ("build:mantine-ui", "build"),  # `ui` ends a name only in `test:ui`-like spellings
        ("install", "setup"),
        ("html", None),
        # a formatter in check mode reports: it does not rewrite
        ("format:check", "lint"),
        ("check-format", "lint"),
        ("checkfmt", "lint"),
        ("fmt_check", "lint"),
        ("prettier:check", "lint"),
        ("format:fix", "writes"),
        ("fmt", "writes"),
    ],
)
def test_what_a_name_says(name: str, said: str | None) -> None:
    assert script_kind(name) == said


@pytest.mark.parametrize(
    ("words", "effect"),
    [
        (("php", "bin/pest", "--update-snapshots"), "writes"),
        (("vendor/bin/phpunit", "--update-snapshot"), "writes"),
        (("REBUILD_SNAPSHOTS=true", "vendor/bin/pest"), "writes"),
        (("FORCE_REBUILD=1", "vendor/bin/pest"), None),  # rebuilding is no rewrite of the expected outputs
        (("bundle", "exec", "rubocop", "--auto-gen-config"), "writes"),
        (("bundle", "exec", "rubocop"), None),
    ],
)
def test_options_and_variables_that_make_a_check_rewrite_its_expectations(
    tmp_path: Path, words: tuple[str, ...], effect: str | None
) -> None:
    assert read(tmp_path, " ".join(words))[1] == effect


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("nox -v -s tests", "nox --session tests"),
        ("cargo test --all", "cargo test --workspace"),
        ("pytest -q -x", "pytest"),
        ("npm run lint", "pnpm run lint"),
        ("go test -race ./...", "go test ./..."),
        ("tox -e py -- -n auto", "tox --env py"),
    ],
)
def test_spellings_of_one_check_have_one_canonical_form(a: str, b: str) -> None:
    assert canonical_tokens(tuple(a.split())) == canonical_tokens(tuple(b.split()))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_reading_arbitrary_text_never_raises(tmp_path_factory: pytest.TempPathFactory, text: str) -> None:
    root = tmp_path_factory.mktemp("body")
    reader = Reader(Collector(root))
    reader.analyse(Candidate("x", ".", "x", "local", body=(text,)))
    script_commands(text)


@pytest.mark.parametrize(
    ("line", "effect"),
    [
        ("rm -rf build && pytest", None),  # what a run makes, absent from a checkout: cleaning up
        ("rm -r test/dest; pytest", None),
        ("rm testdata/*.golden && pytest", "writes"),  # the repository's own files
        ("rm -f docs/cli.md", "writes"),
        ("rm -rf $OUT && pytest", None),  # cannot be told
        ("tsc --noEmit --listFiles > docs/cli.md", "writes"),  # output over a tracked file
        ("tsc --noEmit --explainFiles > explain.txt", None),  # a by-product next to the tree
        ("pytest > /dev/null 2>&1", None),
    ],
)
def test_removing_or_overwriting_the_repositorys_own_files_writes(
    tmp_path: Path, line: str, effect: str | None
) -> None:
    (tmp_path / "testdata").mkdir()
    (tmp_path / "testdata" / "a.golden").write_text("a\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "cli.md").write_text("# cli\n")
    assert read(tmp_path, line)[1] == effect


def test_a_served_directory_and_a_browser_download_are_no_checks(tmp_path: Path) -> None:
    runs, effect = read(tmp_path, "python -m http.server -d dist")
    assert (runs, effect) == ([], "watches")
    reader = Reader(Collector(tmp_path))
    analysis = reader.analyse(
        Candidate("x", ".", "x", "local", body=("npx playwright install && npx playwright test",))
    )
    assert analysis.installs == ["npx playwright install"]
