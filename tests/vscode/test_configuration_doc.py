"""The settings have one source, the root package.json; the docs and the architecture contract must agree with it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\|\s*`(freshpass\.[A-Za-z.]+)`\s*\|(.*)\|\s*$")


def manifest_settings() -> dict[str, dict[str, Any]]:
    manifest = json.loads((REPO / "package.json").read_text(encoding="utf-8"))
    properties: dict[str, dict[str, Any]] = manifest["contributes"]["configuration"]["properties"]
    return properties


def table_rows(path: Path) -> list[tuple[str, list[str]]]:
    """(setting, its other cells) for each markdown table row that starts with a `freshpass.…` setting name."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", match.group(2))]
            rows.append((match.group(1), cells))
    return rows


def parse_default(cell: str) -> Any:
    """`["a", "b"]`, `true`, `1800` are JSON; the architecture table writes plain strings bare (`warning`)."""
    text = cell.strip().strip("`")
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def test_every_setting_has_a_type_a_default_and_a_description() -> None:
    for name, schema in manifest_settings().items():
        assert "type" in schema, name
        assert "default" in schema, name
        assert schema.get("markdownDescription") or schema.get("description"), name
        if "enum" in schema:
            assert schema["default"] in schema["enum"], name


def test_configuration_doc_lists_every_setting_once_with_its_default() -> None:
    settings = manifest_settings()
    rows = table_rows(REPO / "docs" / "configuration.md")
    names = [name for name, _ in rows]
    assert sorted(names) == sorted(settings), "docs/configuration.md is out of date: run `npm run docs:configuration`"
    assert len(names) == len(set(names)), "a setting is listed twice in docs/configuration.md"
    for name, cells in rows:
        assert parse_default(cells[1]) == settings[name]["default"], name


def test_architecture_settings_table_matches_the_manifest() -> None:
    """The server reads the names and defaults of the contract table; the manifest is what users see."""
    settings = manifest_settings()
    rows = table_rows(REPO / "docs" / "architecture.md")
    assert {name for name, _ in rows} == set(settings)
    for name, cells in rows:
        assert parse_default(cells[1]) == settings[name]["default"], name
