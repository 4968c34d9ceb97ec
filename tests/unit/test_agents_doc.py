"""docs/agents.md names, for each agent, the tests that prove its set-up: every test it names exists, and every
snippet it marks for the tests is read by one."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
AGENTS_MD = (REPO / "docs" / "agents.md").read_text(encoding="utf-8")
# `tests/agents/test_x.py::test_y`, `test_x.py::test_y` (tests/e2e/), and `::test_z` (the file named last).
REFERENCE = re.compile(r"`((?:tests/[\w/]+/)?test_\w+\.py)?::(test_\w+)`")


def named_tests() -> list[tuple[str, str]]:
    found, current = [], None
    for match in REFERENCE.finditer(AGENTS_MD):
        file, name = match.groups()
        if file:
            current = file if file.startswith("tests/") else f"tests/e2e/{file}"
        assert current is not None, f"::{name} follows no test file"
        found.append((current, name))
    return found


def test_every_test_the_agents_page_names_exists() -> None:
    named = named_tests()
    assert len(named) >= 25
    missing = [
        f"{file}::{name}"
        for file, name in named
        if not (REPO / file).is_file()
        or not re.search(rf"^(?:async )?def {name}\(", (REPO / file).read_text(encoding="utf-8"), re.MULTILINE)
    ]
    assert not missing, "docs/agents.md names tests that do not exist:\n" + "\n".join(missing)


def test_every_marked_snippet_is_read_by_a_test() -> None:
    snippets = re.findall(r"<!-- test: ([\w.-]+) -->", AGENTS_MD)
    assert set(snippets) >= {"opencode.json", "crushrc", "crush.json", "claude-settings.json", "codex-hooks.json"}
    tests = "\n".join(path.read_text(encoding="utf-8") for path in (REPO / "tests").rglob("test_*.py"))
    unread = [name for name in snippets if not re.search(rf'snippet\("{re.escape(name)}"\)', tests)]
    assert not unread, f"snippets no test reads: {unread}"
