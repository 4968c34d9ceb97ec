"""Ecosystem conventions, read through the ecosystem records (`facts/ecosystems/`), and the tools whose own
configuration names their runner (golangci-lint, pre-commit and its hooks)."""

from __future__ import annotations

from typing import Any

from freshpass.facts.ecosystems import registry
from freshpass.facts.ecosystems.base import Ecosystem, present_manifest, read_conventions
from freshpass.facts.model import Kind

from .base import Candidate, Collector, Package, under


def _applies(c: Collector, eco: Ecosystem, cwd: str) -> str | None:
    manifest = present_manifest(c, eco, cwd)
    if manifest is None or eco.applies is None:
        return manifest
    return manifest if eco.applies(c, manifest) else None


def read_ecosystems(c: Collector, package: Package) -> None:
    """Each ecosystem present in `package`: its own reader, or its conventions; one that another present ecosystem
    supersedes (Dart under Flutter, Cabal under Stack) is left to that one."""
    superseded: set[str] = set()
    for eco in registry.ecosystems():
        if eco.name in superseded:
            continue
        if eco.read is not None:
            if not eco.root_only or package.cwd == ".":
                eco.read(c, package)
            continue
        manifest = _applies(c, eco, package.cwd)
        if manifest is None:
            continue
        superseded.update(eco.supersedes)
        read_conventions(c, package, eco, manifest)


GOLANGCI_CONFIGS = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")
# pre-commit hook ids whose run is a check of a known kind (the hook runs that tool on every file).
_HOOK_KINDS: dict[str, Kind] = {
    "mypy": "typecheck",
    "pyright": "typecheck",
    "basedpyright": "typecheck",
    "tsc": "typecheck",
}


def _tool_configs(c: Collector, package: Package) -> None:
    golangci = next((under(package.cwd, n) for n in GOLANGCI_CONFIGS if c.is_file(under(package.cwd, n))), None)
    if golangci is not None:
        c.manifest(golangci)
        if golangci.endswith((".yml", ".yaml")):
            c.load_yaml(golangci)  # a malformed config is worth a problem: golangci-lint would refuse it
        c.add(Candidate("golangci-lint run", package.cwd, golangci, "tool", kind="lint", body=("golangci-lint run",)))
    config = under(package.cwd, ".pre-commit-config.yaml")
    if c.is_file(config):
        c.manifest(config)
        data = c.load_yaml(config)
        if data is not None and not (isinstance(data, dict) and isinstance(data.get("repos"), list)):
            c.problem(config, "no 'repos' list: pre-commit would reject this configuration")
        elif data is not None:
            command = "pre-commit run --all-files"
            c.add(Candidate(command, package.cwd, config, "tool", kind="lint", name="pre-commit", body=(command,),
                            spellings=("pre-commit run -a",)))  # fmt: skip
            for hook in _hook_ids(data):
                kind = _HOOK_KINDS.get(hook)
                if kind is not None:
                    hook_command = f"pre-commit run {hook} --all-files"
                    c.add(Candidate(hook_command, package.cwd, f"{config}#{hook}", "tool", kind=kind, name=hook,
                                    body=(hook_command,)))  # fmt: skip


def _hook_ids(data: dict[str, Any]) -> list[str]:
    ids: list[str] = []
    for repo in data.get("repos", []):
        hooks = repo.get("hooks") if isinstance(repo, dict) else None
        for hook in hooks if isinstance(hooks, list) else []:
            if isinstance(hook, dict) and isinstance(hook.get("id"), str) and hook.get("stages") != ["manual"]:
                ids.append(hook["id"])
    return ids


def read(c: Collector, package: Package) -> None:
    read_ecosystems(c, package)
    _tool_configs(c, package)
