"""Claims that checks passed, read in what an agent says before it stops (docs/claims.md).

An agent's last message may say "All tests pass.", "lint is clean", "✅ 120 passed" or paste a passing run.
`find_claims` reads such claims and the kind of check each is about, so that a claim no fresh receipt backs can be
quoted in the reason a Stop hook blocks. It reads the message as a reader would, not as a word list: markdown
structure from markdown-it-py (headings, list items, table rows are units; checklists and blockquotes are quoted
material; fenced code read by kind), then per clause the subject, the success predicate, its polarity (scoped
negation, pseudo-negations) and its modality and source — in English, Chinese, Spanish, German, Japanese,
French, Portuguese and Russian, one lexicon each. Precision first: when unsure, it reports no claim, and the
ordinary done-check still applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from freshpass.facts.model import Kind

MAX_QUOTE = 160  # characters of a claim quoted back in a block reason
MAX_TEXT = 20_000  # characters of a message read (the end of a long message is where the summary is)


@dataclass(frozen=True)
class Claim:
    """One sentence (or pasted run) that says checks of `kind` passed (`check`: all of them, or the work)."""

    kind: Kind
    quote: str


def find_claims(message: str | None) -> list[Claim]:
    """The claims of `message`, in order, one per kind (the first sentence that makes it is quoted)."""
    if not message or not message.strip():
        return []
    from freshpass.evidence.claims.lang import lexicon
    from freshpass.evidence.claims.lexicon import detect
    from freshpass.evidence.claims.markdown import units
    from freshpass.evidence.claims.output import passing_run
    from freshpass.evidence.claims.reader import named_subjects, read_sentence, sentences

    text = message[-MAX_TEXT:]
    parts = units(text)
    lex = lexicon(detect(" ".join(line for unit in parts if unit.kind == "prose" for line in unit.lines)))
    found: dict[Kind, Claim] = {}
    before = ""  # the prose just before a fence: "before my change:" makes its output an older run
    carried = None  # what the sentence before named ("Fixed the failing test. It passes now.")
    for unit in parts:
        if unit.kind == "fence":
            carried = None
            shown = None if unit.quoted else passing_run(unit.info, unit.lines[0])
            if shown is not None and not _discounted(before, lex):
                found.setdefault(shown[0], Claim(shown[0], _quote(shown[1])))
            continue
        before = unit.lines[-1] if unit.lines else ""
        if unit.quoted:
            carried = None
            continue
        groups = (
            [list(unit.lines)] if unit.cells else [[sentence] for line in unit.lines for sentence in sentences(line)]
        )
        for group in groups:
            claim = read_sentence(group, lex, carried)
            carried = None if unit.cells else named_subjects(group, lex)
            if claim is None:
                continue
            for kind in claim.kinds:
                found.setdefault(kind, Claim(kind, _quote(claim.quote)))
    return list(found.values())


def _discounted(before: str, lex: object) -> bool:
    from freshpass.evidence.claims.reader import lower

    patterns = lex.compiled  # type: ignore[attr-defined]
    text = lower(before)
    return any(patterns[name].search(text) for name in ("reported", "conditional", "hedge", "future"))


def _quote(sentence: str) -> str:
    """The claim as quoted in a message: one line, control characters dropped, cut at MAX_QUOTE."""
    line = " ".join("".join(ch for ch in sentence if ch.isprintable() or ch == " ").split())
    return line if len(line) <= MAX_QUOTE else line[: MAX_QUOTE - 1].rstrip() + "…"
