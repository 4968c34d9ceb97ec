"""The README's quick start is exactly two commands: the demo, and the whole suite that CI runs."""

from __future__ import annotations

import os
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def quick_start_commands() -> list[str]:
    section = (REPO / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)]


def test_the_quick_start_is_the_demo_then_the_suite() -> None:
    assert quick_start_commands() == ["./scripts/demo", "./scripts/test"]
    for command in quick_start_commands():
        assert os.access(REPO / command, os.X_OK), f"{command} must be an executable file"


def test_ci_runs_the_second_command_and_nothing_else() -> None:
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    commands = [
        line.strip()
        for line in lines[1:]
        if line.strip() and not line.lstrip().startswith("#") and not line.startswith(("set ", "cd "))
    ]
    assert commands == ["./scripts/test"]
