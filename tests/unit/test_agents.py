"""The agents' done-check as a pure function: statuses in, verdicts and messages out (design §7)."""

from __future__ import annotations

import datetime as dt
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from freshpass.evidence.agents import (
    Decision,
    DoneRules,
    decide,
    done_commands,
    relative_paths,
    run_line,
    scan_kind,
)
from freshpass.evidence.claims import Claim
from freshpass.evidence.status import Status, build_status
from freshpass.facts.model import VerifyCommand
from freshpass.ledger.store import Evidence

PYTEST = {"command": "uv run pytest", "kind": "test", "cwd": ".", "source": "pyproject.toml#tool.pytest.ini_options"}
RUFF = {"command": "ruff check", "kind": "lint", "cwd": ".", "source": "pyproject.toml#tool.ruff"}
COMMANDS = [RUFF, PYTEST]  # lint first: the message must still lead with the test command


FINISHED = dt.datetime(2026, 11, 29, 23, 0, tzinfo=dt.timezone.utc).timestamp()


def evidence(
    *, id: int = 7, kind: str = "test", scope: str = "full", status: str = "passed", command: str = "uv run pytest"
) -> Evidence:
    return Evidence(
        id=id, created_at=FINISHED, root="/repo", command=command, canonical_command=command, kind=kind, scope=scope,
        status=status, content_id="git:" + "a" * 40, started_at=FINISHED - 1, finished_at=FINISHED, duration=1.0,
        exit_code=0 if status == "passed" else 1, session="s",
    )  # fmt: skip


def root_status(*receipts: Evidence, stale: tuple[Evidence, ...] = (), changed: tuple[str, ...] = ()) -> Status:
    """A design §4.5 status, shaped by the real build_status: fresh receipts and stale ones per kind."""
    fresh = {receipt.kind: receipt for receipt in receipts}
    newest = {**{receipt.kind: receipt for receipt in stale}, **fresh}
    commands = [VerifyCommand.from_json(command) for command in COMMANDS]
    return build_status("/repo", fresh, newest, changed, commands)


@dataclass
class Case:
    name: str
    status: Status | None
    verdict: str
    changed: tuple[str, ...] = ()
    used: int = 0
    budget: int = 2
    kinds: tuple[str, ...] = ("test",)
    scope: str = "full"
    ignore: tuple[str, ...] = ()
    ignore_prose: bool = True
    covering: dict[str, Any] | None = None
    content_changed: bool = False
    says: tuple[str, ...] = ()
    never_says: tuple[str, ...] = ()
    left: int | None = None
    paths: tuple[str, ...] | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    claims: tuple[Claim, ...] = ()
    backed: tuple[bool, ...] = ()  # per claim: did a fresh receipt back it


CASES = [
    Case("outside any root", None, "not_applicable", says=("not inside a project root",)),
    Case("fresh full pass", root_status(evidence()), "verified", says=("`uv run pytest` passed (full)",), left=2),
    Case(
        "fresh full pass covers whatever the agent says it edited",
        root_status(evidence()),
        "verified",
        changed=("src/app.py",),
    ),
    Case(
        "stale: edits since the pass",
        root_status(stale=(evidence(),), changed=("src/app.py", "src/util.py")),
        "nudge",
        says=(
            "2 files changed (src/app.py, src/util.py)",
            "ran before these changes",
            "`freshpass run -- uv run pytest`",
            "report that blocker plainly",
            "(reminder 1 of 2)",
        ),
        left=1,
        paths=("src/app.py", "src/util.py"),
    ),
    Case(
        "second nudge",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "nudge",
        used=1,
        says=("(reminder 2 of 2)",),
        left=0,
    ),
    Case(
        "budget spent",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "exhausted",
        used=2,
        says=("not verified", "2 reminders already given", "`freshpass run -- uv run pytest`"),
        left=0,
    ),
    Case(
        "budget 0 never blocks",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "exhausted",
        budget=0,
        says=("reminders are turned off",),
    ),
    Case(
        "larger budget",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "nudge",
        used=2,
        budget=5,
        says=("(reminder 3 of 5)",),
        left=2,
    ),
    Case(
        "targeted pass is reported as targeted, not done",
        root_status(evidence(scope="targeted", command="uv run pytest tests/test_app.py")),
        "nudge",
        changed=("src/app.py",),
        says=("Only a targeted test run, `uv run pytest tests/test_app.py`", "No fresh passing full test run"),
        never_says=("passed (full)",),
    ),
    Case(
        "targeted pass counts when done.scope is targeted",
        root_status(evidence(scope="targeted", command="pytest tests/test_app.py")),
        "verified",
        scope="targeted",
        says=("passed (targeted)",),
        never_says=("(full)",),
    ),
    Case(
        "full pass still covers the content after a newer targeted re-run",
        root_status(evidence(scope="targeted", command="pytest tests/test_app.py")),
        "verified",
        changed=("src/app.py",),
        covering=evidence(id=3),
        says=("passed (full)",),
    ),
    Case(
        "a covering pass of another kind does not count",
        root_status(evidence(scope="targeted")),
        "nudge",
        changed=("src/app.py",),
        covering=evidence(kind="lint", command="ruff check"),
    ),
    Case(
        "fresh failure",
        root_status(evidence(status="failed")),
        "nudge",
        changed=("src/app.py",),
        says=("`uv run pytest`, failed (exit 1)",),
    ),
    Case(
        "only lint passed",
        root_status(evidence(kind="lint", command="ruff check")),
        "nudge",
        changed=("src/app.py",),
        says=("Only a lint run, `ruff check`, passed",),
    ),
    Case(
        "lint counts when done.kinds has it",
        root_status(evidence(kind="lint", command="ruff check")),
        "verified",
        kinds=("test", "lint"),
        says=("`ruff check` passed (full)",),
    ),
    Case("no evidence, nothing changed", root_status(), "not_applicable", says=("nothing to verify",)),
    Case(
        "no evidence, prose-only edits",
        root_status(),
        "not_applicable",
        changed=("README.md", "docs/guide.rst", "LICENSE", "CHANGELOG.md", "notes.txt"),
    ),
    Case(
        "no evidence, code edits (prose left out of the message)",
        root_status(),
        "nudge",
        changed=("src/app.py", "README.md"),
        says=("1 file changed (src/app.py)", "No test run of this project is on record yet"),
        never_says=("README.md",),
        paths=("src/app.py",),
    ),
    Case(
        "requirements.txt is a build input, not prose",
        root_status(),
        "nudge",
        changed=("requirements-dev.txt",),
        paths=("requirements-dev.txt",),
    ),
    Case(
        "prose counts when ignoreProse is off",
        root_status(),
        "nudge",
        changed=("README.md",),
        ignore_prose=False,
        paths=("README.md",),
    ),
    Case(
        "ignore globs drop generated files",
        root_status(),
        "not_applicable",
        changed=("generated/api.py", "snapshots/a.snap"),
        ignore=("generated/", "*.snap"),
    ),
    Case(
        "fresh pass and prose edits since: still verified",
        root_status(evidence()),
        "verified",
        changed=("README.md",),
    ),
    Case(
        "stale with unknown paths still nudges",
        root_status(stale=(evidence(),)),
        "nudge",
        says=("this project's files changed since its last recorded run",),
    ),
    Case(
        "content differs from the last pass, paths unknown",
        root_status(evidence(status="failed")),
        "nudge",
        content_changed=True,
    ),
    Case(
        "many paths are counted, not all named",
        root_status(stale=(evidence(),), changed=tuple(f"src/m{i}.py" for i in range(8))),
        "nudge",
        says=("8 files changed", "src/m4.py and 3 more"),
        never_says=("src/m5.py",),
    ),
    Case(
        "the same path reported twice counts once",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "nudge",
        changed=("src/app.py",),
        says=("1 file changed",),
    ),
    # ---- claims meet receipts (design §7.4) ----
    Case(
        "a test claim with no receipt at all, nothing changed: the claim alone nudges",
        root_status(),
        "nudge",
        claims=(Claim("test", "All tests pass."),),
        backed=(False,),
        says=("You wrote “All tests pass.”, but no fresh passing full test run backs it.", "freshpass run -- uv run"),
        never_says=("file changed",),
        left=1,
    ),
    Case(
        "a test claim after code changed: the nudge quotes it",
        root_status(stale=(evidence(),), changed=("src/app.py",)),
        "nudge",
        claims=(Claim("test", "All tests pass."),),
        backed=(False,),
        says=("1 file changed (src/app.py). You wrote “All tests pass.”", "ran before these changes"),
    ),
    Case(
        "a test claim backed by a fresh full pass passes silently",
        root_status(evidence()),
        "verified",
        claims=(Claim("test", "All tests pass."),),
        backed=(True,),
        never_says=("You wrote",),
    ),
    Case(
        "a generic claim (verified) is backed by what counts as done",
        root_status(evidence()),
        "verified",
        claims=(Claim("check", "Everything is verified."),),
        backed=(True,),
    ),
    Case(
        "a test claim is not backed by a targeted pass",
        root_status(evidence(scope="targeted", command="uv run pytest tests/test_a.py")),
        "nudge",
        claims=(Claim("test", "All tests pass."),),
        backed=(False,),
        says=("You wrote “All tests pass.”",),
    ),
    Case(
        "a lint claim when only tests ran: names the lint command",
        root_status(evidence()),
        "nudge",
        claims=(Claim("test", "Tests pass."), Claim("lint", "Lint is clean.")),
        backed=(True, False),
        says=(
            "You wrote “Lint is clean.”, but no fresh passing full lint run backs it.",
            "freshpass run -- ruff check",
        ),
        never_says=("“Tests pass.”", "uv run pytest`"),
    ),
    Case(
        "a lint claim backed by a fresh lint pass",
        root_status(evidence(), evidence(id=8, kind="lint", command="ruff check")),
        "verified",
        claims=(Claim("lint", "Lint is clean."),),
        backed=(True,),
    ),
    Case(
        "an unbacked claim after the budget is spent: exhausted, still quoted",
        root_status(),
        "exhausted",
        used=2,
        claims=(Claim("test", "All tests pass."),),
        backed=(False,),
        says=("You wrote “All tests pass.”", "not verified"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_decide(case: Case) -> None:
    decision = decide(
        case.status,
        changed_paths=case.changed,
        nudges_used=case.used,
        budget=case.budget,
        done_kinds=case.kinds,
        done_scope=case.scope,
        ignore=case.ignore,
        ignore_prose=case.ignore_prose,
        covering_pass=case.covering,
        content_changed=case.content_changed,
        claims=case.claims,
    )
    assert decision.verdict == case.verdict, decision.message
    assert [claim["backed"] for claim in decision.claims] == list(case.backed)
    for text in case.says:
        assert text in decision.message
    for text in case.never_says:
        assert text not in decision.message
    if case.left is not None:
        assert decision.nudges_left == case.left
    if case.paths is not None:
        assert decision.changed_paths == list(case.paths)
    payload = decision.to_json()
    assert set(payload) == {
        "verdict", "message", "synthetic", "commands", "status", "nudgesLeft", "changedPaths", "claims"
    }  # fmt: skip
    assert payload["synthetic"] is (case.verdict in ("nudge", "exhausted"))
    assert payload["status"] == (case.status.to_json() if case.status is not None else None)


def test_nudge_names_the_test_command_first_and_every_done_command() -> None:
    decision = decide(root_status(stale=(evidence(),), changed=("a.py",)), done_kinds=("test", "lint"))
    assert [command["command"] for command in decision.commands] == ["uv run pytest", "ruff check"]
    assert decision.commands[0] == {
        "command": "uv run pytest",
        "kind": "test",
        "cwd": ".",
        "source": PYTEST["source"],
        "run": "freshpass run -- uv run pytest",
    }
    assert decision.message.index("uv run pytest") < decision.message.index("ruff check")


def test_nudge_without_a_declared_command_asks_for_an_honest_report() -> None:
    status = replace(
        root_status(stale=(evidence(),), changed=("a.py",)), verify_commands=(VerifyCommand.from_json(RUFF),)
    )
    decision = decide(status)
    assert decision.verdict == "nudge"
    assert decision.commands == []
    assert "declares no test command" in decision.message
    assert "Do not claim it is verified" in decision.message


def test_nudges_and_exhaustion_walk_down_the_budget() -> None:
    status = root_status(stale=(evidence(),), changed=("src/app.py",))
    verdicts = [decide(status, nudges_used=used).verdict for used in range(4)]
    assert verdicts == ["nudge", "nudge", "exhausted", "exhausted"]


def test_message_changes_when_the_edits_change() -> None:
    first = decide(root_status(stale=(evidence(),), changed=("src/a.py",)))
    second = decide(root_status(stale=(evidence(),), changed=("src/a.py", "src/b.py")), nudges_used=1)
    assert first.message != second.message


@pytest.mark.parametrize(
    ("command", "cwd", "expected"),
    [
        ("uv run pytest", ".", "freshpass run -- uv run pytest"),
        ("npm test", "packages/web", "cd packages/web && freshpass run -- npm test"),
        ("make test && make lint", ".", "freshpass run -- 'make test && make lint'"),
        ("pytest -k 'not slow'", ".", "freshpass run -- pytest -k 'not slow'"),
        ('pytest -k "a or b"', ".", "freshpass run -- 'pytest -k \"a or b\"'"),
        ("go test ./...", "dir with space", "cd 'dir with space' && freshpass run -- go test ./..."),
    ],
)
def test_run_line(command: str, cwd: str, expected: str) -> None:
    line = run_line(command, cwd)
    assert line == expected
    # What the shell hands `freshpass run` rebuilds the command line (one word is the line; several are joined).
    words = shlex.split(line.split(" && ", 1)[-1] if cwd != "." else line)[3:]
    rebuilt = words[0] if len(words) == 1 else shlex.join(words)
    assert shlex.split(rebuilt) == shlex.split(command)


def test_done_commands_skip_other_kinds_and_keep_precedence() -> None:
    second_test = {"command": "tox -e py", "kind": "test", "cwd": ".", "source": "tox.ini"}
    commands = tuple(VerifyCommand.from_json(c) for c in (PYTEST, RUFF, second_test))
    status = Status("/repo", verify_commands=(*commands, VerifyCommand("", "test")))
    assert [c["command"] for c in done_commands(status, DoneRules())] == ["uv run pytest", "tox -e py"]


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        ({"budget": -1}, "≥ 0"),
        ({"kinds": ()}, "at least one kind"),
        ({"scope": "partial"}, "full or targeted"),
    ],
)
def test_done_rules_reject_bad_values(rules: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        DoneRules(**rules)


def event(id: int, kind: str = "test", scope: str = "full", status: str = "passed", stale: bool = False, content=None):
    return SimpleNamespace(
        id=id,
        kind=kind,
        scope=scope,
        counted_scope=scope,
        status=status,
        stale_at_record=stale,
        content_id=content or f"c{id}",
    )


NOW = "now"  # the content id the root has at the time of the check


@pytest.mark.parametrize(
    ("events", "rules", "fresh", "baseline", "covering", "complete"),
    [
        pytest.param([], DoneRules(), False, None, None, False, id="no receipts"),
        pytest.param(
            [event(5, status="failed"), event(4, scope="targeted"), event(3), event(2)],
            DoneRules(), False, 3, None, True, id="baseline skips failures and targeted passes",
        ),
        pytest.param(
            [event(5, stale=True), event(4, status="failed", kind="test"), event(3)],
            DoneRules(), False, 3, None, True, id="a pass recorded already stale is no baseline",
        ),
        pytest.param(
            [event(4, scope="targeted")], DoneRules(scope="targeted"), False, 4, None, True, id="targeted counts",
        ),
        pytest.param(
            [event(4, scope="targeted"), event(2, status="failed")], DoneRules(), False, None, None, False,
            id="never a qualifying pass",
        ),
        pytest.param(
            [event(6, scope="targeted", content=NOW), event(5, content=NOW), event(3)],
            DoneRules(), True, 5, 5, True, id="a full pass covers this content despite a newer targeted re-run",
        ),
        pytest.param(
            [event(6, status="failed", content=NOW), event(5, content=NOW)],
            DoneRules(), True, 5, None, True, id="a newer failure on this content uncovers it",
        ),
        pytest.param(
            [event(6, content=NOW, stale=True), event(5)],
            DoneRules(), True, 5, None, False, id="nothing fresh yet: keep reading for a covering pass",
        ),
        pytest.param(
            [event(7, content=NOW, scope="targeted"), event(4), event(2, content=NOW)],
            DoneRules(), True, 4, 2, True, id="an older pass of this content (an edit undone) covers it",
        ),
    ],
)  # fmt: skip
def test_scan_kind_finds_baseline_and_covering_pass(events, rules, fresh, baseline, covering, complete) -> None:
    found = scan_kind(events, rules, NOW, ran_on_this_content=fresh)
    assert (found.baseline.id if found.baseline else None) == baseline
    assert (found.covering.id if found.covering else None) == covering
    assert found.complete is complete


def test_relative_paths_accepts_relative_absolute_and_file_uris(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    outside = tmp_path / "elsewhere.py"
    paths = [
        "src/a.py",
        str(root / "src" / "b.py"),
        (root / "src" / "c d.py").as_uri(),
        str(outside),
        "../elsewhere.py",
        "src/../../escape.py",
        "./src/./d.py",
        "untitled:Untitled-1",
        "",
        42,
    ]
    assert relative_paths(paths, root) == ["src/a.py", "src/b.py", "src/c d.py", "src/d.py"]


def test_decision_json_round_trip_shape() -> None:
    status = root_status(evidence())
    decision = Decision("verified", "ok", [], status, nudges_left=2)
    assert decision.to_json() == {
        "verdict": "verified",
        "message": "ok",
        "synthetic": False,
        "commands": [],
        "status": status.to_json(),
        "nudgesLeft": 2,
        "changedPaths": [],
        "claims": [],
    }
