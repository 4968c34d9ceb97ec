"""`package.json` scripts (and deno tasks) run through the repository's package manager, one package at a time.

Every script is an entry point (so `npm run lint && npm test` in another script or a CI step reads through it);
npm's `pre<name>`/`post<name>` scripts run with it and count as part of its body."""

from __future__ import annotations

import json
from typing import Any

from freshpass.facts.ecosystems import registry
from freshpass.facts.model import Kind
from freshpass.facts.tools.wrappers import DIRECT_BINARIES

from .base import Candidate, Collector, Package, under

# Lockfiles in order: the first present names the manager.
LOCKFILES: tuple[tuple[str, str], ...] = registry.lockfiles("node")
MANAGERS = ("npm", "pnpm", "yarn", "bun")
NPM_PLACEHOLDER = "Error: no test specified"
# Scripts npm runs by itself around installs and publishes: never a check.
_LIFECYCLE = frozenset(
    {
        "preinstall",
        "install",
        "postinstall",
        "prepublish",
        "preprepare",
        "prepare",
        "postprepare",
        "prepublishOnly",
        "prepack",
        "postpack",
        "dependencies",
        "preversion",
        "version",
        "postversion",
        "publish",
        "prepublishonly",
    }
)


def read(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "package.json")
    if not c.exists(rel):
        return
    manifest = c.load_json(rel)
    c.manifest(rel)
    manager = package_manager(c, package.cwd, manifest)
    c.node_managers[package.cwd] = manager
    c.package_manager(manager)
    if not isinstance(manifest, dict):
        if manifest is not None:
            c.problem(rel, "top level must be a JSON object")
        return
    if isinstance(manifest.get("name"), str):
        c.package_names.setdefault(manifest["name"], package.cwd)
    scripts = manifest.get("scripts")
    if scripts is None:
        return
    if not isinstance(scripts, dict):
        c.problem(rel, "'scripts' must be an object of name → command")
        return
    bodies: dict[str, str] = {}
    for name, body in scripts.items():
        if not isinstance(body, str):
            c.problem(rel, f"scripts.{name} must be a string")
            continue
        bodies[str(name)] = body
    hooks = manager in ("npm", "yarn")  # npm and yarn classic run pre<name>/post<name> around a script
    for name, body in bodies.items():
        if name in _LIFECYCLE:
            continue
        command, spellings = script_command(manager, name)
        around = (bodies.get(f"pre{name}"), body, bodies.get(f"post{name}")) if hooks else (body,)
        lines = tuple(line for line in around if line is not None)
        c.entry(command, package.cwd, f"{rel}#scripts.{name}", lines, name)
        if hooks and _is_hook(name, bodies):
            continue  # runs as part of the script it surrounds
        if not body.strip() or NPM_PLACEHOLDER in body:
            continue
        source = f"{rel}#scripts.{name}"
        c.add(Candidate(command, package.cwd, source, "local", name=name, body=lines, spellings=spellings))


def _is_hook(name: str, bodies: dict[str, str]) -> bool:
    return (name.startswith("pre") and name[3:] in bodies) or (name.startswith("post") and name[4:] in bodies)


def package_manager(c: Collector, cwd: str, manifest: Any) -> str:
    """The manager of the package at `cwd`: its `packageManager` field, its lockfile, or the workspace's above."""
    for lockfile, _name in LOCKFILES:
        if c.exists(under(cwd, lockfile)):
            c.manifest(under(cwd, lockfile))
    declared = manifest.get("packageManager") if isinstance(manifest, dict) else None
    if isinstance(declared, str):
        name = declared.split("@", 1)[0].strip()
        if name in MANAGERS:
            return name
        c.problem(under(cwd, "package.json"), f"packageManager {declared!r} is not one of {', '.join(MANAGERS)}")
    for lockfile, name in LOCKFILES:
        if c.exists(under(cwd, lockfile)):
            return name
    if c.exists(under(cwd, "pnpm-workspace.yaml")):
        return "pnpm"
    if cwd != ".":
        return c.node_managers.get(".") or _manager_from_ancestors(c) or "npm"
    return _manager_from_ancestors(c) or "npm"


def _manager_from_ancestors(c: Collector) -> str | None:
    """The manager of the workspace this root belongs to: the nearest ancestor (inside the same repository) that
    declares workspaces. An unrelated package.json above (say, in a parent project) does not count."""
    directory = c.root
    for _ in range(6):
        if c.ask_outside(directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent
        if c.ask_outside(directory / "pnpm-workspace.yaml").is_file():
            return "pnpm"
        manifest_path = c.ask_outside(directory / "package.json")
        try:
            if not manifest_path.is_file() or manifest_path.stat().st_size > 1_000_000:
                continue
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            continue  # no package.json here, or one we cannot read: keep looking up
        if not isinstance(manifest, dict) or "workspaces" not in manifest:
            continue
        declared = manifest.get("packageManager")
        if isinstance(declared, str) and declared.split("@", 1)[0] in MANAGERS:
            return declared.split("@", 1)[0]
        for lockfile, name in LOCKFILES:
            if c.ask_outside(directory / lockfile).exists():
                return name
        return "npm"
    return None


def script_command(manager: str, script: str) -> tuple[str, tuple[str, ...]]:
    """How `script` is run with `manager`, and its equivalent spellings."""
    if manager == "bun":
        # `bun test` is bun's own test runner, not the package's test script.
        return f"bun run {script}", ()
    if manager == "npm":
        if script == "test":
            return "npm test", ("npm run test", "npm t")
        return f"npm run {script}", ("npm run-script " + script,)
    if manager == "yarn":
        if script in _YARN_COMMANDS or script in DIRECT_BINARIES:
            return f"yarn run {script}", ()  # `yarn install` is yarn's own command, whatever the scripts say
        return f"yarn {script}", (f"yarn run {script}",)
    if script == "test":
        return "pnpm test", ("pnpm run test",)
    if script in _PNPM_COMMANDS or script in DIRECT_BINARIES:
        # `pnpm ci` is pnpm's own (unimplemented) command; `pnpm tsc` reads as the tool run directly
        return f"pnpm run {script}", ()
    return f"pnpm run {script}", (f"pnpm {script}",)


# The managers' own commands: a script of one of these names runs only as `… run NAME`.
_PNPM_COMMANDS = frozenset(
    {
        "add", "install", "i", "update", "up", "upgrade", "remove", "rm", "uninstall", "un", "link", "ln", "unlink",
        "import", "rebuild", "rb", "prune", "fetch", "patch", "patch-commit", "audit", "list", "ls", "outdated", "why",
        "licenses", "publish", "pack", "exec", "dlx", "create", "init", "run", "store", "env", "setup", "deploy",
        "doctor", "config", "c", "root", "bin", "server", "ci", "cache", "self-update", "approve-builds",
        "ignored-builds",
    }
)  # fmt: skip
_YARN_COMMANDS = frozenset(
    {
        "add", "install", "remove", "upgrade", "upgrade-interactive", "info", "why", "publish", "pack", "init", "link",
        "unlink", "config", "cache", "audit", "global", "import", "licenses", "list", "outdated", "owner", "policies",
        "team", "tag", "versions", "workspace", "workspaces", "bin", "autoclean", "create", "exec",
        "generate-lock-entry", "help", "login", "logout", "node", "dlx", "plugin", "set", "up",
    }
)  # fmt: skip


def read_deno(c: Collector, package: Package) -> None:
    rel = next((under(package.cwd, n) for n in ("deno.json", "deno.jsonc") if c.is_file(under(package.cwd, n))), None)
    if rel is None:
        return
    c.manifest(rel)
    c.package_manager("deno")
    data = c.load_json(rel, comments=True)
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if isinstance(tasks, dict):
        for name, body in tasks.items():
            if isinstance(body, dict):
                body = body.get("command")
            if not isinstance(body, str):
                continue
            command = f"deno task {name}"
            c.entry(command, package.cwd, f"{rel}#tasks.{name}", (body,), str(name))
            c.add(Candidate(command, package.cwd, f"{rel}#tasks.{name}", "local", name=str(name), body=(body,)))
    # deno's own checks need no configuration beyond deno.json: the convention of a deno project.
    conventions: tuple[tuple[str, Kind], ...] = (
        ("deno test", "test"),
        ("deno lint", "lint"),
        ("deno fmt --check", "lint"),
        ("deno check .", "typecheck"),
    )
    for command, kind in conventions:
        c.add(Candidate(command, package.cwd, rel, "convention", kind=kind, body=(command,)))
