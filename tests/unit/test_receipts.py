"""The one receipt builder every door uses (freshpass.evidence.receipts)."""

from __future__ import annotations

from pathlib import Path

from freshpass.evidence.receipts import Actor, Content, Finished, actor_from_environment, receipts_for
from freshpass.facts.classify import classify
from freshpass.facts.model import ProjectFacts, VerifyCommand

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
