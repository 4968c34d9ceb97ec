"""Claims that checks passed, found in what an agent says before it stops (design §7.4).

An agent's last message may say "All tests pass." or "lint is clean". `find_claims` finds such sentences and the
kind of check each is about, so that a claim with no fresh receipt of that kind behind it can be named, quoted, in
the reason a Stop hook blocks. It is a small matcher, not a model: it errs towards *not* seeing a claim, because a
false claim-block annoys and a missed claim only falls back to the ordinary done-check.

What is a claim: a sentence that says a check of some kind passed, succeeded, is green or clean, or that the work
was verified/tested — in English and, for the common phrasings, German, French, Spanish, Portuguese, Italian,
Dutch, Russian, Chinese and Japanese. What is not: a blocker reported plainly ("I could not run the tests", "2
tests fail"), a suggestion or plan ("you should run the tests", "to verify, run …"), a question, a condition ("if
the tests pass"), and code (fenced blocks and inline code are skipped: a pasted log line is not the agent's claim).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from freshpass.facts.model import Kind

MAX_QUOTE = 160  # characters of a claim quoted back in a block reason
MAX_TEXT = 20_000  # characters of a message read (the end of a long message is where the summary is)


@dataclass(frozen=True)
class Claim:
    """One sentence that says checks of `kind` passed (`check` when it does not say which)."""

    kind: Kind
    quote: str


# -- the words of a claim --------------------------------------------------------------------------------------------

# What was checked, per kind: the nouns a sentence names (several languages; lower-case, matched as words).
_SUBJECTS: tuple[tuple[Kind, str], ...] = (
    (
        "test",
        r"tests?|test suite|suite|specs?|unit tests?|pytest|jest|vitest|cargo test|go test|rspec|phpunit|"
        r"testes|tests unitaires|pruebas|prove|testfälle|testen|тесты|тест|测试|テスト",
    ),
    ("lint", r"lint(?:ing|er|ers)?|linters?|ruff|eslint|clippy|flake8|rubocop|style checks?"),
    ("typecheck", r"type[- ]?check(?:s|ing|er)?|typing|the types|mypy|pyright|tsc|type errors?"),
    ("build", r"build|builds|compil(?:e|es|ation)|compiles?"),
    ("check", r"checks?|ci|pipeline|everything|all green|vérifications|prüfungen|comprobaciones"),
)

# That it passed: verbs and adjectives after (or before) the subject.
_PASSED = (
    r"pass(?:es|ed|ing)?|succeed(?:s|ed)?|successful(?:ly)?|green|clean|ok(?:ay)?|work(?:s|ing)?|"
    r"are fine|is fine|no (?:errors?|issues?|warnings?|failures?)|zero (?:errors?|failures?)|"
    r"bestanden|erfolgreich|grün|passent|réussi(?:ssent|s)?|passé|pasan|pasaron|exitosa(?:s|mente)?|"
    r"passam|passaram|passano|passati|slagen|geslaagd|проходят|прошли|пройдены|успешно|"
    r"通过|全部通过|成功|パス|通過|成功しました|通りました"
)
# A sentence that says the work itself was verified ("I verified the change", "Everything is verified").
_VERIFIED = re.compile(
    r"\b(?:verified|validated|fully tested|tested and working|confirmed working|all checks (?:pass|passed|green))\b"
    r"|\b(?:verifiziert|vérifié|verificado|verificato|проверено)\b|已验证|検証済み",
    re.IGNORECASE,
)

_SUBJECT_RE = {kind: re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", re.IGNORECASE) for kind, words in _SUBJECTS}
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
_PASSED_RE = re.compile(rf"(?<![\w-])(?:{_PASSED})(?![\w-])", re.IGNORECASE)
_PASSED_CJK = re.compile(r"通过|成功|パス|通過|通りました")

# -- what makes a sentence not a claim -------------------------------------------------------------------------------

# A failure, a blocker or a negation: the agent is reporting that something did not pass or did not run.
_NOT_A_CLAIM = re.compile(
    r"\b(?:not|n't|never|no longer|unable|cannot|can't|couldn't|could not|didn't|did not|haven't|have not|"
    r"hasn't|wasn't|weren't|won't|fail(?:s|ed|ing|ures?)?|broken|errors? (?:remain|left)|blocked|blocker|"
    r"skipp(?:ed|ing)|timed out|flaky|except|but|however|although|unless|nicht|kein(?:e|en)?|fehlgeschlagen|pas encore|"
    r"échou(?:é|ent)|ne passent pas|no pasan|fallan|fallaron|falharam|non passano|не прошли|не проходят|"
    r"падают|ошибк)",
    re.IGNORECASE,
)
_NOT_A_CLAIM_CJK = re.compile(r"失败|未通过|没有通过|不通过|失敗|通りません|できません|未|ません")
# A plan, suggestion, condition or question: not a statement about what happened.
_NOT_A_STATEMENT = re.compile(
    r"\b(?:should|would|will|might|may|could|need(?:s)? to|make sure|ensure|to verify|to check|please|you can|"
    r"run (?:the|`)|if|once|when|after you|before you|let me|i'll|i will|going to|next,?|todo|expected to|"
    r"sollte|sollten|wenn|devrait|si |debería|si se|deveria|se os)\b",
    re.IGNORECASE,
)

_FENCE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)", re.DOTALL)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n+|(?<=[。！？])")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")


def find_claims(message: str | None) -> list[Claim]:
    """The sentences of `message` that claim checks passed, with their kinds, in order, one per kind."""
    if not message:
        return []
    text = message[-MAX_TEXT:]
    text = _FENCE.sub("\n", text)
    found: dict[Kind, Claim] = {}
    for raw in _SENTENCE_END.split(text):
        sentence = _BULLET.sub("", raw).strip()
        if not sentence or sentence.endswith("?") or sentence.endswith("？"):
            continue
        readable = _INLINE_CODE.sub(" ", sentence)
        if _NOT_A_CLAIM.search(readable) or _NOT_A_CLAIM_CJK.search(readable) or _NOT_A_STATEMENT.search(readable):
            continue
        for kind in _kinds_claimed(readable):
            found.setdefault(kind, Claim(kind, _quote(sentence)))
    return list(found.values())


def _kinds_claimed(sentence: str) -> list[Kind]:
    cjk = _CJK.search(sentence) is not None
    passed = _PASSED_RE.search(sentence) is not None or (cjk and _PASSED_CJK.search(sentence) is not None)
    kinds: list[Kind] = []
    if passed:
        for kind, _words in _SUBJECTS:
            pattern = _SUBJECT_RE[kind]
            if pattern.search(sentence) or (cjk and re.search(_SUBJECTS_CJK.get(kind, r"(?!)"), sentence)):
                kinds.append(kind)
    if not kinds and _VERIFIED.search(sentence):
        kinds.append("check")
    if len(kinds) > 1 and "check" in kinds:
        kinds.remove("check")  # "all checks pass: tests and lint" names the kinds; `check` adds nothing
    return kinds


# CJK words have no word boundaries: matched as substrings.
_SUBJECTS_CJK: dict[str, str] = {"test": r"测试|テスト", "check": r"检查|チェック"}


def _quote(sentence: str) -> str:
    """The claim as quoted in a message: one line, control characters dropped, cut at MAX_QUOTE."""
    line = " ".join("".join(ch for ch in sentence if ch.isprintable() or ch == " ").split())
    return line if len(line) <= MAX_QUOTE else line[: MAX_QUOTE - 1].rstrip() + "…"
