"""PHP: Composer scripts, PHPUnit (through artisan in Laravel), PHPStan, Psalm, PHP_CodeSniffer, Pint."""

from __future__ import annotations

import re
from typing import Any

from freshpass.facts.model import Kind
from freshpass.facts.signals.base import Candidate, Collector, Package, under

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention

_COMPOSER_KINDS: dict[str, Kind] = {
    "analyse": "typecheck",
    "analyze": "typecheck",
    "phpstan": "typecheck",
    "psalm": "typecheck",
    "static-analysis": "typecheck",
    "stan": "typecheck",
    "cs": "lint",
    "phpcs": "lint",
    "cs-check": "lint",
}


def _php(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "composer.json")
    if not c.is_file(rel):
        return
    c.manifest(rel)
    c.package_manager("composer")
    data = c.load_json(rel)
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if isinstance(scripts, dict):

        def lines_of(name: str, seen: set[str]) -> list[str]:
            if name in seen:
                return []
            seen.add(name)
            body: Any = scripts.get(name)
            entries = body if isinstance(body, list) else [body]
            lines: list[str] = []
            for entry in entries:
                if not isinstance(entry, str):
                    continue
                reference = entry[1:].split()[:1] if entry.startswith("@") else []
                if reference and reference[0] in scripts:
                    lines.extend(lines_of(reference[0], seen))
                elif reference and reference[0] in ("php", "composer", "putenv"):
                    lines.append(entry[1:])
                elif not entry.startswith("@"):
                    lines.append(re.sub(r"^vendor/bin/", "", entry))
            return lines

        for name in scripts:
            if not isinstance(name, str) or name.startswith(("pre-", "post-")):
                continue
            body = tuple(lines_of(name, set()))
            source = f"{rel}#scripts.{name}"
            command = f"composer {name}"  # composer runs a project's script by its name
            spellings = (f"composer run-script {name}", f"composer run {name}")
            c.entry(command, package.cwd, source, body, name)
            c.add(Candidate(command, package.cwd, source, "local", name=name, body=body, kind=_COMPOSER_KINDS.get(name),
                            spellings=spellings))  # fmt: skip
    # PHPUnit's configuration names the suite; artisan runs it with Laravel's environment.
    phpunit = next(
        (
            under(package.cwd, n)
            for n in ("phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml")
            if c.is_file(under(package.cwd, n))
        ),
        None,
    )
    if phpunit is not None:
        c.manifest(phpunit)
        if c.is_file(under(package.cwd, "artisan")):
            _convention(c, "php artisan test", "test", package.cwd, phpunit, spellings=("vendor/bin/phpunit",))
        else:
            _convention(c, "vendor/bin/phpunit", "test", package.cwd, phpunit, spellings=("phpunit",))
    for config, tool, kind in _PHP_TOOLS:
        path = under(package.cwd, config)
        if c.is_file(path):
            c.manifest(path)
            command = f"vendor/bin/{tool}"
            c.add(Candidate(command, package.cwd, path, "tool", kind=kind, body=(command,)))


_PHP_TOOLS: tuple[tuple[str, str, Kind], ...] = (
    ("phpstan.neon", "phpstan analyse", "typecheck"),
    ("phpstan.neon.dist", "phpstan analyse", "typecheck"),
    ("phpstan.dist.neon", "phpstan analyse", "typecheck"),
    ("psalm.xml", "psalm", "typecheck"),
    ("psalm.xml.dist", "psalm", "typecheck"),
    ("phpcs.xml", "phpcs", "lint"),
    ("phpcs.xml.dist", "phpcs", "lint"),
    (".php-cs-fixer.dist.php", "php-cs-fixer fix --dry-run", "lint"),
    ("pint.json", "pint --test", "lint"),
)


ECOSYSTEM = Ecosystem(
    name="php",
    title="PHP (Composer)",
    manifests=("composer.json",),
    lockfiles=(("composer.lock", "composer"),),
    package_manager="composer",
    wrappers=("composer exec", "vendor/bin/"),
    vocabulary=Vocabulary(
        runners=("composer", "phpunit", "vendor/bin/phpunit", "pest", "php"),
        narrowing=("--filter", "--testsuite", "--group", "--exclude-group", "a test file"),
        writers=("php-cs-fixer fix", "phpcbf", "rector"),
        test_dirs=("tests",),
    ),
    read=_php,
    docs="https://docs.phpunit.de/en/11.5/textui.html",
)
