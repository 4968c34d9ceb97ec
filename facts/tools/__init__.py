"""The one vocabulary of tools (design §3.3–§3.6): what a command runs, what kind of check it is, how its
arguments narrow it, what it does when it is not a check, its output summary.

Each ecosystem module registers its tools with `base.tool`; importing this package registers them all. Detection
(reading what a repository declares), classification (reading a run), recipes and output parsing use these same
records, so they cannot disagree about a tool.
"""

from __future__ import annotations

from . import generic, go, jvm, lua, misc, node, php, python, ruby, rust  # noqa: F401  (registration)
from .args import Narrowing, arg_names_path, narrowing_of, positional_indexes
from .base import (
    Effect,
    Identification,
    Identified,
    Invocation,
    NotEvidence,
    Rejected,
    Runner,
    identify,
    name_kind,
    name_stem,
    names_kind,
    script_kind,
    suite_of,
)
from .summary import TestCounts, exit_means_no_tests, parse_test_counts, ran_no_tests
from .wrappers import normalise

__all__ = [
    "Effect",
    "Identification",
    "Identified",
    "Invocation",
    "Narrowing",
    "NotEvidence",
    "Rejected",
    "Runner",
    "TestCounts",
    "arg_names_path",
    "exit_means_no_tests",
    "identify",
    "name_kind",
    "name_stem",
    "names_kind",
    "narrowing_of",
    "normalise",
    "parse_test_counts",
    "positional_indexes",
    "ran_no_tests",
    "script_kind",
    "suite_of",
]

# The runners of each ecosystem are registered by its module in facts/ecosystems/ (loaded once, here, after the
# shared records above exist).
from freshpass.facts.ecosystems.registry import ecosystems as _ecosystems

_ecosystems()
