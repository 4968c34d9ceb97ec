"""The claim reader: message → units → sentences → clauses → claims.

Per sentence it reads the **modality and source** first — a question, a condition, someone else's words or run,
an older time: no claim anywhere in it. Then per clause (a sentence cut at `, ; : — ( )` and at the language's
conjunctions; a table row's cells are the clauses of one sentence) it reads the **success predicate** ("pass",
"green", "✔", "0 failed", "no failures"), its **polarity** — NegEx-style: a negation trigger before the predicate
in its clause negates it, pseudo-negations ("no failures", "0 failed", "問題ありません") are success, a failure
stated in the clause ("2 failed", "still fails") or a partial quantifier ("most tests") cancels it, scope ends at
the clause boundary — and whether the clause (or a clause before it) is hedged, future, an instruction or
imperative. Last, the **subject**: the kinds of check named in the clause, else in the clauses just before it that
name only subjects ("Lint, types and tests: all passed"), else what the predicate implies ("42 passed" is tests,
"compiles" is the build, "it's green" is everything). A clause that is negated or failed lends no subject ("I didn't
run the tests, so no errors"), a failure in the next clause that names no subject cancels the success before it
("测试跑过了，还有两个失败"), and the words of a self-claim are no subject ("已测试" is the work, not the tests).

Inline code is kept as a backquoted token for subjects (`pytest`, `cargo test`) and blanked for everything else,
so words inside a command never read as the agent's own.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from freshpass.evidence.claims.lexicon import KINDS, Lexicon, Patterns
from freshpass.facts.model import Kind

_CODE = re.compile(r"`[^`]*`")
# A sentence ends at its punctuation, and at an emoji that a capitalised sentence follows ("CI is green 🎉 Feel free…").
_SENTENCE_END = re.compile(
    r"(?<=[.!?])\s+(?=\S)|(?<=[。！？])|(?<=[.!?])(?=[\u3040-\u30ff\u4e00-\u9fff])"
    r"|(?<=[\U0001F300-\U0001FAFF\u2600-\u27BF])\ufe0f?\s+(?=[A-ZÀ-ÖØ-Þ\u0400-\u042F\u3040-\u30ff\u4e00-\u9fff])"
)
_CLAUSE_MARK = r"[;:,()\[\]—–，；：（）]|\s-\s|\.\.\.|…|\s/\s"
_LIST_MARK = re.compile(r"\A\s*(?:[-*•+]|\d+[.)])\s+")
_QUESTION_END = re.compile(r"[?？]\s*[)\]」』\"'”]*\s*\Z")
_SHORT_CLAUSE = 3  # words: a clause this short that is only a hedge ("probably,") hedges what follows
_SHORT_CJK_CLAUSE = 6  # characters, in a script without spaces ("我觉得，", "たぶん、")
_CJK = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]")
# A clause that a hedge before it governs: its complement ("I expect, that …", "je pense, que …", "dass", "что").
_COMPLEMENT = re.compile(r"\A[\s,;:—–-]*(?:dass|daß|that|que|qu'|что|ob)(?![\w-])")


@dataclass(frozen=True)
class Found:
    """A claim read in one sentence: the kinds it is about and the sentence, as written."""

    kinds: tuple[Kind, ...]
    quote: str


def lower(text: str) -> str:
    """Lower case that keeps every character's position (so masks and spans line up with the original)."""
    return "".join(low if len(low := char.lower()) == 1 else char for char in text).replace("’", "'")


# A runner's passing summary quoted inline ("ran the suite: `96 passed in 4.31s`") is read, not blanked.
_SHOWN_RUN = re.compile(
    r"`\s*=*\s*\d+ passed(?:,? \d+ (?:skipped|deselected|xfailed|xpassed|warnings?))*(?: in [\d.]+m?s)?\s*=*\s*`"
)


def mask_code(text: str) -> str:
    """`text` with the inside of each inline code span blanked (its backquotes kept), positions unchanged; a
    passing summary in backquotes stays."""
    return _CODE.sub(
        lambda found: (
            found.group() if _SHOWN_RUN.fullmatch(found.group()) else "`" + "·" * (len(found.group()) - 2) + "`"
        ),
        text,
    )


def sentences(line: str) -> list[str]:
    """A line of prose cut into sentences (never inside inline code)."""
    masked = mask_code(line)
    cuts = [0]
    for found in _SENTENCE_END.finditer(masked):
        # "🟢 Tests …": a mark opening a line ends no sentence, there is none before it
        if any(ch.isalnum() for ch in line[cuts[-1] : found.start()]):
            cuts.append(found.end())
    cuts.append(len(line))
    return [part for start, end in itertools.pairwise(cuts) if (part := line[start:end].strip())]


@dataclass(frozen=True)
class Named:
    """What a sentence named, for the sentence after it: the kinds of check named in clauses neither negated,
    failed nor partial ("I fixed the failing test `test_parse`": "It passes now" is about it), and whether it
    named one it denied ("I didn't run the tests": "It's fine" is then about nothing that ran)."""

    kinds: tuple[Kind, ...] = ()
    denied: bool = False
    failed: tuple[Kind, ...] = ()  # named in a clause that states a failure ("the first run failed on `test_ws`")


def named_subjects(parts: list[str], lex: Lexicon) -> Named:
    """What the sentence `parts` names, for a subjectless success in the next one."""
    text = lower(" ; ".join(_LIST_MARK.sub("", part) for part in parts).strip())
    masked = mask_code(text)
    patterns = lex.compiled
    if _QUESTION_END.search(masked) or patterns["question"].search(masked) or _conditional(masked, patterns):
        return Named()
    claimed = _spans(patterns["self_claim"], masked, 0, len(masked))
    kinds: list[Kind] = []
    failed: list[Kind] = []
    denied = False
    clauses = _clauses(masked, patterns)
    # a test named anywhere in a sentence that says something failed is what failed ("flaked on `test_ws`")
    failing = any(_reports_failure(masked, start, end, patterns, lex.negation_follows) for start, end in clauses)
    for start, end in clauses:
        named = _subjects(text, start, end, patterns, claimed)
        if failing:
            failed.extend(kind for kind in named if kind not in failed)
        if _negated(masked, start, end, patterns) or patterns["partial"].search(masked, start, end):
            denied = denied or bool(named)
            continue
        kinds.extend(kind for kind in named if kind not in kinds)
    return Named(tuple(kinds), denied, tuple(failed) if failing else ())


def read_sentence(parts: list[str], lex: Lexicon, previous: Named | None = None) -> Found | None:
    """The claim one sentence makes (its clauses are `parts` already cut, for a table row), or None. `previous`:
    what the sentence before named, for a success that names nothing ("Fixed the failing test. It passes now.")."""
    carried = previous.kinds if previous else ()
    denied = bool(previous and previous.denied)
    failed_before = previous.failed if previous else ()
    raw = " ; ".join(_LIST_MARK.sub("", part) for part in parts).strip()
    if not raw:
        return None
    patterns = lex.compiled
    text = lower(raw)
    masked = mask_code(text)
    if _QUESTION_END.search(masked) or patterns["question"].search(masked):
        return None
    if _conditional(masked, patterns):
        return None
    clauses = _clauses(masked, patterns)
    first = _first_current(masked, clauses, patterns)
    if first is None:
        return None
    # a failure in the sentence before, then a new run said so ("Relancé, c'est vert", "перезапустил — зелёный")
    rerun = failed_before if failed_before and patterns["present"].search(masked) else ()
    claimed = _spans(patterns["self_claim"], masked, 0, len(masked))  # "已测试": a claim of the work, not a subject
    subjects = [_subjects(text, start, end, patterns, claimed) for start, end in clauses]
    predicates = [_predicate(masked, start, end, patterns, lex.negation_follows) for start, end in clauses]
    negated = [_negated(masked, start, end, patterns) for start, end in clauses]
    for index in range(len(clauses) - 1):  # "all green, except the e2e job": the exception makes it partial
        after_start, after_end = clauses[index + 1]
        if patterns["partial"].match(masked[after_start:after_end].lstrip(" ,;:—–-([，；：（")):
            predicates[index] = None
    _failures_after(masked, clauses, subjects, predicates, patterns)
    self_claims = _self_claims(
        masked,
        clauses,
        patterns,
        clauses[first][0] if first < len(clauses) else len(masked),
        lex.negation_follows,
    )
    kinds: list[Kind] = []
    blocked = False
    for index, (start, end) in enumerate(clauses):
        if index < first:
            continue  # an older time, or a run that a later change superseded
        clause = masked[start:end]
        if patterns["imperative"].match(clause.lstrip()):
            blocked = True  # an instruction: it and what follows in the sentence are not what happened
        if blocked:
            break
        hedged = bool(patterns["hedge"].search(clause) or patterns["future"].search(clause))
        instructed = bool(patterns["instruction"].search(masked, 0, end))
        if index > 0:
            before_start, before_end = clauses[index - 1]
            before = masked[before_start:before_end]
            if (_short(before) or _COMPLEMENT.match(clause)) and (
                patterns["hedge"].search(before) or patterns["future"].search(before)
            ):
                hedged = True  # "probably, …", "Ich gehe davon aus, dass …", "Думаю, что …"
        predicate = predicates[index]
        if predicate is None:
            continue
        if hedged or instructed:
            continue
        found = list(subjects[index]) + list(predicate)
        if not subjects[index]:
            found += _subjects_before(index, subjects, predicates, negated)
        if not found and carried and not any(negated) and all(p is None for p in predicates[first:index]):
            found.extend(carried)  # the first success of the sentence, about what the sentence before named
        if not found and rerun and not any(negated) and all(p is None for p in predicates[first:index]):
            found.extend(rerun)  # "The first run flaked on `test_ws`. Re-ran it: green." — the run again, passing
        if not found:
            found.extend(_rerun_in_sentence(masked, clauses, subjects, index, patterns, lex.negation_follows))
        if not found and index + 1 < len(clauses) and masked[clauses[index + 1][0] :].lstrip()[:1] in (":", "："):
            found.extend(_subjects_after(index, subjects, predicates, negated))  # "Läuft sauber durch: `go test`"
        if not found and not denied and patterns["green_subject"].search(clause):
            found.append("check")
        if set(found) == {"check"}:  # "everything passes": the clauses around may say what everything is
            named = _subjects_before(index, subjects, predicates, negated) + _subjects_after(
                index, subjects, predicates, negated
            )
            found = [kind for kind in named if kind != "check"] or found
        kinds.extend(kind for kind in found if kind not in kinds)
    if not blocked:
        kinds.extend(kind for kind in self_claims if kind not in kinds)
    if not kinds:
        return None
    if len(kinds) > 1 and "check" in kinds:
        kinds.remove("check")
    return Found(tuple(kind for kind in KINDS if kind in kinds), raw)


def _rerun_in_sentence(
    masked: str,
    clauses: list[tuple[int, int]],
    subjects: list[list[Kind]],
    index: int,
    patterns: Patterns,
    follows: bool,
) -> list[Kind]:
    """What failed earlier in the sentence, when a present time (a rerun, "after the fix") comes between that
    failure and this subjectless success: "`test_ws` flaked once; re-ran it — green"."""
    for before in range(index - 1, -1, -1):
        start, end = clauses[before]
        if subjects[before] and _reports_failure(masked, start, end, patterns, follows):
            if patterns["present"].search(masked, end, clauses[index][1]):
                return list(subjects[before])
            return []
    return []


def _conditional(masked: str, patterns: Patterns) -> bool:
    """Is the sentence a condition ("if CI is green, merge")? A conditional word inside a pseudo-negation is
    another word ("não se queixa": the reflexive se, not "if")."""
    pseudo = _spans(patterns["pseudo"], masked, 0, len(masked))
    return any(not _inside(found.start(), pseudo) for found in patterns["conditional"].finditer(masked))


def _first_current(masked: str, clauses: list[tuple[int, int]], patterns: Patterns) -> int | None:
    """The index of the first clause that speaks of the work as it is now, or None when none does.

    Someone else's words or an older time ("before the fix", "yesterday") hold for the rest of the sentence unless a
    later clause starts a present time ("…; now all 42 pass", "修正後は…"). A change made after a run ("it passed,
    but then I changed the parser") leaves only what the sentence says after that change."""

    def clause_of(position: int) -> int:
        return max((i for i, (start, _) in enumerate(clauses) if start <= position), default=0)

    first = 0
    pseudo = _spans(patterns["pseudo"], masked, 0, len(masked))  # "eslint has nothing to say" says no one spoke
    older = [found.end() for found in patterns["reported"].finditer(masked) if not _inside(found.start(), pseudo)]
    if older:
        now = next((found for found in patterns["present"].finditer(masked) if found.start() >= older[-1]), None)
        if now is None:
            return None
        first = clause_of(now.start())
    for change in patterns["superseded"].finditer(masked):
        first = max(first, clause_of(change.start()) + 1)
    return first


def _short(clause: str) -> bool:
    """Whether a clause is short enough to be only a hedge of what follows: a few words, or in Chinese and
    Japanese (no spaces between words) a few characters."""
    if _CJK.search(clause):
        return len("".join(clause.split()).strip(" ;:,()[]—–，；：（）、")) <= _SHORT_CJK_CLAUSE
    return len(clause.split()) <= _SHORT_CLAUSE


def _clauses(masked: str, patterns: Patterns) -> list[tuple[int, int]]:
    partial = _spans(patterns["partial"], masked, 0, len(masked))  # "all but two": its "but" cuts nothing
    cuts = sorted(
        {0, len(masked)}
        | {found.start() for found in re.finditer(_CLAUSE_MARK, masked)}
        | {
            found.start()
            for found in patterns["clause_break"].finditer(masked)
            if not any(start < found.start() < end for start, end in partial)
        }
    )
    return [(start, end) for start, end in itertools.pairwise(cuts) if masked[start:end].strip(" ;:,()[]—–，；：（）")]


def _failures_after(
    masked: str,
    clauses: list[tuple[int, int]],
    subjects: list[list[Kind]],
    predicates: list[list[Kind] | None],
    patterns: Patterns,
) -> None:
    """Cancels, in `predicates`, a success whose next clause states a failure and names no subject of its own: the
    failure is of the same checks ("测试跑过了，还有两个失败")."""
    for index, (start, end) in enumerate(clauses[1:], start=1):
        if predicates[index - 1] is None or subjects[index] or predicates[index] is not None:
            continue
        pseudo = _spans(patterns["pseudo"], masked, start, end)
        if any(not _inside(found.start(), pseudo) for found in patterns["failure_after"].finditer(masked, start, end)):
            predicates[index - 1] = None


def _subjects(text: str, start: int, end: int, patterns: Patterns, claimed: list[tuple[int, int]]) -> list[Kind]:
    """The kinds of check the clause `text[start:end]` names, besides words inside a self-claim."""
    clause = text[start:end]
    return [
        kind
        for kind in KINDS
        if any(not _inside(start + found.start(), claimed) for found in patterns[f"subject:{kind}"].finditer(clause))
    ]


def _negated(masked: str, start: int, end: int, patterns: Patterns) -> bool:
    """Whether the clause has a negation trigger or states a failure (besides a pseudo-negation or a failure word
    naming the subject): "I didn't run the tests", "测试在 CI 上失败了"."""
    pseudo = _spans(patterns["pseudo"], masked, start, end)
    if any(not _inside(found.start(), pseudo) for found in patterns["negation"].finditer(masked, start, end)):
        return True
    attributive = _spans(patterns["failure_attributive"], masked, start, end)
    return any(
        not _inside(found.start(), pseudo) and not _inside(found.start(), attributive)
        for found in patterns["failure"].finditer(masked, start, end)
    )


def _subjects_before(
    index: int, subjects: list[list[Kind]], predicates: list[list[Kind] | None], negated: list[bool]
) -> list[Kind]:
    """Subjects of the clauses right before a predicate that has none: "pytest: 42 passed", "lint, types and
    tests: all passed"; it stops at a clause with a predicate of its own or a negated one ("我没跑测试，所以没有报错":
    what was not run or failed lends no subject), and looks past at most two without."""
    found: list[Kind] = []
    gaps = 0
    for before in range(index - 1, -1, -1):
        if predicates[before] is not None or (subjects[before] and negated[before]):
            break
        if subjects[before]:
            found.extend(subjects[before])
        elif found or gaps >= 2:
            break
        else:
            gaps += 1
    return found


def _subjects_after(
    index: int, subjects: list[list[Kind]], predicates: list[list[Kind] | None], negated: list[bool]
) -> list[Kind]:
    """Subjects listed right after a generic predicate: "Todo pasa: pruebas, lint y tipos"."""
    found: list[Kind] = []
    for after in range(index + 1, len(subjects)):
        if predicates[after] is not None or not subjects[after] or negated[after]:
            break
        found.extend(subjects[after])
    return found


def _spans(pattern: re.Pattern[str], text: str, start: int, end: int) -> list[tuple[int, int]]:
    return [(found.start(), found.end()) for found in pattern.finditer(text, start, end)]


def _inside(position: int, spans: list[tuple[int, int]]) -> bool:
    return any(start <= position < end for start, end in spans)


# "310 of 312", "118 sur 120", "7/8", "3 de 4", "5 von 6", "9 из 10": a share of a count.
_SHARE = re.compile(r"(?<![\d.])(\d+)\s*(?:[^\W\d]+\s+)?(?:/|of|out of|sur|de|von|aus|из)\s*(\d+)(?![\d.])")


def _part_of_a_count(masked: str, start: int, end: int) -> bool:
    """Does the clause give a share of a count that is not the whole ("310 of 312 tests pass")?"""
    return any(int(found[1]) < int(found[2]) for found in _SHARE.finditer(masked, start, end))


def _predicate(masked: str, start: int, end: int, patterns: Patterns, follows: bool = False) -> list[Kind] | None:
    """The kinds a clause's success predicate implies ([] when it implies none), or None when the clause has no
    success predicate, or only a negated, cancelled or other-sense one."""
    pseudo = _spans(patterns["pseudo"], masked, start, end)
    other_sense = _spans(patterns["transitive"], masked, start, end)
    if _failure_said(masked, start, end, patterns, pseudo):
        return None
    if patterns["partial"].search(masked, start, end) or _part_of_a_count(masked, start, end):
        return None
    successes = [
        span for span in _spans(patterns["success"], masked, start, end) if not _inside(span[0], other_sense)
    ] + pseudo
    if not successes:
        return None
    negations = [span for span in _spans(patterns["negation"], masked, start, end) if not _inside(span[0], pseudo)]
    kept = [span for span in successes if not any(neg_start < span[1] or follows for neg_start, _ in negations)]
    if not kept:
        return None
    implied: list[Kind] = []
    for kind in KINDS:
        pattern = patterns[f"implies:{kind}"]
        if any(pattern.match(masked, span_start) for span_start, _ in kept):
            implied.append(kind)
    return implied


def _self_claims(
    masked: str, clauses: list[tuple[int, int]], patterns: Patterns, begin: int = 0, follows: bool = False
) -> list[Kind]:
    """ "I verified the change", "Done and tested", "動作確認済み": a claim of the work as a whole, unless a
    negation in its clause comes before it ("I have not tested it"), or the sentence goes on to say what was tried
    fails ("I tested it, but it doesn't work"); only from `begin` on (the current time)."""
    for found in patterns["self_claim"].finditer(masked, begin):
        clause_start = max((start for start, _ in clauses if start <= found.start()), default=0)
        negated = any(
            neg.start() < found.end() for neg in patterns["negation"].finditer(masked, clause_start, found.end())
        )
        hedged = patterns["hedge"].search(masked, clause_start, found.end()) or patterns["future"].search(
            masked, clause_start, found.end()
        )
        failed = any(
            _reports_failure(masked, start, end, patterns, follows)
            for start, end in clauses
            if end > found.end() or start >= clause_start
        )
        if not negated and not hedged and not failed:
            return ["check"]
    return []


def _failure_said(masked: str, start: int, end: int, patterns: Patterns, pseudo: list[tuple[int, int]]) -> bool:
    """A negated success form ("通っていません") or a failure word in the clause that is neither part of a
    pseudo-negation ("no failures") nor a test's old name ("the failing test")."""
    if patterns["negated_success"].search(masked, start, end):
        return True
    attributive = _spans(patterns["failure_attributive"], masked, start, end)
    return any(
        not _inside(f.start(), pseudo) and not _inside(f.start(), attributive)
        for f in patterns["failure"].finditer(masked, start, end)
    )


def _reports_failure(masked: str, start: int, end: int, patterns: Patterns, follows: bool) -> bool:
    """Does the clause say something fails: a failure word ("still fails", "timeout") or a success denied
    ("doesn't work", "ne marche pas", "動きません")?"""
    pseudo = _spans(patterns["pseudo"], masked, start, end)
    if _failure_said(masked, start, end, patterns, pseudo):
        return True
    successes = [span for span in _spans(patterns["success"], masked, start, end) if not _inside(span[0], pseudo)]
    negations = [span for span in _spans(patterns["negation"], masked, start, end) if not _inside(span[0], pseudo)]
    return any(any(n_start < s_end or follows for n_start, _ in negations) for _, s_end in successes)
