"""What the contributor documentation tells a contributor to run.

Maintainers name their full local check in CONTRIBUTING, a development guide or the "Development" section of the
README (`make test`, `nox -s test-3.12`, `cargo test --all`). The documents are read as documents: Markdown with
markdown-it-py, reStructuredText with docutils. Their code blocks, the `$ ` shell-session lines of their paragraphs
and the inline code of their prose are the command lines; the headings say which part of a README is about
working on the project (how *users* run the tool is not read) and, with the sentence before a block, in which
directory its commands run and whether it is the full suite. `facts.checks` keeps the lines that are a full run of
a recognised check: the documentation is the maintainers' word on how the project is checked, and it ranks above
every entry point the project merely declares.

The parsers are imported only when a document is there: detection of a tree without one pays nothing for them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from freshpass.facts.lazyre import lazy

from .base import Collector

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

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
    # instructions written for coding agents spell out the same commands
    "AGENTS.md",
    "CLAUDE.md",
    ".github/copilot-instructions.md",
)
_READMES = ("README.md", "README.rst", "README")
# README sections about working on the project itself.
_DEVELOPER_HEADING = lazy(
    r"\b(develop|contribut|hack|test|building|build from source|running|local setup|setup for dev|lint)", re.IGNORECASE
)
_PROMPT = lazy(r"^\s*(?:\$|>|%|❯|#)\s+(.+)$")
# Languages of fenced blocks that hold shell commands (an empty info string counts too).
_SHELL_BLOCKS = frozenset(
    {"", "sh", "bash", "shell", "console", "shell-session", "zsh", "fish", "text", "terminal", "cmd"}
)
# PowerShell blocks: their paths use `\` (`.\build.ps1`), which PowerShell also accepts as `/`; read as shell lines
# with the separators turned, the project's own scripts among them are understood (cmdlets are no check).
_POWERSHELL_BLOCKS = frozenset({"powershell", "pwsh", "ps1", "ps"})
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
    r"^(contributing|development[\w-]*|developing|developers?|hacking|testing|building|dev[-_]?guide|getting[-_]started)"
    r"(\.(md|rst|txt|adoc))?$|^build\.(md|rst)$",  # `BUILD.md`, never a Bazel `BUILD` file
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
            blocks = _blocks(text, _is_rst(rel))
            found.extend((line, rel, cwd, emphasis) for line, cwd, emphasis in _commands(c, blocks, "."))
    for directory in [".", *(packages or [])]:
        readme_read = False
        for name in _readme_names(c, directory):
            rel = name if directory == "." else f"{directory}/{name}"
            is_readme = name.lower().startswith("readme")
            if (is_readme and readme_read) or not c.is_file(rel):
                continue  # one README per directory (a case-insensitive file system finds `readme.md` twice)
            readme_read = readme_read or is_readme
            text = c.read_text(rel)
            if text:
                blocks = _blocks(text, _is_rst(rel))
                if directory == ".":
                    blocks = _developer_blocks(blocks)
                found.extend((line, rel, cwd, emphasis) for line, cwd, emphasis in _commands(c, blocks, directory))
    for position, (line, rel, cwd, emphasis) in enumerate(found, start=1):
        # what the docs call the full suite ranks before every other mention; a sub-project's README speaks for
        # that sub-project only, after the root's contributor documents
        package = "/" in rel and rel.rsplit("/", 1)[0] in (packages or ())
        c.docs.append((line, rel, position - (100_000 if emphasis else 0) + (PACKAGE_DOCS if package else 0), cwd))


def _readme_names(c: Collector, directory: str) -> list[str]:
    """The README of a directory whatever its case (`readme.md`, `Readme.rst`), and a sub-project's CONTRIBUTING."""
    if directory != ".":  # a sub-project: the usual spellings only (listing every package costs a scandir each)
        return [*_READMES, "readme.md", "CONTRIBUTING.md"]
    wanted = {name.lower(): index for index, name in enumerate(_READMES)}
    present = sorted((name for name in c.listdir(".") if name.lower() in wanted), key=lambda n: wanted[n.lower()])
    return present or list(_READMES)


def _is_rst(rel: str) -> bool:
    return rel.lower().endswith(".rst") or rel.endswith("CONTRIBUTING")


# "In the `test_suite` directory", "from the frontend/ folder", "inside `backend`": where the next commands run.
# "in the `web` directory", "inside `packages/svelte`" (a directory in code after inside/within/from needs no noun;
# after a bare "in" it might be what the command runs on: `pytest` in `tests/`)
_DIRECTORY_SAID = lazy(
    r"\b(?:in|from|inside|within|under)\s+(?:the\s+)?\[?`*([A-Za-z0-9_][\w./-]*?)/?`*\]?(?:\([^)]*\))?\s+"
    r"(?:directory|folder|dir|package|subdirectory)\b|\b(?:inside|within|from)\s+(?:the\s+)?`([A-Za-z0-9_][\w./-]*?)/?`",
    re.IGNORECASE,
)
# "Run the full test suite", "run all the tests", "the whole suite": the maintainers' word for the full check.
_FULL_SAID = lazy(r"\b(full|entire|whole|complete)\s+(test\s+)?suite\b|\ball\s+(the\s+)?tests\b", re.IGNORECASE)


def _directory(c: Collector, text: str, base: str) -> str | None:
    match = _DIRECTORY_SAID.search(text)
    if not match:
        return None
    candidate = (match.group(1) or match.group(2)).strip("./") or "."
    rel = candidate if base == "." else f"{base}/{candidate}"
    return rel if c.is_dir(rel) else None


@dataclass(frozen=True)
class _Block:
    """One piece of a document's structure, in reading order: a heading, a code block, or a paragraph of prose
    with the inline code it holds."""

    kind: Literal["heading", "code", "prose"]
    text: str = ""  # the heading's title, the paragraph's text
    level: int = 0  # a heading's depth (1 is the top)
    language: str = ""  # a code block's language ("" when none is said)
    lines: tuple[str, ...] = ()  # a code block's lines
    inline: tuple[str, ...] = ()  # the inline code of a paragraph


def _blocks(text: str, rst: bool) -> list[_Block]:
    text = "\n".join(text.splitlines()[:_MAX_LINES])
    try:
        return _rst_blocks(text) if rst else _markdown_blocks(text)
    except Exception:  # a parser's failure on hostile input loses this document, never detection
        return []


@functools.cache
def _markdown_parser() -> MarkdownIt:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": False}).enable("table")


def _markdown_blocks(text: str) -> list[_Block]:
    tokens = _markdown_parser().parse(text)
    blocks: list[_Block] = []
    heading_level = 0
    for token in tokens:
        if token.type == "heading_open":
            heading_level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
        elif token.type == "heading_close":
            heading_level = 0
        elif token.type == "inline" and heading_level:
            blocks.append(_Block("heading", token.content.strip(), heading_level))
        elif token.type == "inline":
            codes = tuple(child.content for child in token.children or () if child.type == "code_inline")
            blocks.append(_Block("prose", token.content, inline=codes))
        elif token.type in ("fence", "code_block"):
            language = token.info.split()[0].lower() if token.type == "fence" and token.info.strip() else ""
            blocks.append(_Block("code", language=language, lines=tuple(token.content.splitlines())))
    return blocks


def _rst_blocks(text: str) -> list[_Block]:
    import io

    from docutils import nodes
    from docutils.core import publish_doctree

    _register_rst_directives()
    settings = {
        "report_level": 5,
        "halt_level": 5,
        "warning_stream": io.StringIO(),
        "file_insertion_enabled": False,  # `.. include::` of another file: never followed
        "raw_enabled": False,
        "doctitle_xform": False,  # the first title stays a section (its level matters)
        "syntax_highlight": "none",
        "input_encoding": "unicode",
    }
    doctree = publish_doctree(text, settings_overrides=settings)
    blocks: list[_Block] = []

    def walk(node: nodes.Node, depth: int) -> None:
        for child in node.children:
            if isinstance(child, nodes.system_message):
                continue
            if isinstance(child, nodes.section):
                title = child.next_node(nodes.title)
                blocks.append(_Block("heading", title.astext().strip() if title else "", depth + 1))
                walk(child, depth + 1)
            elif isinstance(child, nodes.title):
                continue
            elif isinstance(child, nodes.literal_block):
                language = next((name for name in child.get("classes", ()) if name != "code"), "")
                blocks.append(_Block("code", language=language.lower(), lines=tuple(child.astext().splitlines())))
            elif isinstance(child, nodes.paragraph):
                codes = tuple(literal.astext() for literal in child.findall(nodes.literal))
                blocks.append(_Block("prose", child.astext(), inline=codes))
            elif isinstance(child, nodes.Element):
                walk(child, depth)

    walk(doctree, 0)
    return blocks


_RST_REGISTERED: list[bool] = []
# Sphinx extensions' containers whose content is still the document's (tabs of per-platform instructions).
_RST_CONTAINERS = ("tab", "tabs", "group-tab", "tab-set", "tab-item", "only", "ifconfig", "dropdown", "card")


def _register_rst_directives() -> None:
    """Directives of Sphinx and its common extensions that plain docutils does not know: their content is kept
    (`.. tab::`), a `.. prompt:: bash $` block is a shell block. Registered once, only where docutils has none."""
    if _RST_REGISTERED:
        return
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class _Container(Directive):
        optional_arguments = 10
        final_argument_whitespace = True
        has_content = True
        option_spec = None

        def run(self) -> list[nodes.Node]:
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class _Prompt(Directive):
        optional_arguments = 3
        has_content = True
        option_spec = None

        def run(self) -> list[nodes.Node]:
            language = self.arguments[0] if self.arguments else "bash"
            return [nodes.literal_block("", "\n".join(self.content), classes=["code", language])]

    for name in _RST_CONTAINERS:
        directives.register_directive(name, _Container)
    directives.register_directive("prompt", _Prompt)
    directives.register_directive("code-tab", _Container)
    _RST_REGISTERED.append(True)


def _commands(c: Collector, blocks: list[_Block], base: str) -> list[tuple[str, str, bool]]:
    """Command lines from code blocks, `$ ` session lines and inline code, with the directory the surrounding
    text says they run in, and whether it calls them the full suite."""
    found: list[tuple[str, str, bool]] = []
    heading_dir: str | None = None
    prose = ""  # the heading or paragraph just before a block
    for block in blocks:
        if block.kind == "heading":
            heading_dir = _directory(c, block.text, base)
            prose = block.text
        elif block.kind == "code":
            powershell = block.language in _POWERSHELL_BLOCKS
            if (block.language in _SHELL_BLOCKS or powershell) and not _is_listing(block.lines):
                cwd = _directory(c, prose, base) or heading_dir or base
                lines = [line.replace("\\", "/") for line in block.lines] if powershell else list(block.lines)
                for command, comment in _block_commands(lines):
                    found.append((command, cwd, bool(_FULL_SAID.search(comment) or _FULL_SAID.search(prose))))
        else:
            for line in block.text.splitlines():
                if line.startswith("$ "):  # a shell session written as a paragraph
                    found.append((line[2:].strip(), heading_dir or base, False))
            for inline in block.inline:
                inline = inline.strip()
                # a lone word in backticks names a tool (`tox`, `typos`), but a path to one of the project's
                # executable scripts (`script/cucumber`) is that script run
                if (" " in inline or _is_script(c, inline, base)) and len(inline) <= 120:
                    where = _directory(c, block.text, base) or heading_dir or base
                    found.append((inline, where, bool(_FULL_SAID.search(block.text))))
            if block.text.strip():
                prose = block.text
    # a folder is never a command (`tests/` in a picture of the tree, a fixture's path shown as an example)
    return [
        (command, cwd, emphasis)
        for command, cwd, emphasis in found
        if command and len(command) < 200 and not _is_folder(c, command.split()[0], cwd)
    ]


def _repository_path(word: str, base: str) -> str | None:
    """The root-relative path a word of a document names from `base` (`script/test`, `./bin/x`), or None when it
    names no path inside the repository (a word, an option, a variable, an absolute or parent path)."""
    if "/" not in word or word.startswith(("/", "$", "~", "-", "..")):
        return None
    word = word.removeprefix("./")
    return word if base == "." else f"{base}/{word}"


def _is_folder(c: Collector, word: str, cwd: str) -> bool:
    rel = _repository_path(word, cwd)
    return word.endswith("/") or (rel is not None and c.is_dir(rel))


def _is_script(c: Collector, word: str, base: str) -> bool:
    """Is `word` the path of an executable file of the repository (`script/cucumber`, `./bin/test`)?"""
    rel = _repository_path(word, base)
    if rel is None or word.endswith("/"):
        return False
    try:
        return c.is_file(rel) and bool(c.path(rel).stat().st_mode & 0o111)
    except (OSError, ValueError):
        return False


def _is_listing(lines: tuple[str, ...]) -> bool:
    """A block drawing a directory tree (`├── src/`) or listing folders (`tests/   # the suites`): a picture of the
    repository, not commands."""
    folders = [_TRAILING_COMMENT.sub("", line).strip() for line in lines]
    return any(glyph in line for line in lines for glyph in ("├", "└", "│")) or bool(
        lines and all(line.endswith("/") for line in folders if line)
    )


_TRAILING_COMMENT = lazy(r"\s+#.*$")


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


def _developer_blocks(blocks: list[_Block]) -> list[_Block]:
    """The parts of a README under a heading about developing, testing or contributing."""
    kept: list[_Block] = []
    keeping = False
    level_kept = 0
    for block in blocks:
        if block.kind == "heading":
            if keeping and block.level <= level_kept:
                keeping = False
            if not keeping and _DEVELOPER_HEADING.search(block.text):
                keeping, level_kept = True, block.level
                kept.append(block)
                continue
        if keeping:
            kept.append(block)
    return kept
