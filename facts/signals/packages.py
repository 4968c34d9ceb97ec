"""The packages of a repository: the root, the members its workspace declarations name (npm/pnpm/yarn workspaces,
uv workspaces), and sub-projects — a directory right below the root with its own manifest (`backend/` with a
pyproject.toml next to `frontend/` with a package.json). Fixtures, examples, playgrounds, templates, docs sites and
dependency directories are not packages. Bounded: globs of at most two levels, a bounded number of members; never a
walk of the tree."""

from __future__ import annotations

import re
from fnmatch import fnmatchcase
from typing import Any

from freshpass.facts.ecosystems import registry

from .base import Collector, Package, get_path, normalise_cwd

PACKAGE_MANIFESTS = registry.package_manifests()  # every ecosystem's package manifests
# Directory names whose manifests are never the project's own packages.
NOT_PACKAGES = re.compile(
    r"^(\..*|_.*|node_modules|vendor|third_party|third-party|external|dist|build|out|target|coverage|site|public|"
    r"fixtures?|examples?|samples?|playgrounds?|templates?|demos?|sandbox|testdata|test-data|benchmarks?|bench|"
    r"docs?|documentation|website|e2e-fixtures|scratch|tmp|temp)$",
    re.IGNORECASE,
)
_MAX_WORKSPACE_DEPTH = 2
MAX_PACKAGES = 500


def discover(c: Collector) -> list[Package]:
    packages: list[Package] = [Package(".", markers=[m for m in PACKAGE_MANIFESTS if c.is_file(m)])]
    seen = {"."}
    for member in _workspace_members(c):
        if member not in seen and len(packages) < MAX_PACKAGES:
            seen.add(member)
            packages.append(Package(member, workspace_member=True, markers=_markers(c, member)))
    for entry in c.listdir("."):
        if entry in seen or NOT_PACKAGES.match(entry) or not c.is_dir(entry):
            continue
        markers = _markers(c, entry)
        if _build_module(c, markers):
            continue  # a module of the root's Gradle or Maven build: the root's build runs it
        if markers and not _is_cargo_member(c, entry) and len(packages) < MAX_PACKAGES:
            seen.add(entry)
            packages.append(Package(entry, markers=markers))
    return packages


def _build_module(c: Collector, markers: list[str]) -> bool:
    """Only Gradle or Maven build files, below a root whose Gradle settings or Maven pom builds its modules."""
    jvm = {"build.gradle", "build.gradle.kts", "pom.xml"}
    if not markers or not set(markers) <= jvm:
        return False
    root_builds = any(c.is_file(n) for n in ("settings.gradle", "settings.gradle.kts", "pom.xml"))
    return root_builds


def _markers(c: Collector, directory: str) -> list[str]:
    return [name for name in PACKAGE_MANIFESTS if c.is_file(f"{directory}/{name}")]


def _is_cargo_member(c: Collector, directory: str) -> bool:
    """A crate the root Cargo workspace builds: `cargo test --workspace` at the root already covers it."""
    data = c.load_toml("Cargo.toml") if c.is_file("Cargo.toml") else None
    members = get_path(data, "workspace", "members")
    if not isinstance(members, list):
        return False
    return any(isinstance(m, str) and fnmatchcase(directory, m.split("/", 1)[0]) for m in members)


def _workspace_members(c: Collector) -> list[str]:
    patterns: list[str] = []
    manifest: Any = c.load_json("package.json") if c.is_file("package.json") else None
    workspaces = manifest.get("workspaces") if isinstance(manifest, dict) else None
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    if isinstance(workspaces, list):
        patterns.extend(p for p in workspaces if isinstance(p, str))
    elif workspaces is not None:
        c.problem("package.json", "'workspaces' must be an array of globs or {\"packages\": [...]}")
    if c.is_file("pnpm-workspace.yaml"):
        c.manifest("pnpm-workspace.yaml")
        data = c.load_yaml("pnpm-workspace.yaml")
        packages = data.get("packages") if isinstance(data, dict) else None
        if isinstance(packages, list):
            patterns.extend(p for p in packages if isinstance(p, str))
        elif data is not None and packages is not None:
            c.problem("pnpm-workspace.yaml", "'packages' must be a list of globs")
    pyproject = c.load_toml("pyproject.toml") if c.is_file("pyproject.toml") else None
    uv_members = get_path(pyproject, "tool", "uv", "workspace", "members")
    if isinstance(uv_members, list):
        patterns.extend(p for p in uv_members if isinstance(p, str))
    excluded = {normalise_cwd(p[1:]) for p in patterns if p.startswith("!")}
    members: list[str] = []
    for pattern in dict.fromkeys(patterns):  # package.json and pnpm-workspace.yaml often repeat the same globs
        if pattern.startswith("!"):
            continue
        for member in _expand(c, pattern):
            parts = member.split("/")
            if any(NOT_PACKAGES.match(part) for part in parts) and not _named_exactly(pattern, member):
                continue  # `playground/**`: fixtures of the project, not its packages
            if member not in members and member != "." and not _is_excluded(member, excluded):
                members.append(member)
            if len(members) >= MAX_PACKAGES:
                c.problem("package.json", f"more than {MAX_PACKAGES} workspace packages; the rest not read")
                return members
    return members


def _named_exactly(pattern: str, member: str) -> bool:
    return normalise_cwd(pattern) == member


def _is_excluded(member: str, excluded: set[str]) -> bool:
    return any(fnmatchcase(member, pattern.replace("**", "*")) for pattern in excluded)


def _expand(c: Collector, pattern: str) -> list[str]:
    """Directories matching a workspace glob that hold a manifest, looking at most two levels down."""
    pattern = normalise_cwd(pattern.rstrip("/"))
    if pattern.startswith(".."):
        return []
    if "**" in pattern:
        base = pattern.split("**", 1)[0].rstrip("/")
        shapes = ["/".join([base, *["*"] * depth]).lstrip("/") for depth in range(1, _MAX_WORKSPACE_DEPTH + 1)]
    else:
        shapes = [pattern]
    found: list[str] = []
    for shape in shapes:
        if not re.search(r"[*?\[]", shape):
            if _markers(c, shape):
                found.append(shape)
            continue
        for member in c.glob(shape, MAX_PACKAGES * 2):
            if "node_modules" not in member.split("/") and c.is_dir(member) and _markers(c, member):
                found.append(member)
    return found
