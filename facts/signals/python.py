"""Python: the environment manager, pytest's configuration, the project's own runners (runtests.py, spin, tox
envs, nox sessions, hatch and pdm scripts) and tool configuration (ruff, mypy, pyright, flake8, pylint), one
package directory at a time."""

from __future__ import annotations

import ast
import itertools
import re
from typing import TYPE_CHECKING, Any

from freshpass.facts.ecosystems import registry
from freshpass.facts.model import Kind, Origin

from .base import Candidate, Collector, Package, get_path, normalise_cwd, under

if TYPE_CHECKING:
    import configparser

# Lockfiles first (they say which tool resolved the environment), then configuration that implies the tool.
_LOCK_MANAGERS = registry.lockfiles("python")
RUN_PREFIX = {"uv": "uv run ", "poetry": "poetry run ", "pdm": "pdm run ", "pipenv": "pipenv run ", "hatch": ""}
PYTHON_MANIFESTS = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile")
_PYTHON_VERSION_ENV = re.compile(r"^(py|pypy)(\d+(\.\d+)?)?$")


def _ini(c: Collector, rel: str) -> configparser.ConfigParser | None:
    text = c.read_text(rel)
    if text is None:
        return None
    import configparser  # only projects with setup.cfg or tox.ini pay for it

    parser = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00no-defaults")
    try:
        parser.read_string(text, source=rel)
    except configparser.Error as exc:
        message = str(exc).replace("\n", " ").strip()
        c.problem(rel, f"invalid INI: {message}")
        return None
    return parser


class PythonPackage:
    """The Python configuration of one package directory."""

    def __init__(self, c: Collector, package: Package) -> None:
        self.c = c
        self.cwd = package.cwd
        self.pyproject = self._toml("pyproject.toml")
        self.setup_cfg = _ini(c, self.rel("setup.cfg")) if c.exists(self.rel("setup.cfg")) else None
        self.tox_ini = _ini(c, self.rel("tox.ini")) if c.exists(self.rel("tox.ini")) else None
        self.hatch_toml = self._toml("hatch.toml")
        self.manager = self._manager()

    def rel(self, name: str) -> str:
        return under(self.cwd, name)

    def _toml(self, name: str) -> dict[str, Any] | None:
        return self.c.load_toml(self.rel(name)) if self.c.exists(self.rel(name)) else None

    def tool(self, *keys: str) -> Any:
        return get_path(self.pyproject, "tool", *keys)

    def _manager(self) -> str | None:
        c = self.c
        for directory in dict.fromkeys((self.cwd, ".")):
            for lockfile, name in _LOCK_MANAGERS:
                if c.exists(under(directory, lockfile)):
                    c.manifest(under(directory, lockfile))
                    return name
        if self.tool("poetry") is not None:
            return "poetry"
        if self.tool("pdm") is not None:
            return "pdm"
        if self.tool("uv") is not None:
            return "uv"
        if get_path(self.tool("hatch"), "envs") is not None or self.hatch_toml is not None:
            return "hatch"
        if c.exists(self.rel("Pipfile")):
            return "pipenv"
        return None

    @property
    def prefix(self) -> str:
        """How a tool is run in this project's environment (`uv run `, `poetry run `, or nothing)."""
        return RUN_PREFIX.get(self.manager or "", "")

    def add(self, candidate: Candidate) -> None:
        self.c.add(candidate)

    # -- the project's own runners -------------------------------------------------------------------------------

    def read(self) -> None:
        c = self.c
        present = [
            name
            for name in (*PYTHON_MANIFESTS, "tox.ini", "tox.toml", "hatch.toml", "noxfile.py", "pytest.ini")
            if c.exists(self.rel(name))
        ]
        if not present:
            return
        for name in present:
            c.manifest(self.rel(name))
        c.python_managers[self.cwd] = self.manager
        c.package_manager(self.manager or "pip")
        self._runtests()
        self._spin()
        self._hatch_scripts()
        self._pdm_scripts()
        self._pytest()
        self._tox()
        self._nox()
        self._tools()

    def _runtests(self) -> None:
        """A project's own test runner script, run from the directory it lives in.

        Django keeps tests/runtests.py and runs it from tests/: its tox.ini says `changedir = tests` with
        `commands = {envpython} runtests.py`. A tox `changedir` is where that env's commands run, so it is where
        a runtests.py named in them is looked for, besides the package directory and tests/.
        """
        directories = [".", "tests", *self._tox_changedirs_running("runtests.py")]
        for sub in dict.fromkeys(directories):
            cwd = normalise_cwd(f"{self.cwd}/{sub}")
            rel = under(cwd, "runtests.py")
            if not self.c.is_file(rel):
                continue
            executable = self.c.is_executable(rel)
            command = "./runtests.py" if executable else "python runtests.py"
            spellings = ("python runtests.py",) if executable else ()
            self.c.entry(command, cwd, rel, None, "runtests", "test")
            self.add(Candidate(command, cwd, rel, "local", name="runtests", kind="test", spellings=spellings))

    def _tox_changedirs_running(self, script: str) -> list[str]:
        """tox.ini `changedir`s (relative to the package) of envs whose commands run `script`."""
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
        """spin (numpy, scipy): `[tool.spin.commands]` lists the commands as `module:function` or `module.function`;
        spin names each after its function, `_` becoming `-`."""
        spin = self.tool("spin")
        if spin is None and not self.c.is_file(self.rel(".spin/cmds.py")):
            return
        commands = get_path(spin, "commands")
        entries: list[Any] = []
        if isinstance(commands, dict):
            for value in commands.values():
                entries.extend(value if isinstance(value, list) else [value])
        elif isinstance(commands, list):
            entries = commands
        names: list[str] = []
        for entry in entries:
            if not isinstance(entry, str):
                continue
            function = re.split(r"[:.]", entry.strip())[-1] if ":" in entry else entry.rsplit(".", 1)[-1]
            name = function.replace("_", "-")
            if name and name not in names:
                names.append(name)
        if not names:
            names = ["test"]
        source = self.rel("pyproject.toml") + "#tool.spin" if spin is not None else self.rel(".spin/cmds.py")
        for name in names:
            command = f"spin {name}"
            # spin's test command builds the project and runs pytest against the build: pytest through spin
            body = ("SPIN=1 pytest",) if name == "test" else None
            self.c.entry(command, self.cwd, source, body, name)
            self.add(Candidate(command, self.cwd, source, "local", name=name, body=body))

    def _pytest_source(self) -> str | None:
        c = self.c
        if c.is_file(self.rel("pytest.ini")):
            c.manifest(self.rel("pytest.ini"))
            return self.rel("pytest.ini")
        pyproject = self.rel("pyproject.toml")
        if self.tool("pytest", "ini_options") is not None:
            return f"{pyproject}#tool.pytest.ini_options"
        if self.tool("pytest") is not None:
            return f"{pyproject}#tool.pytest"
        if self.setup_cfg is not None and self.setup_cfg.has_section("tool:pytest"):
            return self.rel("setup.cfg") + "#tool:pytest"
        if self.tox_ini is not None and self.tox_ini.has_section("pytest"):
            return self.rel("tox.ini") + "#pytest"
        return None

    def _testpaths(self) -> list[str]:
        paths: Any = self.tool("pytest", "ini_options", "testpaths") or self.tool("pytest", "testpaths")
        if paths is None:
            for parser, section in ((self.setup_cfg, "tool:pytest"), (self.tox_ini, "pytest")):
                if parser is not None and parser.has_section(section):
                    paths = parser.get(section, "testpaths", fallback="").split() or None
                    if paths:
                        break
        if paths is None and self.c.is_file(self.rel("pytest.ini")):
            ini = _ini(self.c, self.rel("pytest.ini"))
            if ini is not None and ini.has_section("pytest"):
                paths = ini.get("pytest", "testpaths", fallback="").split() or None
        if isinstance(paths, str):
            paths = paths.split()
        return [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else []

    def _declares_pytest(self) -> str | None:
        """pytest among the project's declared dependencies (PEP 735 groups, extras, Poetry's groups), with a test
        directory beside it: the convention, when no pytest configuration says more."""
        if self.pyproject is None or not any(self.c.is_dir(self.rel(d)) for d in ("tests", "test")):
            return None
        declared: list[Any] = []
        for table in (get_path(self.pyproject, "dependency-groups"), self.tool("poetry", "group")):
            if isinstance(table, dict):
                for group in table.values():
                    declared.extend(group if isinstance(group, list) else get_path(group, "dependencies") or [])
        extras = get_path(self.pyproject, "project", "optional-dependencies")
        if isinstance(extras, dict):
            for group in extras.values():
                declared.extend(group if isinstance(group, list) else [])
        names = {re.split(r"[\s<>=!~\[;]", d.strip(), maxsplit=1)[0].lower() for d in declared if isinstance(d, str)}
        return f"{self.rel('pyproject.toml')}#dependencies" if "pytest" in names else None

    def _pytest(self) -> None:
        source = self._pytest_source()
        origin: Origin = "tool"
        if source is None:
            source, origin = self._declares_pytest(), "convention"
        if source is None:
            return
        if self.manager == "hatch":
            command = "hatch test"
            spellings: tuple[str, ...] = ()
        else:
            command = f"{self.prefix}pytest"
            spellings = () if self.prefix else ("python -m pytest",)
        testpaths = self._testpaths()
        self.c.tool_settings[f"{self.cwd}:pytest.testpaths"] = [p.strip("/").removeprefix("./") for p in testpaths]
        if testpaths and command != "hatch test":
            # `pytest tests` runs exactly what bare pytest runs when testpaths is `tests`
            spellings += tuple(f"{s} {' '.join(testpaths)}" for s in (command, *spellings))
        self.add(Candidate(command, self.cwd, source, origin, name="pytest", kind="test", body=(command,),
                           spellings=spellings))  # fmt: skip

    # -- hatch / pdm scripts -------------------------------------------------------------------------------------

    def _hatch_scripts(self) -> None:
        sources: list[tuple[Any, str]] = []
        if self.hatch_toml is not None:
            sources.append((get_path(self.hatch_toml, "envs"), self.rel("hatch.toml") + "#envs"))
        envs = self.tool("hatch", "envs")
        if envs is not None:
            sources.append((envs, self.rel("pyproject.toml") + "#tool.hatch.envs"))
        for envs_table, prefix in sources:
            if not isinstance(envs_table, dict):
                continue
            for env, table in envs_table.items():
                scripts = get_path(table, "scripts")
                if not isinstance(scripts, dict):
                    continue
                for name, body in scripts.items():
                    command = f"hatch run {name}" if env == "default" else f"hatch run {env}:{name}"
                    lines = tuple(_hatch_placeholders(line) for line in _string_lines(body))
                    source = f"{prefix}.{env}.scripts.{name}"
                    self.c.entry(command, self.cwd, source, lines, str(name))
                    self.add(Candidate(command, self.cwd, source, "local", name=str(name), body=lines))

    def _pdm_scripts(self) -> None:
        scripts = self.tool("pdm", "scripts")
        if not isinstance(scripts, dict):
            return
        for name, body in scripts.items():
            if name == "_":
                continue  # shared settings, not a script
            if isinstance(body, dict):
                composite = body.get("composite")
                if isinstance(composite, list):
                    body = [
                        f"pdm run {part}" if isinstance(part, str) and " " not in part else part for part in composite
                    ]
                else:
                    body = body.get("cmd") or body.get("shell") or ""
            lines = tuple(_string_lines(body))
            command = f"pdm run {name}"
            source = self.rel("pyproject.toml") + f"#tool.pdm.scripts.{name}"
            self.c.entry(command, self.cwd, source, lines, str(name))
            self.add(Candidate(command, self.cwd, source, "local", name=str(name), body=lines))

    # -- tox -------------------------------------------------------------------------------------------------------

    def _tox(self) -> None:
        """One entry point per env (`tox -e ENV`, its commands as the body); bare `tox` runs the envlist.

        `tox -e ENV` runs from the directory holding the tox configuration whatever the env's `changedir`: that
        is where a person or agent types it, so the cwd the classifier must match. The interpreter envs of the
        envlist (`py39` … `py313`) run one suite on several Pythons: `tox -e py` runs it on the current one."""
        found = self._tox_config()
        if found is None:
            return
        (envlist, sections), (list_anchor, env_anchor) = found
        base = sections.get("__base__", [])
        seen: list[str] = []
        for env in [*envlist, *sections]:
            if env in seen or env == "__base__":
                continue
            seen.append(env)
            commands = tuple(
                _tox_substitute(line) if not line.startswith("cd ") else line for line in sections.get(env, base)
            )
            source = env_anchor.format(env) if env in sections else list_anchor
            command = f"tox -e {env}"
            self.c.entry(command, self.cwd, source, commands, env)
            self.add(Candidate(command, self.cwd, source, "local", name=env, body=commands, default=env in envlist))
        versions = [e for e in envlist if _PYTHON_VERSION_ENV.match(e) and e not in sections]
        if versions and "py" not in seen:
            commands = tuple(_tox_substitute(line) if not line.startswith("cd ") else line for line in base)
            self.c.entry("tox -e py", self.cwd, list_anchor, commands, "py")
            self.add(Candidate("tox -e py", self.cwd, list_anchor, "local", name="py", body=commands, default=True,
                               spellings=tuple(f"tox -e {v}" for v in versions)))  # fmt: skip
        if envlist:
            body = tuple(f"tox -e {env}" for env in envlist)
            self.c.entry("tox", self.cwd, list_anchor, body, "tox")
            self.add(Candidate("tox", self.cwd, list_anchor, "local", name="tox", body=body, default=True))

    def _tox_config(self) -> tuple[tuple[list[str], dict[str, list[str]]], tuple[str, str]] | None:
        """(envlist, {env: commands}) and the sources to cite (envlist, env) from tox.ini, setup.cfg [tox:tox],
        tox.toml or pyproject [tool.tox]."""
        c = self.c
        tox_ini = self.rel("tox.ini")
        if self.tox_ini is not None and (
            self.tox_ini.has_section("tox") or any(s.startswith("testenv") for s in self.tox_ini.sections())
        ):
            return _tox_from_ini(self.tox_ini, "tox"), (f"{tox_ini}#tox.envlist", f"{tox_ini}#testenv:{{}}")
        setup_cfg = self.rel("setup.cfg")
        if self.setup_cfg is not None and self.setup_cfg.has_section("tox:tox"):
            return _tox_from_ini(self.setup_cfg, "tox:tox"), (
                f"{setup_cfg}#tox:tox.envlist",
                f"{setup_cfg}#testenv:{{}}",
            )
        tox_toml = self.rel("tox.toml")
        if c.exists(tox_toml):
            c.manifest(tox_toml)
            data = c.load_toml(tox_toml)
            if data is None:
                return None
            return _tox_from_toml(data), (f"{tox_toml}#env_list", f"{tox_toml}#env.{{}}")
        tox = self.tool("tox")
        if not isinstance(tox, dict):
            return None
        pyproject = self.rel("pyproject.toml")
        legacy = tox.get("legacy_tox_ini")
        if isinstance(legacy, str):
            import configparser

            parser = configparser.ConfigParser(interpolation=None, strict=False, default_section="\x00none")
            try:
                parser.read_string(legacy, source=pyproject)
            except configparser.Error as exc:
                c.problem(pyproject, f"tool.tox.legacy_tox_ini is invalid INI: {exc}".replace("\n", " "))
                return None
            anchor = f"{pyproject}#tool.tox.legacy_tox_ini"
            return _tox_from_ini(parser, "tox"), (anchor, anchor)
        return _tox_from_toml(tox), (f"{pyproject}#tool.tox.env_list", f"{pyproject}#tool.tox.env.{{}}")

    # -- nox -------------------------------------------------------------------------------------------------------

    def _nox(self) -> None:
        rel = self.rel("noxfile.py")
        text = self.c.read_text(rel)
        if text is None:
            return
        self.c.manifest(rel)
        try:
            tree = ast.parse(text, filename="noxfile.py")
        except SyntaxError as exc:
            self.c.problem(rel, f"invalid Python at line {exc.lineno}: {exc.msg}")
            return
        except (RecursionError, MemoryError, ValueError):
            self.c.problem(rel, "noxfile.py is nested too deeply to read")
            return
        sessions, defaults = _nox_sessions(tree)
        for session in sessions:
            command = f"nox -s {session.name}"
            source = f"{rel}#{session.name}"
            body = tuple(session.lines)
            default = session.default if defaults is None else session.name in defaults
            spellings = tuple(f"nox -s {session.name}-{python}" for python in session.pythons)
            self.c.entry(command, self.cwd, source, body, session.name)
            for spelling in spellings:
                self.c.entry(spelling, self.cwd, source, body, session.name)
            self.add(Candidate(command, self.cwd, source, "local", name=session.name, body=body, default=default,
                               spellings=spellings))  # fmt: skip

    # -- tool configuration ---------------------------------------------------------------------------------------

    def _tools(self) -> None:
        c = self.c
        pyproject = self.rel("pyproject.toml")
        ruff_configs = (self.rel("ruff.toml"), self.rel(".ruff.toml"))
        ruff_file = next((name for name in ruff_configs if c.is_file(name)), None)
        ruff_table = c.load_toml(ruff_file) if ruff_file else self.tool("ruff")
        if ruff_file or self.tool("ruff") is not None:
            source = ruff_file or f"{pyproject}#tool.ruff"
            c.manifest(source.split("#")[0])
            fixes = isinstance(ruff_table, dict) and (
                ruff_table.get("fix") is True or get_path(ruff_table, "lint", "fix") is True
            )
            command = f"{self.prefix}ruff check"
            if fixes:
                # `fix = true` turns bare `ruff check` into a fixer: only `--no-fix` checks without writing.
                c.tool_settings[f"{self.cwd}:ruff.fix"] = True
                why = ("writes", f"{source} sets fix = true: `ruff check` rewrites files")
                self.add(Candidate(command, self.cwd, source, "tool", name="ruff", set_aside=why))
                command += " --no-fix"
            self.add(Candidate(command, self.cwd, source, "tool", name="ruff", kind="lint", body=(command,)))
        mypy = next(
            (
                source
                for source, present in (
                    (self.rel("mypy.ini"), c.is_file(self.rel("mypy.ini"))),
                    (self.rel(".mypy.ini"), c.is_file(self.rel(".mypy.ini"))),
                    (f"{pyproject}#tool.mypy", self.tool("mypy") is not None),
                    (
                        self.rel("setup.cfg") + "#mypy",
                        self.setup_cfg is not None and self.setup_cfg.has_section("mypy"),
                    ),
                )
                if present
            ),
            None,
        )
        if mypy:
            c.manifest(mypy.split("#")[0])
            self._tool_candidate("mypy", "typecheck", mypy)
        if c.is_file(self.rel("pyrightconfig.json")):
            c.manifest(self.rel("pyrightconfig.json"))
            c.load_json(self.rel("pyrightconfig.json"), comments=True)
            self._tool_candidate("pyright", "typecheck", self.rel("pyrightconfig.json"))
        elif self.tool("pyright") is not None:
            self._tool_candidate("pyright", "typecheck", f"{pyproject}#tool.pyright")
        elif self.tool("basedpyright") is not None:
            self._tool_candidate("basedpyright", "typecheck", f"{pyproject}#tool.basedpyright")
        flake8 = next(
            (
                source
                for source, present in (
                    (self.rel(".flake8"), c.is_file(self.rel(".flake8"))),
                    (
                        self.rel("setup.cfg") + "#flake8",
                        self.setup_cfg is not None and self.setup_cfg.has_section("flake8"),
                    ),
                    (self.rel("tox.ini") + "#flake8", self.tox_ini is not None and self.tox_ini.has_section("flake8")),
                )
                if present
            ),
            None,
        )
        if flake8:
            c.manifest(flake8.split("#")[0])
            self._tool_candidate("flake8", "lint", flake8)

    def _tool_candidate(self, tool: str, kind: Kind, source: str) -> None:
        command = f"{self.prefix}{tool}"
        self.add(Candidate(command, self.cwd, source, "tool", name=tool, kind=kind, body=(command,)))


def read(c: Collector, package: Package) -> None:
    PythonPackage(c, package).read()


def _hatch_placeholders(line: str) -> str:
    """hatch's `{args:tests}` is the person's arguments, `tests` when there are none; `{root}` is the project."""
    line = re.sub(r"\{args:([^}]*)\}", lambda m: m.group(1), line)
    line = re.sub(r"\{args\}", "", line)
    return re.sub(r"\{root(:uri)?\}", ".", line).strip()


def _string_lines(body: Any) -> list[str]:
    """A script body given as one string or a list of strings; anything else has no readable command."""
    if isinstance(body, str):
        return [body]
    if isinstance(body, list):
        return [line for line in body if isinstance(line, str)]
    return []


# -- tox configuration --------------------------------------------------------------------------------------------

_MAX_TOX_ENVS = 2000


def expand_braces(text: str) -> list[str]:
    """tox generative names: `py{39,310}-django{42,50}` → py39-django42, py39-django50, …; spaces inside a factor
    list are not part of the names (`{default, use_chardet}`)."""
    parts = re.split(r"(\{[^{}]*\})", text)
    options = [
        [option.strip() for option in p[1:-1].split(",")] if p.startswith("{") and p.endswith("}") else [p]
        for p in parts
    ]
    names: list[str] = []
    for combo in itertools.islice(itertools.product(*options), _MAX_TOX_ENVS):
        name = "".join(combo).strip()
        if name:
            names.append(re.sub(r"-{2,}", "-", name).strip("-"))
    return names


def split_envlist(value: str) -> list[str]:
    names: list[str] = []
    # Commas inside braces belong to the generative expression, not the list.
    for item in re.split(r",(?![^{]*\})|\n", value):
        item = item.split("#", 1)[0].strip() if item.strip().startswith("#") else item.strip()
        if item:
            names.extend(n for n in expand_braces(item) if n)
    return list(dict.fromkeys(names))


def _tox_substitute(line: str) -> str:
    line = re.sub(r"\{env(python|bindir)\}/?", "python " if "envpython" in line else "", line)
    line = re.sub(r"\{posargs(:[^}]*)?\}|\[\]", "", line)
    line = re.sub(r"\{tox_root\}|\{toxinidir\}", ".", line)
    line = re.sub(r"^[-!]\s*", "", line.strip())  # tox's `-` (ignore exit code) and `!` prefixes
    return line.strip()


def _ini_lines(value: str) -> list[str]:
    lines: list[str] = []
    pending = ""
    for raw in value.splitlines():
        line = raw.strip()
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            lines.append(line)
    if pending.strip():
        lines.append(pending.strip())
    return lines


def _tox_from_ini(parser: configparser.ConfigParser, main: str) -> tuple[list[str], dict[str, list[str]]]:
    envlist: list[str] = []
    if parser.has_section(main):
        value = parser.get(main, "envlist", fallback="") or parser.get(main, "env_list", fallback="")
        envlist = split_envlist(value)
    base = "testenv" if parser.has_section("testenv") else None
    base_commands = parser.get("testenv", "commands", fallback="") if base else ""
    base_changedir = parser.get("testenv", "changedir", fallback="") if base else ""
    base_lines = _in_changedir(_factor_lines(_ini_lines(base_commands)), base_changedir)
    sections: dict[str, list[str]] = {"__base__": base_lines}
    for section in parser.sections():
        if not section.startswith("testenv:"):
            continue
        commands = parser.get(section, "commands", fallback=None)
        changedir = parser.get(section, "changedir", fallback=base_changedir)
        raw = _factor_lines(_ini_lines(commands if commands is not None else base_commands))
        lines = _in_changedir(raw, changedir)
        for env in expand_braces(section.split(":", 1)[1].strip()):
            sections[env] = lines
    return envlist, sections


def _in_changedir(lines: list[str], changedir: str) -> list[str]:
    """An env's commands run in its `changedir`: read them from there."""
    directory = changedir.strip().replace("{toxinidir}", ".").replace("{tox_root}", ".")
    if not directory or "{" in directory or directory.startswith("/") or normalise_cwd(directory) == ".":
        return lines
    directory = normalise_cwd(directory)
    if directory.startswith(".."):
        return lines
    return [f"cd {directory} && {_tox_substitute(line)}" for line in lines]


def _factor_lines(lines: list[str]) -> list[str]:
    """tox factor-conditional lines (`py310: pytest --cov`) keep their command; the condition is dropped."""
    return [re.sub(r"^[!\w{},.-]+:\s+", "", line) if re.match(r"^[!\w{},.-]+:\s", line) else line for line in lines]


def _tox_from_toml(data: dict[str, Any]) -> tuple[list[str], dict[str, list[str]]]:
    env_list = data.get("env_list", data.get("envlist", []))
    envlist = [e for e in env_list if isinstance(e, str)] if isinstance(env_list, list) else []

    def commands_of(table: Any) -> list[str]:
        commands = get_path(table, "commands")
        lines: list[str] = []
        if isinstance(commands, list):
            for command in commands:
                if isinstance(command, list):
                    words = [part if isinstance(part, str) else "" for part in command]
                    lines.append(" ".join(w if re.fullmatch(r"[\w@%+=:,./-]+", w) else repr(w) for w in words if w))
        return lines

    base = commands_of(data.get("env_run_base"))
    sections: dict[str, list[str]] = {"__base__": base}
    envs = data.get("env")
    if isinstance(envs, dict):
        for env, table in envs.items():
            sections[env] = commands_of(table) or base
    return envlist, sections


# -- nox sessions ---------------------------------------------------------------------------------------------------


class _Session:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = []
        self.complete = True  # every session.run had constant words
        self.pythons: list[str] = []
        self.default = True


def _decorator_session(decorator: ast.expr) -> tuple[bool, ast.Call | None]:
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call else decorator
    name = target.attr if isinstance(target, ast.Attribute) else target.id if isinstance(target, ast.Name) else ""
    return name == "session", call


def _constant_strings(node: ast.expr | None) -> list[str]:
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    return []


def _call_lines(body: ast.AST, owner: _Session, helpers: dict[str, ast.FunctionDef], depth: int = 0) -> None:
    """The command lines `body` spells, in order, into `owner`: its `*.run(...)` calls with constant words, what
    `shutil.rmtree`/`os.remove` delete (as `rm -rf PATH`), and the lines of the noxfile's own helper functions it
    calls (`git_clone(session, url)`), followed a few levels deep."""
    for inner in ast.walk(body):
        if not isinstance(inner, ast.Call):
            continue
        func = inner.func
        if isinstance(func, ast.Name) and func.id in helpers and depth < 3:
            _call_lines(helpers[func.id], owner, {k: v for k, v in helpers.items() if k != func.id}, depth + 1)
            continue
        if not isinstance(func, ast.Attribute):
            continue
        if func.attr in ("rmtree", "remove", "unlink") and inner.args:
            target = inner.args[0]
            if isinstance(target, ast.Constant) and isinstance(target.value, str):
                owner.lines.append(f"rm -rf {_quote(target.value)}")
            continue
        if func.attr != "run":
            continue
        words: list[str] = []
        for arg in inner.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                words.append(arg.value)
            elif isinstance(arg, ast.Starred):
                continue  # `*session.posargs`: the person's own arguments
            else:
                owner.complete = False
                words.append("$ARG")
        if words:
            owner.lines.append(" ".join(_quote(w) for w in words))


def _nox_sessions(tree: ast.Module) -> tuple[list[_Session], list[str] | None]:
    """Each session (its name, the command lines its `session.run(...)` calls spell with constant strings, its
    Pythons) and `nox.options.sessions` when the noxfile sets which sessions bare `nox` runs."""
    sessions: list[_Session] = []
    defaults: list[str] | None = None
    helpers = {
        node.name: node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and not any(_decorator_session(d)[0] for d in node.decorator_list)
    }
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr == "sessions"
                    and isinstance(target.value, ast.Attribute)
                ):
                    defaults = _constant_strings(node.value)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for decorator in node.decorator_list:
            is_session, call = _decorator_session(decorator)
            if not is_session:
                continue
            session = _Session(node.name)
            for keyword in call.keywords if call else []:
                if (
                    keyword.arg == "name"
                    and isinstance(keyword.value, ast.Constant)
                    and isinstance(keyword.value.value, str)
                ):
                    session.name = keyword.value.value
                elif keyword.arg in ("python", "py"):
                    session.pythons = _constant_strings(keyword.value)
                elif keyword.arg == "default" and isinstance(keyword.value, ast.Constant):
                    session.default = bool(keyword.value.value)
            _call_lines(node, session, helpers)
            sessions.append(session)
            break
    return sessions, defaults


def _quote(word: str) -> str:
    if word == "$ARG" or re.fullmatch(r"[\w@%+=:,./-]+", word):
        return word
    return "'" + word.replace("'", "'\"'\"'") + "'"
