"""The environment a command runs in: the one the project's own terminal would give it (design §5).

An editor started from a desktop launcher, or a terminal where nobody activated the project's virtualenv, has a PATH
on which the project's tools are missing: `pytest` lives in `.venv/bin`. Both doors — the language server's verify
and `freshpass run` — ask `run_environment()` what to put first on PATH, in this order:

1. the directories of the `freshpass.verify.path` setting (the editor's only; `extra_path`);
2. one Python environment: the interpreter the editor selected (VS Code's Python extension), else the project's:
   `$UV_PROJECT_ENVIRONMENT` in a uv project, the interpreter `.pdm-python` names, `.venv`, `venv`, poetry's
   environment for the project in its cache — looked for in the run's directory, then each parent up to the root;
3. the project's `node_modules/.bin`, nearest first, in a directory with a `package.json`.

Nothing is executed to find out: files are read (`pyvenv.cfg`, `.pdm-python`, poetry's `envs.toml` and config) through
the bounded regular-file reader, and directories are `lstat`ed. A repository decides what sits at these paths, so
odd shapes — a `.venv` that is a file or a symlink, a `bin` that is a symlink elsewhere, no `pyvenv.cfg` — are not an
environment, and a note says so. An environment that is already active (`$VIRTUAL_ENV` names it, or its `bin` is
first on PATH) is left as it is. An environment that is repository content is not an environment: a virtualenv or
`node_modules/.bin` under the project whose files git tracks (read from the index file, `runner/tracked.py`: no git
process, trusted or not), or a project virtualenv whose interpreter this machine does not have, is not put on PATH,
and one note says why.

`missing_program()` and `not_found_message()` explain an exit 127: which program, where freshpass looked, what fixes it.
"""

from __future__ import annotations

import os
import re
import stat
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freshpass.facts.files import read_regular
from freshpass.runner.tracked import tracked_under

SMALL_LIMIT = 64 << 10  # pyvenv.cfg, .pdm-python, poetry's envs.toml and config: a few hundred bytes
VENV_NAMES = (".venv", "venv")
SETTING = "freshpass.verify.path"
PATH_SHOWN = 10  # PATH entries a message lists before "…"


@dataclass(frozen=True)
class Added:
    """A directory put first on PATH, and why."""

    directory: str
    why: str


@dataclass(frozen=True)
class RunEnvironment:
    """What a run's environment adds to the one freshpass was started with."""

    added: tuple[Added, ...] = ()
    virtualenv: str | None = None  # the Python environment activated (its bin is in `added`)
    looked: tuple[str, ...] = ()  # where a project virtualenv was looked for, when none was found
    notes: tuple[str, ...] = ()  # odd shapes passed over, settings that name nothing
    base_path: str = ""  # PATH as it was
    replaced: str | None = None  # the `$VIRTUAL_ENV` that was active and is not the one activated

    @property
    def path_prepended(self) -> list[str]:
        return [item.directory for item in self.added]

    @property
    def path(self) -> str:
        return os.pathsep.join([*self.path_prepended, *([self.base_path] if self.base_path else [])])

    def apply(self, environ: Mapping[str, str]) -> dict[str, str]:
        """`environ` with PATH extended; an activated virtualenv also sets `VIRTUAL_ENV` and drops `PYTHONHOME`, as
        its `activate` script does."""
        result = dict(environ)
        if not self.added:
            return result
        result["PATH"] = self.path
        if self.virtualenv is not None:
            result["VIRTUAL_ENV"] = self.virtualenv
            result.pop("PYTHONHOME", None)
        return result

    def summary(self) -> str | None:
        """`put /p/.venv/bin first on PATH (the project's virtualenv)`; None when nothing was added."""
        if not self.added:
            return None
        if len(self.added) == 1:
            said = f"put {self.added[0].directory} first on PATH ({self.added[0].why})"
        else:
            said = "put " + _and_list([f"{item.directory} ({item.why})" for item in self.added]) + " first on PATH"
        return said + (f"; the active virtualenv was {self.replaced}" if self.replaced else "")

    def to_json(self, *, not_found: str | None = None) -> dict[str, Any] | None:
        """The receipt's `details.environment`; None when the run's environment is the one freshpass got."""
        if not self.added and not self.notes and not_found is None:
            return None
        data: dict[str, Any] = {"path_prepended": self.path_prepended, "virtualenv": self.virtualenv}
        if self.replaced:
            data["replaced"] = self.replaced
        if self.notes:
            data["notes"] = list(self.notes)
        if not_found is not None:
            data["not_found"] = not_found
            data["looked"] = list(self.looked)
        return data


def run_environment(
    cwd: str | os.PathLike[str],
    root: str | os.PathLike[str] | None,
    environ: Mapping[str, str],
    *,
    interpreter: str | None = None,
    extra_path: Sequence[str] = (),
) -> RunEnvironment:
    """What to put first on PATH for a command run in `cwd` of the project at `root` (see the module doc).

    `environ` is the environment freshpass would otherwise give the command; `interpreter` the Python the editor
    selected; `extra_path` the `freshpass.verify.path` setting (relative entries are relative to `root`)."""
    cwd_path = Path(os.path.abspath(cwd))
    root_path = Path(os.path.abspath(root)) if root is not None else None
    base_path = environ.get("PATH", os.defpath)
    entries = [entry for entry in base_path.split(os.pathsep) if entry]
    added: list[Added] = []
    notes: list[str] = []

    def add(directory: str, why: str) -> None:
        if directory not in (item.directory for item in added):
            added.append(Added(directory, why))

    for item in extra_path:
        directory = _setting_directory(item, root_path or cwd_path)
        if directory is None:
            notes.append(f"{SETTING}: {item} is not a directory; left out of PATH")
        else:
            add(directory, SETTING)

    found: tuple[Path, str] | None = None
    looked: list[str] = []
    if interpreter and os.sep in interpreter:  # a bare `python` names no environment
        environment, note = _environment_of_interpreter(interpreter)
        if environment is not None:
            found = (environment, "the interpreter the editor selected")
        else:
            notes.append(f"the interpreter the editor selected ({interpreter}): {note}")
    if found is None and root_path is not None:
        found, looked, project_notes = _project_environment(_directories(cwd_path, root_path), environ)
        notes.extend(project_notes)

    virtualenv: str | None = None
    replaced: str | None = None
    if found is not None:
        environment, why = found
        if not _is_active(environment, environ.get("VIRTUAL_ENV"), entries):
            add(str(environment / "bin"), why)
            virtualenv = str(environment)
            replaced = environ.get("VIRTUAL_ENV") or None

    if root_path is not None:
        node_bin = _node_bin(_directories(cwd_path, root_path), notes)
        if node_bin is not None and node_bin not in entries:
            add(node_bin, "the project's node_modules/.bin")

    return RunEnvironment(
        added=tuple(added),
        virtualenv=virtualenv,
        looked=tuple(looked) if found is None else (),
        notes=tuple(notes),
        base_path=base_path,
        replaced=replaced,
    )


# ---- where to look -----------------------------------------------------------------------------------------------


def _directories(cwd: Path, root: Path) -> list[Path]:
    """The run's directory and each parent up to the root (the root alone when the run is outside it)."""
    if cwd != root and root not in cwd.parents:
        return [root]
    found = [cwd]
    while found[-1] != root:
        found.append(found[-1].parent)
    return found


def _setting_directory(item: str, root: Path) -> str | None:
    expanded = os.path.expanduser(item)
    path = Path(expanded) if os.path.isabs(expanded) else root / expanded
    path = Path(os.path.normpath(path))
    return str(path) if path.is_dir() else None


def _is_active(environment: Path, virtual_env: str | None, entries: list[str]) -> bool:
    """Already activated: `$VIRTUAL_ENV` names it, or its bin is first on PATH (spellings through links count)."""
    if entries and os.path.realpath(entries[0]) == os.path.realpath(environment / "bin"):
        return True
    return bool(virtual_env) and os.path.realpath(str(virtual_env)) == os.path.realpath(environment)


def _kind(path: Path) -> str | None:
    """`dir`, `symlink`, `file`, `other` or None (absent) — of the path itself, never following a link."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return "other"


def _virtualenv(path: Path, *, in_project: bool) -> tuple[bool, str | None]:
    """Whether `path` is a usable Python environment, and a note when something is there but odd. A virtualenv is a
    directory with a regular `pyvenv.cfg` (or a conda environment's `conda-meta`) and a searchable `bin`. Inside the
    project (what a repository decides) none of them may be a symbolic link; elsewhere (a cache, a selected
    interpreter) links are followed, as pyenv's environments are links."""
    kind = _kind(path) if in_project else ("dir" if path.is_dir() else "file" if path.exists() else None)
    if kind is None:
        return False, None
    if kind == "symlink":
        return False, f"{path} is a symbolic link (to {_link_target(path)}), not the project's virtualenv; not used"
    if kind != "dir":
        return False, f"{path} is not a directory, so not a virtualenv; not used"
    config, bin_dir = path / "pyvenv.cfg", path / "bin"
    has_config = _kind(config) == "file" if in_project else config.is_file()
    if not has_config and not (path / "conda-meta").is_dir():
        return False, f"{path} has no pyvenv.cfg, so it is not a virtualenv; not used"
    if in_project and _kind(bin_dir) == "symlink":
        return False, f"{bin_dir} is a symbolic link (to {_link_target(bin_dir)}); not used"
    if not bin_dir.is_dir() or not os.access(bin_dir, os.X_OK):
        return False, f"{path} has no bin directory; not used"
    home = _pyvenv_home(config, follow=not in_project) if has_config else None
    if home is not None and not os.path.isdir(home):
        if in_project:  # a virtualenv that came with the content (an archive, a copied folder): not this machine's
            return (
                False,
                f"{path} was made with a Python in {home}, which this machine does not have; not put on PATH: "
                "recreate it",
            )
        return True, f"{path} was made with a Python in {home}, which this machine does not have: recreate it"
    return True, None


def _link_target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _pyvenv_home(config: Path, *, follow: bool) -> str | None:
    """The `home` of a pyvenv.cfg: the directory of the Python the environment was made with."""
    try:
        text = read_regular(config, SMALL_LIMIT, follow_symlinks=follow).decode("utf-8", "replace")
    except OSError:
        return None
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip() == "home":
            return value.strip() or None
    return None


def _environment_of_interpreter(interpreter: str) -> tuple[Path | None, str]:
    """The environment of a Python interpreter (`/e/bin/python` → `/e`) or an environment directory, else why not.
    The path is not resolved: a virtualenv's python is a symlink to the base interpreter."""
    path = Path(os.path.normpath(os.path.abspath(os.path.expanduser(interpreter))))
    environment = path if path.is_dir() else path.parent.parent
    usable, note = _virtualenv(environment, in_project=False)
    if usable:
        return environment, ""
    return None, note or f"{environment} is not a virtualenv; PATH is left as it is"


def _project_environment(
    directories: list[Path], environ: Mapping[str, str]
) -> tuple[tuple[Path, str] | None, list[str], list[str]]:
    """(environment and why, the paths looked at, notes) for the nearest directory that has one."""
    looked: list[str] = []
    notes: list[str] = []
    for directory in directories:
        for candidate, why in _candidates(directory, environ, notes):
            looked.append(str(candidate))
            in_project = directory in candidate.parents
            usable, note = _virtualenv(candidate, in_project=in_project)
            if usable and in_project and tracked_under(candidate, directory):
                usable, note = False, _committed(candidate)
            if note:
                notes.append(note)
            if usable:
                return (candidate, why), looked, notes
    return None, looked, notes


def _candidates(directory: Path, environ: Mapping[str, str], notes: list[str]) -> Iterator[tuple[Path, str]]:
    uv_environment = environ.get("UV_PROJECT_ENVIRONMENT")
    if uv_environment and _kind(directory / "uv.lock") == "file":
        yield Path(os.path.normpath(directory / os.path.expanduser(uv_environment))), "uv's UV_PROJECT_ENVIRONMENT"
    pdm = _pdm_python(directory)
    if pdm is not None:
        yield pdm, "the interpreter .pdm-python names"
    for name in VENV_NAMES:
        yield directory / name, "the project's virtualenv"
    if _kind(directory / "poetry.lock") == "file" or _kind(directory / "poetry.toml") == "file":
        poetry = _poetry_environment(directory, environ, notes)
        if poetry is not None:
            yield poetry, "the project's poetry environment"


def _pdm_python(directory: Path) -> Path | None:
    try:
        named = read_regular(directory / ".pdm-python", SMALL_LIMIT, follow_symlinks=False).decode("utf-8", "replace")
    except OSError:
        return None
    interpreter = named.strip()
    if not interpreter or "\n" in interpreter or not os.path.isabs(interpreter):
        return None
    return Path(os.path.normpath(interpreter)).parent.parent


# ---- poetry: an environment in its cache, named after the project ------------------------------------------------


def _toml(path: Path) -> dict[str, Any]:
    try:
        data = read_regular(path, SMALL_LIMIT, follow_symlinks=False)
    except OSError:
        return {}
    import tomli

    try:
        parsed = tomli.loads(data.decode("utf-8", "replace"))
    except tomli.TOMLDecodeError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def _table(data: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        value = data.get(key)
        if not isinstance(value, dict):
            return {}
        data = value
    return dict(data)


def poetry_env_name(name: str, project: Path) -> str:
    """Poetry's name for a project's environments (before `-pyX.Y`): the project name, then a hash of its path."""
    import base64
    import hashlib

    canonical = re.sub(r"[-_.]+", "-", name).lower()
    sanitized = re.sub(r'[ $`!*@"\\\r\n\t]', "_", canonical)[:42]
    digest = hashlib.sha256(os.path.normcase(os.path.realpath(project)).encode()).digest()
    return f"{sanitized}-{base64.urlsafe_b64encode(digest).decode()[:8]}"


def _poetry_virtualenvs(project: Path, environ: Mapping[str, str]) -> Path | None:
    """Where poetry keeps environments: `$POETRY_VIRTUALENVS_PATH`, `virtualenvs.path` of the project's poetry.toml
    or the user's config, else `{cache-dir}/virtualenvs`."""
    home = Path(environ.get("HOME") or os.path.expanduser("~"))
    if sys.platform == "darwin":
        config_dir, cache_dir = home / "Library/Application Support/pypoetry", home / "Library/Caches/pypoetry"
    else:
        config_dir = Path(environ.get("XDG_CONFIG_HOME") or home / ".config") / "pypoetry"
        cache_dir = Path(environ.get("XDG_CACHE_HOME") or home / ".cache") / "pypoetry"
    config_dir = Path(environ.get("POETRY_CONFIG_DIR") or config_dir)
    user = _toml(config_dir / "config.toml")
    local = _toml(project / "poetry.toml")
    cache = environ.get("POETRY_CACHE_DIR") or local.get("cache-dir") or user.get("cache-dir") or str(cache_dir)
    configured = (
        environ.get("POETRY_VIRTUALENVS_PATH")
        or _table(local, "virtualenvs").get("path")
        or _table(user, "virtualenvs").get("path")
    )
    if not isinstance(cache, str):
        return None
    path = configured if isinstance(configured, str) else os.path.join(cache, "virtualenvs")
    return Path(os.path.expanduser(path.replace("{cache-dir}", cache)))


def _poetry_environment(project: Path, environ: Mapping[str, str], notes: list[str]) -> Path | None:
    pyproject = _toml(project / "pyproject.toml")
    name = _table(pyproject, "tool", "poetry").get("name") or _table(pyproject, "project").get("name")
    virtualenvs = _poetry_virtualenvs(project, environ)
    if not isinstance(name, str) or not name or virtualenvs is None:
        return None
    base = poetry_env_name(name, project)
    minor = _table(_toml(virtualenvs / "envs.toml"), base).get("minor")
    if isinstance(minor, str) and re.fullmatch(r"\d+\.\d+", minor):
        return virtualenvs / f"{base}-py{minor}"
    try:
        made = sorted(
            (entry for entry in os.listdir(virtualenvs) if entry.startswith(f"{base}-py")),
            key=lambda entry: [int(part) for part in re.findall(r"\d+", entry.rpartition("-py")[2])],
        )
    except OSError:
        return None
    if len(made) > 1:
        notes.append(f"poetry has {len(made)} environments for this project in {virtualenvs}; using {made[-1]}")
    return virtualenvs / made[-1] if made else None


# ---- node --------------------------------------------------------------------------------------------------------


def _node_bin(directories: list[Path], notes: list[str]) -> str | None:
    for directory in directories:
        if _kind(directory / "package.json") != "file":
            continue
        if _kind(directory / "node_modules") == "dir" and _kind(directory / "node_modules" / ".bin") == "dir":
            if tracked_under(directory / "node_modules" / ".bin", directory):
                notes.append(_committed(directory / "node_modules" / ".bin"))
                return None
            return str(directory / "node_modules" / ".bin")
    return None


def _committed(path: Path) -> str:
    return f"{path} is tracked by git: it came with the repository, not from this machine; not put on PATH"


# ---- exit 127 ----------------------------------------------------------------------------------------------------

# What shells (and env) print when they cannot find a program; the last match in the output names it. Compiled on
# the first exit 127 (`freshpass run` imports this module for every command: design §5).
_NOT_FOUND_PATTERNS = (
    r"^(?:[^\n:]*: )?(?:line \d+: )?(?P<program>[^\n:]+): command not found$",  # bash
    r"^[^\n:]*:\d+: (?:command not found|no such file or directory): (?P<program>[^\n]+)$",  # zsh
    r"^[^\n:]*: (?:\d+: )?(?P<program>[^\n:]+): not found$",  # dash, ksh
    r"^(?:\S*/)?env: ['‘]?(?P<program>[^'’\n]+)['’]?: No such file or directory$",  # env
    r"^(?:[^\n:]*: )?(?:line \d+: )?(?P<program>[^\n:]+): No such file or directory$",  # bash, ./x
)


def missing_program(line: str, output: str, path: str, cwd: str | os.PathLike[str]) -> str | None:
    """The program a run that exited 127 could not find: what the shell said, else the line's first program that is
    not on `path`. None when neither tells."""
    import shlex
    import shutil

    for pattern in _NOT_FOUND_PATTERNS:
        matches = list(re.finditer(pattern, output, re.M))
        if matches:
            return matches[-1].group("program").strip()
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    words = [word for word in words if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", word)]
    if not words:
        return None
    program = words[0]
    if "/" in program:
        target = os.path.join(os.fspath(cwd), program)
        return None if os.access(target, os.X_OK) else program
    return None if shutil.which(program, path=path) else program


def not_found_message(program: str | None, environment: RunEnvironment, fix: str) -> str:
    """`pytest` was not found: freshpass looked on PATH (…) and for the project's virtualenv (…). <fix>"""
    entries = environment.path.split(os.pathsep) if environment.path else []
    more = len(entries) - PATH_SHOWN
    shown = ", ".join(entries[:PATH_SHOWN]) + (f", … ({more} more)" if more > 0 else "")
    what = f"`{program}` was not found" if program else "the command was not found"
    where = f"freshpass looked on PATH ({shown or 'empty'})"
    if environment.virtualenv is not None:
        where += f", which starts with the virtualenv {environment.virtualenv}"
    elif environment.looked:
        where += " and for a project virtualenv at " + _or_list(environment.looked)
    return f"{what}: {where}. {fix}"


def _or_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _and_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


# What fixes a 127, per door.
FIX_IN_EDITOR = f"Set `{SETTING}` to the directory that holds it, or create the project's virtualenv (.venv) with it."
FIX_IN_TERMINAL = "Activate the environment that has it, or create the project's virtualenv (.venv) with it."
