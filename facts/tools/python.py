"""Python's tools: pytest, unittest, tox, nox, ruff, black, isort, mypy and friends, Django's test runner, and the
environment managers' own commands (uv, poetry, pdm, pipenv) when they are not wrappers."""

from __future__ import annotations

import re

from freshpass.facts.lazyre import lazy

from .base import (
    Identification,
    Identified,
    Runner,
    fallback,
    formatter,
    has,
    installs,
    opts,
    prints,
    publishes,
    system,
    tool,
    watches,
    writes,
)
from .generic import BUILD, LINT_PATHS, TYPECHECK_PATHS
from .summary import TestCounts

PYTEST = Runner(
    "pytest",
    "test",
    value_options=opts(
        "-k -m -p -c -o -n -r -W --tb --maxfail --deselect --ignore --ignore-glob --rootdir "
        "--basetemp --durations --confcutdir --junitxml --junit-xml --log-level --log-file "
        "--log-cli-level --color --capture --import-mode --cov --cov-report --cov-config "
        "--cov-fail-under --dist --timeout --override-ini --count --reruns --numprocesses "
        "--maxprocesses --show-capture --report-log --config-file --random-order-seed -M"
    ),
    narrowing_options=opts(
        "-k -m --lf --last-failed --deselect --ignore --ignore-glob --sw --stepwise --sw-skip "
        "--stepwise-skip --pyargs --nf --new-first"
    ),
    synonyms=(("--last-failed", "--lf"), ("--stepwise", "--sw"), ("--numprocesses", "-n")),
    setting_options=opts("-o --override-ini"),
    # ini settings that choose what is collected (`-o python_functions=test_ok` runs part of the suite)
    narrowing_settings=opts("python_functions python_files python_classes addopts testpaths"),
    neutral=opts(
        "-q --quiet -v --verbose -x --exitfirst -ra -rA -s --tb --color --durations -n --numprocesses --cov "
        "--cov-report --cov-config --cov-branch --cov-fail-under --cov-append --no-cov --strict-markers -p "
        "--import-mode --junitxml --junit-xml --showlocals -l -W --benchmark-skip --benchmark-disable --dist "
        "--maxfail --reruns --timeout --no-header -vv -qq -rs -rxXs --runxfail --doctest-modules"
    ),
)
UNITTEST = Runner("unittest", "test", opts("-k -s -p -t"), opts("-k -p"), positionals="always")
TOX = Runner(
    "tox",
    "test",
    opts("-e --env -c --conf -f --root --workdir -x --override --installpkg -p --parallel --discover -m"),
    opts("-e --env -f -m --labels"),
    positionals="never",
    passthrough_narrows=True,
    synonyms=(("--env", "-e"),),
    neutral=opts("-p --parallel -q -v -r --recreate --skip-missing-interpreters --parallel-live"),
)
NOX = Runner(
    "nox",
    "test",
    opts(
        "-s --session --sessions -e -k -t --tags -p --python -f --noxfile --envdir -db "
        "--default-venv-backend --force-python -P"
    ),
    opts("-s --session --sessions -e -k -t --tags -p --python -P --force-python"),
    positionals="always",
    passthrough_narrows=True,
    synonyms=(("--session", "-s"), ("--sessions", "-s"), ("-e", "-s")),
    neutral=opts("-v --verbose -r --reuse-existing-virtualenvs -R --no-venv --no-error-on-missing-interpreters"),
)
DJANGO = Runner(
    "manage.py test",
    "test",
    opts(
        "-k --tag --exclude-tag --parallel --settings --pythonpath -p --pattern -t --top-level-directory -v "
        "--verbosity --testrunner"
    ),
    opts("-k --tag --exclude-tag -p --pattern"),
    positionals="always",
)


@tool("pytest", "py.test")
def _pytest(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if has(args, "--collect-only", "--co", "--fixtures", "--markers", "--fixtures-per-test"):
        return prints("pytest --collect-only lists tests without running them")
    updates = [t for t in args if _UPDATES_FILES.match(t)]
    if updates:
        return writes(f"pytest {updates[0]} rewrites snapshot or expected-output files")
    return Identified(PYTEST, 1, "test", "pytest")


# pytest plugins' options that rewrite the expected outputs they compare against (syrupy, inline-snapshot,
# pytest-regressions, pytest-examples, …).
_UPDATES_FILES = lazy(
    r"^--(snapshot-update|update-snapshots?|force-regen|regen-all|update-examples|update-mypy|update-goldens?|"
    r"accept|update|inline-snapshot=(fix|create|update|trim)\S*|update-\S+)$"
)


@tool("http.server")
def _http_server(tokens: tuple[str, ...]) -> Identification:
    return watches("`python -m http.server` serves files until stopped: a server is not a check")


@tool("pytest-watch", "ptw")
def _pytest_watch(tokens: tuple[str, ...]) -> Identification:
    return watches(f"{tokens[0]} never finishes: a watcher is not a check")


@tool("ward", "behave", "robot", "trial", "stestr", "testr", "pytest-xdist")
def _other_python_tests(tokens: tuple[str, ...]) -> Identification:
    from .generic import GENERIC_TEST

    return Identified(GENERIC_TEST, 2 if tokens[1:2] == ("run",) else 1, "test", tokens[0])


@tool("unittest", "green", "nose2", "nosetests")
def _unittest(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    return Identified(UNITTEST, 2 if sub == "discover" else 1, "test", tokens[0])


@tool("tox", "nox")
def _tox_nox(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    skip = 1 + (sub in ("run", "r", "run-parallel", "p"))
    if head == "tox" and sub in ("list", "l", "config", "c", "devenv", "depends", "de", "legacy", "quickstart"):
        return prints(f"`tox {sub}` does not run the test environments")
    if has(args, "--list", "-l", "--list-sessions", "--notify-only", "--no-install-only", "--install-only"):
        return prints(f"`{head} {args[0]}` does not run the checks")
    return Identified(TOX if head == "tox" else NOX, skip, "test", head)


_RUFF_OTHER_COMMANDS = opts("rule config linter clean version help server analyze generate-shell-completion")


@tool("ruff")
def _ruff(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "format":
        return formatter("ruff format", args[1:], check=("--check", "--diff"), head=2)
    if sub in _RUFF_OTHER_COMMANDS:
        return None  # `ruff rule`, `ruff server`, `ruff clean` …; any other word is a path (`ruff .`, legacy)
    if has(args, "--fix", "--fix-only", "--unsafe-fixes") and not has(args, "--no-fix", "--diff"):
        return writes("`ruff check --fix` rewrites files; a fixer run is never evidence")
    if has(args, "--watch"):
        return watches("ruff --watch never finishes: a watcher is not a check")
    return Identified(RUFF, 2 if sub == "check" else 1, "lint", "ruff check")


RUFF = Runner(
    "ruff check",
    "lint",
    LINT_PATHS.value_options,
    LINT_PATHS.narrowing_options,
    neutral=LINT_PATHS.neutral | opts("--no-fix --output-format"),
)


@tool("black", "blue")
def _black(tokens: tuple[str, ...]) -> Identification:
    return formatter(tokens[0], tokens[1:], check=("--check", "--diff"))


@tool("isort")
def _isort(tokens: tuple[str, ...]) -> Identification:
    return formatter("isort", tokens[1:], check=("--check", "--check-only", "-c", "--diff"))


@tool("autopep8", "yapf", "autoflake", "pyupgrade", "docformatter", "add-trailing-comma")
def _py_rewriters(tokens: tuple[str, ...]) -> Identification:
    head = tokens[0]
    if head in ("autopep8", "yapf", "autoflake"):
        return formatter(head, tokens[1:], check=("--diff", "-d", "--check"), write=("-i", "--in-place"))
    return writes(f"`{head}` rewrites files")


@tool("flake8", "pylint", "pyflakes", "pycodestyle", "pydocstyle", "bandit", "vulture", "deptry", "pyroma", "mccabe")
def _py_linters(tokens: tuple[str, ...]) -> Identification:
    return Identified(LINT_PATHS, 1, "lint", tokens[0])


@tool("mypy", "dmypy", "pyright", "basedpyright", "pyre", "pytype", "ty", "pyrefly", "stubtest")
def _py_typecheckers(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    if has(args, "--watch", "-w") and head in ("pyright", "basedpyright"):
        return watches(f"{head} --watch never finishes: a watcher is not a check")
    skip = 2 if sub in ("check", "run") else 1
    return Identified(TYPECHECK_PATHS, skip, "typecheck", head)


@fallback
def _django(tokens: tuple[str, ...]) -> Identification:
    head = tokens[0]
    sub = tokens[1] if len(tokens) > 1 else ""
    if head.rsplit("/", 1)[-1] == "manage.py" or head == "django-admin":
        if sub == "test":
            return Identified(DJANGO, 2, "test", f"{head} test")
        if sub in ("runserver", "runserver_plus"):
            return watches("`manage.py runserver` never finishes: a server is not a check")
        if sub in ("makemigrations", "migrate", "collectstatic", "compilemessages", "makemessages"):
            return writes(f"`manage.py {sub}` writes files or a database")
        return None
    return None


@tool("uv", "poetry", "pipenv")
def env_managers(tokens: tuple[str, ...]) -> Identification:
    """The environment managers' own commands (`uv run X` was already peeled off by normalise)."""
    head, args = tokens[0], tokens[1:]
    sub = next((t for t in args if not t.startswith("-")), "")
    if sub in ("publish", "upload", "version", "release") or (head == "uv" and sub == "version" and len(args) > 1):
        return publishes(f"`{head} {sub}` publishes or bumps a release")
    if sub in ("lock", "update", "upgrade", "add", "remove") or (head == "uv" and sub == "pip" and "compile" in args):
        return writes(f"`{head} {sub}` rewrites the lockfile or manifest")
    if sub in ("tool", "self", "python") and not (sub == "tool" and args[1:2] == ("run",)):
        return system(f"`{head} {sub}` installs software on the machine")
    if sub in ("sync", "install", "venv", "pip", "env", "shell"):
        return installs(f"`{head} {sub}` prepares the project's environment")
    if sub == "build":
        return Identified(BUILD, 2, "build", f"{head} build")
    if head == "poetry" and sub == "check":
        return Identified(LINT_PATHS, 2, "lint", "poetry check")
    return None


@tool("coverage")
def _coverage(tokens: tuple[str, ...]) -> Identification:
    """`coverage run` is peeled off by normalise; its other commands report on a run that already happened."""
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("report", "html", "xml", "json", "lcov", "combine", "erase", "debug", "annotate"):
        return prints(f"`coverage {sub}` reports on an earlier run")
    return None


@tool("build", "pyproject-build")
def _pypa_build(tokens: tuple[str, ...]) -> Identification:
    return Identified(BUILD, 1, "build", "python -m build")


@tool("sphinx-build", "mkdocs")
def _docs_builders(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if head == "mkdocs":
        if sub in ("serve",):
            return watches("`mkdocs serve` never finishes")
        if sub == "gh-deploy":
            return publishes("`mkdocs gh-deploy` publishes the site")
        return Identified(BUILD, 2, "build", "mkdocs build") if sub == "build" else None
    return Identified(BUILD, 1, "build", "sphinx-build")


@tool("sphinx-autobuild", "uvicorn", "gunicorn", "hypercorn", "daphne", "flask", "fastapi", "streamlit", "jupyter")
def _python_servers(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if head in ("flask", "fastapi") and sub not in ("run", "dev"):
        return None
    return watches(f"`{head}` serves until stopped: a server is not a check")


# -- output summaries ------------------------------------------------------------------------------------------------

PYTEST_SUMMARY = lazy(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+)(?: in [\d.]+s)?(?: \([^)]*\))?\s*=*\s*$", re.MULTILINE)
PYTEST_PART = lazy(r"(\d+) ([a-z]+)")
UNITTEST_RAN = lazy(r"^Ran (\d+) tests? in ", re.MULTILINE)
UNITTEST_RESULT = lazy(r"^(OK|FAILED)(?: \(([^)]*)\))?\s*$", re.MULTILINE)
NO_TESTS = (
    lazy(r"\bno tests ran\b", re.IGNORECASE),  # pytest summary; unittest ≥ 3.12 "NO TESTS RAN"
    lazy(r"^Ran 0 tests? in\b", re.MULTILINE),  # unittest
    lazy(r"^\s*collected 0 items\s*$", re.MULTILINE),  # pytest, nothing collected or selected
)
# Runners whose exit code 5 means "no tests were collected".
EXIT_5_NO_TESTS = frozenset({"pytest", "unittest"})


def pytest_counts(text: str) -> TestCounts | None:
    found: TestCounts | None = None
    for match in PYTEST_SUMMARY.finditer(text):
        parts = {word: int(number) for number, word in PYTEST_PART.findall(match.group(1))}
        known = {"passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed", "deselected", "warning"}
        if not parts or not set(parts) <= known | {"warnings", "rerun"}:
            continue
        if not {"passed", "failed", "error", "errors", "skipped", "xfailed", "xpassed"} & set(parts):
            continue  # "5 deselected" or "2 warnings" alone is not a result
        found = TestCounts(
            passed=parts.get("passed", 0) + parts.get("xpassed", 0),
            failed=parts.get("failed", 0) + parts.get("error", 0) + parts.get("errors", 0),
            skipped=parts.get("skipped", 0) + parts.get("xfailed", 0),
        )
    return found


def unittest_counts(text: str) -> TestCounts | None:
    ran = UNITTEST_RAN.findall(text)
    verdicts = UNITTEST_RESULT.findall(text)
    if not ran or not verdicts:
        return None
    total = int(ran[-1])
    details = {key.strip(): int(value) for key, value in re.findall(r"(\w+)=(\d+)", verdicts[-1][1])}
    failed = details.get("failures", 0) + details.get("errors", 0) + details.get("unexpected_successes", 0)
    skipped = details.get("skipped", 0) + details.get("expected_failures", 0)
    return TestCounts(max(0, total - failed - skipped), failed, skipped)
