"""Level 8: ecosystem conventions a manifest makes unambiguous (Cargo, Go, Maven, Gradle, Ruby, Deno, Composer)."""

from __future__ import annotations

import glob
import os
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

from freshpass.facts.model import Kind

from .base import CONVENTION, Collector, normalise_cwd
from .shell import CHECK_NAMES, body_rejection, logical_lines

# Directories whose go.mod files are fixtures or copies of dependencies, never the project's modules.
_GO_SKIP = {"vendor", "testdata", "node_modules", "third_party"}
_COMPOSER_NAMES: dict[str, Kind] = {
    **CHECK_NAMES,
    "analyse": "typecheck",
    "analyze": "typecheck",
    "phpstan": "typecheck",
    "psalm": "typecheck",
    "static-analysis": "typecheck",
    "cs": "lint",
    "phpcs": "lint",
    "cs-check": "lint",
}


def _cargo(c: Collector) -> None:
    if not c.is_file("Cargo.toml"):
        return
    c.manifest("Cargo.toml")
    c.package_manager("cargo")
    data = c.load_toml("Cargo.toml")
    if data is None:
        return
    if "workspace" in data and "package" in data:
        # A root package with members: plain `cargo test` would test only the root package.
        flag, source = " --workspace", "Cargo.toml#workspace"
    elif "workspace" in data:
        flag, source = "", "Cargo.toml#workspace"  # virtual workspace: commands apply to every member
    elif "package" in data:
        flag, source = "", "Cargo.toml#package"
    else:
        c.problem("Cargo.toml", "neither [package] nor [workspace]: cargo would reject this manifest")
        return
    c.add(f"cargo test{flag}", "test", source, CONVENTION)
    c.add(f"cargo build{flag}", "build", source, CONVENTION)


def _go_work_modules(c: Collector) -> list[str] | None:
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
    modules = _go_work_modules(c)
    source_of: dict[str, str] = {}
    if modules is not None:
        for module in modules:
            source_of[module] = "go.work"
    if c.is_file("go.mod"):
        source_of.setdefault(".", "go.mod")
    if not source_of:
        return
    # Nested modules are their own units (`go test ./...` stops at a nested go.mod). Look one and two levels
    # down with a bounded glob: never a recursive walk.
    root = str(c.root)
    for shape in ("*/go.mod", "*/*/go.mod"):
        for match in sorted(glob.glob(os.path.join(glob.escape(root), shape))):
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
        c.add("go test ./...", "test", source_of[module] if module != "." else "go.mod", CONVENTION, cwd=module)
        c.add("go build ./...", "build", source_of[module] if module != "." else "go.mod", CONVENTION, cwd=module)


def _maven(c: Collector) -> None:
    if not c.is_file("pom.xml"):
        return
    c.manifest("pom.xml")
    c.package_manager("maven")
    text = c.read_text("pom.xml")
    if text is not None:
        try:
            ElementTree.fromstring(text.encode())
        except ElementTree.ParseError as exc:
            c.problem("pom.xml", f"invalid XML: {exc}")
    runner = "./mvnw" if c.is_file("mvnw") else "mvn"
    c.add(f"{runner} test", "test", "pom.xml", CONVENTION)
    c.add(f"{runner} verify", "check", "pom.xml", CONVENTION)


def _gradle(c: Collector) -> None:
    build = next(
        (
            name
            for name in ("build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle")
            if c.is_file(name)
        ),
        None,
    )
    if build is None:
        return
    c.manifest(build)
    c.package_manager("gradle")
    runner = "./gradlew" if c.is_file("gradlew") else "gradle"
    c.add(f"{runner} test", "test", build, CONVENTION)
    c.add(f"{runner} check", "check", build, CONVENTION)


_RAKE_TEST_TASK = re.compile(r"Rake::TestTask\.new|^\s*task\s*\(?\s*[:\"']?test\b|^\s*task\s+test:", re.MULTILINE)
_RAKE_SPEC_TASK = re.compile(r"RSpec::Core::RakeTask\.new")


def _ruby(c: Collector) -> None:
    has_gemfile = c.is_file("Gemfile")
    if has_gemfile:
        c.manifest("Gemfile")
        c.package_manager("bundler")
    prefix = "bundle exec " if has_gemfile else ""
    rakefile = c.read_text("Rakefile")
    if rakefile is not None:
        c.manifest("Rakefile")
        if _RAKE_TEST_TASK.search(rakefile):
            c.add(f"{prefix}rake test", "test", "Rakefile:test", CONVENTION)
    spec_source = (
        ".rspec" if c.is_file(".rspec") else "spec/spec_helper.rb" if c.is_file("spec/spec_helper.rb") else None
    )
    if spec_source is None and rakefile is not None and _RAKE_SPEC_TASK.search(rakefile):
        spec_source = "Rakefile"
    if spec_source is not None:
        c.add(f"{prefix}rspec", "test", spec_source, CONVENTION)


def _deno(c: Collector) -> None:
    rel = next((name for name in ("deno.json", "deno.jsonc") if c.is_file(name)), None)
    if rel is None:
        return
    c.manifest(rel)
    c.package_manager("deno")
    data = c.load_json(rel, comments=True)
    if data is None:
        return
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return
    for name, kind in CHECK_NAMES.items():
        body = tasks.get(name)
        if isinstance(body, dict):
            body = body.get("command")
        if not isinstance(body, str) or body_rejection(logical_lines(body)) is not None:
            continue
        c.add(f"deno task {name}", kind, f"{rel}#tasks.{name}", CONVENTION)


def _composer(c: Collector) -> None:
    if not c.is_file("composer.json"):
        return
    c.manifest("composer.json")
    c.package_manager("composer")
    data = c.load_json("composer.json")
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return

    def lines_of(name: str, seen: set[str]) -> list[str]:
        if name in seen:
            return []
        seen.add(name)
        body: Any = scripts.get(name)
        entries = body if isinstance(body, list) else [body]
        lines: list[str] = []
        for entry in entries:
            reference = entry[1:].split()[:1] if isinstance(entry, str) and entry.startswith("@") else []
            if reference and reference[0] in scripts:
                lines.extend(lines_of(reference[0], seen))
            elif isinstance(entry, str):
                lines.extend(logical_lines(entry))
        return lines

    for name, kind in _COMPOSER_NAMES.items():
        if name not in scripts or body_rejection(lines_of(name, set())) is not None:
            continue
        c.add(
            f"composer {name}",
            kind,
            f"composer.json#scripts.{name}",
            CONVENTION,
            alternatives=(f"composer run-script {name}",),
        )


def detect(c: Collector) -> None:
    _cargo(c)
    _go(c)
    _maven(c)
    _gradle(c)
    _ruby(c)
    _deno(c)
    _composer(c)
