"""Recipes (design §5) as data: load from configuration or a saved file, else detect per ecosystem.

A recipe says how to take a fresh checkout to a running app. Its JSON shape (what `freshpass facts --json` shows
under `recipe`, what `.freshpass/recipe.json` holds and what `freshpass verify` runs)::

    {
      "source": ".freshpass/recipe.json",          # where it came from ("detected: python (flask)", …)
      "phases": {                                  # run in this order; each a list of {command, cwd}
        "bootstrap": [{"command": "uv sync", "cwd": "."}],
        "build": [],
        "test": [{"command": "uv run pytest", "cwd": "."}],
        "start": [{"command": "uv run flask run --port $PORT", "cwd": "."}]
      },
      "port": 5000,                                # the port `start` serves on (null: unknown)
      "ready_url": "http://127.0.0.1:5000/",       # loopback only; a bare path ("/health") uses the port
      "env": {"FLASK_DEBUG": "0"},                 # extra environment for every phase
      "timeout": {"test": 600},                    # seconds per phase (a number: every phase)
      "ready_timeout": 60,                         # seconds `start` may take to answer
      "stop": []                                   # run after `start` is torn down (docker compose down)
    }

Commands run through the user's shell with `$PORT` set to the port (so `--port $PORT` follows `freshpass verify
--port N`). `start` holds at most one command: the long-running server. Phase lists may also be written as a
single string or a list of strings; the phases may sit at the top level instead of under `phases`.

Sources, first found wins (a malformed one is reported as a `Problem` naming the file and field, then skipped):

1. `[tool.freshpass.recipe]` in `pyproject.toml`, or the recipe fields directly in `[tool.freshpass]`
   (`bootstrap`, `build`, `test`, `start`, `port`, `ready_url`, `env`, `timeout`, `ready_timeout`, `stop`);
   the same in `.freshpass.toml` (`[recipe]` or top-level fields).
2. `.freshpass/recipe.json` (what `freshpass verify --save` writes).
3. `.hermes/environment.json`, read as a recipe with this mapping (an agent environment file: how to set up,
   check and run a project): `setup` / `install` / `bootstrap` → bootstrap, `build` → build, `test` / `check` →
   test, `start` / `run` / `serve` → start (each a string or a list), `port` (number) or `ports` (first entry:
   a number or a `"HOST:CONTAINER"` mapping, whose host side is taken) → port, `env` / `environment` → env,
   `ready_url` / `healthcheck` → ready_url, `cwd` / `workdir` → the default cwd of every command, `timeout`
   and `ready_timeout` as above. Other keys are ignored (the file describes more than a recipe).
4. Detection from manifests (never executing anything): Node (framework and its default port), Python (Django,
   FastAPI, Flask, plain), Go, Rust, Java (Maven/Gradle, Spring Boot), Make, docker compose (as the start only
   when no language start was found and a service is built from the repository). A detected recipe always
   carries the project's approved verify commands: build commands in `build`, every other kind in `test`, so
   learning how to start the app never hides its checks. Its `ready_url` is null: the runner polls
   `http://localhost:PORT/` (127.0.0.1 and ::1, since dev servers bind either).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from freshpass.facts.ecosystems import registry
from freshpass.facts.files import read_head, read_regular
from freshpass.facts.model import Problem, ProjectFacts
from freshpass.facts.signals.base import (
    MAX_CONFIG_BYTES,
    MAX_YAML_BYTES,
    MAX_YAML_NODES,
    expands_within,
    safe_yaml_loader,
)

PHASES: tuple[str, ...] = ("bootstrap", "build", "test", "start")
RECIPE_FILE = ".freshpass/recipe.json"
HERMES_FILE = ".hermes/environment.json"
_RECIPE_FIELDS = (*PHASES, "phases", "port", "ready_url", "env", "timeout", "ready_timeout", "stop")
COMPOSE_FILES = ("compose.yaml", "compose.yml", "docker-compose.yaml", "docker-compose.yml")


class RecipeError(ValueError):
    """A recipe field that cannot be used; `field` names it (e.g. `phases.build[0].command`)."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


# --------------------------------------------------------------------------------------------------- normalising


def _commands(value: Any, field: str, default_cwd: str = ".") -> list[dict[str, str]]:
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise RecipeError(field, f"expected a list of commands, got {type(value).__name__}")
    commands: list[dict[str, str]] = []
    for index, item in enumerate(value):
        where = f"{field}[{index}]"
        if isinstance(item, str):
            item = {"command": item}
        if not isinstance(item, dict):
            raise RecipeError(where, f"expected a command string or {{command, cwd}}, got {type(item).__name__}")
        command = item.get("command")
        if not isinstance(command, str) or not command.strip():
            raise RecipeError(f"{where}.command", "expected a non-empty string")
        cwd = item.get("cwd", default_cwd)
        if not isinstance(cwd, str) or not cwd:
            raise RecipeError(f"{where}.cwd", "expected a directory relative to the root")
        posix = PurePosixPath(cwd.replace("\\", "/"))
        if posix.is_absolute() or ".." in posix.parts:
            raise RecipeError(f"{where}.cwd", f"{cwd!r} must stay inside the project root")
        commands.append({"command": command.strip(), "cwd": str(posix)})
    return commands


def _port(value: Any, field: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 65535:
        raise RecipeError(field, f"expected a port number 1-65535, got {value!r}")
    return value


def _seconds(value: Any, field: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise RecipeError(field, f"expected a positive number of seconds, got {value!r}")
    return float(value)


def normalize_recipe(data: Any, *, source: str, default_cwd: str = ".") -> dict[str, Any]:
    """Validate `data` and return the canonical recipe dict; raises `RecipeError` naming the bad field."""
    if not isinstance(data, dict):
        raise RecipeError("(top level)", f"expected an object, got {type(data).__name__}")
    phases_in = data.get("phases")
    if phases_in is not None and not isinstance(phases_in, dict):
        raise RecipeError("phases", f"expected an object keyed by phase, got {type(phases_in).__name__}")
    phases_in = phases_in or {}
    unknown = sorted(set(phases_in) - set(PHASES))
    if unknown:
        raise RecipeError(f"phases.{unknown[0]}", f"unknown phase (phases are {', '.join(PHASES)})")
    phases: dict[str, list[dict[str, str]]] = {}
    for phase in PHASES:
        if phase in phases_in and phase in data:
            raise RecipeError(phase, "given both at the top level and under phases")
        if phase in phases_in:
            phases[phase] = _commands(phases_in[phase], f"phases.{phase}", default_cwd)
        else:
            phases[phase] = _commands(data.get(phase), phase, default_cwd)
    if len(phases["start"]) > 1:
        raise RecipeError("start", "holds one long-running command (the server); chain setup steps into build")

    env = data.get("env") or {}
    if not isinstance(env, dict):
        raise RecipeError("env", f"expected an object of NAME: value, got {type(env).__name__}")
    for name, value in env.items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", str(name)):
            raise RecipeError(f"env.{name}", "not a valid environment variable name")
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            raise RecipeError(f"env.{name}", f"expected a string, got {type(value).__name__}")

    timeout_in = data.get("timeout")
    timeout: dict[str, float] = {}
    if isinstance(timeout_in, dict):
        for phase, seconds in timeout_in.items():
            if phase not in PHASES:
                raise RecipeError(f"timeout.{phase}", f"unknown phase (phases are {', '.join(PHASES)})")
            timeout[phase] = _seconds(seconds, f"timeout.{phase}")
    elif timeout_in is not None:
        seconds = _seconds(timeout_in, "timeout")
        timeout = dict.fromkeys(PHASES, seconds)

    ready_url = data.get("ready_url")
    if ready_url is not None and (not isinstance(ready_url, str) or not ready_url.strip()):
        raise RecipeError("ready_url", "expected a URL such as http://127.0.0.1:8000/health or a path like /health")

    recipe: dict[str, Any] = {
        "source": source,
        "phases": phases,
        "port": _port(data.get("port"), "port"),
        "ready_url": ready_url.strip() if isinstance(ready_url, str) else None,
        "env": {str(k): str(v) for k, v in env.items()},
        "timeout": timeout,
        "ready_timeout": _seconds(data["ready_timeout"], "ready_timeout") if data.get("ready_timeout") else None,
        "stop": _commands(data.get("stop"), "stop", default_cwd),
    }
    return recipe


# --------------------------------------------------------------------------------------------------- loading


def _read_toml(path: Path) -> dict[str, Any]:
    import tomli  # imported when a TOML file is there to read (`freshpass run` starts per command)

    return tomli.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))


def _recipe_table(table: Any, prefix: str) -> tuple[Any, str] | None:
    """The recipe part of a `[tool.freshpass]` / `.freshpass.toml` table and its dotted name, or None."""
    if not isinstance(table, dict):
        return None
    if "recipe" in table:
        return table["recipe"], f"{prefix}.recipe" if prefix else "recipe"
    fields = {key: table[key] for key in _RECIPE_FIELDS if key in table}
    return (fields, prefix) if fields else None


def _from_config(tree: _Tree, problems: list[Problem]) -> dict[str, Any] | None:
    candidates: list[tuple[str, str, Callable[[dict[str, Any]], Any]]] = [
        ("pyproject.toml", "tool.freshpass", lambda doc: doc.get("tool", {}).get("freshpass")),
        (".freshpass.toml", "", lambda doc: doc),
    ]
    for name, prefix, pick in candidates:
        if not tree.is_file(name):
            continue
        import tomli

        try:
            document = _read_toml(tree.path(name))
        except (OSError, tomli.TOMLDecodeError, UnicodeDecodeError, RecursionError) as exc:
            # The facts detector reports unreadable pyproject files itself; only the recipe file is ours.
            if name == ".freshpass.toml":
                problems.append(Problem(name, f"cannot read the recipe: {exc}; falling back"))
            continue
        found = _recipe_table(pick(document), prefix)
        if found is None:
            continue
        table, where = found
        try:
            if not isinstance(table, dict):
                raise RecipeError("", f"expected a table, got {type(table).__name__}")
            return normalize_recipe(table, source=f"{name}#{where}" if where else name)
        except RecipeError as exc:
            field = ".".join(part for part in (where, exc.field) if part)
            problems.append(Problem(name, f"{field}: {exc.reason}; falling back to detection"))
    return None


def _read_json(tree: _Tree, name: str, problems: list[Problem]) -> Any:
    if not tree.is_file(name):
        return None
    path = tree.path(name)
    try:
        return json.loads(read_regular(path, MAX_CONFIG_BYTES).decode("utf-8"))
    except RecursionError:
        problems.append(Problem(name, "nested too deeply to read; falling back to detection"))
    except json.JSONDecodeError as exc:
        problems.append(
            Problem(name, f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); falling back")
        )
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(Problem(name, f"cannot read: {exc}; falling back to detection"))
    return None


def _from_saved(tree: _Tree, problems: list[Problem]) -> dict[str, Any] | None:
    data = _read_json(tree, RECIPE_FILE, problems)
    if data is None:
        return None
    try:
        return normalize_recipe(data, source=RECIPE_FILE)
    except RecipeError as exc:
        problems.append(Problem(RECIPE_FILE, f"{exc}; falling back to detection"))
        return None


def hermes_to_recipe(data: Any) -> dict[str, Any]:
    """Map a `.hermes/environment.json` document onto recipe fields (see the module docstring)."""
    if not isinstance(data, dict):
        raise RecipeError("(top level)", f"expected an object, got {type(data).__name__}")
    mapped: dict[str, Any] = {}
    aliases = {
        "bootstrap": ("setup", "install", "bootstrap"),
        "build": ("build",),
        "test": ("test", "check"),
        "start": ("start", "run", "serve"),
        "env": ("env", "environment"),
        "ready_url": ("ready_url", "healthcheck"),
    }
    for target, names in aliases.items():
        present = [name for name in names if name in data]
        if len(present) > 1:
            raise RecipeError(present[1], f"duplicates {present[0]} (both mean {target})")
        if present:
            mapped[target] = data[present[0]]
    for key in ("port", "timeout", "ready_timeout"):
        if key in data:
            mapped[key] = data[key]
    if "port" not in mapped and "ports" in data:
        mapped["port"] = _first_published_port(data["ports"])
    return mapped


def _first_published_port(ports: Any) -> int | None:
    """The host side of the first entry of a `ports` list: `8080`, `"8080"`, `"8080:80"`, `"127.0.0.1:8080:80"`."""
    if not isinstance(ports, list):
        raise RecipeError("ports", f"expected a list of ports, got {type(ports).__name__}")
    if not ports:
        return None
    first = ports[0]
    if isinstance(first, int) and not isinstance(first, bool):
        return first
    if isinstance(first, str):
        parts = first.split("/")[0].split(":")
        host_side = parts[-2] if len(parts) >= 2 else parts[0]
        if host_side.isdigit():
            return int(host_side)
    raise RecipeError("ports[0]", f"expected a port or a HOST:CONTAINER mapping, got {first!r}")


def _from_hermes(tree: _Tree, problems: list[Problem]) -> dict[str, Any] | None:
    data = _read_json(tree, HERMES_FILE, problems)
    if data is None:
        return None
    try:
        mapped = hermes_to_recipe(data)
        default_cwd = data.get("cwd", data.get("workdir", "."))
        if not isinstance(default_cwd, str):
            raise RecipeError("cwd", "expected a directory relative to the root")
        return normalize_recipe(mapped, source=HERMES_FILE, default_cwd=default_cwd or ".")
    except RecipeError as exc:
        problems.append(Problem(HERMES_FILE, f"{exc}; falling back to detection"))
        return None


def load_recipe(root: Path) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The first declared recipe (config, saved, hermes) and the problems met reading them."""
    return _load(_Tree(root))


def _load(tree: _Tree) -> tuple[dict[str, Any] | None, list[Problem]]:
    problems: list[Problem] = []
    for loader in (_from_config, _from_saved, _from_hermes):
        recipe = loader(tree, problems)
        if recipe is not None:
            return recipe, problems
    return None, problems


def recipe_for(root: Path, facts: ProjectFacts) -> tuple[dict[str, Any] | None, list[Problem]]:
    """The recipe for `root` and any problems met while reading recipe files."""
    reading = read_recipe(root, facts)
    return reading.recipe, reading.problems


@dataclass(frozen=True)
class RecipeReading:
    """A root's recipe, the problems met reading recipe files, and every path looked at (present or not): a change
    to one of them can change the recipe (design §6)."""

    recipe: dict[str, Any] | None
    problems: list[Problem]
    looked: frozenset[str]


def read_recipe(root: Path, facts: ProjectFacts) -> RecipeReading:
    tree = _Tree(root)
    try:
        recipe, problems = _load(tree)
        if recipe is None:
            recipe = _detect(tree, facts)
    except RecursionError:  # a manifest nested thousands deep (json, tomli and yaml all recurse)
        recipe, problems = None, [Problem(".", "a recipe file is nested too deeply to read; no recipe")]
    return RecipeReading(recipe, problems, frozenset(tree.looked))


def save_recipe(root: Path, recipe: dict[str, Any]) -> Path:
    """Write `recipe` to `.freshpass/recipe.json` (validated first) and return the path."""
    canonical = normalize_recipe({k: v for k, v in recipe.items() if k != "source"}, source=RECIPE_FILE)
    canonical.pop("source")
    path = root / RECIPE_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(canonical, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


# --------------------------------------------------------------------------------------------------- detection


class _Detected:
    """What one ecosystem contributes to a detected recipe."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.bootstrap: list[str] = []
        self.build: list[str] = []
        self.start: str | None = None
        self.port: int | None = None
        self.ready_timeout: float | None = None
        self.stop: list[str] = []
        self.env: dict[str, str] = {}
        self.framework: str | None = None


def _read_text(path: Path, limit: int = 1_000_000) -> str:
    """The start of a regular file (at most `limit` bytes); "" for anything else (a FIFO, a device, missing)."""
    try:
        return read_head(path, limit).decode("utf-8", errors="replace")
    except OSError:
        return ""


class _Tree:
    """The root as recipe detection reads it, remembering every root-relative path it asked about."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.looked: set[str] = set()

    def path(self, rel: str) -> Path:
        self.looked.add(rel)
        return self.root / rel

    def is_file(self, rel: str) -> bool:
        return self.path(rel).is_file()

    def exists(self, rel: str) -> bool:
        return self.path(rel).exists()

    def text(self, rel: str, limit: int = 1_000_000) -> str:
        return _read_text(self.path(rel), limit)


# Node frameworks: dependency → (name, default port, scripts to try in order, args that set the port, env).
# Servers that read $PORT themselves (next, remix-serve, react-scripts, express apps by convention) take no args.
_NODE_FRAMEWORKS: tuple[tuple[str, str, int, tuple[str, ...], str, dict[str, str]], ...] = (
    ("next", "next", 3000, ("start", "dev"), "", {}),
    ("nuxt", "nuxt", 3000, ("dev",), "--port $PORT", {}),
    ("astro", "astro", 4321, ("dev",), "--port $PORT", {}),
    ("@sveltejs/kit", "sveltekit", 5173, ("dev",), "--port $PORT --strictPort", {}),
    ("@remix-run/serve", "remix", 3000, ("start",), "", {}),
    ("@angular/core", "angular", 4200, ("start",), "--port $PORT", {}),
    ("gatsby", "gatsby", 8000, ("develop",), "-p $PORT", {}),
    ("react-scripts", "create-react-app", 3000, ("start",), "", {"BROWSER": "none"}),
    ("vite", "vite", 5173, ("dev",), "--port $PORT --strictPort", {}),
    ("express", "express", 3000, ("start",), "", {}),
    ("fastify", "fastify", 3000, ("start",), "", {}),
    ("koa", "koa", 3000, ("start",), "", {}),
)


def _node_manager(tree: _Tree, facts: ProjectFacts, manifest: dict[str, Any]) -> str:
    for manager in facts.package_managers:
        if manager in {"npm", "pnpm", "yarn", "bun"}:
            return manager
    declared = manifest.get("packageManager")
    if isinstance(declared, str) and declared.split("@")[0] in {"npm", "pnpm", "yarn", "bun"}:
        return declared.split("@")[0]
    for lockfile, manager in registry.lockfiles("node"):
        if tree.is_file(lockfile):
            return manager
    return "npm"


def _script(manager: str, name: str, args: str = "") -> str:
    line = f"{manager} run {name}"
    if args:
        # npm needs `--` to hand flags to the script; pnpm, yarn and bun pass them through as they are.
        line += f" -- {args}" if manager == "npm" else f" {args}"
    return line


def _detect_node(tree: _Tree, facts: ProjectFacts) -> _Detected | None:
    if not tree.is_file("package.json"):
        return None
    try:
        manifest = json.loads(tree.text("package.json"))
    except json.JSONDecodeError:
        return None  # the facts detector reports malformed package.json
    if not isinstance(manifest, dict):
        return None
    found = _Detected("node")
    manager = _node_manager(tree, facts, manifest)
    if manager == "npm":
        found.bootstrap.append("npm ci" if tree.is_file("package-lock.json") else "npm install")
    elif manager == "pnpm":
        found.bootstrap.append("pnpm install --frozen-lockfile")
    else:
        found.bootstrap.append(f"{manager} install")
    scripts: dict[str, Any] = manifest["scripts"] if isinstance(manifest.get("scripts"), dict) else {}
    deps: set[str] = set()
    for key in ("dependencies", "devDependencies"):
        if isinstance(manifest.get(key), dict):
            deps.update(manifest[key])
    if "build" in scripts:
        found.build.append(_script(manager, "build"))
    for dependency, framework, port, script_names, port_args, env in _NODE_FRAMEWORKS:
        if dependency not in deps:
            continue
        if dependency == "@remix-run/serve" and "vite" in deps:
            continue  # Remix on Vite serves through `vite dev`: the vite row below handles it
        script = next((name for name in script_names if name in scripts), None)
        if script is None:
            continue
        found.framework = framework
        found.port = port
        found.env.update(env)
        found.start = _script(manager, script, port_args)
        break
    if found.start is None and "start" in scripts:
        found.start = _script(manager, "start")  # a server of unknown kind: its port must be given
    elif found.start is None and {"express", "fastify", "koa"} & deps:
        main = manifest.get("main") if isinstance(manifest.get("main"), str) else None
        for candidate in (main, "server.js", "app.js", "index.js"):
            if candidate and tree.is_file(candidate):
                found.framework, found.port = "express", 3000
                found.start = f"node {candidate}"
                break
    return found


def _python_dependencies(tree: _Tree) -> set[str]:
    names: set[str] = set()

    def add(spec: str) -> None:
        match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
        if match:
            names.add(re.sub(r"[-_.]+", "-", match.group(1)).lower())

    if tree.is_file("pyproject.toml"):
        import tomli

        try:
            document = _read_toml(tree.path("pyproject.toml"))
        except (OSError, tomli.TOMLDecodeError, UnicodeDecodeError):
            document = {}
        project = document.get("project", {})
        for spec in project.get("dependencies", []) if isinstance(project, dict) else []:
            if isinstance(spec, str):
                add(spec)
        poetry = document.get("tool", {}).get("poetry", {})
        if isinstance(poetry, dict) and isinstance(poetry.get("dependencies"), dict):
            for name in poetry["dependencies"]:
                add(name)
    for requirements in ("requirements.txt", "requirements/base.txt", "requirements/prod.txt"):
        for line in tree.text(requirements).splitlines():
            if line.strip() and not line.lstrip().startswith(("#", "-")):
                add(line)
    for line in tree.text("Pipfile").splitlines():
        if "=" in line and not line.startswith("["):
            add(line.split("=")[0].strip().strip('"'))
    return names


def _fastapi_target(tree: _Tree) -> str | None:
    for candidate in ("main.py", "app.py", "app/main.py", "src/main.py", "api/main.py", "server.py"):
        text = tree.text(candidate, 200_000)
        match = re.search(r"^(\w+)\s*(?::[^=]+)?=\s*(?:fastapi\.)?FastAPI\(", text, re.MULTILINE)
        if match:
            module = candidate.removesuffix(".py").replace("/", ".")
            return f"{module}:{match.group(1)}"
    return None


# How each Python environment manager (named by its lockfile, in the ecosystem record) installs the project.
_PYTHON_SYNC = {"uv": "uv sync", "poetry": "poetry install", "pdm": "pdm install", "pipenv": "pipenv install --dev"}


def _detect_python(tree: _Tree, facts: ProjectFacts) -> _Detected | None:
    markers = ("pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", "manage.py")
    if not any(tree.is_file(marker) for marker in markers):
        return None
    found = _Detected("python")
    venv_python = ".venv/bin/python"
    manager = next((m for lock, m in registry.lockfiles("python") if tree.is_file(lock)), None)
    if manager is not None:
        found.bootstrap.append(_PYTHON_SYNC[manager])
        run = f"{manager} run "
        python = f"{manager} run python"
    else:
        python = ".venv/bin/python" if tree.exists(venv_python) else "python3"
        run = ""
        if tree.exists(venv_python) and tree.is_file("requirements.txt"):
            # Only into the project's own venv: installing into whatever python3 is on PATH is not ours to do.
            found.bootstrap.append(".venv/bin/python -m pip install -r requirements.txt")
    deps = _python_dependencies(tree)
    if tree.is_file("manage.py") and ("django" in deps or "django" in tree.text("manage.py")):
        found.framework, found.port = "django", 8000
        # --noreload: the autoreloader forks a second server that outlives a TERM sent to its parent.
        found.start = f"{python} manage.py runserver 127.0.0.1:$PORT --noreload"
    elif "fastapi" in deps:
        target = _fastapi_target(tree)
        if target is not None:
            found.framework, found.port = "fastapi", 8000
            uvicorn = f"{run}uvicorn" if run else f"{python} -m uvicorn"
            found.start = f"{uvicorn} {target} --host 127.0.0.1 --port $PORT"
    elif "flask" in deps:
        found.framework, found.port = "flask", 5000
        flask = f"{run}flask" if run else f"{python} -m flask"
        found.start = f"{flask} run --host 127.0.0.1 --port $PORT"
    return found


_GO_WEB = {
    "github.com/gin-gonic/gin": ("gin", 8080),  # gin listens on $PORT, else :8080
    "github.com/labstack/echo": ("echo", None),
    "github.com/gofiber/fiber": ("fiber", None),
    "github.com/go-chi/chi": ("chi", None),
    "github.com/gorilla/mux": ("gorilla", None),
}


def _detect_go(tree: _Tree) -> _Detected | None:
    if not tree.is_file("go.mod"):
        return None
    found = _Detected("go")
    found.bootstrap.append("go mod download")
    found.build.append("go build ./...")
    text = tree.text("go.mod")
    for module, (framework, port) in _GO_WEB.items():
        if module in text and tree.is_file("main.go"):
            found.framework, found.port = framework, port
            found.start = "go run ."
            found.ready_timeout = 300  # first `go run` compiles
            break
    return found


def _detect_rust(tree: _Tree) -> _Detected | None:
    if not tree.is_file("Cargo.toml"):
        return None
    found = _Detected("rust")
    found.bootstrap.append("cargo fetch")
    found.build.append("cargo build")
    text = tree.text("Cargo.toml")
    for crate, port, prefix in (
        ("rocket", 8000, "ROCKET_PORT=$PORT "),
        ("actix-web", None, ""),
        ("axum", None, ""),
        ("warp", None, ""),
        ("poem", None, ""),
    ):
        if re.search(rf"^\s*{re.escape(crate)}\s*=", text, re.MULTILINE):
            found.framework, found.port = crate, port
            found.start = f"{prefix}cargo run"
            found.ready_timeout = 600  # the first `cargo run` compiles the whole dependency tree
            break
    return found


def _detect_java(tree: _Tree) -> _Detected | None:
    if tree.is_file("pom.xml"):
        found = _Detected("java")
        maven = "./mvnw" if tree.is_file("mvnw") else "mvn"
        found.build.append(f"{maven} -B -DskipTests package")
        if "spring-boot" in tree.text("pom.xml"):
            found.framework, found.port = "spring-boot", 8080
            found.start = f"SERVER_PORT=$PORT {maven} -B spring-boot:run"
            found.ready_timeout = 600
        return found
    for build_file in ("build.gradle.kts", "build.gradle"):
        if tree.is_file(build_file):
            found = _Detected("java")
            gradle = "./gradlew" if tree.is_file("gradlew") else "gradle"
            found.build.append(f"{gradle} assemble")
            if "org.springframework.boot" in tree.text(build_file):
                found.framework, found.port = "spring-boot", 8080
                found.start = f"SERVER_PORT=$PORT {gradle} bootRun"
                found.ready_timeout = 600
            return found
    return None


def _make_targets(tree: _Tree) -> set[str]:
    for name in ("GNUmakefile", "makefile", "Makefile"):
        text = tree.text(name)
        if text:
            return set(re.findall(r"^([A-Za-z0-9][A-Za-z0-9_.-]*)\s*:(?!=)", text, re.MULTILINE))
    return set()


def _detect_make(tree: _Tree) -> _Detected | None:
    targets = _make_targets(tree)
    if not targets:
        return None
    found = _Detected("make")
    bootstrap = next((t for t in ("bootstrap", "setup", "deps", "install-deps") if t in targets), None)
    if bootstrap:
        found.bootstrap.append(f"make {bootstrap}")
    if "build" in targets:
        found.build.append("make build")
    start = next((t for t in ("run", "serve", "start") if t in targets), None)
    if start:
        found.start = f"make {start}"
    return found


def _compose_file(tree: _Tree) -> str | None:
    return next((name for name in COMPOSE_FILES if tree.is_file(name)), None)


def _published_port(service: dict[str, Any]) -> int | None:
    ports = service.get("ports")
    for entry in ports if isinstance(ports, list) else []:
        if isinstance(entry, dict) and isinstance(entry.get("published"), (int, str)):
            published = str(entry["published"])
        elif isinstance(entry, (str, int)):
            parts = str(entry).split("/")[0].split(":")
            published = parts[-2] if len(parts) >= 2 else ""  # "HOST:CONTAINER" or "IP:HOST:CONTAINER"
        else:
            continue
        if published.isdigit():
            return int(published)
    return None


def _detect_compose(tree: _Tree) -> _Detected | None:
    """docker compose as the way to start the app: only when a service is built from this repository.

    A compose file whose services are all images (a database for the tests, say) runs the project's
    dependencies, not the project: starting it and polling a database port over HTTP would fail for no reason.
    """
    name = _compose_file(tree)
    if name is None:
        return None
    import yaml  # only a project with a compose file pays for the import

    text = tree.text(name, MAX_YAML_BYTES)
    try:
        document = yaml.load(text, Loader=safe_yaml_loader())
    except yaml.YAMLError:
        return None
    if not expands_within(document, max(MAX_YAML_NODES, len(text))):
        return None  # aliases that expand past any real compose file
    services = document.get("services") if isinstance(document, dict) else None
    if not isinstance(services, dict):
        return None
    built = [service for service in services.values() if isinstance(service, dict) and "build" in service]
    if not built:
        return None
    found = _Detected("docker compose")
    found.build.append("docker compose build")
    # Foreground `up`: the runner owns its lifetime; `down` afterwards removes what this run created.
    found.start = "docker compose up"
    found.stop.append("docker compose down")
    found.port = next((port for port in map(_published_port, built) if port is not None), None)
    found.ready_timeout = 300
    return found


def _detect_build_directory(tree: _Tree) -> _Detected | None:
    """An ecosystem whose tests need a configured build tree first (CMake, Meson, Autotools): its recipe steps."""
    for eco in registry.ecosystems():
        if eco.recipe and any(tree.is_file(m) for m in eco.manifests):
            found = _Detected(eco.name)
            # a shipped ./configure needs no autoreconf
            found.build = [s for s in eco.recipe if not (s == "autoreconf -fi" and tree.is_file("configure"))]
            return found
    return None


def detect_recipe(root: Path, facts: ProjectFacts) -> dict[str, Any] | None:
    """A recipe from the manifests at `root`, or None when nothing declares how to build, check or start it."""
    return _detect(_Tree(root), facts)


def _detect(tree: _Tree, facts: ProjectFacts) -> dict[str, Any] | None:
    language = [
        found
        for found in (
            _detect_node(tree, facts),
            _detect_python(tree, facts),
            _detect_go(tree),
            _detect_rust(tree),
            _detect_java(tree),
        )
        if found is not None
    ]
    make = _detect_make(tree)
    compose = _detect_compose(tree)

    def entry(command: str, cwd: str = ".") -> dict[str, str]:
        return {"command": command, "cwd": cwd}

    phases: dict[str, list[dict[str, str]]] = {phase: [] for phase in PHASES}
    for found in language:
        phases["bootstrap"].extend(entry(c) for c in found.bootstrap)
    if not phases["bootstrap"] and make is not None:
        phases["bootstrap"].extend(entry(c) for c in make.bootstrap)

    # The project's own build commands win over ecosystem conventions; its checks always run. A build directory
    # (CMake, Meson, Autotools) is configured first, whatever builds it.
    declared_build = [entry(c.command, c.cwd) for c in facts.verify_commands if c.kind == "build"]
    configured = _detect_build_directory(tree)
    prepare = [entry(step) for step in configured.build] if configured is not None else []
    if declared_build:
        phases["build"] = prepare + [e for e in declared_build if e not in prepare]
    elif prepare:
        phases["build"] = prepare
    elif make is not None and make.build:
        phases["build"] = [entry(c) for c in make.build]
    else:
        for found in language:
            phases["build"].extend(entry(c) for c in found.build)
    phases["test"] = [entry(c.command, c.cwd) for c in facts.verify_commands if c.kind != "build"]

    # Start: a known framework first (it knows its port), then any language start, make, compose.
    starters = [f for f in language if f.start and f.port] + [f for f in language if f.start and not f.port]
    starters += [f for f in (make, compose) if f is not None and f.start]
    chosen = starters[0] if starters else None
    if chosen is compose and compose is not None:
        phases["build"].extend(entry(c) for c in compose.build if entry(c) not in phases["build"])
    if chosen is not None and chosen.start:
        phases["start"] = [entry(chosen.start)]

    if not any(phases.values()):
        return None
    names = [f.name + (f" ({f.framework})" if f.framework else "") for f in language]
    if chosen is not None and chosen not in language:
        names.append(chosen.name)
    if not names:
        names = ["verify commands"]
    port = chosen.port if chosen is not None else None
    recipe: dict[str, Any] = {
        "source": "detected: " + ", ".join(names),
        "phases": phases,
        "port": port,
        "ready_url": None,  # the runner polls http://localhost:PORT/ (127.0.0.1 and ::1: dev servers pick either)
        "env": dict(chosen.env) if chosen is not None else {},
        "timeout": {},
        "ready_timeout": chosen.ready_timeout if chosen is not None else None,
        "stop": [entry(c) for c in chosen.stop] if chosen is not None else [],
    }
    return recipe
