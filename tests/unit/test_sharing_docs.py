"""docs/sharing.md's recipes are freshpass as it is (design §4.6): the GitHub Actions job is a workflow whose job may
push the notes ref, runs the suite with a receipt and then shares and pushes it; every freshpass command line the
page shows is one the command line accepts; the project's trust table is read as the page says."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from freshpass.facts.detect import detect_facts
from freshpass.facts.model import SharedTrust
from freshpass.main import build_parser

from tests.conftest import REPO

PAGE = (REPO / "docs" / "sharing.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(language: str) -> list[str]:
    return [body for found, body in BLOCK.findall(PAGE) if found == language]


def workflow() -> dict[str, Any]:
    [text] = blocks("yaml")
    loaded: dict[str, Any] = yaml.safe_load(text)
    return loaded


def freshpass_lines() -> list[str]:
    """Every `freshpass …` the page shows: in shell blocks, in the workflow's steps, and inline."""
    texts = blocks("sh") + [step.get("run", "") for job in workflow()["jobs"].values() for step in job["steps"]]
    lines = [line.strip() for text in texts for line in text.splitlines()]
    lines += re.findall(r"`(freshpass [^`]*)`", PAGE)
    return sorted({line for line in lines if line.startswith("freshpass ")})


def test_the_workflow_may_push_the_notes_ref_and_runs_the_suite_then_shares_and_pushes() -> None:
    found = workflow()
    assert found["permissions"] == {"contents": "read"}
    [job] = found["jobs"].values()
    assert job["permissions"] == {"contents": "write"}  # pushing refs/notes/freshpass needs it
    runs = [step.get("run", "") for step in job["steps"]]
    test_step = next(index for index, run in enumerate(runs) if run.startswith("freshpass run -- "))
    share_step = next(index for index, run in enumerate(runs) if "freshpass share --push" in run)
    assert test_step < share_step
    assert "SIGNING_KEY" not in str(job["steps"][test_step]) and "always()" in job["steps"][share_step]["if"]
    checkout = next(step for step in job["steps"] if str(step.get("uses", "")).startswith("actions/checkout"))
    assert checkout["with"]["persist-credentials"] is False


@pytest.mark.parametrize("line", freshpass_lines(), ids=lambda line: " ".join(shlex.split(line, comments=True)))
def test_every_freshpass_line_on_the_page_is_accepted(line: str) -> None:
    argv = shlex.split(line, comments=True)[1:]
    try:
        build_parser().parse_args(argv)
    except SystemExit as exc:  # argparse's way of refusing
        pytest.fail(f"`{line}` is refused by the command line (exit {exc.code})")


def test_the_page_shows_sharing_pushing_fetching_and_listing() -> None:
    shown = {" ".join(shlex.split(line, comments=True)[:2]) for line in freshpass_lines()}
    assert {"freshpass run", "freshpass share"} <= shown
    flags = {flag for line in freshpass_lines() for flag in shlex.split(line, comments=True) if flag.startswith("--")}
    assert {"--share", "--push", "--fetch", "--list", "--rev", "--remote", "--signing-key"} <= flags


def test_the_trust_table_is_read_as_the_page_says(tmp_path: Path) -> None:
    [table] = [text for text in blocks("toml") if "[tool.freshpass.shared]" in text]
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\nversion = "0"\n\n' + table)
    facts = detect_facts(tmp_path)
    assert facts.problems == []
    assert facts.shared_trust == SharedTrust(("ci",), ("ci@acme.example",), ".github/freshpass_allowed_signers")


def test_the_user_s_trust_table_is_read_as_the_page_says(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from freshpass.ledger.anchors import user_config_file, user_trust

    [table] = [text for text in blocks("toml") if text.startswith("[shared]")]
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    user_config_file().parent.mkdir(parents=True)
    user_config_file().write_text(table)
    assert user_trust() == (SharedTrust(("ci",), ("ci@acme.example",), "~/.config/freshpass/allowed_signers"), "")
