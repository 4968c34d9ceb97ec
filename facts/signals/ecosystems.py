"""Ecosystem conventions a manifest makes unambiguous (Cargo, Go, Maven, Gradle, Ruby, PHP, Lua), the tools whose
own configuration names their runner (golangci-lint, pre-commit and its hooks, rubocop, standard, phpstan …), and
composer scripts."""

from __future__ import annotations

import os
import re
from typing import Any

from freshpass.facts.model import Kind

from .base import Candidate, Collector, Package, normalise_cwd, under

# Directories whose go.mod files are fixtures or copies of dependencies, never the project's modules.
_GO_SKIP = {"vendor", "testdata", "node_modules", "third_party", "examples", "example", "_examples", "fixtures"}


def _convention(
    c: Collector, command: str, kind: Kind, cwd: str, source: str, *, spellings: tuple[str, ...] = ()
) -> None:
    c.add(Candidate(command, cwd, source, "convention", kind=kind, body=(command,), spellings=spellings))


def _cargo(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "Cargo.toml")
    if not c.is_file(rel):
        return
    c.manifest(rel)
    c.package_manager("cargo")
    data = c.load_toml(rel)
    if data is None:
        return
    if "workspace" in data and "package" in data:
        # A root package with members: plain `cargo test` would test only the root package.
        flag, source = " --workspace", f"{rel}#workspace"
    elif "workspace" in data:
        flag, source = "", f"{rel}#workspace"  # virtual workspace: commands apply to every member
    elif "package" in data:
        flag, source = "", f"{rel}#package"
    else:
        c.problem(rel, "neither [package] nor [workspace]: cargo would reject this manifest")
        return
    spellings = ("cargo test --workspace", "cargo test --all") if not flag and "workspace" in data else ()
    _convention(c, f"cargo test{flag}", "test", package.cwd, source, spellings=spellings)
    _convention(c, f"cargo clippy{flag}", "lint", package.cwd, source)
    _convention(c, f"cargo build{flag}", "build", package.cwd, source)


def go_work_modules(c: Collector) -> list[str] | None:
    text = c.read_text("go.work")
    if text is None:
        return None
    c.manifest("go.work")
    modules: list[str] = []
    in_block = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if in_block:
            if line == ")":
                in_block = False
            elif line:
                modules.append(normalise_cwd(line.strip('"')))
        elif line.startswith("use"):
            rest = line[3:].strip()
            if rest == "(":
                in_block = True
            elif rest:
                modules.append(normalise_cwd(rest.strip('"')))
    return modules


def _go(c: Collector) -> None:
    modules = go_work_modules(c)
    source_of: dict[str, str] = {}
    for module in modules or []:
        source_of[module] = "go.work"
    if c.is_file("go.mod"):
        source_of.setdefault(".", "go.mod")
    if not source_of:
        return
    # Nested modules are their own units (`go test ./...` stops at a nested go.mod). Look one and two levels
    # down with a bounded glob: never a recursive walk.
    import glob

    root = str(c.root)
    for shape in ("*/go.mod", "*/*/go.mod"):
        for match in sorted(glob.glob(os.path.join(glob.escape(root), shape)))[:200]:
            module = os.path.relpath(os.path.dirname(match), root).replace(os.sep, "/")
            parts = module.split("/")
            if any(part in _GO_SKIP or part.startswith((".", "_")) for part in parts):
                continue
            source_of.setdefault(module, f"{module}/go.mod")
    c.package_manager("go")
    for module in sorted(source_of, key=lambda m: (m != ".", m)):
        gomod = "go.mod" if module == "." else f"{module}/go.mod"
        if not c.is_file(gomod):
            c.problem(source_of[module], f"module directory {module!r} has no go.mod")
            continue
        c.manifest(gomod)
        source = source_of[module] if module != "." else "go.mod"
        _convention(c, "go test ./...", "test", module, source)
        _convention(c, "go vet ./...", "lint", module, source)
        _convention(c, "go build ./...", "build", module, source)


def _maven(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "pom.xml")
    if not c.is_file(rel):
        return
    c.manifest(rel)
    c.package_manager("maven")
    text = c.read_text(rel)
    if text is not None:
        import xml.etree.ElementTree as ElementTree  # only Maven projects pay for it

        try:
            ElementTree.fromstring(text.encode())
        except ElementTree.ParseError as exc:
            c.problem(rel, f"invalid XML: {exc}")
        except RecursionError:
            c.problem(rel, "XML nested too deeply to read")
    runner = "./mvnw" if c.is_file(under(package.cwd, "mvnw")) else "mvn"
    _convention(c, f"{runner} test", "test", package.cwd, rel)
    _convention(c, f"{runner} verify", "check", package.cwd, rel)


def _gradle(c: Collector, package: Package) -> None:
    names = ("build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle")
    build = next((under(package.cwd, n) for n in names if c.is_file(under(package.cwd, n))), None)
    if build is None:
        return
    c.manifest(build)
    c.package_manager("gradle")
    runner = "./gradlew" if c.is_file(under(package.cwd, "gradlew")) else "gradle"
    _convention(c, f"{runner} test", "test", package.cwd, build)
    _convention(c, f"{runner} check", "check", package.cwd, build)
    _convention(c, f"{runner} build", "build", package.cwd, build)


def _ruby(c: Collector, package: Package) -> None:
    gemfile = under(package.cwd, "Gemfile")
    has_gemfile = c.is_file(gemfile)
    if has_gemfile:
        c.manifest(gemfile)
        c.package_manager("bundler")
    prefix = "bundle exec " if has_gemfile else ""
    gems = c.read_text(gemfile) or "" if has_gemfile else ""
    spec = next(
        (under(package.cwd, n) for n in (".rspec", "spec/spec_helper.rb") if c.is_file(under(package.cwd, n))), None
    )
    if spec is not None:
        _convention(c, f"{prefix}rspec", "test", package.cwd, spec)
    if c.is_file(under(package.cwd, ".rubocop.yml")):
        c.manifest(under(package.cwd, ".rubocop.yml"))
        c.add(Candidate(f"{prefix}rubocop", package.cwd, under(package.cwd, ".rubocop.yml"), "tool", kind="lint",
                        body=(f"{prefix}rubocop",)))  # fmt: skip
    standard = c.is_file(under(package.cwd, ".standard.yml")) or re.search(r"""gem\s+["']standard["']""", gems)
    if standard:
        source = under(package.cwd, ".standard.yml") if c.is_file(under(package.cwd, ".standard.yml")) else gemfile
        c.add(Candidate(f"{prefix}standardrb", package.cwd, source, "tool", kind="lint", body=(f"{prefix}standardrb",)))


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


_LUA_TOOLS: tuple[tuple[str, str, Kind], ...] = (
    (".luacheckrc", "luacheck .", "lint"),
    ("selene.toml", "selene .", "lint"),
    ("stylua.toml", "stylua --check .", "lint"),
    (".stylua.toml", "stylua --check .", "lint"),
)


def _lua(c: Collector, package: Package) -> None:
    busted = under(package.cwd, ".busted")
    rockspecs = [n for n in c.listdir(package.cwd) if n.endswith(".rockspec")] if package.cwd == "." else []
    if c.is_file(busted):
        c.manifest(busted)
        _convention(c, "busted", "test", package.cwd, busted)
    elif rockspecs and c.is_dir(under(package.cwd, "spec")):
        _convention(c, "busted", "test", package.cwd, rockspecs[0])
    for config, tool, kind in _LUA_TOOLS:
        path = under(package.cwd, config)
        if c.is_file(path):
            c.manifest(path)
            c.add(Candidate(tool, package.cwd, path, "tool", kind=kind, body=(tool,)))


GOLANGCI_CONFIGS = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
# pre-commit hook ids whose run is a check of a known kind (the hook runs that tool on every file).
_HOOK_KINDS: dict[str, Kind] = {
    "mypy": "typecheck",
    "pyright": "typecheck",
    "basedpyright": "typecheck",
    "tsc": "typecheck",
}


def _tool_configs(c: Collector, package: Package) -> None:
    golangci = next((under(package.cwd, n) for n in GOLANGCI_CONFIGS if c.is_file(under(package.cwd, n))), None)
    if golangci is not None:
        c.manifest(golangci)
        if golangci.endswith((".yml", ".yaml")):
            c.load_yaml(golangci)  # a malformed config is worth a problem: golangci-lint would refuse it
        c.add(Candidate("golangci-lint run", package.cwd, golangci, "tool", kind="lint", body=("golangci-lint run",)))
    config = under(package.cwd, ".pre-commit-config.yaml")
    if c.is_file(config):
        c.manifest(config)
        data = c.load_yaml(config)
        if data is not None and not (isinstance(data, dict) and isinstance(data.get("repos"), list)):
            c.problem(config, "no 'repos' list: pre-commit would reject this configuration")
        elif data is not None:
            command = "pre-commit run --all-files"
            c.add(Candidate(command, package.cwd, config, "tool", kind="lint", name="pre-commit", body=(command,),
                            spellings=("pre-commit run -a",)))  # fmt: skip
            for hook in _hook_ids(data):
                kind = _HOOK_KINDS.get(hook)
                if kind is not None:
                    hook_command = f"pre-commit run {hook} --all-files"
                    c.add(Candidate(hook_command, package.cwd, f"{config}#{hook}", "tool", kind=kind, name=hook,
                                    body=(hook_command,)))  # fmt: skip


def _hook_ids(data: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    for repo in data.get("repos", []):
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("id"), str) and hook.get("stages") != ["manual"]:
                ids.append(hook["id"])
    return ids


def read(c: Collector, package: Package) -> None:
    _cargo(c, package)
    if package.cwd == ".":
        _go(c)
    _maven(c, package)
    _gradle(c, package)
    _ruby(c, package)
    _php(c, package)
    _lua(c, package)
    _tool_configs(c, package)
