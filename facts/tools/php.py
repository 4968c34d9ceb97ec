"""PHP's tools: phpunit, pest, paratest, artisan test, phpstan, psalm, php-cs-fixer, phpcs, composer scripts."""

from __future__ import annotations

import re

from .base import Identification, Identified, Runner, fallback, has, opts, tool, watches, writes
from .generic import LINT_PATHS, TYPECHECK_PATHS

PHPUNIT = Runner(
    "phpunit",
    "test",
    opts(
        "--filter -c --configuration --testsuite --group --exclude-group --bootstrap --log-junit "
        "--test-suffix --covers --uses"
    ),
    opts("--filter --testsuite --group --exclude-group --covers --uses"),
    neutral=opts("--colors --no-coverage --display-deprecations --testdox --stop-on-failure"),
)


@tool("phpunit", "pest", "paratest", "codecept", "simple-phpunit")
def _phpunit(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    return Identified(PHPUNIT, 2 if sub == "run" else 1, "test", tokens[0])


@fallback
def _artisan(tokens: tuple[str, ...]) -> Identification:
    if tokens[0].rsplit("/", 1)[-1] != "artisan":
        return None
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "test":
        return Identified(PHPUNIT, 2, "test", "php artisan test")
    if sub == "serve":
        return watches("`artisan serve` never finishes: a server is not a check")
    if sub.startswith(("migrate", "db:", "make:", "vendor:publish")):
        return writes(f"`artisan {sub}` writes files or a database")
    return None


@tool("phpstan", "psalm", "phan")
def _php_types(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if tokens[0] == "psalm" and has(tokens, "--alter"):
        return writes("`psalm --alter` rewrites files")
    return Identified(TYPECHECK_PATHS, 2 if sub in ("analyse", "analyze") else 1, "typecheck", tokens[0])


@tool("php-cs-fixer", "phpcbf", "phpcs", "pint", "rector", "php-parallel-lint", "parallel-lint")
def _php_style(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    if head == "phpcs" or head in ("php-parallel-lint", "parallel-lint"):
        return Identified(LINT_PATHS, 1, "lint", head)
    if head in ("php-cs-fixer", "rector") and has(args, "--dry-run"):
        return Identified(LINT_PATHS, 2 if sub in ("fix", "process") else 1, "lint", f"{head} --dry-run")
    if head == "pint" and has(args, "--test"):
        return Identified(LINT_PATHS, 1, "lint", "pint --test")
    return writes(f"`{head}` rewrites files")


NO_TESTS = (re.compile(r"\bNo tests executed\b"),)
