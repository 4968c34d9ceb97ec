"""What every signal reader shares: reading the repository's files safely, and the candidates they yield.

Signal readers read only files whose names they know (or that a manifest names, or the entries of a directory a
convention names, such as `scripts/`); they never walk the tree and never execute anything. Every read goes
through `Collector`, which treats repository content as hostile: only regular files inside the root, of bounded
size, are read; a FIFO, a device, a socket or a symlink out of the root is a problem, never a blocking read; YAML
aliases cannot make a small file expand without bound; parsers' recursion limits become problems; and detection
as a whole stops at a time budget. Every failure becomes a `Problem` and detection carries on.
"""

from __future__ import annotations

import itertools
import json
import os
import stat
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from freshpass.facts.files import FileTooLarge, NotRegularFile, describe_mode, read_regular
from freshpass.facts.model import Kind, Origin, Problem, SharedTrust

# A directory with more entries than this is probed name by name rather than listed.
_MAX_LISTED = 4096

# Files larger than this are not project configuration; reading them would only slow detection down.
MAX_CONFIG_BYTES = 8 * 1024 * 1024
# YAML aliases share structure; walking what they expand to is bounded by this many nodes per file.
MAX_YAML_NODES = 200_000
# A YAML file larger than this is reported, not read: PyYAML builds about a megabyte a second, and the largest
# workflow of the real-repository corpus is 56 kB.
MAX_YAML_BYTES = 256 * 1024
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
    # variables a run may set to pick part of what it runs (`make t F=router` where the recipe passes `$(F)` as
    # the test filter and the Makefile leaves it empty)
    selectors: tuple[str, ...] = ()


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
    suite: str = ""  # the tool an opaque entry runs, when its declaration says (`Rake::TestTask`: minitest)


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
        self.shared_trust = SharedTrust()
        self.ignore_prose = True
        self.flaky = "fail"
        self.gate: tuple[str, ...] | None = None
        self.docs: list[tuple[str, str, int, str]] = []  # (command line, source, position, cwd) from the docs
        # What a package directory's environment manager is (".": "uv"), for spelling tool commands.
        self.python_managers: dict[str, str | None] = {}
        self.node_managers: dict[str, str] = {}
        self.tool_settings: dict[str, Any] = {}  # facts about tool configuration ("ruff.fix": True)
        self.make_files: dict[str, Any] = {}  # package cwd → its parsed Makefile, when it has pattern rules
        self.package_names: dict[str, str] = {}  # a package.json `name` → its directory
        self._text_cache: dict[str, str | None] = {}
        self._stat_cache: dict[str, tuple[int, bool] | None] = {}
        self._names_cache: dict[str, dict[str, bool] | None] = {}
        self._root_text = os.fspath(root)
        self._parsed_cache: dict[str, Any] = {}
        self._order = 0
        self.listed: set[str] = set()  # directories whose entries detection read (`scripts/`, workflows)
        self.globbed: set[str] = set()  # directories a bounded glob listed (`*/go.mod`, workspace members)
        self.outside: set[str] = set()  # paths asked about above the root (`../package.json` of a workspace)

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
        suite: str = "",
    ) -> None:
        self.entry_points.append(EntryPoint(command.strip(), normalise_cwd(cwd), source, body, name, kind, suite))

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

    def inputs(self) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """(every path detection asked about, present or not, `../` ones above the root included; every directory
        whose entries it read; every directory a glob listed): a change to one of them, or a file appearing in
        one of those directories, can change the facts."""
        asked = {rel for rel in (*self._stat_cache, *self._text_cache) if rel and rel != "."} | self.outside
        return frozenset(asked), frozenset(self.listed), frozenset(self.globbed)

    def ask_outside(self, path: Path) -> Path:
        """`path`, a file above the root that a reader looks at itself, remembered (relative, `../…`) as an input."""
        self.outside.add(os.path.relpath(path, self.root).replace(os.sep, "/"))
        return path

    # -- reading -----------------------------------------------------------------------------------------------

    def path(self, rel: str) -> Path:
        return self.root / rel

    def _stat(self, rel: str) -> tuple[int, bool] | None:
        """(mode, inside the root) of what `rel` resolves to, None when nothing is there; each path is asked once
        (the readers of many packages probe the same names)."""
        if rel in self._stat_cache:
            return self._stat_cache[rel]
        parent, _slash, name = rel.rpartition("/")
        names = self._names(parent) if name not in ("", ".", "..") else None
        if names is not None and name not in names:
            self._stat_cache[rel] = None
            return None
        path = os.path.join(self._root_text, rel)
        found: tuple[int, bool] | None
        try:
            mode = os.stat(path).st_mode
        except (OSError, ValueError):
            found = None
        else:
            # no symbolic link on the way from the root: inside without resolving every component
            plain = names is not None and names[name] is False and self._plain(parent)
            found = (mode, plain or self._inside(path))
        self._stat_cache[rel] = found
        return found

    def _names(self, parent: str) -> dict[str, bool] | None:
        """A directory's entry names (→ is it a symbolic link), listed once, so that probing many names costs one
        listing; None when it cannot be listed or is too big to be worth it (then each name is asked on its own)."""
        if parent in self._names_cache:
            return self._names_cache[parent]
        names: dict[str, bool] | None = None
        above, _slash, own = parent.rpartition("/")
        if parent and not any(part in ("", "..", ".") for part in parent.split("/")):
            listed_above = self._names(above)
            if listed_above is not None and own not in listed_above:
                self._names_cache[parent] = {}  # it is not there: nothing below it is either
                return self._names_cache[parent]
        if parent == "" or not any(part in ("", "..", ".") for part in parent.split("/")):
            try:
                with os.scandir(os.path.join(self._root_text, parent) if parent else self._root_text) as entries:
                    listed = list(itertools.islice(entries, _MAX_LISTED + 1))
                    if len(listed) <= _MAX_LISTED:
                        names = {entry.name: entry.is_symlink() for entry in listed}
            except (OSError, ValueError):
                names = None
        self._names_cache[parent] = names
        return names

    def _plain(self, directory: str) -> bool:
        """Is `directory` reached from the root through real directories only (no symbolic link on the way)?"""
        if directory == "":
            return True
        parent, _slash, name = directory.rpartition("/")
        names = self._names(parent)
        return names is not None and names.get(name) is False and self._plain(parent)

    def exists(self, rel: str) -> bool:
        if self._stat(rel) is not None:
            return True
        parent, _slash, name = rel.rpartition("/")
        names = self._names(parent) if name not in ("", ".", "..") else None
        if names is not None:
            return name in names  # a dangling link is listed too
        try:
            return os.path.lexists(os.path.join(self._root_text, rel))  # a dangling link is there too
        except ValueError:
            return False

    def _inside(self, path: str) -> bool:
        try:
            real = os.path.realpath(path)
        except (OSError, ValueError):
            return False
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def is_file(self, rel: str) -> bool:
        """A regular file inside the root (a symlink to one inside counts; devices, FIFOs and links out do not)."""
        found = self._stat(rel)
        if found is not None and not stat.S_ISREG(found[0]) and not stat.S_ISDIR(found[0]):
            # a manifest's name on a FIFO, socket or device (an archive can carry one): never opened, said once
            self.problem(rel, f"is {describe_mode(found[0])}, not a regular file; not read")
        return found is not None and stat.S_ISREG(found[0]) and found[1]

    def is_dir(self, rel: str) -> bool:
        found = self._stat(rel)
        return found is not None and stat.S_ISDIR(found[0]) and found[1]

    def is_executable(self, rel: str) -> bool:
        found = self._stat(rel)
        return found is not None and bool(found[0] & (stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))

    def glob(self, shape: str, limit: int) -> list[str]:
        """The root-relative paths matching `shape` (`*/go.mod`, `packages/*`: shell wildcards per component, a
        leading dot matched only by a leading dot, as `glob` does), sorted, at most `limit`; every directory
        listed on the way is remembered."""
        import fnmatch

        current = [""]
        for part in shape.strip("/").split("/"):
            matched: list[str] = []
            for directory in current:
                if not any(ch in part for ch in "*?["):
                    matched.append(f"{directory}/{part}" if directory else part)
                    continue
                self.globbed.add(directory)
                try:
                    with os.scandir(os.path.join(self._root_text, directory)) as entries:
                        names = [entry.name for entry in itertools.islice(entries, _MAX_LISTED)]
                except (OSError, ValueError):
                    continue
                for name in sorted(names):
                    if fnmatch.fnmatchcase(name, part) and (part.startswith(".") or not name.startswith(".")):
                        matched.append(f"{directory}/{name}" if directory else name)
            current = matched[: limit * 4]
        found = [rel for rel in current if os.path.lexists(os.path.join(self._root_text, rel))]
        return sorted(found)[:limit]

    def listdir(self, rel: str) -> list[str]:
        """The entry names of a directory the conventions name (`scripts/`, `.github/workflows/`), sorted."""
        self.listed.add("" if rel.strip("/") in ("", ".") else rel.strip("/"))
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
        path = os.path.join(self._root_text, rel)
        try:
            if os.path.isdir(path):
                return None
            if not self._inside(path):
                self.problem(rel, "a symlink to a file outside the repository; not read")
                return None
            data = read_regular(path, MAX_CONFIG_BYTES)
        except FileNotFoundError:
            if os.path.islink(path):
                self.problem(rel, "a symlink to nothing; not read")
            return None
        except (NotRegularFile, FileTooLarge) as exc:
            self.problem(rel, exc.strerror or "not read")
            return None
        except (OSError, ValueError) as exc:
            self.problem(rel, f"cannot read: {getattr(exc, 'strerror', None) or exc}")
            return None
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
            import tomli  # only projects with TOML pay for it (`freshpass run` starts per command)

            try:
                data = tomli.loads(text)
            except tomli.TOMLDecodeError as exc:
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

        if len(text) > MAX_YAML_BYTES:
            self.problem(
                rel, f"{len(text)} characters of YAML, more than {MAX_YAML_BYTES}; not read (it would take seconds)"
            )
            return None
        try:
            data = yaml.load(text, Loader=safe_yaml_loader())
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
            self.problem(rel, f"invalid YAML{where}: {reason}")
            return None
        except RecursionError:
            self.problem(rel, "YAML nested too deeply to read")
            return None
        budget = max(MAX_YAML_NODES, len(text))  # a node takes at least a character unless aliases repeat it
        if not expands_within(data, budget):
            self.problem(rel, f"YAML aliases expand to more than {budget} nodes; not read")
            return None
        return data


def safe_yaml_loader() -> Any:
    import yaml

    # The C loader is several times faster on big workflow files; fall back to the pure-Python one.
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def expands_within(data: Any, budget: int) -> bool:
    """Does walking `data` — aliases visited as often as they are referenced — stay within `budget`?

    A YAML alias shares one object among many places, so loading is cheap; whoever walks the result pays for
    every reference. A few hundred bytes of nested aliases can stand for billions of nodes, and one long string
    referenced 30,000 times for a gigabyte of shell to read. The cost is a unit per node plus one per 32
    characters of text: a file without aliases costs about its length, whatever its shape."""
    stack = [data]
    seen = 0
    while stack:
        node = stack.pop()
        seen += 1
        if isinstance(node, str):
            seen += len(node) // 32
        elif isinstance(node, dict):
            stack.extend(node.values())
            stack.extend(key for key in node if isinstance(key, str) and len(key) >= 32)
            seen += len(node)  # keys count too
        elif isinstance(node, list):
            stack.extend(node)
        if seen > budget:
            return False
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
