"""The push gate end to end: a bare remote, a clone with `freshpass gate --install`, real `git push`es. A push of
content with no fresh passing full test is refused with the command to run; after `freshpass run` it goes
through; a commit whose tree CI shared, with the project trusting CI, goes through with no local run. And the same
through the pre-commit framework, with this repository's `.pre-commit-hooks.yaml` entry."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO, run_cli
from tests.e2e.conftest import PYPROJECT, git
from tests.e2e.test_sharing import TEST_COMMAND, ci_publishes, cli, clone, published

pytestmark = pytest.mark.e2e

TRUSTING_CI = PYPROJECT + '\n[tool.freshpass.shared]\ntrust = ["ci"]\n'


def push(repo: Path, *refspec: str) -> subprocess.CompletedProcess[str]:
    """`git push` as a person types it (no terminal: the gate only reports)."""
    return subprocess.run(
        ["git", "push", "origin", *(refspec or ("HEAD:refs/heads/main",))],
        cwd=repo,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=120,
    )


def change(repo: Path, text: str = "def answer():\n    return 42  # reworded\n") -> None:
    (repo / "src" / "app.py").write_text(text)
    git(repo, "commit", "-q", "-am", "change")


def remote_head(remote: Path, branch: str = "main") -> str:
    return subprocess.run(
        ["git", "rev-parse", f"refs/heads/{branch}"], cwd=remote, capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_push_of_untested_content_is_refused_until_the_test_ran(tmp_path: Path) -> None:
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    installed = cli("gate", "--install", cwd=laptop)
    assert "installed" in installed.stderr
    change(laptop)
    before = remote_head(remote)

    refused = push(laptop)
    assert refused.returncode != 0
    line = next(line for line in refused.stderr.splitlines() if line.startswith("freshpass gate:"))
    assert "has no fresh passing full test run" in line and f"run: freshpass run -- {TEST_COMMAND}" in line
    assert remote_head(remote) == before

    cli("run", "--", TEST_COMMAND, cwd=laptop)
    went = push(laptop)
    assert went.returncode == 0, went.stderr
    assert remote_head(remote) == git_head(laptop)


def test_a_failing_run_does_not_open_the_gate_and_the_gate_judges_the_commit_not_the_work_tree(
    tmp_path: Path,
) -> None:
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    cli("gate", "--install", cwd=laptop)
    change(laptop, "def answer():\n    return 41\n")
    assert run_cli("run", "--", TEST_COMMAND, cwd=laptop).returncode != 0
    refused = push(laptop)
    assert refused.returncode != 0 and "failed its last full run" in refused.stderr
    # The work tree is fixed and tested, but the commit being pushed is still the failing one.
    (laptop / "src" / "app.py").write_text("def answer():\n    return 42\n")
    cli("run", "--", TEST_COMMAND, cwd=laptop)
    assert push(laptop).returncode != 0
    git(laptop, "commit", "-q", "-am", "fix")
    assert push(laptop).returncode == 0


def test_a_commit_ci_shared_and_the_project_trusts_goes_through_without_a_local_run(tmp_path: Path) -> None:
    remote = published(tmp_path, TRUSTING_CI)
    ci_publishes(remote)
    laptop = clone(remote, "laptop")
    cli("share", "--fetch", cwd=laptop)
    cli("gate", "--install", cwd=laptop)
    went = push(laptop, "HEAD:refs/heads/release")
    assert went.returncode == 0, went.stderr
    assert remote_head(remote, "release") == git_head(laptop)
    # Without the project's trust in CI, the same shared receipt is shown, never counted: refused.
    other = clone(published(tmp_path / "untrusting"), "laptop")
    ci_publishes(other.parent / "remote.git", "ci-untrusted")
    cli("share", "--fetch", cwd=other)
    cli("gate", "--install", cwd=other)
    assert push(other, "HEAD:refs/heads/release").returncode != 0


def test_install_chains_to_an_existing_hook_and_refuses_a_configured_hooks_path(tmp_path: Path) -> None:
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    hooks = laptop / ".git" / "hooks"
    witness = tmp_path / "witness"
    (hooks / "pre-push").write_text(f"#!/bin/sh\ncat > {witness}\nexit 0\n")
    (hooks / "pre-push").chmod(0o755)
    assert "runs first" in cli("gate", "--install", cwd=laptop).stderr
    cli("gate", "--install", cwd=laptop)  # again: still one chained hook, not a loop
    change(laptop)
    assert push(laptop).returncode != 0
    assert witness.read_text().split()[0] == "HEAD" or "refs/heads/main" in witness.read_text()
    # A hook that refuses keeps its verdict.
    (hooks / "pre-push.before-freshpass").write_text("#!/bin/sh\necho mine >&2\nexit 3\n")
    cli("run", "--", TEST_COMMAND, cwd=laptop)
    vetoed = push(laptop)
    assert vetoed.returncode != 0 and "mine" in vetoed.stderr
    # core.hooksPath (husky, a hostile config): nothing is written there, and it says so.
    elsewhere = tmp_path / "elsewhere"
    git(laptop, "config", "core.hooksPath", str(elsewhere))
    refused = run_cli("gate", "--install", cwd=laptop)
    assert refused.returncode == 1 and "core.hooksPath is set" in refused.stderr and not elsewhere.exists()


def test_the_gate_by_hand_judges_head_and_says_nothing_when_it_may_go(tmp_path: Path) -> None:
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    refused = run_cli("gate", cwd=laptop)
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "HEAD" in refused.stderr
    cli("run", "--", TEST_COMMAND, cwd=laptop)
    went = run_cli("gate", cwd=laptop)
    assert (went.returncode, went.stdout, went.stderr) == (0, "", "")


def test_the_pre_commit_framework_with_this_repository_s_hook_refuses_untested_content(tmp_path: Path) -> None:
    pre_commit = shutil.which("pre-commit") or str(Path(sys.executable).with_name("pre-commit"))
    if not Path(pre_commit).exists():
        pytest.fail("pre-commit is a test dependency: pip install -e '.[test]'")
    (offered,) = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    assert offered["id"] == "freshpass-gate" and offered["stages"] == ["pre-push"]
    remote = published(tmp_path)
    laptop = clone(remote, "laptop")
    # `repo: local` runs this repository's hook definition with the freshpass already installed (no network).
    local = {**offered, "language": "system"}
    (laptop / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [local]}]}))
    git(laptop, "add", ".pre-commit-config.yaml")
    git(laptop, "commit", "-q", "-m", "pre-commit")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    subprocess.run([pre_commit, "install", "--hook-type", "pre-push"], cwd=laptop, env=env, check=True,
                   capture_output=True)  # fmt: skip
    before = remote_head(remote)
    refused = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=laptop, env=env,
                             capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip
    assert refused.returncode != 0
    assert f"run: freshpass run -- {TEST_COMMAND}" in refused.stdout + refused.stderr
    assert remote_head(remote) == before
    cli("run", "--", TEST_COMMAND, cwd=laptop)
    went = subprocess.run(["git", "push", "origin", "HEAD:refs/heads/main"], cwd=laptop, env=env,
                          capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=120)  # fmt: skip
    assert went.returncode == 0, went.stdout + went.stderr


def git_head(repo: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()
