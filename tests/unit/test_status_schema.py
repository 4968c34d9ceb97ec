"""The status JSON has one schema (docs/status.schema.json): what the model writes validates against it, and the
TypeScript and Lua clients name exactly its fields."""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema
import pytest
from freshpass.evidence.status import Status, build_status, unchecked_status, with_shared
from freshpass.facts.model import KINDS, VerifyCommand
from freshpass.ledger.shared import Provenance, SharedView, Signature, from_evidence
from freshpass.ledger.store import Evidence

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "docs" / "status.schema.json").read_text())


def receipt(id: int, kind: str = "test", status: str = "passed", scope: str = "full", **extra: object) -> Evidence:
    values: dict = dict(
        id=id, created_at=1e9, root="/r", command="pytest -q", canonical_command="pytest", kind=kind, scope=scope,
        status=status, content_id="git:" + "a" * 40, started_at=1e9, finished_at=1e9 + 1, duration=1.0,
    )  # fmt: skip
    values.update(extra)
    return Evidence(**values)


COMMANDS = [
    VerifyCommand("pytest -q", "test", ".", "pyproject.toml#tool.pytest.ini_options", equivalents=("pytest",)),
    VerifyCommand("ruff check .", "lint", "backend", "Makefile:lint", args_to="ruff"),
]


def shared_view(counted: bool, **extra: object) -> SharedView:
    shared = from_evidence(
        receipt(0, **extra), root=".", provenance=Provenance("ci", "github-actions", "https://ci.example/1"),
        commit="c" * 40, version="0.1.0", ignore=[], ignore_prose=True,
    )  # fmt: skip
    return SharedView(shared, Signature("none"), counted, None if counted else "shared.trust is off")


SHOWN = shared_view(False, finished_at=1e9 + 5)
COUNTED = shared_view(True, tests_passed=4, tests_failed=0, tests_skipped=0)
STATUSES = {
    "unverified": build_status("/r", {}, {}, (), COMMANDS),
    "fresh": build_status(
        "/r",
        {"test": receipt(3, tests_passed=4, tests_failed=0, tests_skipped=1), "lint": receipt(2, kind="lint")},
        {"test": receipt(3), "lint": receipt(2, kind="lint")},
        (),
        COMMANDS,
    ),
    "stale": build_status(
        "/r", {}, {"test": receipt(5, status="failed", exit_code=1, reason="no tests ran")}, ["a.py"]
    ),
    "empty": Status("/r"),
    # An untrusted workspace's git root: no content id, freshness not checked; the newest receipt shown as a past run.
    "unchecked": unchecked_status("/r", {"test": receipt(4)}, COMMANDS),
    # The same full check failed and passed on this content: flaky, naming both receipts.
    "flaky": build_status(
        "/r", {"test": receipt(7)}, {"test": receipt(7)}, (), COMMANDS, {"test": receipt(6, status="failed")}
    ),
    # Shared receipts of this content (design §4.6): one shown and not counted, one standing in for the tests.
    "shared, not counted": with_shared(build_status("/r", {}, {}), [SHOWN]),
    "shared, counted": with_shared(build_status("/r", {}, {"lint": receipt(2, kind="lint")}), [SHOWN, COUNTED]),
}


@pytest.mark.parametrize("name", sorted(STATUSES))
def test_the_model_writes_what_the_schema_says(name: str) -> None:
    jsonschema.validate(STATUSES[name].to_json(), SCHEMA)


def test_a_counted_shared_receipt_stands_in_with_no_id_and_its_provenance() -> None:
    written = STATUSES["shared, counted"].to_json()
    assert (written["status"], written["evidence"]["id"]) == ("passed", None)
    assert written["evidence"]["shared"]["actor"] == "ci" and written["kinds"]["lint"]["evidence"]["id"] == 2
    assert [entry["counted"] for entry in written["shared"]] == [False, True]  # newest first, both listed


def test_the_schema_rejects_an_undocumented_field() -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**STATUSES["fresh"].to_json(), "surprise": 1}, SCHEMA)


def typescript_fields(interface: str) -> set[str]:
    text = (REPO / "editor-clients" / "vscode" / "src" / "protocol.ts").read_text()
    body = re.search(r"export interface " + interface + r" \{(.*?)\n\}", text, re.S)
    assert body is not None, interface
    return set(re.findall(r"^\s+(\w+)\??:", body.group(1), re.M))


def lua_fields(cls: str) -> set[str]:
    text = (REPO / "editor-clients" / "neovim" / "lua" / "freshpass" / "types.lua").read_text()
    block = re.search(r"--- @class " + re.escape(cls) + r"\n((?:--- @field .*\n)+)", text)
    assert block is not None, cls
    return set(re.findall(r"--- @field (\w+)", block.group(1)))


def schema_fields(*path: str) -> set[str]:
    node = SCHEMA
    for part in path:
        node = node[part]
    return set(node["properties"])


def test_the_clients_name_the_schema_s_fields() -> None:
    assert typescript_fields("RootStatus") == schema_fields()
    assert typescript_fields("KindState") == schema_fields("$defs", "kind")
    # The client's Evidence also reads full receipts (`freshpass.receipts`), which carry more than a status does.
    assert schema_fields("$defs", "evidence") <= typescript_fields("Evidence")
    assert typescript_fields("VerifyCommand") <= schema_fields("$defs", "verify_command")
    assert lua_fields("freshpass.Status") == schema_fields()
    assert lua_fields("freshpass.KindState") == schema_fields("$defs", "kind")
    assert lua_fields("freshpass.Evidence") == schema_fields("$defs", "evidence")
    assert lua_fields("freshpass.VerifyCommand") == set(SCHEMA["$defs"]["verify_command"]["required"])
    assert typescript_fields("SharedReceipt") == schema_fields("$defs", "shared") == lua_fields("freshpass.Shared")
    assert typescript_fields("Provenance") == schema_fields("$defs", "provenance") == lua_fields("freshpass.Provenance")


def test_a_flaky_status_names_both_receipts() -> None:
    written = STATUSES["flaky"].to_json()
    assert written["status"] == "flaky" and written["kinds"]["test"]["status"] == "flaky"
    pair = written["kinds"]["test"]["flaky"]
    assert (pair["passed"]["id"], pair["failed"]["id"]) == (7, 6)


def test_every_kind_enum_of_the_schema_is_the_models_kinds() -> None:
    """docs/status.schema.json spells the kinds of check where a receipt names one: exactly facts/model.py's."""

    def enums(node: object) -> list[list[str]]:
        if isinstance(node, dict):
            found = [node["kind"]["enum"]] if isinstance(node.get("kind"), dict) and "enum" in node["kind"] else []
            return found + [e for value in node.values() for e in enums(value)]
        if isinstance(node, list):
            return [e for value in node for e in enums(value)]
        return []

    found = enums(SCHEMA)
    assert found and all(enum == list(KINDS) for enum in found)
