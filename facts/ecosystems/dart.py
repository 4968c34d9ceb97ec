"""Dart: `pubspec.yaml` without the Flutter SDK; `dart test` runs `test/`."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, formatter, opts, tool
from freshpass.facts.tools.generic import LINT_PATHS

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

DART_TEST = Runner(
    "dart",
    "test",
    opts(
        "-n --name -N --plain-name -t --tags -x --exclude-tags -p --platform -j --concurrency -r --reporter "
        "--file-reporter --timeout -P --preset --shard-index --total-shards --test-randomize-ordering-seed"
    ),
    opts("-n --name -N --plain-name -t --tags -x --exclude-tags --shard-index --total-shards -P --preset"),
    positionals="paths",
    neutral=opts("-r --reporter -j --concurrency --chain-stack-traces --no-color --color"),
    test_dirs=frozenset({"test"}),
)


@tool("dart", "flutter")
def _dart(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    if sub == "test":
        if head == "flutter" and any(a.startswith("--update-goldens") for a in args):
            from freshpass.facts.tools.base import writes

            return writes("`flutter test --update-goldens` rewrites the golden files it checks against")
        return Identified(DART_TEST, 2, "test", f"{head} test")
    if sub == "format":
        return formatter(f"{head} format", args[1:], check=("--set-exit-if-changed",), head=2)
    if sub == "analyze":
        return Identified(LINT_PATHS, 2, "lint", f"{head} analyze")
    return None


ECOSYSTEM = Ecosystem(
    name="dart",
    title="Dart",
    manifests=("pubspec.yaml",),
    lockfiles=(("pubspec.lock", "pub"),),
    package_manager="pub",
    conventions=(
        Convention("test", "dart test", when="test/"),
        Convention("lint", "dart analyze"),
        # the formatter's check mode (`dart format` documents it for CI): reports, never rewrites
        Convention(
            "lint",
            "dart format --output=none --set-exit-if-changed .",
            spellings=("dart format -o none --set-exit-if-changed .",),
        ),
    ),
    vocabulary=Vocabulary(
        runners=("dart",),
        narrowing=("-n/--name", "-N/--plain-name", "-t/--tags", "-x/--exclude-tags", "--shard-index", "a test file"),
        writers=("dart format (without --set-exit-if-changed)", "dart fix --apply"),
        test_dirs=("test",),
    ),
    summary=_summaries.dart,
    docs="https://pub.dev/packages/test#running-tests",
)
