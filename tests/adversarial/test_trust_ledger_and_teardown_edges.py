"""Trust, the ledger's privacy, a full disk and processes that leave their group: the edge cases.

- `trusted: "false"`, `0` or `null` counted as trusted (fail open): now only an absent `trusted` or `true` is.
- An existing 0644 ledger was not tightened to 0600.
- `status` and `log` failed on a read-only ledger or a full disk (reads need no write lock), and the full-disk
  message said "disk I/O error … make it writable".
- A process that detaches with `setsid` escaped teardown with no warning: it is now stopped, and named.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.conftest import Session, finish, freshpass, project
from tests.e2e.conftest import as_json


@pytest.mark.parametrize("value", ["false", 0, None, "no", {}])
async def test_untrusted_unless_exactly_true(lsp: Session, tmp_path: Path, value: Any) -> None:
    root = project(tmp_path / "demo")
    marker = tmp_path / "ran"
    await lsp.initialize(root, options={"trusted": value})
    with pytest.raises(Exception, match="not a trusted workspace"):
        await lsp.execute("freshpass.verify", {"command": f"touch {marker}"})
    assert not marker.exists()
    assert any("treating the workspace as untrusted" in m.message for m in lsp.client.log_messages)


def test_an_existing_world_readable_ledger_is_tightened(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    code, _, stderr = finish(freshpass("run", "--", "pytest -q -p no:cacheprovider", cwd=root), 60)
    assert code == 0, stderr
    ledger = Path(os.environ["FRESHPASS_LEDGER"])
    ledger.chmod(0o644)
    code, _, stderr = finish(freshpass("status", cwd=root), 60)
    assert code == 0, stderr
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600


def _private_mount_namespace() -> list[str]:
    """`unshare` arguments that give a private mount namespace in which tmpfs can be mounted, else skip."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare(1) to mount a small or read-only file system privately")
    for prefix in (["unshare", "-m"], ["unshare", "-r", "-m"]):
        probe = subprocess.run(
            [*prefix, "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || mount -t tmpfs tmpfs /tmp"],
            capture_output=True,
        )
        if probe.returncode == 0:
            return prefix
    pytest.skip("cannot create a private mount namespace here (unshare -m / -rm refused)")


SCRIPT = """
set -u
mount -t tmpfs -o size=2m tmpfs "$STATE"
export FRESHPASS_LEDGER="$STATE/ledger.db"
step() { name=$1; shift; "$@" > "$OUT/$name.out" 2> "$OUT/$name.err"; echo $? > "$OUT/$name.rc"; }
cd "$ROOT"
step record "$PY" -m freshpass run -- "$PY" -m pytest -q -p no:cacheprovider
dd if=/dev/zero of="$STATE/filler" bs=4k 2>/dev/null
step full-status "$PY" -m freshpass status
step full-log "$PY" -m freshpass log
step full-run "$PY" -m freshpass run -- "$PY" -m pytest -q -p no:cacheprovider
rm "$STATE/filler"
mount -o remount,ro "$STATE"
step ro-status "$PY" -m freshpass status
step ro-log "$PY" -m freshpass log --json
step ro-run "$PY" -m freshpass run -- "$PY" -m pytest -q -p no:cacheprovider
"""


def test_status_and_log_read_a_full_or_read_only_ledger(tmp_path: Path) -> None:
    prefix = _private_mount_namespace()
    root = project(tmp_path / "demo")
    state, out = tmp_path / "state", tmp_path / "out"
    state.mkdir()
    out.mkdir()
    env = {**os.environ, "STATE": str(state), "OUT": str(out), "ROOT": str(root), "PY": sys.executable}
    subprocess.run([*prefix, "bash", "-c", SCRIPT], env=env, check=True, timeout=180)

    def result(name: str) -> tuple[int, str, str]:
        return (
            int((out / f"{name}.rc").read_text()),
            (out / f"{name}.out").read_text(),
            (out / f"{name}.err").read_text(),
        )

    code, _, err = result("record")
    assert code == 0 and "recorded test passed" in err, err
    for name in ("full-status", "ro-status"):
        code, text, err = result(name)
        assert code == 0 and text.startswith("passed (full)"), (name, text, err)
        assert "shown read-only" in err
    for name in ("full-log", "ro-log"):
        code, text, err = result(name)
        assert code == 0 and ("fresh" in text or '"fresh": true' in text), (name, text, err)
    code, _, err = result("full-run")
    assert code == 0  # the command's own exit code: the ledger's trouble is said, not imposed
    assert "the disk holding it is full" in err and "writable" not in err, err
    code, _, err = result("ro-run")
    assert code == 0 and "Read-only file system" in err, err


# Detach into a new session, and only then let the command end (the loop waits for the detached side to say so).
DETACH = (
    "setsid sh -c 'echo $$ > detached.pid; exec sleep 300' > /dev/null 2>&1 < /dev/null & "
    "while [ ! -s detached.pid ]; do :; done"
)


def test_a_detached_process_is_stopped_and_named(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    code, stdout, stderr = finish(freshpass("run", "--", f"{DETACH}; echo started", cwd=root), 60)
    assert code == 0 and stdout == b"started\n", stderr
    assert b"outside its process group (setsid or a daemon)" in stderr and b"(sleep)" in stderr
    # the autouse leftover scan proves the sleep is gone


def test_verify_names_a_detached_app_it_stopped(tmp_path: Path) -> None:
    import json

    root = project(tmp_path / "demo")
    (root / ".freshpass").mkdir()
    recipe = {"phases": {"test": [DETACH]}}
    (root / ".freshpass" / "recipe.json").write_text(json.dumps(recipe))
    code, stdout, stderr = finish(freshpass("verify", str(root), "--json"), 60)
    assert code == 0, stderr
    [command] = json.loads(stdout)["commands"]
    assert "outside its process group" in command["notes"][0]
    assert b"outside its process group" in stderr


async def test_the_server_logs_a_detached_process_it_stopped(lsp: Session, tmp_path: Path) -> None:
    root = project(tmp_path / "demo", declares=DETACH)
    await lsp.initialize(root)
    answer = as_json(await asyncio.wait_for(lsp.execute("freshpass.verify", {"kind": "test"}), 30))
    assert answer["exitCode"] == 0
    assert any("outside its process group" in m.message for m in lsp.client.log_messages)
