"""Level 7: task runners. Makefile (with `include`d files and pattern rules), justfile, Taskfile.

A target counts when its name is one of design §2's check names and what it runs (its recipe and, recursively,
its prerequisites) neither rewrites files nor never exits. The default goal counts only when it checks something
and installs nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from freshpass.facts.model import Kind

from .base import TASK_RUNNER, Collector
from .shell import CHECK_NAMES, body_rejection, is_install, logical_lines, recognise_line, split_line

MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
JUSTFILES = ("justfile", "Justfile", ".justfile")
TASKFILES = ("Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml")
_MAX_INCLUDE_DEPTH = 4
_MAX_PREREQUISITE_DEPTH = 6
_SETUP_GOALS = re.compile(r"^(install|setup|deps|dependencies|venv|env|bootstrap|dev|develop|init|help|sync)$")


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
    first_target: str | None = None
    default_goal: str | None = None  # .DEFAULT_GOAL when set


_ASSIGNMENT = re.compile(r"^(?:(?:export|override|private)\s+)*([^\s:#=]+)\s*(?::::?=|::=|:=|\+=|\?=|!=|=)(.*)$")
_RULE = re.compile(r"^([^:=#]+?)\s*(::?)(?!=)(.*)$")
_CONDITIONAL = re.compile(r"^(ifeq|ifneq|ifdef|ifndef|else|endif)\b")
_DIRECTIVE = re.compile(r"^(export|unexport|vpath|undefine|override|\$\(eval|\$\(info|\$\(warning|\$\(error)\b")
_INCLUDE = re.compile(r"^(-include|sinclude|include)\s+(.*)$")


def _parse_makefile(c: Collector, rel: str, into: Makefile, depth: int = 0) -> None:
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
            if re.match(r"^\s*endef\b", line):
                in_define = False
            continue
        if line.startswith("\t"):
            if current:
                recipe_line = line.strip()
                if recipe_line and not recipe_line.startswith("#"):
                    for rule in current:
                        rule.recipe.append(recipe_line)
            elif line.strip() and not line.strip().startswith("#"):
                c.problem(rel, f"line {start}: recipe commences before first target")
            continue
        stripped = line.split("#", 1)[0].strip() if "#" in line and "\\#" not in line else line.strip()
        if not stripped:
            continue
        if re.match(r"^(override\s+)?define\b", stripped):
            in_define = True
            continue
        if _CONDITIONAL.match(stripped) or (_DIRECTIVE.match(stripped) and not _ASSIGNMENT.match(stripped)):
            continue
        include = _INCLUDE.match(stripped)
        if include:
            current = []
            _include(c, rel, include.group(1), include.group(2), into, depth, start)
            continue
        # `A := b:c` is an assignment, `t: A = b` a target-specific one: the two patterns never both match.
        assignment = _ASSIGNMENT.match(stripped)
        if assignment:
            current = []
            if assignment.group(1) == ".DEFAULT_GOAL":
                into.default_goal = assignment.group(2).strip() or None
            continue
        rule_line = _RULE.match(stripped)
        if rule_line:
            current = _add_rule(into, rel, start, rule_line.group(1), rule_line.group(3))
            continue
        if line.startswith(" ") and current:
            c.problem(rel, f"line {start}: missing separator (recipe lines must start with a tab, not spaces)")
        else:
            c.problem(rel, f"line {start}: missing separator (not a rule, assignment or directive: {stripped[:60]!r})")
        current = []


def _include(c: Collector, rel: str, directive: str, names: str, into: Makefile, depth: int, line: int) -> None:
    for name in names.split():
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
        _parse_makefile(c, included, into, depth + 1)


def _add_rule(into: Makefile, rel: str, line: int, targets_text: str, rest: str) -> list[Rule]:
    inline_recipe = ""
    if ";" in rest:
        rest, inline_recipe = rest.split(";", 1)
    if ":" in rest and "=" not in rest.split(":", 1)[0]:
        rest = rest.split(":", 1)[1]  # static pattern rule: targets: target-pattern: prereq-patterns
    if re.match(r"^\s*[^\s=]+\s*(:?=|\+=|\?=)", rest):
        rest = ""  # target-specific variable assignment, not prerequisites
    prerequisites = [p for p in rest.replace("|", " ").split() if p]
    rules: list[Rule] = []
    for target in targets_text.split():
        if "%" in target:
            # A pattern rule makes no target of its own, but its recipe lines still belong to it.
            into.patterns.append(target)
            rules.append(Rule(rel, line))
            continue
        if target.startswith(".") or "$" in target:
            continue
        rule = into.rules.get(target)
        if rule is None:
            rule = into.rules[target] = Rule(rel, line)
        rule.prerequisites.extend(p for p in prerequisites if p not in rule.prerequisites)
        if inline_recipe.strip():
            rule.recipe.append(inline_recipe.strip())
        if into.first_target is None:
            into.first_target = target
        rules.append(rule)
    return rules


def _expanded_lines(makefile: Makefile, target: str, seen: set[str] | None = None, depth: int = 0) -> list[str]:
    """The recipe lines `make target` runs, its prerequisites' first (make variables left as written)."""
    seen = seen if seen is not None else set()
    rule = makefile.rules.get(target)
    if rule is None or target in seen or depth > _MAX_PREREQUISITE_DEPTH:
        return []
    seen.add(target)
    lines: list[str] = []
    for prerequisite in rule.prerequisites:
        lines.extend(_expanded_lines(makefile, prerequisite, seen, depth + 1))
    for line in rule.recipe:
        line = re.sub(r"^[@+-]+", "", line)
        lines.append(re.sub(r"\$\(MAKE\)|\$\{MAKE\}", "make", line))
    return lines


def _installs(lines: list[str]) -> bool:
    return any(is_install(tokens) for line in lines for tokens in split_line(line) or [])


def _default_kind(goal: str, prerequisites: list[str], lines: list[str]) -> Kind | None:
    """The kind of check a default goal/recipe is, or None when it installs, sets up or checks nothing."""
    if _SETUP_GOALS.match(goal) or any(_SETUP_GOALS.match(p) for p in prerequisites):
        return None
    if _installs(lines) or body_rejection(lines) is not None:
        return None
    kinds = {CHECK_NAMES[p] for p in prerequisites if p in CHECK_NAMES}
    kinds |= {found.kind for line in lines for found in recognise_line(line)}
    if not kinds:
        return None
    return kinds.pop() if len(kinds) == 1 else "check"


def _detect_make(c: Collector) -> None:
    rel = next((name for name in MAKEFILES if c.is_file(name)), None)
    if rel is None:
        return
    c.manifest(rel)
    makefile = Makefile()
    _parse_makefile(c, rel, makefile)
    goal = makefile.default_goal or makefile.first_target
    for name, kind in CHECK_NAMES.items():
        rule = makefile.rules.get(name)
        if rule is None:
            continue
        lines = _expanded_lines(makefile, name)
        if body_rejection(lines) is not None:
            continue
        c.add(f"make {name}", kind, f"{rule.file}:{name}", TASK_RUNNER, alternatives=("make",) if goal == name else ())
    default_rule = makefile.rules.get(goal) if goal else None
    if goal and default_rule is not None and goal not in CHECK_NAMES:
        default_kind = _default_kind(goal, default_rule.prerequisites, _expanded_lines(makefile, goal))
        if default_kind is not None:
            c.add("make", default_kind, f"{default_rule.file}:{goal}", TASK_RUNNER, alternatives=(f"make {goal}",))


# -- just --------------------------------------------------------------------------------------------------------

_JUST_RECIPE = re.compile(r"^@?([A-Za-z_][A-Za-z0-9_-]*)((?:\s+[^:]*?)?)\s*:(?!=)(.*)$")
_JUST_ALIAS = re.compile(r"^alias\s+([A-Za-z_][\w-]*)\s*:=\s*([A-Za-z_][\w-]*)\s*$")
_JUST_NOT_RECIPE = re.compile(r"^(set|export|import|mod|alias)\b|^[A-Za-z_][\w-]*\s*:=")


def _detect_just(c: Collector) -> None:
    rel = next((name for name in JUSTFILES if c.is_file(name)), None)
    if rel is None:
        return
    text = c.read_text(rel)
    if text is None:
        return
    c.manifest(rel)
    recipes: dict[str, tuple[list[str], list[str]]] = {}  # name -> (dependencies, body lines)
    order: list[str] = []
    current: str | None = None
    for raw in text.splitlines():
        if raw[:1] in (" ", "\t"):
            if current is not None and raw.strip():
                recipes[current][1].append(raw.strip())
            continue
        line = raw.split("#", 1)[0].rstrip() if not raw.startswith("#!") else ""
        current = None
        if not line or line.startswith("["):
            continue
        alias = _JUST_ALIAS.match(line)
        if alias or _JUST_NOT_RECIPE.match(line):
            continue
        recipe = _JUST_RECIPE.match(line)
        if recipe:
            current = recipe.group(1)
            dependencies = [d for d in re.findall(r"[A-Za-z_][\w-]*", recipe.group(3))]
            recipes[current] = (dependencies, [])
            order.append(current)
    default = order[0] if order else None

    def lines_of(name: str, seen: set[str]) -> list[str]:
        if name in seen or name not in recipes:
            return []
        seen.add(name)
        dependencies, body = recipes[name]
        out = [line for d in dependencies for line in lines_of(d, seen)]
        return out + [re.sub(r"^[@-]+", "", line) for line in body]

    for name, kind in CHECK_NAMES.items():
        if name not in recipes or body_rejection(lines_of(name, set())) is not None:
            continue
        c.add(f"just {name}", kind, f"{rel}:{name}", TASK_RUNNER, alternatives=("just",) if default == name else ())
    if default is not None and default not in CHECK_NAMES:
        default_kind = _default_kind(default, recipes[default][0], lines_of(default, set()))
        if default_kind is not None:
            c.add("just", default_kind, f"{rel}:{default}", TASK_RUNNER, alternatives=(f"just {default}",))


# -- Task (taskfile.dev) -------------------------------------------------------------------------------------------


def _task_lines(tasks: dict[str, Any], name: str, seen: set[str]) -> tuple[list[str], bool]:
    """Command lines of a task (its deps' and called tasks' included) and whether it watches."""
    if name in seen or not isinstance(tasks.get(name), (dict, list, str)):
        return [], False
    seen.add(name)
    task = tasks[name]
    if isinstance(task, str):
        return logical_lines(task), False
    if isinstance(task, list):
        task = {"cmds": task}
    lines: list[str] = []
    watches = bool(task.get("watch"))
    for dep in _as_list(task.get("deps")):
        dep_name = dep.get("task") if isinstance(dep, dict) else dep
        if isinstance(dep_name, str):
            more, watch = _task_lines(tasks, dep_name, seen)
            lines.extend(more)
            watches = watches or watch
    for cmd in _as_list(task.get("cmds")):
        if isinstance(cmd, str):
            lines.extend(logical_lines(cmd))
        elif isinstance(cmd, dict) and isinstance(cmd.get("cmd"), str):
            lines.extend(logical_lines(cmd["cmd"]))
        elif isinstance(cmd, dict) and isinstance(cmd.get("task"), str):
            more, watch = _task_lines(tasks, cmd["task"], seen)
            lines.extend(more)
            watches = watches or watch
    return lines, watches


def _as_list(value: Any) -> list[Any]:
    """Taskfile accepts a single value where a list is usual (`cmds: go test ./...`)."""
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _detect_task(c: Collector) -> None:
    rel = next((name for name in TASKFILES if c.is_file(name)), None)
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
    for name, kind in CHECK_NAMES.items():
        if name not in tasks:
            continue
        lines, watches = _task_lines(tasks, name, set())
        if watches or body_rejection(lines) is not None:
            continue
        c.add(f"task {name}", kind, f"{rel}#tasks.{name}", TASK_RUNNER)


def detect(c: Collector) -> None:
    _detect_make(c)
    _detect_just(c)
    _detect_task(c)
