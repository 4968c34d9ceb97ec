"""What every detector shares: reading known files safely and collecting candidate commands.

Detectors read only files whose names they know (or that a manifest names); they never list the tree. Every read
goes through `Collector`, so a malformed or unreadable file becomes a `Problem` and detection carries on.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from freshpass.facts.model import Kind, Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

# Signal levels of design §2, highest precedence first.
EXPLICIT = 1
CI = 2
WRAPPER = 3
PACKAGE_SCRIPTS = 4
PYTHON = 5
TOOL_CONFIG = 6
TASK_RUNNER = 7
CONVENTION = 8

# Files larger than this are not project configuration; reading them would only slow detection down.
MAX_CONFIG_BYTES = 2 * 1024 * 1024

_MISSING = object()


@dataclass
class Candidate:
    command: str
    kind: Kind
    cwd: str
    source: str
    level: int
    alternatives: tuple[str, ...] = ()


class Collector:
    """Reads files of one root and gathers candidates, manifests, context files and problems."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.candidates: list[Candidate] = []
        self.problems: list[Problem] = []
        self.manifests: list[str] = []
        self.context_files: list[str] = []
        self.package_managers: list[str] = []
        self.ignore: list[str] = []
        # The project's own test runner (runtests.py, spin, a wrapper that sets required env) when it routes
        # pytest: then bare `pytest` is not how the project runs its tests.
        self.pytest_routed_by: str | None = None
        self.node_manager: str | None = None
        self._text_cache: dict[str, str | None] = {}
        self._parsed_cache: dict[str, Any] = {}

    # -- recording ---------------------------------------------------------------------------------------------

    def add(
        self,
        command: str,
        kind: Kind,
        source: str,
        level: int,
        *,
        cwd: str = ".",
        alternatives: tuple[str, ...] = (),
    ) -> None:
        self.candidates.append(Candidate(command.strip(), kind, normalise_cwd(cwd), source, level, alternatives))

    def problem(self, rel: str, message: str) -> None:
        if not any(p.file == rel and p.message == message for p in self.problems):
            self.problems.append(Problem(rel, message))

    def manifest(self, rel: str) -> None:
        if rel not in self.manifests:
            self.manifests.append(rel)

    def context(self, rel: str) -> None:
        if rel not in self.context_files:
            self.context_files.append(rel)

    def package_manager(self, name: str) -> None:
        if name not in self.package_managers:
            self.package_managers.append(name)

    # -- reading -----------------------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.root / rel)

    def is_file(self, rel: str) -> bool:
        return (self.root / rel).is_file()

    def is_dir(self, rel: str) -> bool:
        return (self.root / rel).is_dir()

    def is_executable(self, rel: str) -> bool:
        try:
            mode = (self.root / rel).stat().st_mode
        except OSError:
            return False
        return bool(mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))

    def read_text(self, rel: str) -> str | None:
        """The text of `rel`, or None when it does not exist; unreadable files become problems."""
        if rel in self._text_cache:
            return self._text_cache[rel]
        text: str | None = None
        path = self.root / rel
        try:
            size = path.stat().st_size
            if not path.is_file():
                text = None
            elif size > MAX_CONFIG_BYTES:
                self.problem(rel, f"file is {size} bytes, larger than {MAX_CONFIG_BYTES}; not read")
            else:
                text = path.read_bytes().decode("utf-8-sig")
        except FileNotFoundError:
            text = None
        except UnicodeDecodeError as exc:
            self.problem(rel, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
        except OSError as exc:
            self.problem(rel, f"cannot read: {exc.strerror or exc}")
        self._text_cache[rel] = text
        return text

    def load_json(self, rel: str, *, comments: bool = False) -> Any:
        """Parsed JSON (JSONC when `comments`), or None when missing or malformed (then a problem is recorded)."""
        cached = self._parsed_cache.get(rel, _MISSING)
        if cached is not _MISSING:
            return cached
        text = self.read_text(rel)
        data: Any = None
        if text is not None:
            try:
                data = json.loads(strip_json_comments(text) if comments else text)
            except json.JSONDecodeError as exc:
                self.problem(rel, f"invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
        self._parsed_cache[rel] = data
        return data

    def load_toml(self, rel: str) -> dict[str, Any] | None:
        cached = self._parsed_cache.get(rel, _MISSING)
        if cached is not _MISSING:
            return cast("dict[str, Any] | None", cached)
        text = self.read_text(rel)
        data: dict[str, Any] | None = None
        if text is not None:
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                self.problem(rel, f"invalid TOML: {exc}")
        self._parsed_cache[rel] = data
        return data

    def load_yaml(self, rel: str) -> Any:
        cached = self._parsed_cache.get(rel, _MISSING)
        if cached is not _MISSING:
            return cached
        text = self.read_text(rel)
        data: Any = None
        if text is not None:
            import yaml  # only projects with YAML files pay for the import (≈15 ms of every `freshpass run`)

            try:
                data = yaml.load(text, Loader=_safe_loader())
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
                reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
                self.problem(rel, f"invalid YAML{where}: {reason}")
        self._parsed_cache[rel] = data
        return data


def _safe_loader() -> Any:
    import yaml

    # The C loader is several times faster on big workflow files; fall back to the pure-Python one.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def normalise_cwd(cwd: str) -> str:
    """A root-relative POSIX directory: '.' for the root itself."""
    parts: list[str] = []
    for part in cwd.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts) or "."


def join_cwd(base: str, sub: str) -> str:
    if sub.startswith("/"):
        return normalise_cwd(sub)
    return normalise_cwd(f"{base}/{sub}")


def get_path(data: Any, *keys: str) -> Any:
    """`data[k1][k2]…`, or None when any level is missing or not a table."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def strip_json_comments(text: str) -> str:
    """JSONC (deno.jsonc, tsconfig-style) to JSON: drop // and /* */ comments outside strings, and trailing commas."""
    out: list[str] = []
    i, n = 0, len(text)
    in_string = False
    while i < n:
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
            i += 1
        elif ch == '"':
            in_string = True
            out.append(ch)
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(ch)
            i += 1
    stripped = "".join(out)
    # Trailing commas before } or ] are allowed in JSONC.
    result: list[str] = []
    in_string = False
    i = 0
    while i < len(stripped):
        ch = stripped[i]
        if in_string:
            result.append(ch)
            if ch == "\\" and i + 1 < len(stripped):
                result.append(stripped[i + 1])
                i += 2
                continue
            if ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            result.append(ch)
        elif ch == ",":
            j = i + 1
            while j < len(stripped) and stripped[j] in " \t\r\n":
                j += 1
            if j < len(stripped) and stripped[j] in "}]":
                i += 1
                continue
            result.append(ch)
        else:
            result.append(ch)
        i += 1
    return "".join(result)
