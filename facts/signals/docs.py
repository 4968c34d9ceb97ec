"""What the contributor documentation tells a contributor to run.

Maintainers name their full local check in CONTRIBUTING, a development guide or the "Development" section of the
README (`make test`, `nox -s test-3.12`, `cargo test --all`). Those command lines are read from code blocks,
console prompts and inline code; `facts.checks` keeps the ones that are a full run of a recognised check, and they
make a check rank first within its tier (and name its spelling) — the documentation is the maintainers' word on
how the project is checked. A README's other sections (how *users* run the tool) are not read.
"""

from __future__ import annotations

import re

from freshpass.facts.lazyre import lazy

from .base import Collector

_CONTRIBUTOR_DOCS = (
    "CONTRIBUTING.md",
    "CONTRIBUTING.rst",
    "CONTRIBUTING.txt",
    "CONTRIBUTING",
    ".github/CONTRIBUTING.md",
    ".github/CONTRIBUTING.rst",
    "docs/CONTRIBUTING.md",
    "docs/contributing.md",
    "docs/contributing.rst",
    "docs/contributing/index.md",
    "docs/contributing/README.md",
    "docs/development.md",
    "docs/development.rst",
    "docs/development/index.md",
    "docs/development/index.rst",
    "docs/dev/index.md",
    "docs/html/development/getting-started.rst",
    "docs/src/contributing.md",
    "HACKING.md",
    "HACKING.rst",
    "DEVELOPMENT.md",
    "DEVELOPING.md",
    "DEVELOPERS.md",
    "TESTING.md",
    "docs/testing.md",
)
_READMES = ("README.md", "README.rst", "README")
# README sections about working on the project itself.
_DEVELOPER_HEADING = lazy(
    r"\b(develop|contribut|hack|test|building|build from source|running|local setup|setup for dev|lint)", re.IGNORECASE
)
_MD_HEADING = lazy(r"^(#{1,6})\s+(.*)$")
_RST_UNDERLINE = lazy(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
_FENCE = lazy(r"^\s*(```+|~~~+)\s*([\w+-]*)")
_INLINE_MD = lazy(r"(?<!`)`([^`\n]{2,120})`(?!`)")
_INLINE_RST = lazy(r"``([^`\n]{2,120})``")
_PROMPT = lazy(r"^\s*(?:\$|>|%|❯|#)\s+(.+)$")
# Languages of fenced blocks that hold shell commands (an empty info string counts too).
_SHELL_BLOCKS = frozenset(
    {"", "sh", "bash", "shell", "console", "shell-session", "zsh", "fish", "text", "terminal", "cmd"}
)
_MAX_LINES = 4000
# Positions of what a sub-project's own README says start here: below, the root's contributor documents.
PACKAGE_DOCS = 500_000


_DOC_DIRS = (
    ".",
    ".github",
    "docs",
    "doc",
    "docs/_docs",
    "docs/src",
    "docs/dev",
    "docs/development",
    "docs/contributing",
)
_DOC_NAME = lazy(
    r"^(contributing|development|developing|developers?|hacking|testing|building|dev[-_]?guide|getting[-_]started)"
    r"(\.(md|rst|txt|adoc))?$",
    re.IGNORECASE,
)


def _doc_files(c: Collector) -> list[str]:
    """The contributor documents: the well-known paths first, then others named like them in the docs folders."""
    files = [rel for rel in _CONTRIBUTOR_DOCS if c.is_file(rel)]
    for directory in _DOC_DIRS:
        for name in c.listdir(directory)[:500]:
            rel = name if directory == "." else f"{directory}/{name}"
            if _DOC_NAME.match(name) and rel not in files and c.is_file(rel):
                files.append(rel)
    return files[:12]


def read(c: Collector, packages: list[str] | None = None) -> None:
    """The root's contributor docs and README development sections, then each sub-project's README and
    CONTRIBUTING (read in that directory: `backend/README.md` says what to run in backend/)."""
    found: list[tuple[str, str, str, bool]] = []  # (line, source, cwd, emphasised)
    for rel in _doc_files(c):
        text = c.read_text(rel)
        if text:
            c.context(rel)
            found.extend((line, rel, cwd, emphasis) for line, cwd, emphasis in _commands(c, text, _is_rst(rel), "."))
    for directory in [".", *(packages or [])]:
        for name in _READMES if directory == "." else (*_READMES, "CONTRIBUTING.md"):
            rel = name if directory == "." else f"{directory}/{name}"
            if not c.is_file(rel):
                continue
            text = c.read_text(rel)
            if text:
                sections = _developer_sections(text, _is_rst(rel)) if directory == "." else [text]
                for section in sections:
                    found.extend(
                        (line, rel, cwd, emphasis)
                        for line, cwd, emphasis in _commands(c, section, _is_rst(rel), directory)
                    )
            if directory == "." and name in _READMES:
                break
    for position, (line, rel, cwd, emphasis) in enumerate(found, start=1):
        # what the docs call the full suite ranks before every other mention; a sub-project's README speaks for
        # that sub-project only, after the root's contributor documents
        package = "/" in rel and rel.rsplit("/", 1)[0] in (packages or ())
        c.docs.append((line, rel, position - (100_000 if emphasis else 0) + (PACKAGE_DOCS if package else 0), cwd))


def _is_rst(rel: str) -> bool:
    return rel.endswith(".rst") or rel.endswith("CONTRIBUTING")


# "In the `test_suite` directory", "from the frontend/ folder", "inside `backend`": where the next commands run.
_DIRECTORY_SAID = lazy(
    r"\b(?:in|from|inside|within|under)\s+(?:the\s+)?\[?`*([A-Za-z0-9_][\w./-]*?)/?`*\]?(?:\([^)]*\))?\s+"
    r"(?:directory|folder|dir|package|subdirectory)\b",
    re.IGNORECASE,
)
# "Run the full test suite", "run all the tests", "the whole suite": the maintainers' word for the full check.
_FULL_SAID = lazy(r"\b(full|entire|whole|complete)\s+(test\s+)?suite\b|\ball\s+(the\s+)?tests\b", re.IGNORECASE)


def _directory(c: Collector, text: str, base: str) -> str | None:
    match = _DIRECTORY_SAID.search(text)
    if not match:
        return None
    candidate = match.group(1).strip("./") or "."
    rel = candidate if base == "." else f"{base}/{candidate}"
    return rel if c.is_dir(rel) else None


def _commands(c: Collector, text: str, rst: bool, base: str) -> list[tuple[str, str, bool]]:
    """Command lines from code blocks (fenced, rst `::` / `code-block` blocks), prompts and inline code, with the
    directory the surrounding text says they run in, and whether it calls them the full suite."""
    found: list[tuple[str, str, bool]] = []
    lines = text.splitlines()[:_MAX_LINES]
    heading_dir: str | None = None
    prose = ""  # the last prose line before a block
    i = 0
    while i < len(lines):
        line = lines[i]
        heading, _level = _heading(lines, i, rst)
        if heading is not None:
            heading_dir = _directory(c, heading, base)
            prose = heading
            i += 1
            continue
        fence = _FENCE.match(line)
        block: list[str] | None = None
        language = ""
        if fence and not rst:
            marker, language = fence.group(1), fence.group(2).lower()
            i += 1
            block = []
            while i < len(lines) and not lines[i].strip().startswith(marker):
                block.append(lines[i])
                i += 1
            i += 1
        elif rst and (
            line.rstrip().endswith("::") or re.match(r"^\s*\.\. (code-block|code|prompt|sourcecode)::", line)
        ):
            language = line.split("::", 1)[1].strip().lower() if ".." in line else ""
            if not line.lstrip().startswith(".."):
                prose = line
            indent = len(line) - len(line.lstrip())
            i += 1
            block = []
            while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                if lines[i].strip().startswith(":") and not block:
                    i += 1
                    continue  # a directive option (`:caption:`)
                block.append(lines[i])
                i += 1
        if block is not None:
            if language in _SHELL_BLOCKS:
                cwd = _directory(c, prose, base) or heading_dir or base
                for command, comment in _block_commands(block):
                    found.append((command, cwd, bool(_FULL_SAID.search(comment or prose))))
            continue
        prompt = _PROMPT.match(line) if line.startswith(("$ ", "    $ ", "  $ ")) else None
        if prompt:
            found.append((prompt.group(1).strip(), heading_dir or base, False))
        for match in (_INLINE_RST if rst else _INLINE_MD).finditer(line):
            inline = match.group(1).strip()
            if " " in inline:  # a lone word in backticks names a tool (`tox`, `typos`); it is not an instruction
                found.append((inline, _directory(c, line, base) or heading_dir or base, bool(_FULL_SAID.search(line))))
        if line.strip():
            prose = line
        i += 1
    return [(command, cwd, emphasis) for command, cwd, emphasis in found if command and len(command) < 200]


def _block_commands(block: list[str]) -> list[tuple[str, str]]:
    """Lines of a shell block, each with the comment line just above it: prompts stripped; in a block with
    prompts, lines without one are output."""
    has_prompts = any(_PROMPT.match(line) and line.lstrip()[:1] in "$%❯>" for line in block)
    commands: list[tuple[str, str]] = []
    pending = ""
    comment = ""
    for raw in block:
        line = raw.strip()
        if has_prompts:
            match = _PROMPT.match(raw)
            if not match or raw.lstrip()[:1] not in "$%❯>":
                if line.startswith("#"):
                    comment = line
                if pending:
                    pending += " " + line
                    if not line.endswith("\\"):
                        commands.append((pending.replace("\\ ", " "), comment))
                        pending = ""
                continue
            line = match.group(1).strip()
        if not line:
            continue
        if line.startswith("#"):
            comment = line
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append(((pending + line).strip(), comment))
        pending = ""
        comment = ""
    return commands


def _developer_sections(text: str, rst: bool) -> list[str]:
    """The parts of a README under a heading about developing, testing or contributing."""
    lines = text.splitlines()[:_MAX_LINES]
    sections: list[str] = []
    keeping = False
    level_kept = 0
    current: list[str] = []
    for index, line in enumerate(lines):
        heading, level = _heading(lines, index, rst)
        if heading is not None:
            if keeping and level <= level_kept:
                sections.append("\n".join(current))
                current = []
                keeping = False
            if not keeping and _DEVELOPER_HEADING.search(heading):
                keeping, level_kept = True, level
            continue
        if keeping:
            current.append(line)
    if keeping:
        sections.append("\n".join(current))
    return sections


def _heading(lines: list[str], index: int, rst: bool) -> tuple[str | None, int]:
    line = lines[index]
    match = _MD_HEADING.match(line)
    if match and not rst:
        return match.group(2), len(match.group(1))
    if rst and index + 1 < len(lines) and line.strip() and _RST_UNDERLINE.match(lines[index + 1]):
        return line.strip(), "=-~^\"'`#*+".find(lines[index + 1][0]) + 1
    return None, 0
