"""What every signal reader shares: reading the repository's files safely, and the candidates they yield.

Signal readers read only files whose names they know (or that a manifest names, or the entries of a directory a
convention names, such as `scripts/`); they never walk the tree and never execute anything. Every read goes
through `Collector`, which treats repository content as hostile: only regular files inside the root, of bounded
size, are read; a FIFO, a device, a socket or a symlink out of the root is a problem, never a blocking read; YAML
aliases cannot make a small file expand without bound; parsers' recursion limits become problems; and detection
as a whole stops at a time budget. Every failure becomes a `Problem` and detection carries on.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from freshpass.facts.model import Kind, Origin, Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

# Files larger than this are not project configuration; reading them would only slow detection down.
MAX_CONFIG_BYTES = 2 * 1024 * 1024
# YAML aliases share structure; walking what they expand to is bounded by this many nodes per file.
MAX_YAML_NODES = 200_000
# Detection reads a bounded number of files; past this budget it stops with a problem, keeping what it found.
DEFAULT_TIME_BUDGET = 5.0

_MISSING = object()


class DetectionStopped(Exception):
    """Detection ran past its time budget; what was found so far is kept."""


@dataclass
class Candidate:
    """Something a repository declares that may be a check, as one signal reader saw it.

    `command` is spelled as a contributor types it from `cwd`. `body` is what it runs when the reader knows it
    (a recipe, a script, a session's commands), None when it is opaque. `kind` is set when the declaration itself
    says the kind (explicit configuration, a tool's own config); otherwise the body, and failing that the `name`,
    decide. `default`: the tool's bare form runs it (a tox envlist member, a default nox session, make's goal).
    """

    command: str
    cwd: str
    source: str
    origin: Origin
    name: str = ""
    body: tuple[str, ...] | None = None
    kind: Kind | None = None
    spellings: tuple[str, ...] = ()
    default: bool = False
    ci: Any = None  # the CI context of a workflow step (signals.ci.StepContext)
    set_aside: tuple[str, str] | None = None  # (why, reason) when the reader already knows it is not a check
    order: int = 0


@dataclass
class EntryPoint:
    """A named thing a command can invoke (a make target, a package script, a tox env …) and what it runs.

    Entry points are how bodies are expanded: a recipe line `$(MAKE) lint`, a script `npm run lint && npm test`
    or a CI step `make richtest` is read through the entry point it names."""

    command: str
    cwd: str
    source: str
    body: tuple[str, ...] | None
    name: str = ""
    kind: Kind | None = None  # when the declaration itself says (a rake task a test library defines)


class Collector:
    """Reads files of one root and gathers candidates, entry points, manifests, context files and problems."""

    def __init__(self, root: Path, *, time_budget: float = DEFAULT_TIME_BUDGET) -> None:
        self.root = root
        self._real_root = os.path.realpath(root)
        self.deadline = time.monotonic() + time_budget
        self.candidates: list[Candidate] = []
        self.entry_points: list[EntryPoint] = []
        self.problems: list[Problem] = []
        self.manifests: list[str] = []
        self.context_files: list[str] = []
        self.package_managers: list[str] = []
        self.ignore: list[str] = []
        self.docs: list[tuple[str, str, int]] = []  # (command line, source, position) from contributor docs
        # What a package directory's environment manager is (".": "uv"), for spelling tool commands.
        self.python_managers: dict[str, str | None] = {}
        self.node_managers: dict[str, str] = {}
        self.tool_settings: dict[str, Any] = {}  # facts about tool configuration ("ruff.fix": True)
        self.make_files: dict[str, Any] = {}  # package cwd → its parsed Makefile, when it has pattern rules
        self.package_names: dict[str, str] = {}  # a package.json `name` → its directory
        self._text_cache: dict[str, str | None] = {}
        self._parsed_cache: dict[str, Any] = {}
        self._order = 0

    # -- recording ---------------------------------------------------------------------------------------------

    def add(self, candidate: Candidate) -> Candidate:
        candidate.command = candidate.command.strip()
        candidate.cwd = normalise_cwd(candidate.cwd)
        self._order += 1
        candidate.order = self._order
        self.candidates.append(candidate)
        return candidate

    def entry(
        self,
        command: str,
        cwd: str,
        source: str,
        body: tuple[str, ...] | None,
        name: str = "",
        kind: Kind | None = None,
    ) -> None:
        self.entry_points.append(EntryPoint(command.strip(), normalise_cwd(cwd), source, body, name, kind))

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

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise DetectionStopped

    # -- reading -----------------------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def exists(self, rel: str) -> bool:
        return os.path.lexists(self.root / rel)

    def _inside(self, path: Path) -> bool:
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def is_file(self, rel: str) -> bool:
        """A regular file inside the root (a symlink to one inside counts; devices, FIFOs and links out do not)."""
        path = self.root / rel
        try:
            return stat.S_ISREG(path.stat().st_mode) and self._inside(path)
        except (OSError, ValueError):
            return False

    def is_dir(self, rel: str) -> bool:
        path = self.root / rel
        try:
            return stat.S_ISDIR(path.stat().st_mode) and self._inside(path)
        except (OSError, ValueError):
            return False

    def is_executable(self, rel: str) -> bool:
        try:
            mode = (self.root / rel).stat().st_mode
        except (OSError, ValueError):
            return False
        return bool(mode & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))

    def listdir(self, rel: str) -> list[str]:
        """The entry names of a directory the conventions name (`scripts/`, `.github/workflows/`), sorted."""
        path = self.root / rel
        if not self.is_dir(rel):
            return []
        try:
            with os.scandir(path) as entries:
                names = [entry.name for entry in entries]
        except OSError:
            return []
        return sorted(names)[:2000]

    def read_text(self, rel: str) -> str | None:
        """The text of `rel`, or None when it does not exist; anything else unreadable becomes a problem."""
        if rel in self._text_cache:
            return self._text_cache[rel]
        self.check_time()
        text = self._read(rel)
        self._text_cache[rel] = text
        return text

    def _read(self, rel: str) -> str | None:
        path = self.root / rel
        try:
            info = path.stat()
        except FileNotFoundError:
            if os.path.islink(path):
                self.problem(rel, "a symlink to nothing; not read")
            return None
        except (OSError, ValueError) as exc:
            self.problem(rel, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
            return None
        if stat.S_ISDIR(info.st_mode):
            return None
        if not stat.S_ISREG(info.st_mode):
            self.problem(rel, "not a regular file (a device, FIFO or socket); not read")
            return None
        if not self._inside(path):
            self.problem(rel, "a symlink to a file outside the repository; not read")
            return None
        if info.st_size > MAX_CONFIG_BYTES:
            self.problem(rel, f"file is {info.st_size} bytes, larger than {MAX_CONFIG_BYTES}; not read")
            return None
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        try:
            fd = os.open(path, flags)
        except OSError as exc:
            self.problem(rel, f"cannot read: {exc.strerror or exc}")
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped for something else since the stat above
                self.problem(rel, "not a regular file; not read")
                return None
            chunks: list[bytes] = []
            size = 0
            while size <= MAX_CONFIG_BYTES:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.append(chunk)
                size += len(chunk)
            if size > MAX_CONFIG_BYTES:
                self.problem(rel, f"file is larger than {MAX_CONFIG_BYTES} bytes; not read")
                return None
            data = b"".join(chunks)
        except OSError as exc:
            self.problem(rel, f"cannot read: {exc.strerror or exc}")
            return None
        finally:
            os.close(fd)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            self.problem(rel, f"not UTF-8 text ({exc.reason} at byte {exc.start})")
            return None

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
            except RecursionError:
                self.problem(rel, "JSON nested too deeply to read")
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
            except RecursionError:
                self.problem(rel, "TOML nested too deeply to read")
        self._parsed_cache[rel] = data
        return data

    def load_yaml(self, rel: str) -> Any:
        cached = self._parsed_cache.get(rel, _MISSING)
        if cached is not _MISSING:
            return cached
        text = self.read_text(rel)
        data: Any = None
        if text is not None:
            data = self._parse_yaml(rel, text)
        self._parsed_cache[rel] = data
        return data

    def _parse_yaml(self, rel: str, text: str) -> Any:
        import yaml  # only projects with YAML files pay for the import (≈15 ms of every `freshpass run`)

        try:
            data = yaml.load(text, Loader=_safe_loader())
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            self.problem(rel, f"invalid YAML{where}: {reason}")
            return None
        except RecursionError:
            self.problem(rel, "YAML nested too deeply to read")
            return None
        if not _expands_within(data, MAX_YAML_NODES):
            self.problem(rel, f"YAML aliases expand to more than {MAX_YAML_NODES} nodes; not read")
            return None
        return data


def _safe_loader() -> Any:
    import yaml

    # The C loader is several times faster on big workflow files; fall back to the pure-Python one.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _expands_within(data: Any, budget: int) -> bool:
    """Does walking `data` — aliases visited as often as they are referenced — stay within `budget` nodes?

    A YAML alias shares one object among many places, so loading is cheap; whoever walks the result pays for
    every reference. A few hundred bytes of nested aliases can stand for billions of nodes."""
    stack = [data]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if seen > budget:
            return False
        if isinstance(node, dict):
            stack.extend(node.values())
            seen += len(node)  # keys count too
        elif isinstance(node, list):
            stack.extend(node)
    return True


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


def under(cwd: str, rel: str) -> str:
    """`rel` (a path relative to a package directory `cwd`) as a path relative to the root."""
    return rel if cwd == "." else f"{cwd}/{rel}"


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


@dataclass
class Package:
    """A directory of the repository with its own manifests: the root itself ("."), a workspace member, or a
    sub-project (`backend/` with its own pyproject.toml next to `frontend/` with its package.json)."""

    cwd: str
    workspace_member: bool = False  # named by a workspace declaration (npm/pnpm/yarn workspaces, Cargo, go.work)
    markers: list[str] = field(default_factory=list)
