"""Shared receipts as data (design §4.6): the canonical line, what a reader accepts, who counts, and how a status
shows them. Pure: no git here (tests/unit/test_notes.py moves lines through git)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from freshpass.evidence.status import KindState, Status, with_shared
from freshpass.facts.model import SharedTrust
from freshpass.ledger.shared import (
    MAX_LINE_BYTES,
    LineRejected,
    Provenance,
    SharedOptions,
    SharedReceipt,
    SharedView,
    Signature,
    canonical,
    ci_provenance,
    digest_of,
    from_evidence,
    judge,
    label,
    normal_form,
    parse_line,
    provenance_for,
    shared_of,
    uncounted_passes,
)
from freshpass.ledger.store import Evidence

TREE = "a" * 40
CONTENT = f"git:{TREE}"
TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def evidence(**changes: Any) -> Evidence:
    values: dict[str, Any] = {
        "id": 7,
        "created_at": 1_767_261_600.0,
        "root": "/work/repo",
        "command": "pytest -q",
        "canonical_command": "pytest -q",
        "kind": "test",
        "scope": "full",
        "status": "passed",
        "content_id": CONTENT,
        "started_at": 1_767_261_590.0,
        "finished_at": 1_767_261_600.25,
        "duration": 10.25,
        "exit_code": 0,
        "tests_passed": 12,
        "tests_failed": 0,
        "tests_skipped": 1,
        "output_head": "12 passed",
        "cwd": "/home/someone/work/repo",
        "session": "terminal:4242",
        "actor": "terminal",
    }
    values.update(changes)
    return Evidence(**values)


def shared(**changes: Any) -> SharedReceipt:
    provenance = changes.pop("provenance", Provenance("ci", "github-actions", "https://github.com/a/b/actions/runs/1"))
    return from_evidence(
        evidence(**changes),
        root=".",
        provenance=provenance,
        commit="c" * 40,
        version="0.1.0",
        ignore=["data/"],
        ignore_prose=True,
    )


def test_a_line_is_canonical_and_reads_back_as_itself() -> None:
    receipt = shared()
    line = receipt.line
    assert line.isascii() and "\n" not in line and " " not in line.replace("pytest -q", "")
    data = json.loads(line)
    assert list(data) == sorted(data)
    assert data["duration_ms"] == 10250 and isinstance(data["duration_ms"], int)
    assert data["finished_at"] == "2026-01-01T10:00:00.250Z"
    assert data["digest"] == digest_of({k: v for k, v in data.items() if k != "digest"})
    assert parse_line(line, content=CONTENT, root=".") == receipt
    assert canonical(json.loads(line)) == line  # any writer spells it the same way


def test_only_redacted_fields_travel_never_output_cwd_or_session() -> None:
    receipt = shared(
        command=f"GITHUB_TOKEN={TOKEN} pytest -q --password hunter22",
        canonical_command=f"pytest -q {TOKEN}",
        reason=f"failed with Authorization: Bearer {TOKEN}",
        output_head=f"my secret output {TOKEN}",
    )
    line = receipt.line
    assert TOKEN not in line and "hunter22" not in line
    assert "secret output" not in line and "/home/someone" not in line and "terminal:4242" not in line
    assert "REDACTED" in json.loads(line)["command"]


def test_non_git_content_is_never_shared() -> None:
    with pytest.raises(ValueError, match="git content"):
        from_evidence(
            evidence(content_id="files:" + "b" * 64),
            root=".",
            provenance=Provenance("person"),
            commit="",
            version="0.1.0",
            ignore=[],
            ignore_prose=True,
        )


def _tampered(change: Any) -> str:
    data = json.loads(shared().line)
    change(data)
    return json.dumps(data)


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("x" * (MAX_LINE_BYTES + 1), "longer than"),
        ("not json", "not JSON"),
        ("[1, 2]", "not a JSON object"),
        (_tampered(lambda d: d.update(v=2)), "format version 2"),
        (_tampered(lambda d: d.pop("actor")), "missing or unknown"),
        (_tampered(lambda d: d.update(extra=1)), "missing or unknown"),
        (_tampered(lambda d: d.update(kind="deploy")), "kind"),
        (_tampered(lambda d: d.update(status="passed\u001b[0m")), "status"),
        (_tampered(lambda d: d.update(duration_ms=1.5)), "duration_ms"),
        (_tampered(lambda d: d.update(exit_code=True)), "exit_code"),
        (_tampered(lambda d: d.update(job_url="javascript:alert(1)")), "https"),
        (_tampered(lambda d: d.update(finished_at="yesterday")), "finished_at"),
        (_tampered(lambda d: d.update(tests={"passed": -1, "failed": 0, "skipped": 0})), "tests"),
        (_tampered(lambda d: d.update(status="failed")), "digest does not match"),
        (_tampered(lambda d: d.update(actor="ci", command="pytest -q; true")), "digest does not match"),
    ],
)
def test_hostile_lines_are_rejected_with_a_reason(line: str, reason: str) -> None:
    with pytest.raises(LineRejected, match=reason):
        parse_line(line, content=CONTENT, root=".")


def test_a_line_copied_to_other_content_or_another_package_is_rejected() -> None:
    line = shared().line
    with pytest.raises(LineRejected, match="other content"):
        parse_line(line, content="git:" + "b" * 40, root=".")
    with pytest.raises(LineRejected, match="package"):
        parse_line(line, content=CONTENT, root="backend")


def test_control_characters_survive_as_data_and_are_only_shown_escaped() -> None:
    from freshpass.commands.share import describe_shared

    receipt = shared(command="pytest \u001b]52;c;AAAA\u0007 -q")
    assert "\u001b" not in receipt.line  # ASCII JSON: an escape, not the character
    parsed = parse_line(receipt.line, content=CONTENT, root=".")
    assert "\u001b" in parsed.command  # what it says is kept exactly...
    shown = describe_shared(SharedView(parsed).to_json())
    assert "\u001b" not in shown and "\u0007" not in shown and "\\x1b" in shown  # ...and never drives a terminal


def test_normal_form_is_the_same_whichever_side_a_union_starts_from() -> None:
    a, b, c = (shared(finished_at=1_767_261_600.0 + i).line for i in range(3))
    assert normal_form([a, b, "", a]) == normal_form([b, a])
    assert normal_form([a, b]) + "" != normal_form([a, b, c])
    assert normal_form([c, a, b]) == normal_form([a, b, c]) and normal_form([]) == ""


def test_ci_provenance() -> None:
    github = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/calc",
        "GITHUB_RUN_ID": "42",
        "GITHUB_RUN_ATTEMPT": "2",
    }
    assert ci_provenance(github) == Provenance(
        "ci", "github-actions", "https://github.com/acme/calc/actions/runs/42/attempts/2"
    )
    assert ci_provenance({"GITLAB_CI": "true", "CI_JOB_URL": "https://gitlab.example/j/1"}) == Provenance(
        "ci", "gitlab-ci", "https://gitlab.example/j/1"
    )
    assert ci_provenance({"CI": "true"}) == Provenance("ci")
    assert ci_provenance({}) is None
    assert provenance_for(evidence(actor="agent"), None, {}).actor == "agent"
    assert provenance_for(evidence(), None, {}).actor == "person"
    assert provenance_for(evidence(actor="ci"), None, {}).actor == "ci"  # recorded under CI, shared later
    assert provenance_for(evidence(), None, github).actor == "ci"
    assert provenance_for(evidence(), "person", github) == Provenance("person", "github-actions", github_url(github))
    with pytest.raises(ValueError, match="robot"):
        provenance_for(evidence(), "robot", {})


def github_url(env: dict[str, str]) -> str:
    return f"https://github.com/{env['GITHUB_REPOSITORY']}/actions/runs/{env['GITHUB_RUN_ID']}/attempts/2"


# ---- trust ---------------------------------------------------------------------------------------------------------

GOOD = Signature("good", "ci@acme")


@pytest.mark.parametrize(
    ("trust", "actor", "signature", "counted", "why"),
    [
        (SharedTrust(), "ci", GOOD, False, "shared.trust is off"),
        (SharedTrust(("ci",)), "ci", Signature("none"), True, None),
        (SharedTrust(("ci",)), "person", GOOD, False, "counts receipts by ci, not person"),
        (SharedTrust(("ci",), ("ci@acme",)), "ci", GOOD, True, None),
        (SharedTrust(("ci",), ("ci@acme",)), "ci", Signature("none"), False, "unsigned; shared.signers requires"),
        (SharedTrust(("ci",), ("ci@acme",)), "ci", Signature("unknown-key"), False, "not in the allowed signers"),
        (SharedTrust(("ci",), ("ci@acme",)), "ci", Signature("bad"), False, "does not verify"),
        (SharedTrust(("ci",), ("ci@acme",)), "ci", Signature("good", "dev@acme"), False, "signed by dev@acme"),
    ],
)
def test_who_counts(trust: SharedTrust, actor: str, signature: Signature, counted: bool, why: str | None) -> None:
    view = judge(shared(provenance=Provenance(actor)), signature, trust)
    assert view.counted is counted
    assert (view.why is None) if why is None else (why in (view.why or ""))


def test_trust_settings_and_untrusted_workspaces() -> None:
    project = SharedTrust(("ci",))
    assert SharedOptions().policy(project) == project
    assert SharedOptions(SharedTrust()).policy(project) == project  # a user who trusts no one keeps the project's
    assert SharedOptions(SharedTrust(("person",))).policy(project) == SharedTrust(("person",))
    counted = judge(shared(), Signature("none"), project)
    assert counted.counted
    [view] = SharedOptions(workspace_trusted=False).judged([counted])
    assert not view.counted and view.why == "the workspace is not trusted"
    with pytest.raises(ValueError, match="robot"):
        SharedTrust(("robot",))


# ---- in a status ---------------------------------------------------------------------------------------------------


def local_status(state: KindState | None) -> Status:
    """The local status of a root with at most one test receipt (fresh or not)."""
    if state is None:
        return Status("/work/repo")
    if state.fresh:
        return Status("/work/repo", state.status, state.scope, {"test": state}, state.evidence)
    return Status("/work/repo", "stale", None, {"test": state}, state.evidence, ("src/app.py",))


def local(status: str, scope: str, fresh: bool = True) -> KindState:
    receipt = evidence(id=3, command="pytest", status=status, scope=scope, content_id=CONTENT if fresh else "git:0")
    return KindState(status if fresh else "stale", scope if fresh else None, fresh, receipt)


COUNTED = SharedView(shared(), Signature("none"), True)
NOT_COUNTED = SharedView(shared(), Signature("none"), False, "shared receipts do not count here (shared.trust is off)")


def test_shown_not_counted_leaves_the_local_status_alone() -> None:
    status = local_status(None)
    result = with_shared(status, [NOT_COUNTED])
    assert result.status == "unverified" and result.evidence is None
    [entry] = result.to_json()["shared"]
    assert entry["counted"] is False and "shared.trust is off" in entry["why"]
    assert entry["actor"] == "ci" and entry["provider"] == "github-actions" and entry["digest"].startswith("sha256:")
    assert with_shared(status, []).to_json()["shared"] == []


@pytest.mark.parametrize(
    ("state", "expected_status", "from_shared"),
    [
        (None, "passed", True),  # nothing local: the counted shared pass stands in
        (local("passed", "full", fresh=False), "passed", True),  # a stale local receipt does not hold it back
        (local("failed", "full"), "failed", False),  # a local failure on the same content wins
        (local("passed", "full"), "passed", False),  # a local pass is the local pass
        (local("passed", "targeted"), "passed", True),  # a shared full pass covers more than a targeted one
    ],
)
def test_a_counted_shared_receipt_stands_in_unless_a_local_one_wins(
    state: KindState | None, expected_status: str, from_shared: bool
) -> None:
    result = with_shared(local_status(state), [COUNTED])
    assert result.status == expected_status
    assert (shared_of(result.kinds["test"].evidence) is not None) is from_shared
    if from_shared:
        assert result.scope == "full" and result.changed_paths == ()
        written = result.to_json()
        assert written["evidence"]["id"] is None and written["evidence"]["shared"]["actor"] == "ci"
        assert written["evidence"]["shared"]["job_url"] == "https://github.com/a/b/actions/runs/1"


def test_a_counted_shared_failure_counts_as_a_failure() -> None:
    failed = SharedView(shared(status="failed", exit_code=1), Signature("none"), True)
    assert with_shared(local_status(None), [failed]).status == "failed"


def test_the_newest_counted_shared_receipt_of_a_kind_stands_in() -> None:
    older = SharedView(shared(status="failed", exit_code=1), Signature("none"), True)
    newer = SharedView(shared(finished_at=1_767_261_700.0), Signature("none"), True)
    result = with_shared(local_status(None), [older, newer])
    assert result.status == "passed" and [view.receipt.status for view in result.shared] == ["passed", "failed"]


def test_labels_and_the_reason_an_agent_hears() -> None:
    entry = NOT_COUNTED.to_json()
    assert label(entry, "2 h ago") == "✓ full · CI · 2 h ago"
    assert label({**entry, "status": "failed"}, "now") == "✗ failed · CI · now"
    assert label({**entry, "scope": "targeted"}, "now") == "◐ targeted · CI · now"
    note = uncounted_passes([NOT_COUNTED], ("test",))
    assert "`pytest -q` passed (full) in CI (github-actions)" in note and "shared.trust is off" in note
    assert uncounted_passes([NOT_COUNTED], ("lint",)) == ""
    assert uncounted_passes([COUNTED], ("test",)) == ""
