"""Levels 5 and 6 for Python: pytest through the environment manager, the project's own runners (runtests.py,
spin, tox envs, nox sessions, hatch and pdm scripts), then tool configuration (ruff, mypy, pyright, flake8)."""

from __future__ import annotations

import ast
import configparser
import itertools
import re
from typing import Any

from freshpass.facts.model import Kind

from .base import PYTHON, TOOL_CONFIG, Collector, get_path, normalise_cwd
from .shell import NOT_CHECK_WORDS, body_rejection, guess_kind, logical_lines, recognise_line

# Lockfiles first (they say which tool resolved the environment), then configuration that implies the tool.
_LOCK_MANAGERS = (("uv.lock", "uv"), ("poetry.lock", "poetry"), ("pdm.lock", "pdm"), ("Pipfile.lock", "pipenv"))
_RUN_PREFIX = {"uv": "uv run ", "poetry": "poetry run ", "pdm": "pdm run ", "pipenv": "pipenv run "}
_PYTHON_MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile")


def _ini(c: Collector, rel: str) -> configparser.ConfigParser | None:
    text = c.read_text(rel)
    if text is None:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00no-defaults")
    try:
        parser.read_string(text, source=rel)
    except configparser.Error as exc:
        message = str(exc).replace("\n", " ").strip()
        c.problem(rel, f"invalid INI: {message}")
        return None
    return parser


class PythonDetector:
    def __init__(self, c: Collector) -> None:
        self.c = c
        self.pyproject = c.load_toml("pyproject.toml") if c.exists("pyproject.toml") else None
        self.setup_cfg = _ini(c, "setup.cfg") if c.exists("setup.cfg") else None
        self.tox_ini = _ini(c, "tox.ini") if c.exists("tox.ini") else None
        self.hatch_toml = c.load_toml("hatch.toml") if c.exists("hatch.toml") else None
        self.manager = self._manager()

    def tool(self, *keys: str) -> Any:
        return get_path(self.pyproject, "tool", *keys)

    def _manager(self) -> str | None:
        c = self.c
        for lockfile, name in _LOCK_MANAGERS:
            if c.exists(lockfile):
                c.manifest(lockfile)
                return name
        if self.tool("poetry") is not None:
            return "poetry"
        if self.tool("pdm") is not None:
            return "pdm"
        if self.tool("uv") is not None:
            return "uv"
        if get_path(self.tool("hatch"), "envs") is not None or self.hatch_toml is not None:
            return "hatch"
        if c.exists("Pipfile"):
            return "pipenv"
        return None

    # -- level 5 -----------------------------------------------------------------------------------------------

    def detect_runners(self) -> None:
        c = self.c
        is_python = any(c.exists(name) for name in _PYTHON_MANIFESTS)
        for name in ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "tox.ini", "Pipfile", "hatch.toml"):
            if c.exists(name):
                c.manifest(name)
        if self.manager:
            c.package_manager(self.manager)
        elif is_python:
            c.package_manager("pip")
        self._runtests()
        self._spin()
        self._hatch_scripts()
        self._pdm_scripts()
        self._pytest()
        self._tox()
        self._nox()

    def _runtests(self) -> None:
        """A project's own test runner script, run from the directory it lives in.

        Django keeps tests/runtests.py and runs it from tests/: its tox.ini says `changedir = tests` with
        `commands = {envpython} runtests.py`. A tox `changedir` is where that env's commands run, so it is where
        a runtests.py named in them is looked for, besides the root and tests/.
        """
        directories = [".", "tests", *self._tox_changedirs_running("runtests.py")]
        for cwd in dict.fromkeys(directories):
            rel = "runtests.py" if cwd == "." else f"{cwd}/runtests.py"
            if not self.c.is_file(rel):
                continue
            executable = self.c.is_executable(rel)
            command = "./runtests.py" if executable else "python runtests.py"
            alternatives = ("python runtests.py",) if executable else ()
            self.c.add(command, "test", rel, PYTHON, cwd=cwd, alternatives=alternatives)
            self.c.pytest_routed_by = self.c.pytest_routed_by or rel

    def _tox_changedirs_running(self, script: str) -> list[str]:
        """tox.ini `changedir`s (relative to the root) of envs whose commands run `script`."""
        ini = self.tox_ini
        if ini is None:
            return []
        found: list[str] = []
        for section in ("testenv", *(s for s in ini.sections() if s.startswith("testenv:"))):
            if not ini.has_section(section):
                continue
            changedir = ini.get(section, "changedir", fallback="").strip()
            commands = ini.get(section, "commands", fallback="")
            if not changedir or script not in commands:
                continue
            changedir = changedir.replace("{toxinidir}", ".").replace("{tox_root}", ".")
            if "{" not in changedir and not changedir.startswith("/"):
                cwd = normalise_cwd(changedir)
                if not cwd.startswith(".."):
                    found.append(cwd)
        return found

    def _spin(self) -> None:
        c = self.c
        spin = self.tool("spin")
        if spin is None and not c.is_file(".spin/cmds.py"):
            return
        names: list[str] = []
        commands = get_path(spin, "commands")
        entries: list[Any] = []
        if isinstance(commands, dict):
            for value in commands.values():
                entries.extend(value if isinstance(value, list) else [value])
        elif isinstance(commands, list):
            entries = commands
        for entry in entries:
            if isinstance(entry, str):
                name = entry.rsplit(".", 1)[-1].replace("_", "-")
                if guess_kind(name) and name not in names:
                    names.append(name)
        if not names:
            names = ["test"]
        source = "pyproject.toml#tool.spin" if spin is not None else ".spin/cmds.py"
        for name in names:
            kind = guess_kind(name)
            if kind:
                c.add(f"spin {name}", kind, source, PYTHON)
        if "test" in names:
            c.pytest_routed_by = c.pytest_routed_by or source

    def _pytest_source(self) -> str | None:
        c = self.c
        if c.is_file("pytest.ini"):
            return "pytest.ini"
        if self.tool("pytest", "ini_options") is not None:
            return "pyproject.toml#tool.pytest.ini_options"
        if self.tool("pytest") is not None:
            return "pyproject.toml#tool.pytest"
        if self.setup_cfg is not None and self.setup_cfg.has_section("tool:pytest"):
            return "setup.cfg#tool:pytest"
        if self.tox_ini is not None and self.tox_ini.has_section("pytest"):
            return "tox.ini#pytest"
        return None

    def _pytest(self) -> None:
        c = self.c
        source = self._pytest_source()
        if source is None:
            return
        if source == "pytest.ini":
            c.manifest("pytest.ini")
        if c.pytest_routed_by is not None:
            return  # the project's own runner sets what bare pytest would miss
        if self.manager == "hatch":
            c.add("hatch test", "test", source, PYTHON)
        elif self.manager in _RUN_PREFIX:
            c.add(f"{_RUN_PREFIX[self.manager]}pytest", "test", source, PYTHON)
        else:
            c.add("pytest", "test", source, PYTHON, alternatives=("python -m pytest",))

    # tox ---------------------------------------------------------------------------------------------------------

    def _tox(self) -> None:
        # `tox -e ENV` itself runs from the directory holding the tox configuration (the root), whatever the env's
        # `changedir`: that is the cwd a person or agent types it in, so the one the classifier must match.
        # `changedir` is where the env's own commands run; it locates runtests.py (see _runtests).
        c = self.c
        found = self._tox_config()
        if found is None:
            return
        (envlist, sections), (list_anchor, env_anchor) = found
        if envlist:
            c.add("tox", "test", list_anchor, PYTHON)
        seen: list[str] = []
        for env in [*envlist, *sections]:
            if env in seen or env == "__base__":
                continue
            seen.append(env)
            commands = sections.get(env, sections.get("__base__", []))
            kind = self._tox_env_kind(env, commands)
            if kind is None:
                continue
            c.add(f"tox -e {env}", kind, env_anchor.format(env) if env in sections else list_anchor, PYTHON)

    def _tox_env_kind(self, env: str, commands: list[str]) -> Kind | None:
        lines = [_tox_substitute(line) for line in commands]
        if body_rejection(lines) is not None:
            return None
        words = set(re.split(r"[-_]", env.lower()))
        if words & NOT_CHECK_WORDS:
            return None
        kind = guess_kind(env)
        if kind is not None:
            return kind
        for line in lines:
            found = recognise_line(line)
            if found:
                return found[0].kind
        return "test" if not lines else None

    def _tox_config(self) -> tuple[tuple[list[str], dict[str, list[str]]], tuple[str, str]] | None:
        """(envlist, {env: commands}) and the sources to cite (envlist, env) from tox.ini, setup.cfg [tox:tox],
        tox.toml or pyproject [tool.tox]."""
        c = self.c
        if self.tox_ini is not None and (
            self.tox_ini.has_section("tox") or any(s.startswith("testenv") for s in self.tox_ini.sections())
        ):
            return _tox_from_ini(self.tox_ini, "tox"), ("tox.ini#tox.envlist", "tox.ini#testenv:{}")
        if self.setup_cfg is not None and self.setup_cfg.has_section("tox:tox"):
            return _tox_from_ini(self.setup_cfg, "tox:tox"), ("setup.cfg#tox:tox.envlist", "setup.cfg#testenv:{}")
        if c.exists("tox.toml"):
            c.manifest("tox.toml")
            data = c.load_toml("tox.toml")
            if data is None:
                return None
            return _tox_from_toml(data), ("tox.toml#env_list", "tox.toml#env.{}")
        tox = self.tool("tox")
        if not isinstance(tox, dict):
            return None
        legacy = tox.get("legacy_tox_ini")
        if isinstance(legacy, str):
            parser = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00none")
            try:
                parser.read_string(legacy, source="pyproject.toml")
            except configparser.Error as exc:
                c.problem("pyproject.toml", f"tool.tox.legacy_tox_ini is invalid INI: {exc}".replace("\n", " "))
                return None
            anchor = "pyproject.toml#tool.tox.legacy_tox_ini"
            return _tox_from_ini(parser, "tox"), (anchor, anchor)
        return _tox_from_toml(tox), ("pyproject.toml#tool.tox.env_list", "pyproject.toml#tool.tox.env.{}")

    # nox ---------------------------------------------------------------------------------------------------------

    def _nox(self) -> None:
        c = self.c
        text = c.read_text("noxfile.py")
        if text is None:
            return
        c.manifest("noxfile.py")
        try:
            tree = ast.parse(text, filename="noxfile.py")
        except SyntaxError as exc:
            c.problem("noxfile.py", f"invalid Python at line {exc.lineno}: {exc.msg}")
            return
        for name, session_strings in _nox_sessions(tree):
            if body_rejection(session_strings) is not None:
                continue
            words = set(re.split(r"[-_]", name.lower()))
            if words & NOT_CHECK_WORDS:
                continue
            kind = guess_kind(name)
            if kind is None:
                for line in session_strings:
                    found = recognise_line(line)
                    if found:
                        kind = found[0].kind
                        break
            if kind is not None:
                c.add(f"nox -s {name}", kind, f"noxfile.py#{name}", PYTHON)

    # hatch / pdm scripts -----------------------------------------------------------------------------------------

    def _hatch_scripts(self) -> None:
        sources: list[tuple[Any, str]] = []
        if self.hatch_toml is not None:
            sources.append((get_path(self.hatch_toml, "envs"), "hatch.toml#envs"))
        envs = self.tool("hatch", "envs")
        if envs is not None:
            sources.append((envs, "pyproject.toml#tool.hatch.envs"))
        for envs_table, prefix in sources:
            if not isinstance(envs_table, dict):
                continue
            for env, table in envs_table.items():
                scripts = get_path(table, "scripts")
                if not isinstance(scripts, dict):
                    continue
                for name, body in scripts.items():
                    lines = _string_lines(body)
                    kind = _script_kind(name, lines)
                    if kind is None:
                        continue
                    command = f"hatch run {name}" if env == "default" else f"hatch run {env}:{name}"
                    self.c.add(command, kind, f"{prefix}.{env}.scripts.{name}", PYTHON)
                    self._note_pytest_route(name, lines, command)

    def _pdm_scripts(self) -> None:
        scripts = self.tool("pdm", "scripts")
        if not isinstance(scripts, dict):
            return
        for name, body in scripts.items():
            if name == "_":
                continue  # shared settings, not a script
            if isinstance(body, dict):
                body = body.get("cmd") or body.get("shell") or body.get("composite") or ""
            lines = _string_lines(body)
            kind = _script_kind(name, lines)
            if kind is not None:
                self.c.add(f"pdm run {name}", kind, f"pyproject.toml#tool.pdm.scripts.{name}", PYTHON)
                self._note_pytest_route(name, lines, f"pdm run {name}")

    def _note_pytest_route(self, name: str, lines: list[str], command: str) -> None:
        """A script named `test` that runs pytest is how the project runs pytest (with its env and args)."""
        if name in ("test", "tests") and any(re.search(r"\bpytest\b", line) for line in lines):
            self.c.pytest_routed_by = self.c.pytest_routed_by or command

    # -- level 6 -----------------------------------------------------------------------------------------------

    def detect_tools(self) -> None:
        c = self.c
        ruff = next(
            (
                source
                for source, present in (
                    ("ruff.toml", c.is_file("ruff.toml")),
                    (".ruff.toml", c.is_file(".ruff.toml")),
                    ("pyproject.toml#tool.ruff", self.tool("ruff") is not None),
                )
                if present
            ),
            None,
        )
        if ruff:
            c.manifest(ruff.split("#")[0])
            c.add("ruff check", "lint", ruff, TOOL_CONFIG)
        mypy = next(
            (
                source
                for source, present in (
                    ("mypy.ini", c.is_file("mypy.ini")),
                    (".mypy.ini", c.is_file(".mypy.ini")),
                    ("pyproject.toml#tool.mypy", self.tool("mypy") is not None),
                    ("setup.cfg#mypy", self.setup_cfg is not None and self.setup_cfg.has_section("mypy")),
                )
                if present
            ),
            None,
        )
        if mypy:
            c.manifest(mypy.split("#")[0])
            c.add("mypy", "typecheck", mypy, TOOL_CONFIG)
        if c.is_file("pyrightconfig.json"):
            c.manifest("pyrightconfig.json")
            c.load_json("pyrightconfig.json", comments=True)
            c.add("pyright", "typecheck", "pyrightconfig.json", TOOL_CONFIG)
        elif self.tool("pyright") is not None:
            c.add("pyright", "typecheck", "pyproject.toml#tool.pyright", TOOL_CONFIG)
        elif self.tool("basedpyright") is not None:
            c.add("basedpyright", "typecheck", "pyproject.toml#tool.basedpyright", TOOL_CONFIG)
        flake8 = next(
            (
                source
                for source, present in (
                    (".flake8", c.is_file(".flake8")),
                    ("setup.cfg#flake8", self.setup_cfg is not None and self.setup_cfg.has_section("flake8")),
                    ("tox.ini#flake8", self.tox_ini is not None and self.tox_ini.has_section("flake8")),
                )
                if present
            ),
            None,
        )
        if flake8:
            c.manifest(flake8.split("#")[0])
            c.add("flake8", "lint", flake8, TOOL_CONFIG)


def _string_lines(body: Any) -> list[str]:
    """A script body given as one string or a list of strings; anything else has no readable command."""
    if isinstance(body, str):
        return [body]
    if isinstance(body, list):
        return [line for line in body if isinstance(line, str)]
    return []


def _script_kind(name: str, lines: list[str]) -> Kind | None:
    kind = guess_kind(name)
    if kind is None or body_rejection([line for text in lines for line in logical_lines(text)]) is not None:
        return None
    return kind


def _expand_braces(text: str) -> list[str]:
    """tox generative names: `py{39,310}-django{42,50}` → py39-django42, py39-django50, …"""
    parts = re.split(r"(\{[^{}]*\})", text)
    options = [p[1:-1].split(",") if p.startswith("{") and p.endswith("}") else [p] for p in parts]
    return ["".join(combo).strip() for combo in itertools.product(*options)]


def _split_envlist(value: str) -> list[str]:
    names: list[str] = []
    # Commas inside braces belong to the generative expression, not the list.
    for item in re.split(r",(?![^{]*\})|\n", value):
        item = item.strip()
        if item and not item.startswith("#"):
            names.extend(n for n in _expand_braces(item) if n)
    return names


def _tox_substitute(line: str) -> str:
    line = re.sub(r"\{env(python|bindir)\}/?", "python" if "envpython" in line else "", line)
    line = re.sub(r"\{posargs(:[^}]*)?\}|\[\]", "", line)
    line = re.sub(r"^[-!]\s*", "", line.strip())  # tox's `-` (ignore exit code) and `!` prefixes
    return line.strip()


def _tox_from_ini(parser: configparser.ConfigParser, main: str) -> tuple[list[str], dict[str, list[str]]]:
    envlist: list[str] = []
    if parser.has_section(main):
        value = parser.get(main, "envlist", fallback="") or parser.get(main, "env_list", fallback="")
        envlist = _split_envlist(value)
    base_commands = parser.get("testenv", "commands", fallback="") if parser.has_section("testenv") else ""
    base_lines = logical_lines(base_commands)
    sections: dict[str, list[str]] = {"__base__": base_lines}
    for section in parser.sections():
        if not section.startswith("testenv:"):
            continue
        commands = parser.get(section, "commands", fallback=None)
        lines = logical_lines(commands) if commands is not None else base_lines
        for env in _expand_braces(section.split(":", 1)[1].strip()):
            sections[env] = lines
    return envlist, sections


def _tox_from_toml(data: dict[str, Any]) -> tuple[list[str], dict[str, list[str]]]:
    env_list = data.get("env_list", data.get("envlist", []))
    envlist = [e for e in env_list if isinstance(e, str)] if isinstance(env_list, list) else []

    def commands_of(table: Any) -> list[str]:
        commands = get_path(table, "commands")
        lines: list[str] = []
        if isinstance(commands, list):
            for command in commands:
                if isinstance(command, list):
                    lines.append(" ".join(str(part) for part in command if isinstance(part, str)))
        return lines

    base = commands_of(data.get("env_run_base"))
    sections: dict[str, list[str]] = {"__base__": base}
    envs = data.get("env")
    if isinstance(envs, dict):
        for env, table in envs.items():
            sections[env] = commands_of(table) or base
    return envlist, sections


def _decorator_session(decorator: ast.expr) -> tuple[bool, str | None]:
    """(is this `@nox.session` / `@session(...)`, the session's `name=` if given)."""
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    if name != "session":
        return False, None
    for keyword in call.keywords if call else []:
        if keyword.arg == "name" and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            return True, keyword.value.value
    return True, None


def _nox_sessions(tree: ast.Module) -> list[tuple[str, list[str]]]:
    """Each session's name and the command lines its `session.run(...)` calls spell with constant strings."""
    sessions: list[tuple[str, list[str]]] = []
    for node in tree.body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            is_session, name = _decorator_session(decorator)
            if not is_session:
                continue
            lines: list[str] = []
            for call in ast.walk(node):
                if (
                    isinstance(call, ast.Call)
                    and isinstance(call.func, ast.Attribute)
                    and call.func.attr in ("run", "run_always", "run_install")
                ):
                    words = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                    if words and call.func.attr == "run":
                        lines.append(" ".join(words))
            sessions.append((name or node.name, lines))
            break
    return sessions
