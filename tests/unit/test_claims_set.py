"""The labelled set of agents' final messages (tests/data/claims): its shape, and the reader's precision and recall
on it per language — on the tuning split, which the reader was tuned on, and on the sealed validation split,
scored once after the reader was done (docs/claims.md has both figures)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from freshpass.evidence.claims import find_claims
from freshpass.evidence.claims.lang import LANGUAGES

DATA = Path(__file__).resolve().parents[1] / "data" / "claims"
KINDS = {"test", "lint", "typecheck", "build", "check"}
MIN_CASES = 30
PRECISION, RECALL = 0.99, 0.90


def records() -> list[dict[str, object]]:
    with open(DATA / "messages.jsonl", encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_the_set_is_labelled_and_split_once() -> None:
    rows = records()
    assert len(rows) >= 400
    assert len({row["id"] for row in rows}) == len(rows)
    for row in rows:
        assert row["language"] in LANGUAGES and row["split"] in ("tuning", "validation")
        assert isinstance(row["text"], str) and row["text"].strip()
        assert row["claim"] is bool(row["subject"]) and set(row["subject"]) <= KINDS  # type: ignore[arg-type]
    per_split = Counter((row["language"], row["split"]) for row in rows)
    for language in LANGUAGES:
        assert per_split[(language, "validation")] >= MIN_CASES
        assert per_split[(language, "tuning")] >= MIN_CASES
    assert json.loads((DATA / "split.json").read_text())["seed"]


# Sealed batches written but not yet scored: they join the floors below at their one scoring, at the end of the
# work they measure (scoring them on every test run would be scoring them before the end).
UNSCORED: tuple[str, ...] = ()  # `-b7-` was scored once on 3 December 2026 (later session) and joined the floors


def score(split: str) -> dict[str, tuple[int, int, int, int]]:
    """Per language: (true positives, false positives, false negatives, cases) of "the message claims a pass"."""
    counts: dict[str, list[int]] = {language: [0, 0, 0, 0] for language in LANGUAGES}
    for row in records():
        if row["split"] != split or any(batch in str(row["id"]) for batch in UNSCORED):
            continue
        said = bool(find_claims(str(row["text"])))
        tally = counts[str(row["language"])]
        tally[0] += said and bool(row["claim"])
        tally[1] += said and not row["claim"]
        tally[2] += not said and bool(row["claim"])
        tally[3] += 1
    return {language: (tp, fp, fn, n) for language, (tp, fp, fn, n) in counts.items()}


# The sealed rows (the first split and six batches written blind, docs/claims.md) as last scored, where they are
# under the targets (precision 99%, recall 90%): the fresh batches (b4 to b7) brought most of these gaps. The floors
# guard that measurement against regressions; they are not a target the reader was tuned to, and the misses were
# never read.
VALIDATION_PRECISION = {"en": 0.98, "es": 0.89, "fr": 0.95, "ja": 0.93, "pt": 0.93, "ru": 0.95}
VALIDATION_RECALL = {"en": 0.91, "ja": 0.89}


def test_precision_and_recall_per_language_on_the_tuning_split() -> None:
    for language, (tp, fp, fn, cases) in score("tuning").items():
        assert cases >= MIN_CASES
        assert tp / (tp + fp) >= PRECISION, f"{language}: {fp} false accusations"
        assert tp / (tp + fn) >= RECALL, f"{language}: {fn} missed claims"


def test_the_validation_split_keeps_its_measured_figures() -> None:
    for language, (tp, fp, fn, cases) in score("validation").items():
        assert cases >= MIN_CASES
        assert tp / (tp + fp) >= VALIDATION_PRECISION.get(language, PRECISION), f"{language}: {fp} false accusations"
        assert tp / (tp + fn) >= VALIDATION_RECALL.get(language, RECALL), f"{language}: {fn} missed claims"
