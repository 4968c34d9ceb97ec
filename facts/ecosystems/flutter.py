"""Flutter: a `pubspec.yaml` that depends on the Flutter SDK; `flutter test` runs `test/`."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

if TYPE_CHECKING:
    from freshpass.facts.signals.base import Collector

_FLUTTER_SDK = re.compile(r"^\s+sdk:\s*flutter\s*$", re.MULTILINE)


def _depends_on_flutter(c: Collector, manifest: str) -> bool:
    return bool(_FLUTTER_SDK.search(c.read_text(manifest) or ""))


ECOSYSTEM = Ecosystem(
    name="flutter",
    title="Flutter",
    manifests=("pubspec.yaml",),
    lockfiles=(("pubspec.lock", "pub"),),
    package_manager="pub",
    conventions=(Convention("test", "flutter test", when="test/"), Convention("lint", "flutter analyze")),
    vocabulary=Vocabulary(
        runners=("flutter",),
        narrowing=("--name", "--plain-name", "-t/--tags", "-x/--exclude-tags", "a test file"),
        writers=("--update-goldens",),
        test_dirs=("test",),
    ),
    summary=_summaries.dart,
    applies=_depends_on_flutter,
    supersedes=("dart",),
    docs="https://docs.flutter.dev/testing/overview",
)
