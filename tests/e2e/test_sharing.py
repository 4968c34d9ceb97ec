"""Receipts that travel through git (design §4.6), end to end: a bare repository is the remote, a "CI" clone runs the
suite through `freshpass run --share` and pushes, a "laptop" clone fetches. Everything runs through the real CLI
and the real server over stdio (pytest-lsp, as Neovim and as VS Code); each clone has its own ledger, as two
machines would."""

from __future__ import annotations

import asyncio
import json
import shlex
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest
from freshpass import __version__
from freshpass.ledger.content import commit_snapshot, snapshot
from freshpass.ledger.notes import NOTES_REF
from lsprotocol import types

from tests.conftest import REPO, run_cli
from tests.conftest import git as git_output
from tests.e2e.conftest import PYPROJECT, Session, as_json, git, make_project

pytestmark = pytest.mark.e2e

TEST_COMMAND = "python -m pytest -q -p no:cacheprovider"
TOKEN = "ghp_" + "Zq9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"


def ci_environment(ledger: Path) -> dict[str, str]:
    """What GitHub Actions sets, and a ledger of the CI machine's own."""
    return {
        "FRESHPASS_LEDGER": str(ledger),
        "GITHUB_ACTIONS": "true",
        "GITHUB_SERVER_URL": "https://github.com",
        "GITHUB_REPOSITORY": "acme/demo",
        "GITHUB_RUN_ID": "4242",
    }


def published(tmp_path: Path, pyproject: str = PYPROJECT) -> Path:
    """A bare remote holding the demo project's `main`."""
    seed = make_project(tmp_path / "seed", pyproject)
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    return remote


def clone(remote: Path, name: str) -> Path:
    path = remote.parent / name
    git(remote.parent, "clone", "-q", str(remote), str(path))
    return path.resolve()


def cli(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    result = run_cli(*args, cwd=cwd, env=env)
    assert result.returncode == 0, f"freshpass {' '.join(args)}: {result.stdout}{result.stderr}"
    return result


def ci_publishes(
    remote: Path, name: str = "ci", *, env: dict[str, str] | None = None, command: str = TEST_COMMAND
) -> Path:
    """The CI job: a fresh clone, the suite through `freshpass run --share`, then `freshpass share --push`."""
    ci = clone(remote, name)
    environment = {**ci_environment(remote.parent / f"{name}.db"), **(env or {})}
    ran = cli("run", "--share", "--", command, cwd=ci, env=environment)
    assert "shared 1 receipt" in ran.stderr, ran.stderr
    cli("share", "--push", cwd=ci, env=environment)
    return ci


def status_json(root: Path) -> dict[str, Any]:
    result = run_cli("status", "--json", cwd=root)
    return json.loads(result.stdout)


async def check_done(lsp: Session, **params: Any) -> dict[str, Any]:
    return as_json(await lsp.client.protocol.send_request_async("freshpass/checkDone", params))


async def change_settings(lsp: Session, settings: dict[str, Any]) -> None:
    lsp.client.set_configuration(settings, section="freshpass")
    lsp.client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"freshpass": settings}))


async def next_status(lsp: Session, seen: int, predicate: Any) -> dict[str, Any]:
    """The first status sent after the first `seen` ones that matches `predicate` (waits for it)."""
    found: dict[str, Any] = await lsp.until(
        lambda: next((s for s in lsp.status_changes[seen:] if predicate(s)), None), method="freshpass/statusChanged"
    )
    return found


def save(lsp: Session, path: Path, text: str, version: int) -> None:
    """What an editor does: the buffer changes, the file is written, didSave follows."""
    lsp.change(path, text, version)
    path.write_text(text)
    lsp.save(path)


# ---- the acceptance flow --------------------------------------------------------------------------------------------


async def test_ci_receipts_reach_a_laptop_clone_shown_counted_only_when_trusted(lsp: Session, tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci = ci_publishes(remote)
    laptop = clone(remote, "laptop")
    ids = (snapshot(ci).content_id, snapshot(laptop).content_id, commit_snapshot(laptop).content_id)
    assert len(set(ids)) == 1  # identical content, whoever computes it and how

    # Nothing has been fetched: a plain clone does not bring notes along.
    assert status_json(laptop)["shared"] == []
    fetched = cli("share", "--fetch", cwd=laptop)
    assert "fetched the shared receipts of origin" in fetched.stdout
    assert snapshot(laptop).content_id == ids[0]  # notes never change a content id

    # The CLI: shown apart from local receipts, not counted.
    status = status_json(laptop)
    assert status["status"] == "unverified" and status["evidence"] is None
    [entry] = status["shared"]
    assert (entry["status"], entry["scope"], entry["actor"]) == ("passed", "full", "ci")
    assert entry["provider"] == "github-actions"
    assert entry["job_url"] == "https://github.com/acme/demo/actions/runs/4242"
    # Everything the issue lists travels: the command, the check, counts, duration, version, time, the commit.
    assert (entry["command"], entry["canonical_command"], entry["kind"]) == (TEST_COMMAND, TEST_COMMAND, "test")
    assert entry["tests"] == {"passed": 1, "failed": 0, "skipped": 0} and entry["exit_code"] == 0
    assert isinstance(entry["duration_ms"], int) and entry["duration_ms"] > 0
    assert entry["freshpass"] == __version__ and entry["finished_at"].endswith("Z")
    assert entry["commit"] == git_output(laptop, "rev-parse", "HEAD").strip() and entry["digest"].startswith("sha256:")
    assert entry["counted"] is False and "shared.trust is off" in entry["why"]
    human = run_cli("status", cwd=laptop)
    assert human.returncode == 1 and "\n  shared    ✓ full · CI · " in human.stdout  # its age: however long this took
    assert (
        f"`{TEST_COMMAND}` (github-actions, https://github.com/acme/demo/actions/runs/4242) — not counted"
        in human.stdout
    )

    # The editor, with trust off: shown in a lens of its own, and an agent is still nudged, with the reason.
    app = laptop / "src" / "app.py"
    await lsp.initialize(laptop)
    lsp.open(app)
    lenses = await lsp.lenses(app)
    assert lenses[0].startswith("⚠ unverified")
    assert any(title.startswith("shared ✓ full · CI · ") and title.endswith("· not counted") for title in lenses)
    decision = await check_done(lsp, sessionId="agent-1", changedPaths=["src/app.py"])
    assert decision["verdict"] == "nudge"
    assert "A shared receipt says `python -m pytest -q -p no:cacheprovider` passed (full) in CI" in decision["message"]
    assert "shared.trust is off" in decision["message"]

    # Trusting CI: the shared pass counts for exactly this content.
    await change_settings(lsp, {"shared": {"trust": ["ci"]}})
    counted = await lsp.until_status(lambda s: s["status"] == "passed")
    assert counted["scope"] == "full" and counted["evidence"]["shared"]["actor"] == "ci"
    assert (await lsp.lenses(app))[0].startswith("✓ full · CI · ")
    verified = await check_done(lsp, sessionId="agent-1", changedPaths=["src/app.py"])
    assert verified["verdict"] == "verified" and "a shared receipt from ci" in verified["message"]

    # An edit makes it stale; reverting makes it fresh again.
    original, seen = app.read_text(), len(lsp.status_changes)
    save(lsp, app, "def answer():\n    return 43\n", version=2)
    stale = await next_status(lsp, seen, lambda s: s["status"] == "unverified")
    assert stale["shared"] == [] and (await lsp.lenses(app))[0].startswith("⚠ unverified")
    assert status_json(laptop)["shared"] == []  # the CLI agrees: CI's receipt is not about this content
    seen = len(lsp.status_changes)
    save(lsp, app, original, version=3)
    fresh = await next_status(lsp, seen, lambda s: s["status"] == "passed")
    assert fresh["evidence"]["shared"]["actor"] == "ci"
    assert (await lsp.lenses(app))[0].startswith("✓ full · CI · ")
    [again] = status_json(laptop)["shared"]
    assert again["digest"] == entry["digest"] and "shared    ✓ full · CI · " in run_cli("status", cwd=laptop).stdout


async def test_a_local_failure_on_the_same_content_wins(lsp: Session, tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci_publishes(remote)
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)
    failing = run_cli("run", "--", f"{TEST_COMMAND} --definitely-not-an-option", cwd=laptop)
    assert failing.returncode != 0 and "recorded test failed" in failing.stderr
    await lsp.initialize(laptop, options={"shared": {"trust": ["ci"]}})
    status = await lsp.status(laptop)
    assert status["status"] == "failed" and status["evidence"]["id"] is not None
    assert status["shared"][0]["counted"] is True  # it would count, but the local failure is the word here


async def test_the_server_fetches_shared_receipts_when_turned_on(lsp: Session, tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci_publishes(remote)
    laptop = clone(remote, "laptop")
    await lsp.initialize(laptop, options={"shared": {"fetch": True, "trust": ["ci"]}})
    fetched = await lsp.until_status(lambda s: s["status"] == "passed")
    assert fetched["evidence"]["shared"]["provider"] == "github-actions"


async def test_an_untrusted_workspace_counts_no_shared_receipt_and_reads_none(lsp: Session, tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci_publishes(remote)
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)  # the user fetched in a terminal: the notes are there to read
    await lsp.initialize(laptop, options={"shared": {"trust": ["ci"]}, "trusted": False})
    # Reading the notes takes git, and an untrusted workspace runs nothing: none is read, none counts.
    shown = await lsp.status(laptop)
    assert (shown["status"], shown["shared"], shown["evidence"]) == ("unverified", [], None)


def test_a_receipt_for_content_this_clone_does_not_have_is_ignored_and_read_by_commit(tmp_path: Path) -> None:
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    before = snapshot(laptop).content_id
    # CI tests a branch the laptop has not checked out: its receipt names that branch's content, not main's.
    ci = clone(remote, "ci")
    git(ci, "switch", "-q", "-c", "feature")
    (ci / "src" / "app.py").write_text("def answer():\n    return 42  # same answer, other content\n")
    git(ci, "commit", "-q", "-am", "feature")
    git(ci, "push", "-q", "origin", "feature")
    environment = ci_environment(tmp_path / "ci.db")
    cli("run", "--share", "--", TEST_COMMAND, cwd=ci, env=environment)
    cli("share", "--push", cwd=ci, env=environment)

    git(laptop, "fetch", "-q", "origin")
    cli("share", "--fetch", cwd=laptop)
    assert snapshot(laptop).content_id == before  # the notes did not change the laptop's content id
    status = status_json(laptop)
    assert status["status"] == "unverified" and status["shared"] == []  # a note for other content is not read
    listed = json.loads(cli("share", "--list", "--json", cwd=laptop).stdout)
    assert listed["shared"] == [] and listed["skipped"] == []
    # The feature branch's content, computed from its commit without checking it out, is what CI's receipt names.
    by_commit = json.loads(cli("share", "--list", "--json", "--rev", "origin/feature", cwd=laptop).stdout)
    assert by_commit["content_id"] == snapshot(ci).content_id != before
    [entry] = by_commit["shared"]
    assert (entry["status"], entry["scope"], entry["actor"]) == ("passed", "full", "ci")
    assert git_output(laptop, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"


def test_ci_is_told_when_its_work_tree_is_not_its_commit_and_no_clone_matches(tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci = clone(remote, "ci")
    (ci / "src" / "_version.py").write_text("VERSION = '0.0.0+ci'\n")  # what a set-up step leaves behind
    environment = ci_environment(tmp_path / "ci.db")
    ran = cli("run", "--share", "--", TEST_COMMAND, cwd=ci, env=environment)
    assert "the work tree differs from its commit (src/_version.py)" in ran.stderr
    cli("share", "--push", cwd=ci, env=environment)
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)
    assert status_json(laptop)["shared"] == []  # shared, but for content no clone of the commit has


def test_the_projects_content_rules_travel_with_the_commit_and_every_clone_agrees(tmp_path: Path) -> None:
    seed = make_project(tmp_path / "seed", PYPROJECT + 'ignore = ["generated/**"]\nignore_prose = false\n')
    (seed / "README.md").write_text("# demo\n")  # prose, and content in this project
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "readme")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    ci = ci_publishes(remote)
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)
    [entry] = status_json(laptop)["shared"]
    assert (entry["status"], entry["actor"]) == ("passed", "ci")
    by_commit = json.loads(cli("share", "--list", "--json", "--rev", "HEAD", cwd=laptop).stdout)
    assert by_commit["content_id"] == snapshot(ci, ["generated/**"], False).content_id != snapshot(ci).content_id
    assert [each["digest"] for each in by_commit["shared"]] == [entry["digest"]]
    note = git_output(laptop, "notes", f"--ref={NOTES_REF}", "show", by_commit["content_id"].removeprefix("git:"))
    line = json.loads(note)
    assert (line["ignore"], line["ignore_prose"]) == (["generated/**"], False)  # the rules the id was computed under
    (laptop / "generated").mkdir()
    (laptop / "generated" / "out.py").write_text("x = 1\n")  # ignored by the project: still the same content
    (laptop / "NOTES.md").write_text("prose counts here\n")  # prose is content in this project: now it differs
    assert status_json(laptop)["shared"] == []
    (laptop / "NOTES.md").unlink()
    assert [each["digest"] for each in status_json(laptop)["shared"]] == [entry["digest"]]


def test_the_developers_one_line_from_the_docs_brings_ci_receipts_with_git_fetch(tmp_path: Path) -> None:
    remote = published(tmp_path)
    ci_publishes(remote)
    laptop = clone(remote, "laptop")
    section = (REPO / "docs" / "sharing.md").read_text().split("## The developer's one line", 1)[1]
    line = section.split("```sh\n", 1)[1].split("\n```", 1)[0].strip()
    assert line == "git config --add remote.origin.fetch '+refs/notes/freshpass:refs/notes/freshpass'"
    git(laptop, *shlex.split(line)[1:])
    git(laptop, "fetch", "-q")  # plain git: no freshpass involved in moving the receipts
    [entry] = status_json(laptop)["shared"]
    assert (entry["actor"], entry["scope"], entry["counted"]) == ("ci", "full", False)


# ---- concurrency, secrets, trust -----------------------------------------------------------------------------------


async def _record(ledger: Path, root: Path, writer: str, count: int, start: int) -> None:
    from freshpass.ledger.store import EvidenceDraft, Ledger

    content = snapshot(root).content_id
    async with await Ledger.open(ledger) as store:
        for number in range(start, start + count):
            await store.record(
                EvidenceDraft(
                    root=str(root),
                    command=f"{TEST_COMMAND}  # {writer} {number}",
                    canonical_command=TEST_COMMAND,
                    kind="test",
                    scope="full",
                    status="passed",
                    content_id=content,
                    started_at=1_767_261_000.0 + number,
                    finished_at=1_767_261_001.0 + number,
                    exit_code=0,
                )
            )


@pytest.mark.parametrize(("order", "rounds"), [("a-then-b", 1), ("b-then-a", 5), ("together", 5)])
def test_two_writers_fifty_receipts_each_all_hundred_arrive(tmp_path: Path, order: str, rounds: int) -> None:
    """Each writer's run N starts and finishes at the same instant as the other's (the harshest case for telling
    runs apart); in rounds, the writer that goes second already holds the first one's receipts when it adds its
    own."""
    remote = published(tmp_path)
    writers = {name: clone(remote, name) for name in ("a", "b")}
    environments = {name: ci_environment(tmp_path / f"{name}.db") for name in writers}

    def publish(name: str, rounds: int) -> None:
        root, env = writers[name], environments[name]
        for round_number in range(rounds):
            asyncio.run(_record(Path(env["FRESHPASS_LEDGER"]), root, name, 50 // rounds, round_number * 50 // rounds))
            cli("share", "--push", cwd=root, env=env)

    if order == "together":  # both publish in rounds at once, racing for the remote's ref
        failures: list[BaseException] = []

        def publishing(name: str) -> None:
            try:
                publish(name, rounds)
            except BaseException as exc:  # a writer that gave up must fail the test, not vanish with its thread
                failures.append(exc)

        threads = [threading.Thread(target=publishing, args=(name,)) for name in writers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
    else:
        for name in order.split("-then-"):
            publish(name, rounds)
    reader = clone(remote, "reader")
    cli("share", "--fetch", cwd=reader)
    listed = json.loads(cli("share", "--list", "--json", cwd=reader).stdout)
    commands = {entry["command"] for entry in listed["shared"]}
    expected = {f"{TEST_COMMAND}  # {name} {number}" for name in writers for number in range(50)}
    assert commands == expected and len(listed["shared"]) == 100
    assert listed["skipped"] == []


def test_a_token_in_the_command_line_or_the_output_is_never_shared(tmp_path: Path) -> None:
    remote = published(tmp_path)
    leaky = make_project(tmp_path / "leaky-seed")
    (leaky / "tests" / "test_leak.py").write_text(
        f"def test_prints_a_token():\n    print('token: {TOKEN}, Authorization: Bearer {TOKEN}')\n    assert True\n"
    )
    git(leaky, "add", "-A")
    git(leaky, "commit", "-q", "-m", "leak")
    git(leaky, "push", "-q", "--force", str(remote), "main")
    ci_publishes(remote, command=f"GITHUB_TOKEN={TOKEN} {TEST_COMMAND} -s", env={"API_TOKEN": TOKEN})
    everything = subprocess.run(
        ["git", "--git-dir", str(remote), "log", "-p", "--format=%H%n%B", NOTES_REF],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "GITHUB_TOKEN=[REDACTED" in everything  # the receipt is there ...
    assert TOKEN not in everything and "token:" not in everything  # ... without the token, and without any output


def _keys(tmp_path: Path) -> dict[str, Path]:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed: git's ssh signing cannot be exercised")
    keys = {}
    for name in ("ci", "mallory"):
        key = tmp_path / f"{name}-key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
        keys[name] = key
    return keys


SIGNED_PYPROJECT = (
    PYPROJECT
    + '\n[tool.freshpass.shared]\ntrust = ["ci"]\nsigners = ["ci@acme.example"]\nallowed_signers = "allowed_signers"\n'
)


def test_with_a_signer_required_unsigned_and_wrongly_signed_receipts_are_shown_not_counted(tmp_path: Path) -> None:
    keys = _keys(tmp_path)
    seed = make_project(tmp_path / "seed", SIGNED_PYPROJECT)
    public = keys["ci"].with_suffix(".pub").read_text().split()
    (seed / "allowed_signers").write_text(f'ci@acme.example namespaces="git" {public[0]} {public[1]}\n')
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "who signs CI's receipts")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))

    # Someone with push access but not CI's key: one receipt unsigned, one signed with her own key.
    ci_publishes(remote, "unsigned", command=f"{TEST_COMMAND} -x")
    ci_publishes(remote, "mallory", command=f"{TEST_COMMAND} -v", env={"FRESHPASS_SIGNING_KEY": str(keys["mallory"])})
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)
    status = status_json(laptop)
    assert status["status"] == "unverified" and len(status["shared"]) == 2
    by_command = {entry["command"]: entry for entry in status["shared"]}
    unsigned, forged = by_command[f"{TEST_COMMAND} -x"], by_command[f"{TEST_COMMAND} -v"]
    assert unsigned["signature"] == "none" and not unsigned["counted"] and unsigned["why"].startswith("unsigned")
    assert forged["signature"] == "unknown-key" and not forged["counted"]
    assert "not in the allowed signers" in forged["why"] and "ci@acme.example" in forged["why"]

    # CI's own key: counted.
    ci_publishes(remote, "ci", env={"FRESHPASS_SIGNING_KEY": str(keys["ci"])})
    cli("share", "--fetch", cwd=laptop)
    status = status_json(laptop)
    assert status["status"] == "passed" and status["evidence"]["shared"]["signer"] == "ci@acme.example"
    assert [entry["counted"] for entry in status["shared"]].count(True) == 1
    assert run_cli("status", cwd=laptop).returncode == 0


def test_share_outside_git_and_bad_options_are_one_line(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = run_cli("share", cwd=plain)
    assert result.returncode == 1 and "not in a git repository" in result.stderr and "Traceback" not in result.stderr
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    result = run_cli("share", "--rev", "HEAD", cwd=laptop)
    assert result.returncode == 2 and "--rev goes with --list" in result.stderr
    result = run_cli("share", "--push", "--remote", "upstream", cwd=laptop)
    assert result.returncode == 1 and "no remote named 'upstream'" in result.stderr
    assert "nothing to share" in run_cli("share", cwd=laptop).stdout
    listed = run_cli("share", "--list", "--rev", "HEAD", cwd=laptop)
    assert listed.returncode == 0 and "no shared receipts for HEAD" in listed.stdout
