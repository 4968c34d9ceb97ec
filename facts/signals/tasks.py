"""Task runners: Makefile (with `include`d files, pattern rules, conditionals and variables), justfile, Taskfile,
Rakefile.

Every target is an entry point with its body (its prerequisites' recipes first, then its own, with the file's
simple variables expanded), so a reference from elsewhere (`make lint` in a CI step, `$(MAKE) test` in a recipe)
reads through it. Whether a target is a check, and of what kind, is decided by `facts.checks` from that body."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from typing import Any

from freshpass.facts.lazyre import LazyPattern, lazy
from freshpass.facts.model import Kind
from freshpass.facts.safety import guarded_setup
from freshpass.facts.tools import script_kind

from .base import Candidate, Collector, Package, under

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
TASKFILES = ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml", "taskfile.dist.yml")
_MAX_INCLUDE_DEPTH = 4
_MAX_PREREQUISITE_DEPTH = 8
_MAX_BODY_LINES = 400
# Make's special targets: directives to make itself, never run by name.
_SPECIAL_TARGETS = frozenset(
    {
        ".PHONY",
        ".SUFFIXES",
        ".DEFAULT",
        ".PRECIOUS",
        ".INTERMEDIATE",
        ".SECONDARY",
        ".SECONDEXPANSION",
        ".DELETE_ON_ERROR",
        ".IGNORE",
        ".LOW_RESOLUTION_TIME",
        ".SILENT",
        ".EXPORT_ALL_VARIABLES",
        ".NOTPARALLEL",
        ".ONESHELL",
        ".POSIX",
        ".NOTINTERMEDIATE",
        ".WAIT",
    }
)


@dataclass
class Rule:
    file: str
    line: int
    prerequisites: list[str] = field(default_factory=list)
    recipe: list[str] = field(default_factory=list)


@dataclass
class Makefile:
    rules: dict[str, Rule] = field(default_factory=dict)
    patterns: list[str] = field(default_factory=list)
    pattern_rules: dict[str, Rule] = field(default_factory=dict)  # `test-%` → its recipe
    first_target: str | None = None
    default_goal: str | None = None  # .DEFAULT_GOAL when set
    variables: dict[str, str] = field(default_factory=dict)


_ASSIGNMENT = lazy(r"^(?:(?:export|override|private)\s+)*([^\s:#=]+)\s*(::?=|:::=|\+=|\?=|!=|=)(.*)$")
_RULE = lazy(r"^([^:=#]+?)\s*(::?)(?!=)(.*)$")
_CONDITIONAL = lazy(r"^(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DIRECTIVE = lazy(r"^(export|unexport|vpath|undefine|override|\$\(eval|\$\(info|\$\(warning|\$\(error|\$\(call)\b")
_INCLUDE = lazy(r"^(-include|sinclude|include)\s+(.*)$")
_VARIABLE = lazy(r"\$[({]([A-Za-z_][A-Za-z0-9_.-]*)[)}]")
_ENDEF = lazy(r"^\s*endef\b")
_DEFINE = lazy(r"^(override\s+)?define\b")
_TARGET_VARIABLE = lazy(r"^\s*[^\s=]+\s*(:?=|\+=|\?=)")
# What a line must not start with to be read as a plain rule at once (directives, conditionals, expansions).
_NOT_PLAIN_RULE = (
    "if", "else", "endif", "export", "unexport", "vpath", "undefine", "override", "private", "define", "$",
    "include", "-include", "sinclude",
)  # fmt: skip


def parse_makefile(c: Collector, rel: str, into: Makefile, depth: int = 0) -> None:
    text = c.read_text(rel)
    if text is None:
        return
    current: list[Rule] = []
    in_define = False
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        start = number + 1
        line = lines[number]
        number += 1
        while line.endswith("\\") and number < len(lines):
            line = line[:-1] + " " + lines[number].lstrip()
            number += 1
        if in_define:
            if _ENDEF.match(line):
                in_define = False
            continue
        if line.startswith("\t") and current:
            recipe_line = line.strip()
            if recipe_line and not recipe_line.startswith("#"):
                for rule in current:
                    rule.recipe.append(recipe_line)
            continue
        stripped = _strip_comment(line).strip()
        if not stripped:
            continue
        if "=" not in stripped and ":" in stripped and not stripped.startswith(_NOT_PLAIN_RULE):
            # the common line, `name: prerequisites`, read without trying the rest
            targets, _colon, rest = stripped.partition(":")
            if targets.strip() and not rest.startswith(":"):
                current = _add_rule(into, rel, start, targets, rest)
                continue
        if _DEFINE.match(stripped):
            in_define = True
            continue
        if _CONDITIONAL.match(stripped):
            continue  # both branches are read; the rule context carries across, as in make
        if _DIRECTIVE.match(stripped) and not _ASSIGNMENT.match(stripped):
            continue
        include = _INCLUDE.match(stripped)
        if include:
            current = []
            _include(c, rel, include.group(1), include.group(2), into, depth, start)
            continue
        # `A := b:c` is an assignment, `t: A = b` a target-specific one: the two patterns never both match.
        assignment = _ASSIGNMENT.match(stripped)
        if assignment and not _RULE.match(stripped.split("=", 1)[0] + "="):
            name, operator, value = assignment.group(1), assignment.group(2), assignment.group(3).strip()
            if name == ".DEFAULT_GOAL":
                into.default_goal = value or None
            elif operator == "+=" and name in into.variables:
                into.variables[name] += " " + value
            elif operator != "?=" or name not in into.variables:
                into.variables[name] = "" if operator == "!=" else value  # `!=` runs a shell command: unknown
            if not line.startswith("\t"):
                current = []
            continue
        rule_line = _RULE.match(stripped)
        if rule_line:
            # make expands the names in a rule line as it reads them (`target/$(BINARY):`)
            targets = rule_line.group(1)
            if "$" in targets and "$" not in _expand(targets, into.variables):
                targets = _expand(targets, into.variables)
            current = _add_rule(into, rel, start, targets, rule_line.group(3))
            continue
        if line.startswith("\t"):
            continue  # a tab-indented line outside any rule (inside a conditional, say): not a recipe
        if line.startswith(" ") and current:
            c.problem(rel, f"line {start}: missing separator (recipe lines must start with a tab, not spaces)")
        elif not stripped.startswith("$("):
            c.problem(rel, f"line {start}: missing separator (not a rule, assignment or directive: {stripped[:60]!r})")
        current = []
        c.check_time()


def _strip_comment(line: str) -> str:
    index = line.find("#")
    while index > 0 and line[index - 1] == "\\":
        index = line.find("#", index + 1)
    return line if index < 0 else line[:index]


def _include(c: Collector, rel: str, directive: str, names: str, into: Makefile, depth: int, line: int) -> None:
    for name in names.split():
        name = _expand(name, into.variables)
        if "$" in name or "*" in name:
            continue  # computed or globbed include: its name is only known to make itself
        base = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
        included = f"{base}{name}" if not name.startswith("/") else name
        if not c.is_file(included):
            if directive == "include" and included not in into.rules:
                c.problem(rel, f"line {line}: included file {name!r} not found")
            continue
        if depth >= _MAX_INCLUDE_DEPTH:
            c.problem(rel, f"line {line}: includes nested deeper than {_MAX_INCLUDE_DEPTH} levels; {name!r} not read")
            continue
        c.manifest(included)
        parse_makefile(c, included, into, depth + 1)


def _add_rule(into: Makefile, rel: str, line: int, targets_text: str, rest: str) -> list[Rule]:
    inline_recipe = ""
    if ";" in rest:
        rest, inline_recipe = rest.split(";", 1)
    if ":" in rest and "=" not in rest.split(":", 1)[0]:
        rest = rest.split(":", 1)[1]  # static pattern rule: targets: target-pattern: prereq-patterns
    if "=" in rest and _TARGET_VARIABLE.match(rest):
        rest = ""  # target-specific variable assignment, not prerequisites
    prerequisites = rest.replace("|", " ").split()
    names = targets_text.split()
    if len(names) == 1 and not inline_recipe and names[0] not in into.rules:
        target = names[0]  # the common case: one new plain target
        if "%" not in target and "$" not in target and target not in _SPECIAL_TARGETS:
            if into.first_target is None and (not target.startswith(".") or "/" in target):
                into.first_target = target
            unique = list(dict.fromkeys(prerequisites)) if len(prerequisites) > 1 else prerequisites
            new = into.rules[target] = Rule(rel, line, unique)
            return [new]
    rules: list[Rule] = []
    for target in names:
        if "%" in target:
            # A pattern rule makes no target of its own; `make test-full` instantiates `test-%`.
            into.patterns.append(target)
            pattern_rule = into.pattern_rules.setdefault(target, Rule(rel, line, prerequisites))
            if inline_recipe.strip():
                pattern_rule.recipe.append(inline_recipe.strip())
            rules.append(pattern_rule)
            continue
        if target in _SPECIAL_TARGETS or "$" in target:
            rules.append(Rule(rel, line))  # its recipe lines (if any) are not any target's
            continue
        rule = into.rules.get(target)
        if rule is None:
            rule = into.rules[target] = Rule(rel, line)
        rule.prerequisites.extend(p for p in prerequisites if p not in rule.prerequisites)
        if inline_recipe.strip():
            rule.recipe.append(inline_recipe.strip())
        # make's default goal: the first target that does not start with a dot (unless it holds a slash)
        if into.first_target is None and (not target.startswith(".") or "/" in target):
            into.first_target = target
        rules.append(rule)
    return rules


def _expand(text: str, variables: dict[str, str], depth: int = 0) -> str:
    """`$(PYTHON) -m pytest` with `PYTHON ?= python3` → `python3 -m pytest`; unknown variables stay as written."""
    if depth > 8 or "$" not in text:
        return text

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "MAKE":
            return "make"
        if name in variables:
            return _expand(variables[name], variables, depth + 1)
        # make expands a variable nobody set to nothing (the environment may set it; without it, nothing)
        return "" if name.isupper() or "_" in name else match.group(0)

    return _VARIABLE.sub(value, text)


def expanded_lines(makefile: Makefile, target: str, seen: set[str] | None = None, depth: int = 0) -> list[str]:
    """The recipe lines `make target` runs, its prerequisites' first, variables expanded where they are simple."""
    seen = seen if seen is not None else set()
    rule = makefile.rules.get(target)
    if rule is None or target in seen or depth > _MAX_PREREQUISITE_DEPTH:
        return []
    seen.add(target)
    lines: list[str] = []
    for prerequisite in rule.prerequisites:
        if "$" in prerequisite:
            prerequisite = _expand(prerequisite, makefile.variables)
        lines.extend(expanded_lines(makefile, prerequisite, seen, depth + 1))
        if len(lines) > _MAX_BODY_LINES:
            return lines[:_MAX_BODY_LINES]
    for line in rule.recipe:
        line = re.sub(r"^[@+-]+", "", line.strip())
        if _MAKE_FUNCTION_ONLY.match(line):
            continue  # `$(info …)`: make prints it; the shell never sees it
        lines.append(_expand(line, makefile.variables).replace("$$", "$"))
    return lines[:_MAX_BODY_LINES]


_MAKE_FUNCTION_ONLY = lazy(r"^\$[({](info|warning|error|eval)\s[^)}]*[)}]\s*$")


def instantiate(makefile: Makefile, target: str) -> list[str] | None:
    """The recipe of `target` made by a pattern rule (`test-%` for `test-full`), automatic variables filled in."""
    for pattern, rule in makefile.pattern_rules.items():
        prefix, _, suffix = pattern.partition("%")
        if not (target.startswith(prefix) and target.endswith(suffix) and len(target) > len(prefix) + len(suffix)):
            continue
        stem = target[len(prefix) : len(target) - len(suffix)] if suffix else target[len(prefix) :]
        lines: list[str] = []
        for line in rule.recipe:
            line = re.sub(r"^[@+-]+", "", line.strip())
            line = re.sub(r"\$[({]@:[^=)}]*=[^)}]*[)}]", stem, line)  # `${@:test-%=%}`: the stem
            line = line.replace("$*", stem).replace("$@", target).replace("$(@)", target)
            lines.append(_expand(line, makefile.variables).replace("$$", "$"))
        return lines
    return None


_TARGET_NAME = lazy(r"^[A-Za-z0-9_][A-Za-z0-9_+:-]*$")


def _is_file_target(name: str, makefile: Makefile) -> bool:
    """A prerequisite that is a file the rule builds (`target/fzf`, `bin/app`), not a phony step."""
    if name in makefile.rules and makefile.rules[name].recipe and "/" not in name:
        return False
    return "/" in name or "$(" in name


# More targets than this and the Makefile is generated: only targets whose names speak are read.
MAX_MAKE_TARGETS = 2000
_NUMBERS = lazy(r"\d{2,}")  # no name pattern tells `py311` from `py0` (`e2e` keeps its single digit)


# A variable in a selecting place of a recipe: the value of a selecting variable (`TEST_FILTER='$(F)'`) or of a
# filtering option (`-Dtest-filter=$(F)`, `--filter $(F)`, `-run $(RUN)`, `-k $(K)`).
_SELECTING_PLACE = lazy(
    r"(?:(?<![\w-])([A-Za-z_][A-Za-z0-9_]*)=|(?<![\w-])-{1,2}[\w.-]*?(?:filter|only|run|grep|pattern|match|select|k)"
    r"[\w.-]*[= ])['\"]?\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]"
)


def selectors(makefile: Makefile, target: str, seen: set[str] | None = None) -> tuple[str, ...]:
    """The variables a run of `make target` may set to select part of what it runs: those its recipe (and its
    prerequisites') put in a selecting place while the Makefile leaves them empty, so that only a run that sets
    one narrows (`make t F=router`; `make test PYTHON=python3.12` is still the whole suite)."""
    from freshpass.facts.tools.args import _SELECTING_VARIABLE

    seen = seen if seen is not None else set()
    rule = makefile.rules.get(target)
    if rule is None or target in seen or len(seen) > _MAX_PREREQUISITE_DEPTH:
        return ()
    seen.add(target)
    found: list[str] = []
    for prerequisite in rule.prerequisites:
        found.extend(selectors(makefile, prerequisite, seen))
    for line in rule.recipe:
        for place in _SELECTING_PLACE.finditer(line):
            assigned, variable = place.group(1), place.group(2)
            if assigned is not None and not _SELECTING_VARIABLE.search(assigned.upper()):
                continue
            if makefile.variables.get(variable, "").strip() == "":
                found.append(variable)
    return tuple(dict.fromkeys(found))


def _read_make(c: Collector, package: Package) -> None:
    rel = next((under(package.cwd, n) for n in MAKEFILES if c.is_file(under(package.cwd, n))), None)
    if rel is None:
        return
    c.manifest(rel)
    makefile = Makefile()
    parse_makefile(c, rel, makefile)
    goal = makefile.default_goal or makefile.first_target
    names = [
        name
        for name in makefile.rules
        # not hidden helper targets (`.uv`) nor file targets (`build/app.o`, `docs/index.html`)
        if not (name.startswith(".") or "/" in name or "." in name or not _TARGET_NAME.match(name))
    ]
    if len(names) > MAX_MAKE_TARGETS:
        # a generated Makefile: the targets whose names say what they do, the goal, and what those depend on
        # Generated names differ in their numbers (`obj1234`): a name's kind is read once per shape.
        speaks: dict[str, bool] = {}
        said = set()
        for n in names:
            shape = _NUMBERS.sub("0", n)
            if shape not in speaks:
                speaks[shape] = script_kind(shape) is not None
            if speaks[shape] or n == goal:
                said.add(n)
        said |= {p for n in said for p in makefile.rules[n].prerequisites if p in makefile.rules}
        c.problem(
            rel,
            f"{len(names)} targets; only the {len(said)} whose names say what they do (and what they depend on) "
            "were read",
        )
        names = [n for n in names if n in said]
    for name in names:
        rule = makefile.rules[name]
        body: tuple[str, ...] | None = tuple(expanded_lines(makefile, name))
        kind: Kind | None = None
        builds_files = rule.prerequisites and all(_is_file_target(p, makefile) for p in rule.prerequisites)
        if not rule.recipe and builds_files and (name == goal or name in ("all", "build", "default")):
            body, kind = None, "build"  # `all: target/$(BINARY)`: it makes files (a binary), and only that
        source = f"{rule.file}:{name}"
        spellings = ("make",) if name == goal else ()
        c.entry(f"make {name}", package.cwd, source, body, name, kind)
        c.add(
            Candidate(
                f"make {name}",
                package.cwd,
                source,
                "local",
                name=name,
                body=body,
                spellings=spellings,
                kind=kind,
                selectors=selectors(makefile, name),
            )
        )
    if goal and goal in makefile.rules:
        c.entry("make", package.cwd, f"{makefile.rules[goal].file}:{goal}", (f"make {goal}",), goal)
    if makefile.pattern_rules:
        c.make_files[package.cwd] = makefile


# -- just --------------------------------------------------------------------------------------------------------

_JUST_RECIPE = lazy(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[^:]*?)?)\s*:(?!=)(.*)$")
_JUST_ALIAS = lazy(r"^alias\s+([A-Za-z_][\w-]*)\s*:=\s*([A-Za-z_][\w-]*)\s*$")
_JUST_NOT_RECIPE = lazy(r"^(set|export|import|mod)\b|^[A-Za-z_][\w-]*\s*:=")


def _read_just(c: Collector, package: Package) -> None:
    rel = next((under(package.cwd, n) for n in JUSTFILES if c.is_file(under(package.cwd, n))), None)
    if rel is None:
        return
    text = c.read_text(rel)
    if text is None:
        return
    c.manifest(rel)
    recipes: dict[str, tuple[list[str], list[str]]] = {}  # name -> (dependencies, body lines)
    aliases: dict[str, str] = {}
    parameters: dict[str, list[str]] = {}
    order: list[str] = []
    current: str | None = None
    for raw in text.splitlines():
        if raw[:1] in (" ", "\t"):
            if current is not None and raw.strip() and not raw.strip().startswith("#"):
                recipes[current][1].append(raw.strip())
            continue
        line = raw.split("#", 1)[0].rstrip() if not raw.startswith("#!") else ""
        current = None
        if not line or line.startswith("["):
            continue
        found_alias = _JUST_ALIAS.match(line)
        if found_alias:
            aliases[found_alias.group(1)] = found_alias.group(2)
            continue
        if _JUST_NOT_RECIPE.match(line):
            continue
        recipe = _JUST_RECIPE.match(line)
        if recipe:
            current = recipe.group(1)
            parameters[current] = re.findall(r"[*+$]?([A-Za-z_][\w-]*)(?:=\S+)?", recipe.group(2) or "")
            dependencies = re.findall(r"[A-Za-z_][\w-]*", re.sub(r"\([^)]*\)", "", recipe.group(3)))
            recipes[current] = (dependencies, [])
            order.append(current)
    default = order[0] if order else None

    def lines_of(name: str, seen: set[str]) -> list[str]:
        if name in seen or name not in recipes:
            return []
        seen.add(name)
        dependencies, body = recipes[name]
        out = [line for d in dependencies for line in lines_of(d, seen)]
        body_lines = [] if body[:1] and body[0].startswith("#!") else body
        # a recipe's parameters (`{{ARGS}}`) are the person's own arguments: nothing of the recipe itself
        names = "|".join(re.escape(p) for p in parameters.get(name, []))
        if names:
            body_lines = [re.sub(r"\{\{\s*(" + names + r")\s*\}\}", "", line) for line in body_lines]
        return out + [re.sub(r"^[@-]+", "", line).strip() for line in body_lines]

    for name in order:
        body = tuple(lines_of(name, set()))
        if recipes[name][1][:1] and recipes[name][1][0].startswith("#!"):
            body_or_none: tuple[str, ...] | None = (
                None if "python" in recipes[name][1][0] else tuple(recipes[name][1][1:])
            )
        else:
            body_or_none = body
        source = f"{rel}:{name}"
        spellings = tuple(f"just {a}" for a, target in aliases.items() if target == name)
        if name == default:
            spellings += ("just",)
        c.entry(f"just {name}", package.cwd, source, body_or_none, name)
        for other in (a for a, target in aliases.items() if target == name):
            c.entry(f"just {other}", package.cwd, source, body_or_none, name)
        c.add(
            Candidate(f"just {name}", package.cwd, source, "local", name=name, body=body_or_none, spellings=spellings)
        )
    if default is not None:
        c.entry("just", package.cwd, f"{rel}:{default}", (f"just {default}",), default)


# -- Task (taskfile.dev) -------------------------------------------------------------------------------------------


_ENV_NAME = lazy(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _task_lines(tasks: dict[str, Any], name: str, seen: set[str]) -> tuple[list[str], bool]:
    """Command lines of a task (its deps' and called tasks' included) and whether it watches."""
    if name in seen or not isinstance(tasks.get(name), (dict, list, str)):
        return [], False
    seen.add(name)
    task = tasks[name]
    if isinstance(task, str):
        return [task], False
    if isinstance(task, list):
        task = {"cmds": task}
    lines: list[str] = []
    watches = bool(task.get("watch"))
    for dep in _as_list(task.get("deps")):
        dep_name = dep.get("task") if isinstance(dep, dict) else dep
        dep_task = tasks.get(dep_name) if isinstance(dep_name, str) else None
        if isinstance(dep_task, dict) and guarded_setup(_as_list(dep_task.get("status"))):
            continue  # it only installs a tool where it is missing (`status: command -v x`): setup, not the check
        if isinstance(dep_name, str):
            more, watch = _task_lines(tasks, dep_name, seen)
            lines.extend(more)
            watches = watches or watch
    # the task's `env:` is the environment of its own commands (`GOLDIE_UPDATE: 'true'` makes `go test` write)
    env = task.get("env")
    prefix = "".join(
        f"{key}={shlex.quote(str(value).lower() if isinstance(value, bool) else str(value))} "
        for key, value in (env.items() if isinstance(env, dict) else ())
        if isinstance(key, str) and _ENV_NAME.match(key) and isinstance(value, (str, int, float, bool))
    )
    for cmd in _as_list(task.get("cmds")):
        if isinstance(cmd, str):
            lines.append(prefix + cmd)
        elif isinstance(cmd, dict) and isinstance(cmd.get("cmd"), str):
            lines.append(prefix + cmd["cmd"])
        elif isinstance(cmd, dict) and isinstance(cmd.get("task"), str):
            called = tasks.get(cmd["task"])
            if isinstance(called, dict) and guarded_setup(_as_list(called.get("status"))):
                continue
            more, watch = _task_lines(tasks, cmd["task"], seen)
            lines.extend(more)
            watches = watches or watch
    return lines, watches


def _as_list(value: Any) -> list[Any]:
    """Taskfile accepts a single value where a list is usual (`cmds: go test ./...`)."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _read_task(c: Collector, package: Package) -> None:
    rel = next((under(package.cwd, n) for n in TASKFILES if c.is_file(under(package.cwd, n))), None)
    if rel is None:
        return
    data = c.load_yaml(rel)
    c.manifest(rel)
    if data is None:
        return
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        c.problem(rel, "no 'tasks' mapping")
        return
    for name in tasks:
        if not isinstance(name, str):
            continue
        lines, watches = _task_lines(tasks, name, set())
        source = f"{rel}#tasks.{name}"
        command = "task" if name == "default" else f"task {name}"
        body = ("watchexec",) if watches else tuple(lines)  # a `watch: true` task never finishes
        c.entry(command, package.cwd, source, body, name)
        c.add(Candidate(command, package.cwd, source, "local", name=name, body=body))


# -- Rake ------------------------------------------------------------------------------------------------------------

# Rake tasks libraries define: (pattern, the task name it defaults to, its kind, the tool it runs). A test task
# whose files are configured runs its tool over them: no command to show, but whose suite it is (minitest's) is known.
_RAKE_LIBRARY_TASKS: tuple[tuple[LazyPattern, str, Kind, str | None], ...] = (
    (lazy(r"Rake::TestTask\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "test", "test", "minitest"),
    (lazy(r"Minitest::TestTask\.create\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "test", "test", "minitest"),
    (lazy(r"RSpec::Core::RakeTask\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "spec", "test", "rspec"),
    (lazy(r"Cucumber::Rake::Task\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "cucumber", "test", "cucumber"),
    (lazy(r"RuboCop::RakeTask\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "rubocop", "lint", "rubocop"),
    (lazy(r"StandardRB::RakeTask|require ['\"]standard/rake['\"]"), "standard", "lint", "standardrb"),
)
# Library tasks that are not checks but whose declaration says what they run, so their name does not decide
# (`YARD::Rake::YardocTask.new(:yard_for_generate_documentation)` builds API docs, it rewrites no source).
_RAKE_LIBRARY_TOOLS: tuple[tuple[LazyPattern, str, str], ...] = (
    (lazy(r"YARD::Rake::YardocTask\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "yard", "yard doc"),
    (lazy(r"RDoc::Task\.new\b\s*(?:\(\s*[:\"']*([\w:-]+))?"), "rdoc", "rdoc"),
)
_RAKE_TASK = lazy(
    r"""^\s*task\s*\(?\s*[:"']*([\w-]+(?::[\w-]+)*)["']?\s*(?:,\s*\[[^\]]*\]\s*)?(?:(?:=>|:)\s*(.*?))?\s*\)?\s*(do\b.*|\{.*)?$"""
)
_RAKE_NAMESPACE = lazy(r"""^(\s*)namespace\s*\(?\s*[:"']*([\w-]+)["']?\s*\)?\s*do\b""")
_RAKE_END = lazy(r"^(\s*)end\b")
_RAKE_SH = lazy(r"""\b(sh|system|ruby)\s*\(?\s*(['"])(.+?)\2""")


def _rake_command(found: re.Match[str]) -> str:
    """`sh "cmd"` and `system "cmd"` run a shell command; rake's `ruby "-S rspec"` runs ruby with those arguments."""
    return f"ruby {found.group(3)}" if found.group(1) == "ruby" else found.group(3)


_RAKE_NAMES = lazy(r"""[:"']([\w:-]+)|%[wi]\[([^\]]*)\]""")


def _rake_names(text: str) -> list[str]:
    names: list[str] = []
    for match in _RAKE_NAMES.finditer(text):
        if match.group(1):
            names.append(match.group(1))
        else:
            names.extend(match.group(2).split())
    return names


def _qualified(scope: str, name: str) -> str:
    return f"{scope}:{name}" if scope else name


def _rake_files(c: Collector, cwd: str) -> list[str]:
    files = [under(cwd, n) for n in ("Rakefile", "rakefile", "Rakefile.rb") if c.is_file(under(cwd, n))][:1]
    if not files:
        return []
    for directory in ("rakelib", "tasks", "lib/tasks"):
        for name in c.listdir(under(cwd, directory))[:100]:
            if name.endswith(".rake") and c.is_file(under(cwd, f"{directory}/{name}")):
                files.append(under(cwd, f"{directory}/{name}"))
    return files


def _read_rake(c: Collector, package: Package, prefix: str) -> None:
    """Rake tasks of the Rakefile and the task files rake loads (rakelib/, tasks/): names within their namespaces,
    prerequisites, the shell commands their blocks run (`sh "…"`), and the tasks libraries define."""
    files = _rake_files(c, package.cwd)
    if not files:
        return
    c.manifest(files[0])
    tasks: dict[str, tuple[Kind | None, list[str], str, str]] = {}  # name → (kind, body lines, source, suite)
    default: tuple[list[str], str] | None = None
    for rel in files:
        text = c.read_text(rel)
        if text is None:
            continue
        stack: list[tuple[int, str]] = []
        block: tuple[int, str] | None = None  # (indent, task) whose `do … end` block is being read
        for line in text.splitlines()[:20000]:
            indent = len(line) - len(line.lstrip())
            namespace = _RAKE_NAMESPACE.match(line)
            if namespace:
                stack.append((len(namespace.group(1)), namespace.group(2)))
                continue
            end = _RAKE_END.match(line)
            if end:
                if block is not None and len(end.group(1)) == block[0]:
                    block = None
                elif stack and len(end.group(1)) == stack[-1][0]:
                    stack.pop()
                continue
            scope = ":".join(name for _indent, name in stack)
            for pattern, default_name, kind, tool in _RAKE_LIBRARY_TASKS:
                found = pattern.search(line)
                if found:
                    name = _qualified(scope, found.group(1) if found.groups() and found.group(1) else default_name)
                    # A block (`do |t| t.pattern = …`) configures which files it runs: opaque, but of a known kind.
                    configured = re.search(r"\bdo\b|\{", line[found.end() :]) is not None
                    runs_tool = tool is not None and tool != "minitest" and not configured
                    body = [f"{prefix}{tool}"] if runs_tool else []
                    suite = f"{tool}:{kind}" if tool is not None and not runs_tool else ""
                    tasks[name] = (kind, body, f"{rel}:{name}", suite)
            for pattern, default_name, command in _RAKE_LIBRARY_TOOLS:
                found = pattern.search(line)
                if found:
                    name = _qualified(scope, found.group(1) or default_name)
                    tasks[name] = (None, [command], f"{rel}:{name}", "")
            if block is not None:
                for sh in _RAKE_SH.finditer(line):
                    tasks[block[1]][1].append(_rake_command(sh))
                continue
            task = _RAKE_TASK.match(line)
            if not task:
                continue
            name = task.group(1)
            prerequisites = [
                f"{prefix}rake {_qualified(scope, d) if ':' not in d else d}" for d in _rake_names(task.group(2) or "")
            ]
            if name == "default" and not scope:
                default = (prerequisites, f"{rel}:default")
                continue
            name = _qualified(scope, name)
            known, body, source, suite = tasks.get(name, (None, [], f"{rel}:{name}", ""))
            tasks[name] = (known, [*body, *prerequisites], source, suite)
            if task.group(3) and task.group(3).startswith("do") and not line.rstrip().endswith("end"):
                block = (indent, name)
            for sh in _RAKE_SH.finditer(line):
                tasks[name][1].append(_rake_command(sh))
    for name, (task_kind, body, source, suite) in tasks.items():
        command = f"{prefix}rake {name}"
        lines = tuple(body) if body else None
        c.entry(command, package.cwd, source, lines, name, task_kind, suite)
        c.add(Candidate(command, package.cwd, source, "local", name=name, kind=task_kind, body=lines))
    if default is not None:
        body_lines = tuple(default[0])
        c.entry(f"{prefix}rake", package.cwd, default[1], body_lines, "default")
        c.add(
            Candidate(f"{prefix}rake", package.cwd, default[1], "local", name="default", body=body_lines, default=True)
        )


def read(c: Collector, package: Package) -> None:
    _read_make(c, package)
    _read_just(c, package)
    _read_task(c, package)
    prefix = "bundle exec " if c.is_file(under(package.cwd, "Gemfile")) else ""
    _read_rake(c, package, prefix)
