"""Level 6 beyond Python: tool configuration that names its own runner (golangci-lint, pre-commit, rubocop)."""

from __future__ import annotations

from .base import TOOL_CONFIG, Collector

GOLANGCI_CONFIGS = (".golangci.yml", ".golangci.yaml", ".golangci.toml", ".golangci.json")


def detect(c: Collector) -> None:
    golangci = next((name for name in GOLANGCI_CONFIGS if c.is_file(name)), None)
    if golangci is not None:
        c.manifest(golangci)
        if golangci.endswith((".yml", ".yaml")):
            c.load_yaml(golangci)  # a malformed config is worth a problem: golangci-lint would refuse it
        c.add("golangci-lint run", "lint", golangci, TOOL_CONFIG)
    if c.is_file(".pre-commit-config.yaml"):
        c.manifest(".pre-commit-config.yaml")
        data = c.load_yaml(".pre-commit-config.yaml")
        if data is not None and not (isinstance(data, dict) and isinstance(data.get("repos"), list)):
            c.problem(".pre-commit-config.yaml", "no 'repos' list: pre-commit would reject this configuration")
        elif data is not None:
            c.add("pre-commit run --all-files", "lint", ".pre-commit-config.yaml", TOOL_CONFIG)
    if c.is_file(".rubocop.yml"):
        c.manifest(".rubocop.yml")
        runner = "bundle exec rubocop" if c.is_file("Gemfile") else "rubocop"
        c.add(runner, "lint", ".rubocop.yml", TOOL_CONFIG)
