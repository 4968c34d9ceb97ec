"""What a language says when checks passed, and what makes such words no claim: one `Lexicon` per language.

Each field is a regular expression over casefolded text (the curly apostrophe already made straight). Latin-script
languages write whole words (`W(...)` adds the boundaries: a prefix never matches inside a longer word); Chinese
and Japanese have no word boundaries and are matched as written. The subjects of `BASE` — tool names and the
English nouns agents use in every language ("lint", "CI", "build") — and its passing counts ("42 passed, 0
failed") belong to every lexicon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property

from freshpass.facts.model import KINDS as KINDS

NEVER = r"(?!x)x"


def W(words: str) -> str:
    """`words` (an alternation) as whole words: no letter, digit or hyphen right before or after."""
    return rf"(?<![\w-])(?:{words})(?![\w-])"


@dataclass(frozen=True)
class Lexicon:
    """The words of one language. Empty fields match nothing."""

    language: str
    subjects: dict[str, str]  # what was checked, per kind
    success: str  # that it passed: needs a subject in the sentence
    pseudo: str = NEVER  # negative words that say success ("no failures", "0 failed", "問題ありません")
    self_claim: str = NEVER  # a claim by itself, of the work as a whole ("I verified the change", "done and tested")
    negation: str = NEVER  # triggers: a success word after one in its clause is negated
    negation_follows: bool = False  # the negation may follow the verb in its clause (German: "besteht nicht")
    negated_success: str = NEVER  # whole negated forms (Japanese, Chinese: the negation follows the verb)
    failure: str = NEVER  # a failure stated in the clause
    failure_after: str = NEVER  # a failure in the next clause, which names no subject of its own, cancels
    failure_attributive: str = NEVER  # "the failing test (now passes)": a failure word naming the subject
    partial: str = NEVER  # "most tests pass", "except": not all of it passed
    hedge: str = NEVER  # should, probably, I expect, hopefully
    future: str = NEVER  # will, going to, next
    conditional: str = NEVER  # if, once, when
    imperative: str = NEVER  # an instruction: at the start of a clause
    instruction: str = NEVER  # "check that …", "make sure …", "…してください": anywhere before the success word
    question: str = NEVER  # a question besides one ending in "?"
    reported: str = NEVER  # someone else's words or run, or an older time
    present: str = NEVER  # a later time that begins after an older one: "before the fix X failed; now all pass"
    superseded: str = NEVER  # a change made after the run it follows: "it passed, but then I changed the parser"
    transitive: str = NEVER  # another sense of the success word ("pass `None`", "pass a session")
    clause_break: str = NEVER  # conjunctions that end a clause (besides , ; : — and brackets)
    green_subject: str = NEVER  # words that stand for the whole work before "green" ("it", "everything")
    implies: dict[str, str] = field(default_factory=dict)  # success words that name their kind ("compiles")

    @cached_property
    def compiled(self) -> Patterns:
        """The lexicon's patterns, each compiled the first time it is used (a stop hook reads one short message)."""
        return Patterns(self)

    def source(self, name: str) -> str:
        """The regular expression `compiled[name]` is: a field, `subject:KIND` or `implies:KIND`, with `BASE`'s
        words added where every language shares them."""
        if name.startswith("subject:"):
            kind = name.partition(":")[2]
            return f"{self.subjects.get(kind, NEVER)}|{BASE_SUBJECTS.get(kind, NEVER)}"
        if name.startswith("implies:"):
            kind = name.partition(":")[2]
            return f"{self.implies.get(kind, NEVER)}|{BASE_IMPLIES.get(kind, NEVER)}"
        shared = {
            "pseudo": BASE_PSEUDO,
            "success": BASE_SUCCESS,
            "failure": BASE_FAILURE,
            "failure_after": BASE_FAILURE_COUNT,
        }.get(name)
        own = getattr(self, name)
        return f"{own}|{shared}" if shared else own


class Patterns(dict[str, "re.Pattern[str]"]):
    """Compiled patterns of one lexicon, by name, compiled on first use."""

    def __init__(self, lexicon: Lexicon) -> None:
        super().__init__()
        self.lexicon = lexicon

    def __missing__(self, name: str) -> re.Pattern[str]:
        pattern = self[name] = re.compile(self.lexicon.source(name))
        return pattern


# Tool names and the English nouns every language borrows; subjects of every lexicon.
BASE_SUBJECTS: dict[str, str] = {
    "test": W(
        r"pytest|jest|vitest|mocha|rspec|phpunit|unittest|tox|nox|ctest|go test|cargo test|cargo nextest|npm test|"
        r"npm run test|yarn test|pnpm test|mvnw? test|gradlew? test|dotnet test|mix test|e2e|unit tests?|tests?|specs?|"
        r"test suite|testsuite"
    )
    # a test named in inline code: `test_parse_date`, `TestParse`, `parse_test.go`, `cart.spec.ts`
    + r"|`[^`\s]*(?:(?<![a-z0-9])test_\w+|\w+_test\b|\.(?:test|spec)\.\w+)[^`\s]*`",
    "lint": W(
        r"ruff(?: check)?|eslint|clippy|cargo clippy|flake8|pylint|golangci-lint|rubocop|prettier|shellcheck|"
        r"go vet|black|biome|stylelint|lint(?:ing|er|ers)?"
    )
    + r"(?! rules?\b| configs?\b| configuration\b| plugins?\b)",  # the linter's rule is no run of it
    "typecheck": W(r"mypy|pyright|tsc|type ?check(?:s|ing|er)?|typecheck"),
    "build": W(r"cargo build|go build|mvnw? package|gradlew? build|npm run build|build(?:s)?"),
    "check": W(r"ci|make check|just check|pre-commit|cargo check|npm run check|make ci|github actions|pipeline")
    # a project's umbrella in inline code: `./gradlew check`, `mvn verify`, `task ci`, `script/check`
    + r"|`[^`\n]{0,60}?(?:\s|/)(?:check|verify|ci|validate|precommit)`",
}
# Passing counts: "42 passed", "42 passed, 0 failed" (every language pastes them as the runner prints them).
BASE_SUCCESS = (
    r"(?<![\w-])\d+ (?:passed|passing|tests? passed)(?![\w-])|✅|✔️?|✓|☑️?|🟢|"
    r"(?<![\w/.:-])(\d{1,5})/\1(?![\w/.:-])|"  # a full count: 47/47 (never 46/47, never a date part)
    r"(?:→|->|=>)\s*ok(?![\w-])|(?<![\w-])build success(?:ful)?(?![\w-])|"
    r"[«\"“]\s*(?:passed|passing|success|succeeded)\s*[»\"”]|"  # a status shown as the tool words it: « passed »
    r"(?<![\w-])passed(?![\w-])"  # and as an English loanword in any language ("все хуки Passed")
)
# A count of failures: in the next clause it makes the passing count before it partial ("40 passed, 2 failed").
BASE_FAILURE_COUNT = r"(?<![\w-])[1-9]\d* (?:failed|failures?|errors?|failing)(?![\w-])"
BASE_FAILURE = BASE_FAILURE_COUNT + r"|❌|✗|✘|🔴|(?<![\w-])fail(?:ed)?(?![\w-])"
BASE_IMPLIES: dict[str, str] = {
    "test": r"\d+ (?:passed|passing|tests? passed)",
    "build": r"build success(?:ful)?",
}
BASE_PSEUDO = r"(?<![\w-])0 (?:failed|failures?|errors?)(?![\w-])"


def detect(text: str) -> str:
    """The language a message is written in: by script for Japanese (kana), Chinese (han) and Russian (Cyrillic),
    else by the commonest function words of the Latin-script languages (English when none stands out)."""
    kana = len(re.findall(r"[\u3040-\u30ff]", text))
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    cyrillic = len(re.findall(r"[\u0400-\u04ff]", text))
    if kana:
        return "ja"
    if han:
        return "zh"
    if cyrillic:
        return "ru"
    words = re.findall(r"[^\W\d_]+", text.casefold())
    scores = {language: sum(1 for word in words if word in marks) for language, marks in _MARKS.items()}
    for language, letters in _LETTERS.items():
        scores[language] += 2 * len(re.findall(letters, text.casefold()))
    ranked = sorted(scores, key=lambda language: -scores[language])
    if scores[ranked[0]] - scores[ranked[1]] < 2:  # a close call (a short message): the lexicons' own words decide
        from freshpass.evidence.claims.lang import lexicon

        lowered = text.casefold().replace("’", "'")
        for language in scores:
            patterns = lexicon(language).compiled
            scores[language] += sum(1 for name in _VOCABULARY if patterns[name].search(lowered))
        ranked = sorted(scores, key=lambda language: -scores[language])
    best = ranked[0]
    return best if scores[best] > scores["en"] else "en"


# Fields whose words are a language's own (not the tool names and loanwords every lexicon shares).
_VOCABULARY = ("success", "negation", "reported", "hedge", "failure", "clause_break", "self_claim", "partial")


_MARKS: dict[str, frozenset[str]] = {
    language: frozenset(words.split())
    for language, words in {
        "en": "the and is are it to of now with not this that was have has i've it's i'm ran added fixed all done i "
        "didn't run my you we be in on for but still",
        "de": "die der das und ist sind alle nicht jetzt ich auch mit habe noch keine kein den dem neuen bestanden "
        "bestehen besteht ohne laufen läuft durch grün wurde werden sauber fehler erledigt gestern",
        "fr": "les des et est sont tous le je pas maintenant avec une ai toujours ne aucun ça tout passe passent "
        "vert verte échouent j'ai n'ai réussi hier du au aux sur dans pour",
        "es": "los las el y son todos todas pruebas ahora con una pasan del lo sin nuevo sigue todo fallos "
        "errores probé ejecuté está están fue exitosa ayer alguien usted ya queja nada también pero más hay",
        "pt": "os o e é são todos testes agora com uma não passam do da rodei sem erros tudo falhas está estão foi "
        "ontem alguém estava você testei nenhum nenhuma teste falha também já mas verdinho rodando",
    }.items()
}
_LETTERS: dict[str, str] = {"de": "[äöüß]", "fr": "[èêàùœ]", "es": "[ñ¿¡]", "pt": "[ãõ]"}
