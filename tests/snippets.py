"""Configuration snippets from docs/agents.md, read verbatim: the tests play each agent with exactly what the docs
tell a user to paste. A snippet is the fenced block after a `<!-- test: NAME -->` line."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

AGENTS_MD = Path(__file__).resolve().parent.parent / "docs" / "agents.md"


def snippet(name: str) -> str:
    text = AGENTS_MD.read_text(encoding="utf-8")
    marker = f"<!-- test: {name} -->"
    assert marker in text, f"docs/agents.md has no snippet {name!r}"
    found = re.match(r"\s*```[\w-]*\n(.*?)\n```", text.split(marker, 1)[1], re.DOTALL)
    assert found is not None, f"no fenced block after {marker}"
    return found.group(1)


def json_snippet(name: str) -> Any:
    return json.loads(snippet(name))
