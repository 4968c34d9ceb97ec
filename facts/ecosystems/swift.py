"""Swift Package Manager: `Package.swift`; `swift test` builds and runs every test target."""

from __future__ import annotations

from freshpass.facts.tools.base import Identification, Identified, Runner, opts, tool

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

SWIFT_TEST = Runner(
    "swift",
    "test",
    opts("--filter --skip -c --configuration --package-path --num-workers --scratch-path -j --jobs --xunit-output"),
    opts("--filter --skip"),
    positionals="never",
    neutral=opts("--parallel -v --verbose -q --quiet --enable-code-coverage"),
)


@tool("swift")
def _swift(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "test":
        return Identified(SWIFT_TEST, 2, "test", "swift test")
    return Identified(SWIFT_TEST, 2, "build", "swift build") if sub == "build" else None


ECOSYSTEM = Ecosystem(
    name="swift",
    title="Swift (SwiftPM)",
    manifests=("Package.swift",),
    lockfiles=(("Package.resolved", "swiftpm"),),
    package_manager="swiftpm",
    conventions=(Convention("test", "swift test"), Convention("build", "swift build")),
    vocabulary=Vocabulary(runners=("swift",), narrowing=("--filter", "--skip"), test_dirs=("Tests",)),
    summary=_summaries.swift,
    docs="https://docs.swift.org/swiftpm/documentation/packagemanagerdocs/swifttest/",
)
