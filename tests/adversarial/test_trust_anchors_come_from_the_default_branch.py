"""A branch cannot vouch for its own forged receipts: the trust anchors come from the default branch.

The shape: someone with push access to the shared ref and to a branch breaks the suite, then makes the branch say
who is trusted — it adds its own key to the project's allowed-signers file under CI's principal, or adds
`trust = ["ci"]` to a project that trusted no one — and shares a "CI passed" for the branch's content, signed with
that key. Read from the work tree, those anchors would count the forgery (`signed by ci@…`, the gate open, the
done-check verified on a failing suite). Read from `origin/HEAD`, they count for nothing until the change is merged
there; `freshpass share --list` says so in one line, and once it is merged they do count.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from freshpass.ledger.content import snapshot
from freshpass.ledger.git import find_remote, find_repository
from freshpass.ledger.notes import Signing, add_receipts, push
from freshpass.ledger.shared import Provenance, from_evidence

from tests.conftest import git as git_output
from tests.conftest import run_cli
from tests.e2e.conftest import PYPROJECT, Session, git, make_project
from tests.unit.test_shared import evidence

PRINCIPAL = "ci@acme.example"
SIGNED = (
    PYPROJECT + f'\n[tool.freshpass.shared]\ntrust = ["ci"]\nsigners = ["{PRINCIPAL}"]\n'
    'allowed_signers = "allowed_signers"\n'
)
NOTE = "the work tree's trust settings differ from origin/HEAD's; they count once merged"


def _key(tmp_path: Path, name: str) -> Path:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed: git's ssh signing cannot be exercised")
    key = tmp_path / f"{name}-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


def _signer_line(key: Path) -> str:
    kind, public = key.with_suffix(".pub").read_text().split()[:2]
    return f'{PRINCIPAL} namespaces="git" {kind} {public}\n'


def _remote(tmp_path: Path, pyproject: str, signers: str | None = None) -> Path:
    seed = make_project(tmp_path / "seed", pyproject)
    if signers is not None:
        (seed / "allowed_signers").write_text(signers)
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", "who signs CI's receipts")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    return remote


def _clone(remote: Path, name: str) -> Path:
    path = remote.parent / name
    git(remote.parent, "clone", "-q", str(remote), str(path))
    return path.resolve()


def _forge(branch: Path, key: Path | None) -> None:
    """A "CI passed" for the branch's content, shared (signed with `key`) and pushed, though nothing ran."""
    repository = find_repository(branch)
    assert repository is not None
    content = snapshot(branch).content_id
    forged = from_evidence(
        evidence(root=str(branch), content_id=content, command="python -m pytest -q -p no:cacheprovider"),
        root=".",
        provenance=Provenance("ci", "github-actions", "https://github.com/acme/demo/actions/runs/1"),
        commit=git_output(branch, "rev-parse", "HEAD").strip(),
        version="0.1.0",
        ignore=[],
        ignore_prose=True,
    )
    add_receipts(repository, [forged], summary="forged", signing=Signing(str(key)) if key else None)
    push(repository, find_remote(repository, "origin"))


def _branch(remote: Path, change: dict[str, str]) -> Path:
    """The attacker's branch `feature`: the suite broken, and `change` (files → text) committed, pushed."""
    attacker = _clone(remote, "attacker")
    git(attacker, "checkout", "-q", "-b", "feature")
    (attacker / "src" / "app.py").write_text("def answer():\n    return 41\n")  # the suite fails now
    for name, text in change.items():
        (attacker / name).write_text(text)
    git(attacker, "add", "-A")
    git(attacker, "commit", "-q", "-m", "a change, and who vouches for it")
    git(attacker, "push", "-q", "origin", "feature")
    return attacker


def _reviewer(remote: Path) -> Path:
    reviewer = _clone(remote, "reviewer")
    git(reviewer, "checkout", "-q", "feature")
    fetched = run_cli("share", "--fetch", cwd=reviewer)
    assert fetched.returncode == 0, fetched.stderr
    return reviewer


def _status(root: Path) -> dict[str, Any]:
    result = run_cli("status", "--json", cwd=root)
    return json.loads(result.stdout)


def _merge_to_main(attacker: Path, reviewer: Path) -> None:
    git(attacker, "push", "-q", "origin", "feature:main")
    git(reviewer, "fetch", "-q", "origin")  # origin/HEAD → origin/main, now the branch's commit


def test_a_branch_adding_its_own_key_to_the_allowed_signers_counts_only_once_merged(tmp_path: Path) -> None:
    ci, mallory = _key(tmp_path, "ci"), _key(tmp_path, "mallory")
    remote = _remote(tmp_path, SIGNED, _signer_line(ci))
    attacker = _branch(remote, {"allowed_signers": _signer_line(ci) + _signer_line(mallory)})
    _forge(attacker, mallory)
    reviewer = _reviewer(remote)

    status = _status(reviewer)
    assert status["status"] == "unverified", status
    [entry] = status["shared"]
    assert entry["signature"] == "unknown-key" and not entry["counted"] and entry["signer"] is None
    listed = run_cli("share", "--list", cwd=reviewer)
    assert listed.returncode == 0 and "not counted" in listed.stdout
    assert NOTE in listed.stdout and listed.stdout.count(NOTE) == 1
    gate = run_cli("gate", cwd=reviewer)
    assert gate.returncode == 1 and "no fresh passing full test run" in gate.stderr

    _merge_to_main(attacker, reviewer)
    status = _status(reviewer)
    assert status["status"] == "passed" and status["evidence"]["shared"]["signer"] == PRINCIPAL
    listed = run_cli("share", "--list", cwd=reviewer)
    assert "counted" in listed.stdout and NOTE not in listed.stdout
    assert run_cli("gate", cwd=reviewer).returncode == 0


def test_a_branch_adding_trust_to_a_project_that_trusted_no_one_counts_only_once_merged(tmp_path: Path) -> None:
    remote = _remote(tmp_path, PYPROJECT)
    attacker = _branch(remote, {"pyproject.toml": PYPROJECT + '\n[tool.freshpass.shared]\ntrust = ["ci"]\n'})
    _forge(attacker, None)
    reviewer = _reviewer(remote)

    status = _status(reviewer)
    assert status["status"] == "unverified" and "shared.trust is off" in status["shared"][0]["why"]
    listed = run_cli("share", "--list", "--json", cwd=reviewer)
    trust = json.loads(listed.stdout)["trust"]
    assert trust["note"] == NOTE and trust["default_branch"] == "origin/HEAD" and trust["source"] is None
    assert run_cli("gate", cwd=reviewer).returncode == 1

    _merge_to_main(attacker, reviewer)
    assert _status(reviewer)["status"] == "passed"
    assert json.loads(run_cli("share", "--list", "--json", cwd=reviewer).stdout)["trust"]["note"] is None


async def test_the_done_check_is_not_verified_by_a_branch_s_own_trust(lsp: Session, tmp_path: Path) -> None:
    remote = _remote(tmp_path, PYPROJECT)
    attacker = _branch(remote, {".freshpass.toml": 'shared = {trust = ["ci"]}\n'})
    _forge(attacker, None)
    reviewer = _reviewer(remote)
    await lsp.initialize(reviewer)
    status = await lsp.status(reviewer)
    assert status["status"] == "unverified" and not status["shared"][0]["counted"]
    decision = as_json(
        await lsp.client.protocol.send_request_async(
            "freshpass/checkDone", {"sessionId": "agent-1", "changedPaths": ["src/app.py"]}
        )
    )
    assert decision["verdict"] != "verified" and "shared.trust is off" in decision["message"]


def test_without_a_default_branch_a_work_tree_s_trust_counts_for_nothing(tmp_path: Path) -> None:
    alone = make_project(tmp_path / "alone", PYPROJECT + '\n[tool.freshpass.shared]\ntrust = ["ci"]\n')
    repository = find_repository(alone)
    assert repository is not None
    content = snapshot(alone).content_id
    forged = from_evidence(
        evidence(root=str(alone), content_id=content, command="python -m pytest -q -p no:cacheprovider"),
        root=".",
        provenance=Provenance("ci"),
        commit="",
        version="0.1.0",
        ignore=[],
        ignore_prose=True,
    )
    add_receipts(repository, [forged], summary="forged")
    assert _status(alone)["status"] == "unverified"  # `main` is checked out: its commits are the ones judged
    listed = run_cli("share", "--list", cwd=alone)
    assert "count for nothing: there is no default branch" in listed.stdout


def as_json(value: Any) -> Any:
    from tests.e2e.conftest import as_json as convert

    return convert(value)


async def test_an_agent_s_tools_count_shared_receipts_only_in_a_folder_the_user_trusts(tmp_path: Path) -> None:
    from freshpass.evidence.trust import trust
    from freshpass.mcp import tools

    remote = _remote(tmp_path, PYPROJECT + '\n[tool.freshpass.shared]\ntrust = ["ci"]\n')
    ci = _clone(remote, "ci")
    _forge(ci, None)  # a CI receipt the default branch's settings count
    laptop = _clone(remote, "laptop")
    assert run_cli("share", "--fetch", cwd=laptop).returncode == 0
    assert _status(laptop)["status"] == "passed"  # the person at the terminal: the project's anchors count
    shown = await tools.status(str(laptop), laptop)
    assert shown["status"] == "unverified" and shown["evidence"] is None
    decision = await tools.check_done(str(laptop), laptop, session="agent-1", changed_paths=["src/app.py"])
    assert decision["verdict"] != "verified" and "is not a trusted folder" in decision["message"]
    trust(laptop)
    counted = await tools.status(str(laptop), laptop)
    assert counted["status"] == "passed" and counted["evidence"] is not None
    assert counted["evidence"]["shared"]["actor"] == "ci"
    assert (await tools.check_done(str(laptop), laptop, session="agent-1", changed_paths=["src/app.py"]))[
        "verdict"
    ] == "verified"
