"""A message's structure, from markdown-it-py's tokens: the units a claim is read in.

A unit is one heading, one paragraph (of a list item or not), one table row (its cells are clauses) or one fenced
block. Checklist items and blockquotes are quoted material — a template, a to-do or someone else's words — and
are marked so; the reader never takes a claim from them. So is the section under a heading of what is left to do
("## Next steps", "### Próximos pasos", "## 下一步"): a plan, not what happened. Inline code stays in the text
as a backquoted token (`pytest` is a subject), and a paragraph's line breaks end its sentences (agents write one
status per line).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CHECKBOX = re.compile(r"\A\s*\[[ xX✓✔]\]\s")
_TICKED = re.compile(r"\A\s*\[[xX✓✔]\]\s*")
# Headings of what is still to be done: the section under one is a plan, not what happened.
_PLAN_HEADING = re.compile(
    r"\A\W*(?:next steps?|to ?do|remaining|follow[- ]?ups?|open (?:items|questions)|still to do|not done|plan|"
    r"próximos pasos|siguientes pasos|pendientes?|por hacer|nächste schritte|offene punkte|noch offen|"
    r"prochaines étapes|à faire|reste à faire|próximos passos|pendências|pendente|a fazer|"
    r"следующие шаги|что осталось|осталось|план|下一步|待办|后续(?:工作|计划)?|遗留问题|"
    r"次のステップ|今後の(?:作業|対応|課題)|残タスク|残作業|未対応)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Unit:
    """A piece of a message read on its own: `prose` (lines, or cells for a table row), or a `fence` (its info
    string and body). `quoted`: an unticked checklist item or a blockquote, never a claim (a ticked item, "- [x]
    Tests pass", says it was done)."""

    kind: str  # "prose" | "fence"
    lines: tuple[str, ...]
    quoted: bool = False
    info: str = ""
    cells: bool = False  # a table row: `lines` are its cells, clauses of one sentence


# A message without these has no markdown structure the reader needs (no list, heading, quote, table, fence,
# emphasis, link, HTML, escape or entity): its units are its paragraphs, read without markdown-it-py.
_MARKUP = frozenset("*_[]<>&\\|~#\t\r\0")
_BLOCK_START = re.compile(r"[-+=]|\d{1,9}[.)](?:\s|\Z)| {4}")  # list items, setext underlines, indented code
_CODE_SPAN = re.compile(r"`([^`]*)`")


def units(message: str) -> list[Unit]:
    """The units of `message` in order."""
    plain = _plain_units(message)
    return plain if plain is not None else _markdown_units(message)


def _plain_units(message: str) -> list[Unit] | None:
    """The units of a message that is plain paragraphs (inline code spans at most), exactly as markdown-it-py
    reads them; None when the message has anything more (then markdown-it-py reads it)."""
    if not _MARKUP.isdisjoint(message) or any(ord(char) < 0x20 and char != "\n" for char in message):
        return None
    found: list[Unit] = []
    paragraph: list[str] = []
    for line in message.split("\n"):
        if not line.strip(" "):
            if paragraph:
                found.append(Unit("prose", tuple(text for text in paragraph if text)))
            paragraph = []
            continue
        if _BLOCK_START.match(line.lstrip(" ") if not line.startswith("    ") else line):
            return None
        if "`" in line:
            spans = _CODE_SPAN.findall(line)
            # single backticks pairing on the line, each span's text as written (no space for markdown to trim)
            if "``" in line or line.count("`") != 2 * len(spans) or any(s != s.strip(" ") or not s for s in spans):
                return None
        paragraph.append(line.strip())
    if paragraph:
        found.append(Unit("prose", tuple(text for text in paragraph if text)))
    return found


def _markdown_units(message: str) -> list[Unit]:
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(message)
    found: list[Unit] = []
    quote_depth = 0
    item_stack: list[bool] = []  # per open list item: is it an unticked checklist item
    row: list[str] | None = None
    header = False
    plan_level = 0  # the level of the plan heading ("## Next steps") whose section this is, or 0
    plan_lists = 0  # open lists under a plan label ("Next steps:" as a paragraph of its own), nested ones included
    plan_label = False  # the paragraph just read is such a label
    for index, token in enumerate(tokens):
        kind = token.type
        if kind in ("bullet_list_open", "ordered_list_open"):
            if plan_label or plan_lists:
                plan_lists += 1
            plan_label = False
        elif kind in ("bullet_list_close", "ordered_list_close") and plan_lists:
            plan_lists -= 1
        elif kind == "paragraph_open":
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            label = following.content.strip() if following is not None else ""
            plan_label = len(label) <= 40 and label.endswith((":", "：")) and bool(_PLAN_HEADING.match(label))
        if kind == "heading_open":
            level = int(token.tag[1:]) if token.tag[1:].isdigit() else 1
            if plan_level and level <= plan_level:
                plan_level = 0
            following = tokens[index + 1] if index + 1 < len(tokens) else None
            if not plan_level and following is not None and _PLAN_HEADING.match(following.content.strip()):
                plan_level = level
        elif kind == "blockquote_open":
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth -= 1
        elif kind == "list_item_open":
            following = tokens[index + 2] if index + 2 < len(tokens) else None
            checklist = (
                following is not None and following.type == "inline" and bool(_CHECKBOX.match(following.content))
            )
            item_stack.append(checklist and following is not None and not _TICKED.match(following.content))
        elif kind == "list_item_close":
            if item_stack:
                item_stack.pop()
        elif kind == "thead_open":
            header = True
        elif kind == "thead_close":
            header = False
        elif kind == "tr_open":
            row = []
        elif kind == "tr_close":
            if row is not None and not header and any(row):
                found.append(Unit("prose", tuple(row), quoted=quote_depth > 0 or bool(plan_level), cells=True))
            row = None
        elif kind in ("fence", "code_block"):
            quoted = quote_depth > 0 or any(item_stack) or bool(plan_level) or plan_lists > 0
            found.append(Unit("fence", (token.content,), quoted=quoted, info=token.info))
        elif kind == "html_block":
            continue
        elif kind == "inline":
            text_lines = _inline_lines(token)
            if text_lines and _TICKED.match(text_lines[0]):
                text_lines[0] = _TICKED.sub("", text_lines[0])  # "[x] Tests pass": the mark says done, not a word
            if row is not None:
                row.append(" ".join(text_lines))
                continue
            quoted = quote_depth > 0 or any(item_stack) or bool(plan_level) or plan_lists > 0
            found.append(Unit("prose", tuple(text_lines), quoted=quoted))
    return found


def _inline_lines(token: object) -> list[str]:
    """An inline token's text, inline code kept in backquotes, split at its line breaks."""
    lines: list[str] = [""]
    for child in getattr(token, "children", None) or ():
        kind = child.type
        if kind == "text":
            lines[-1] += child.content
        elif kind == "code_inline":
            lines[-1] += f"`{child.content}`"
        elif kind in ("softbreak", "hardbreak"):
            lines.append("")
        elif kind == "image":
            lines[-1] += child.content
    return [line for line in (line.strip() for line in lines) if line]
