"""Sharing never runs the project's own content, and a pusher's junk costs bounded work.

A repository may commit a bare repository (`vendor/notes.git`) whose hooks run on every push it receives, and name it
as its remote (`url = vendor/notes.git`, an absolute path, `file://…`, a symlink out of the tree that points back
in). `freshpass share --push` and `--fetch` refuse it in one line and run none of its hooks.

Anyone with push access to the shared ref can also fill it: thousands of junk notes (each merging push paid
several git processes per note), a note of tens of megabytes (read whole to merge it), lines no receipt is as long
as. A merge is a constant number of git processes, never reads a note over 1 MiB, drops lines over 16 KiB, and
says in a line or two what it left out.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.adversarial.conftest import project
from tests.conftest import git, run_cli

HOOKS = ("pre-receive", "update", "post-receive", "post-update", "reference-transaction", "pre-upload-pack")


def _planted(root: Path, marker: Path) -> Path:
    bare = root / "vendor" / "notes.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for hook in HOOKS:
        script = bare / "hooks" / hook
        script.write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        script.chmod(0o755)
    git(root, "add", "-A")
    git(root, "commit", "-qm", "vendor a repository")
    return bare


@pytest.mark.parametrize("spelling", ["relative", "absolute", "file-url", "symlink-outside", "own-git-dir"])
@pytest.mark.parametrize("action", ["--push", "--fetch"])
def test_a_remote_inside_the_work_tree_is_refused(tmp_path: Path, spelling: str, action: str) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "hooks-ran"
    bare = _planted(root, marker)
    (tmp_path / "outside").symlink_to(bare)
    url = {
        "relative": "vendor/notes.git",
        "absolute": str(bare),
        "file-url": f"file://{bare}",
        "symlink-outside": str(tmp_path / "outside"),
        "own-git-dir": str(root / ".git"),
    }[spelling]
    git(root, "remote", "add", "origin", url)
    recorded = run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider", cwd=root)
    assert recorded.returncode == 0, recorded.stderr
    shared = run_cli("share", action, cwd=root)
    assert shared.returncode != 0
    assert "inside" in shared.stderr and "hooks" in shared.stderr, shared.stderr
    assert "Traceback" not in shared.stderr
    assert not marker.exists(), marker.read_text()


def test_a_remote_outside_the_work_tree_still_works(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(root, "remote", "add", "origin", str(remote))
    assert run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider", cwd=root).returncode == 0
    pushed = run_cli("share", "--push", cwd=root)
    assert pushed.returncode == 0, pushed.stderr


def test_a_flooded_shared_ref_merges_in_bounded_work_and_says_what_it_left_out(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(root, "remote", "add", "origin", str(remote))
    assert run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider", cwd=root).returncode == 0
    assert run_cli("share", "--push", cwd=root).returncode == 0
    content = git(root, "notes", "--ref=refs/notes/freshpass", "list").split()[1]

    # The pusher: 1,500 junk notes, an 8 MiB note on the content CI shared, a 32 KiB line on another.
    pusher = tmp_path / "pusher"
    git(tmp_path, "clone", "-q", str(remote), str(pusher))
    git(pusher, "fetch", "-q", "origin", "refs/notes/freshpass:refs/notes/freshpass")
    stream = b"commit refs/notes/freshpass\ncommitter m <m@example.invalid> 1767261000 +0000\ndata 4\njunk\n"
    stream += b"from refs/notes/freshpass^0\n"
    for number in range(1500):
        stream += b"M 100644 inline %040x\ndata 5\njunk\n\n" % number
    huge = b"x" * (8 << 20)
    stream += b"M 100644 inline %s\ndata %d\n%s\n" % (content.encode(), len(huge), huge)
    long_line = b"y" * (32 << 10) + b"\n"
    stream += b"M 100644 inline %s\ndata %d\n%s\n" % (b"ab" * 20, len(long_line), long_line)
    subprocess.run(["git", "fast-import", "--quiet"], cwd=pusher, input=stream, check=True)
    git(pusher, "push", "-q", "origin", "refs/notes/freshpass")

    # CI shared again meanwhile (a new receipt, and a note of its own on the long line's content): a merge.
    assert run_cli("run", "--share", "--", "pytest -q -p no:cacheprovider -x", cwd=root).returncode == 0
    git(root, "notes", "--ref=refs/notes/freshpass", "add", "-f", "-m", "mine", "ab" * 20)
    pushed = run_cli("share", "--push", cwd=root)
    assert pushed.returncode == 0, pushed.stderr
    assert "Traceback" not in pushed.stderr
    said = [line for line in pushed.stderr.splitlines() if line.startswith("freshpass share: merging: ")]
    assert len(said) == 2, pushed.stderr
    assert "1 note larger than 1 MiB not merged" in said[0] and content[:12] in said[0]
    assert "1 line longer than 16 KiB dropped" in said[1]
    listed = git(root, "notes", "--ref=refs/notes/freshpass", "list").splitlines()
    assert len(listed) == 1502  # the junk is carried (never read), the huge note is not the merge's
    shown = json.loads(run_cli("share", "--list", "--json", cwd=root).stdout)
    assert len(shown["shared"]) == 2 and shown["skipped"] == []  # both of CI's receipts, the huge note gone
    assert git(root, "notes", "--ref=refs/notes/freshpass", "show", "ab" * 20) == "mine\n"
