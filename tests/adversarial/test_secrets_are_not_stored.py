"""Secrets are not stored.

Command lines and the output's head and tail were kept verbatim and served by `log --json` and
`freshpass.receipts`: `echo GITHUB_TOKEN=ghp_…; pytest -q` stored the token. Everything a receipt stores is now
redacted in the ledger's record path (freshpass.ledger.redact), so every door — `run`, `verify`, the server's
verify and `freshpass/recordRun` — is covered, and the file itself never holds the secret.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.adversarial.conftest import Session, finish, freshpass, project
from tests.e2e.conftest import as_json

TOKEN = "ghp_" + "Zq7" * 12  # the shape of a GitHub personal access token


def ledger_bytes() -> bytes:
    path = Path(os.environ["FRESHPASS_LEDGER"])
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


def test_a_token_echoed_by_the_command_line_is_not_stored(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    line = f"echo GITHUB_TOKEN={TOKEN}; pytest -q -p no:cacheprovider"
    code, _, stderr = finish(freshpass("run", "--json", "--", line, cwd=root), 60)
    assert code == 0, stderr
    code, stdout, stderr = finish(freshpass("log", "--json", cwd=root), 60)
    assert code == 0, stderr
    [receipt] = json.loads(stdout)["receipts"]
    assert receipt["command"] == "echo GITHUB_TOKEN=[REDACTED:github-token]; pytest -q -p no:cacheprovider"
    assert "GITHUB_TOKEN=[REDACTED:github-token]" in receipt["output"]["head"]
    assert TOKEN.encode() not in stdout
    assert TOKEN.encode() not in ledger_bytes()


def test_values_of_secret_environment_variables_are_not_stored(tmp_path: Path) -> None:
    root = project(tmp_path / "demo")
    secret = "no-known-shape-but-secret-4711"
    env = {**os.environ, "DEPLOY_API_TOKEN": secret}
    line = "echo connecting with $DEPLOY_API_TOKEN; pytest -q -p no:cacheprovider"
    code, _, stderr = finish(freshpass("run", "--", line, cwd=root, env=env), 60)
    assert code == 0, stderr
    assert secret.encode() not in ledger_bytes()
    code, stdout, _ = finish(freshpass("log", "--json", cwd=root), 60)
    assert b"connecting with [REDACTED:$DEPLOY_API_TOKEN]" in stdout


async def test_server_receipts_hold_no_secret(lsp: Session, tmp_path: Path) -> None:
    root = project(
        tmp_path / "demo", declares="echo 'Authorization: Bearer abc.def.ghi' password=hunter2; python -m pytest -q"
    )
    await lsp.initialize(root)
    answer = as_json(await lsp.execute("freshpass.verify", {"kind": "test"}))
    assert answer["recorded"] is True
    recorded = await lsp.client.protocol.send_request_async(
        "freshpass/recordRun",
        {"commandLine": f"pytest -q --token {TOKEN}", "cwd": str(root), "exitCode": 0, "output": f"using {TOKEN}"},
    )
    assert as_json(recorded)["recorded"] is True
    receipts = json.dumps(as_json(await lsp.execute("freshpass.receipts", {"root": str(root)})))
    for secret in ("abc.def.ghi", "hunter2", TOKEN):
        assert secret not in receipts
        assert secret not in json.dumps(answer["evidence"])
        assert secret.encode() not in ledger_bytes()
    assert "Bearer [REDACTED]" in receipts and "password=[REDACTED]" in receipts
