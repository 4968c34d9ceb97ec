"""The repository explains itself: "design §N" comments cite docs/design.md, and nothing points outside."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
# Built from parts, so that this file does not mention them itself.
OUTSIDE = ("../" + "shared/", "shared" + " note")
# "design §3", "design §3.4", "design §3.3–§3.6", "design §4.3–4.4", "design §5, §8"
CITATION = re.compile(r"design (§\d+(?:\.\d+)?(?:\s*(?:–|-|,|and)\s*§?\d+(?:\.\d+)?)*)")
HEADING = re.compile(r"^(?:## (\d+)\. |### (\d+\.\d+) )", re.MULTILINE)


def tracked_texts() -> dict[str, str]:
    names = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], check=True, capture_output=True, text=True
    ).stdout.split("\0")
    texts = {}
    for name in names:
        if not name or name.startswith(("tests/fixtures/", "node_modules/")) or "/node_modules/" in name:
            continue
        path = REPO / name
        if path.is_file():
            texts[name] = path.read_bytes().decode("utf-8", errors="replace")
    return texts


def design_sections() -> set[str]:
    text = (REPO / "docs" / "design.md").read_text(encoding="utf-8")
    return {major or minor for major, minor in HEADING.findall(text)}


def cited_sections(text: str) -> list[str]:
    return [number for match in CITATION.finditer(text) for number in re.findall(r"\d+(?:\.\d+)?", match.group(1))]


def test_citations_are_parsed_as_written() -> None:
    assert cited_sections("(design §3.3–§3.6)") == ["3.3", "3.6"]
    assert cited_sections("(design §4.3–4.4) and design §5, §8.") == ["4.3", "4.4", "5", "8"]
    assert cited_sections("design §1: a git root") == ["1"]


def test_design_has_the_numbered_sections() -> None:
    assert {"1", "2", "3", "4", "5", "6", "7", "8", "3.1", "3.7", "4.1", "4.5"} <= design_sections()


def test_every_design_citation_names_a_section_of_docs_design_md() -> None:
    sections = design_sections()
    unknown = [
        f"{name}:{text[: match.start()].count(chr(10)) + 1}: design {match.group(1)}"
        for name, text in tracked_texts().items()
        for match in CITATION.finditer(text)
        if any(number not in sections for number in re.findall(r"\d+(?:\.\d+)?", match.group(1)))
    ]
    assert not unknown, "cites a section docs/design.md does not have:\n" + "\n".join(unknown)


def test_nothing_points_at_documents_outside_the_repository() -> None:
    found = [
        f"{name}: {phrase}" for name, text in tracked_texts().items() for phrase in OUTSIDE if phrase in text.lower()
    ]
    assert not found, "mentions a document outside this repository:\n" + "\n".join(found)


def test_the_design_is_linked_from_the_readme_and_the_architecture() -> None:
    assert "](docs/design.md)" in (REPO / "README.md").read_text(encoding="utf-8")
    assert "](design.md)" in (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
