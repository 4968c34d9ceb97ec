"""The one receipt builder every door uses (freshpass.evidence.receipts)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from freshpass.evidence.receipts import Actor, Content, Finished, actor_from_environment, receipts_for
from freshpass.facts.classify import classify
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.ledger import store
from freshpass.ledger.store import LEDGER_ASSIGNED, Evidence, EvidenceDraft

REPO = Path(__file__).resolve().parents[2]

FACTS = ProjectFacts(
    root="/p", verify_commands=[VerifyCommand("make test", "test"), VerifyCommand("make lint", "lint")]
)


def test_the_actor_comes_from_the_environment() -> None:
    assert actor_from_environment({"FRESHPASS_ACTOR": "agent", "FRESHPASS_SESSION": "s1"}) == Actor("agent", "s1")
    assert actor_from_environment({"CI": "true"}).kind == "ci"
    assert actor_from_environment({"CI": "false"}).kind == "terminal"
    assert actor_from_environment({"FRESHPASS_ACTOR": "robot"}).kind == "terminal"  # not an actor freshpass knows
    assert actor_from_environment({}).session.startswith("terminal:")


def drafts(line: str, exit_code: int, output: str = "") -> list:
    classification = classify(line, cwd="/p", root="/p", facts=FACTS, exit_code=exit_code, output=output)
    finished = Finished(line, "/p", exit_code, output, 0, 1.0, 2.0)
    return receipts_for(classification, finished, Actor("terminal", "s"), lambda _m: Content("/p", "git:abc"))


def test_each_check_on_a_line_is_a_receipt_with_counts_for_tests_only() -> None:
    made = drafts("make lint && make test", 0, "3 passed in 0.1s")
    assert [(d.draft.kind, d.draft.status, d.draft.tests_passed) for d in made] == [
        ("lint", "passed", None),
        ("test", "passed", 3),
    ]
    assert {d.draft.session for d in made} == {"s"} and {d.draft.actor for d in made} == {"terminal"}


def test_a_line_that_is_not_evidence_makes_no_receipt() -> None:
    assert drafts("make test || true", 0) == []
    assert drafts("ls -la", 0) == []


def test_content_that_could_not_be_read_records_nothing() -> None:
    classification = classify("make test", cwd="/p", root="/p", facts=FACTS, exit_code=0)
    assert receipts_for(classification, Finished("make test", "/p", 0), Actor("editor"), lambda _m: None) == []


def test_a_repeated_check_is_one_receipt_per_root(tmp_path: Path) -> None:
    assert len(drafts("make test && make test", 0)) == 1


def test_a_recorded_receipt_is_its_draft_and_what_the_ledger_assigns() -> None:
    """`EvidenceDraft` is the receipt's fields; `Evidence` is those same fields (names, types, defaults) and only
    the id, time and duration the ledger adds — the columns a record writes come from this one list."""

    def shape(cls: type) -> dict[str, tuple[object, object, object]]:
        return {f.name: (f.type, f.default, f.default_factory) for f in dataclasses.fields(cls)}

    recorded = shape(Evidence)
    assert set(LEDGER_ASSIGNED) <= set(recorded)
    assert {name: value for name, value in recorded.items() if name not in LEDGER_ASSIGNED} == shape(EvidenceDraft)
    assert set(store._DRAFT_COLUMNS) == set(recorded) - {"id"}


def test_the_receipt_json_carries_every_field_of_the_definition() -> None:
    """`Evidence.to_json` (log --json, run --json, freshpass.receipts, the MCP tools) leaves no field out and adds
    none the definition lacks: test counts travel as `tests`, the output summary as `output`."""
    evidence = Evidence(
        id=1, created_at=1e9, root="/r", command="pytest -q", canonical_command="pytest", kind="test", scope="full",
        status="passed", content_id="git:" + "a" * 40, started_at=1e9, finished_at=1e9 + 1, duration=1.0,
        tests_passed=1, tests_failed=0, tests_skipped=0,
    )  # fmt: skip
    grouped = {"tests": ("tests_passed", "tests_failed", "tests_skipped"),
               "output": ("output_head", "output_tail", "output_omitted")}  # fmt: skip
    written = set(evidence.to_json())
    covered = {name for key in written for name in grouped.get(key, (key,))}
    assert covered == {f.name for f in dataclasses.fields(Evidence)}
    assert set(evidence.status_json()) <= written
    schema = json.loads((REPO / "docs" / "status.schema.json").read_text())
    # A status names a receipt by `status_json`; a counted shared receipt standing in adds its `shared` provenance.
    assert set(schema["$defs"]["evidence"]["properties"]) - {"shared"} == set(evidence.status_json())
    protocol = (REPO / "editor-clients" / "vscode" / "src" / "protocol.ts").read_text()
    body = re.search(r"export interface Evidence \{(.*?)\n\}", protocol, re.S)
    assert body is not None
    # The client's Evidence reads full receipts and shared ones (`shared`, their provenance): nothing else.
    assert set(re.findall(r"^\s+(\w+)\??:", body.group(1), re.M)) - {"shared"} <= written
