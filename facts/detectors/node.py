"""Level 4: `package.json` scripts run through the repository's package manager, workspaces included."""

from __future__ import annotations

import glob
import json
import os
import re
from fnmatch import fnmatchcase
from typing import Any

from .base import PACKAGE_SCRIPTS, Collector, normalise_cwd
from .shell import CHECK_NAMES, body_rejection, logical_lines

# Lockfiles in design §2 order: the first present names the manager.
LOCKFILES: tuple[tuple[str, str], ...] = (
    ("pnpm-lock.yaml", "pnpm"),
    ("bun.lockb", "bun"),
    ("bun.lock", "bun"),
    ("yarn.lock", "yarn"),
    ("package-lock.json", "npm"),
    ("npm-shrinkwrap.json", "npm"),
)
_MANAGERS = ("npm", "pnpm", "yarn", "bun")
NPM_PLACEHOLDER = "Error: no test specified"
# Bounded workspace expansion: `packages/**` looks two levels down, never further.
_MAX_WORKSPACE_DEPTH = 2
_MAX_WORKSPACE_MEMBERS = 500


def detect(c: Collector) -> None:
    if not c.exists("package.json"):
        return
    manifest = c.load_json("package.json")
    c.manifest("package.json")
    manager = _package_manager(c, manifest)
    c.node_manager = manager
    c.package_manager(manager)
    if not isinstance(manifest, dict):
        if manifest is not None:
            c.problem("package.json", "top level must be a JSON object")
        # Workspaces may still be declared in pnpm-workspace.yaml.
        manifest = {}
    _read_scripts(c, "package.json", manifest, manager, ".")
    for member in _workspace_members(c, manifest, manager):
        rel = f"{member}/package.json"
        data = c.load_json(rel)
        if data is None:
            continue
        c.manifest(rel)
        if not isinstance(data, dict):
            c.problem(rel, "top level must be a JSON object")
            continue
        _read_scripts(c, rel, data, manager, member)


def _package_manager(c: Collector, manifest: Any) -> str:
    for lockfile, _name in LOCKFILES:
        if c.exists(lockfile):
            c.manifest(lockfile)
    if c.exists(".yarnrc.yml"):
        c.manifest(".yarnrc.yml")  # yarn berry's settings (nodeLinker, plugins)
    declared = manifest.get("packageManager") if isinstance(manifest, dict) else None
    if isinstance(declared, str):
        name = declared.split("@", 1)[0].strip()
        if name in _MANAGERS:
            return name
        c.problem("package.json", f"packageManager {declared!r} is not one of {', '.join(_MANAGERS)}")
    for lockfile, name in LOCKFILES:
        if c.exists(lockfile):
            return name
    if c.exists("pnpm-workspace.yaml"):
        return "pnpm"
    # A package of a monorepo: the lockfile sits at the workspace root above it.
    return _manager_from_ancestors(c) or "npm"


def _manager_from_ancestors(c: Collector) -> str | None:
    """The manager of the workspace this package belongs to: the nearest ancestor (inside the same repository)
    that declares workspaces. An unrelated package.json above (say, in a parent project) does not count."""
    directory = c.root
    for _ in range(6):
        if (directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent
        if (directory / "pnpm-workspace.yaml").is_file():
            return "pnpm"
        try:
            manifest = json.loads((directory / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # no package.json here, or one we cannot read: keep looking up
        if not isinstance(manifest, dict) or "workspaces" not in manifest:
            continue
        declared = manifest.get("packageManager")
        if isinstance(declared, str) and declared.split("@", 1)[0] in _MANAGERS:
            return declared.split("@", 1)[0]
        for lockfile, name in LOCKFILES:
            if (directory / lockfile).exists():
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
        return f"yarn {script}", (f"yarn run {script}",)
    if script == "test":
        return "pnpm test", ("pnpm run test",)
    return f"pnpm run {script}", (f"pnpm {script}",)


def _read_scripts(c: Collector, rel: str, manifest: dict[str, Any], manager: str, cwd: str) -> None:
    scripts = manifest.get("scripts")
    if scripts is None:
        return
    if not isinstance(scripts, dict):
        c.problem(rel, "'scripts' must be an object of name → command")
        return
    for name, kind in CHECK_NAMES.items():
        body = scripts.get(name)
        if body is None:
            continue
        if not isinstance(body, str):
            c.problem(rel, f"scripts.{name} must be a string")
            continue
        if not body.strip() or NPM_PLACEHOLDER in body:
            continue
        if body_rejection(logical_lines(body)) is not None:
            continue
        command, alternatives = script_command(manager, name)
        c.add(command, kind, f"{rel}#scripts.{name}", PACKAGE_SCRIPTS, cwd=cwd, alternatives=alternatives)


def _workspace_members(c: Collector, manifest: dict[str, Any], manager: str) -> list[str]:
    patterns: list[str] = []
    workspaces = manifest.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    if isinstance(workspaces, list):
        patterns.extend(p for p in workspaces if isinstance(p, str))
    elif workspaces is not None:
        c.problem("package.json", "'workspaces' must be an array of globs or {\"packages\": [...]}")
    if c.exists("pnpm-workspace.yaml"):
        c.manifest("pnpm-workspace.yaml")
        data = c.load_yaml("pnpm-workspace.yaml")
        packages = data.get("packages") if isinstance(data, dict) else None
        if isinstance(packages, list):
            patterns.extend(p for p in packages if isinstance(p, str))
        elif data is not None and packages is not None:
            c.problem("pnpm-workspace.yaml", "'packages' must be a list of globs")
    excluded = {normalise_cwd(p[1:]) for p in patterns if p.startswith("!")}
    members: list[str] = []
    for pattern in dict.fromkeys(patterns):  # package.json and pnpm-workspace.yaml often repeat the same globs
        if pattern.startswith("!"):
            continue
        for member in _expand(c, pattern):
            if member not in members and member != "." and not _is_excluded(member, excluded):
                members.append(member)
            if len(members) >= _MAX_WORKSPACE_MEMBERS:
                c.problem("package.json", f"more than {_MAX_WORKSPACE_MEMBERS} workspace packages; the rest not read")
                return members
    return members


def _is_excluded(member: str, excluded: set[str]) -> bool:
    return any(fnmatchcase(member, pattern.replace("**", "*")) for pattern in excluded)


def _expand(c: Collector, pattern: str) -> list[str]:
    """Directories matching a workspace glob that hold a package.json, looking at most two levels down."""
    pattern = normalise_cwd(pattern.rstrip("/"))
    if pattern.startswith(".."):
        return []
    if "**" in pattern:
        base = pattern.split("**", 1)[0].rstrip("/")
        shapes = ["/".join([base, *["*"] * depth]).lstrip("/") for depth in range(1, _MAX_WORKSPACE_DEPTH + 1)]
    else:
        shapes = [pattern]
    found: list[str] = []
    root = str(c.root)
    for shape in shapes:
        if not re.search(r"[*?\[]", shape):
            if c.is_file(f"{shape}/package.json"):
                found.append(shape)
            continue
        matches = glob.glob(os.path.join(glob.escape(root), shape, "package.json"))
        for match in sorted(matches):
            member = os.path.relpath(os.path.dirname(match), root).replace(os.sep, "/")
            if "node_modules" not in member.split("/"):
                found.append(member)
    return found
