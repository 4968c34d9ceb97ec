"""JVM tools: Maven and Gradle (through their wrappers too), and the linters they run."""

from __future__ import annotations

import re

from .base import Identification, Identified, Runner, has, opts, publishes, tool, writes
from .generic import LINT_PATHS

MAVEN = Runner(
    "mvn",
    "test",
    opts(
        "-pl --projects -f --file -s --settings -P --activate-profiles -T --threads -rf "
        "--resume-from -D -gs --global-settings -t --toolchains"
    ),
    opts("-pl --projects -rf --resume-from -Dtest -Dit.test -Dgroups -DexcludedGroups"),
    positionals="never",
    synonyms=(("--projects", "-pl"), ("--batch-mode", "-B"), ("--threads", "-T")),
    neutral=opts(
        "-B --batch-mode -q --quiet -e --errors -V --show-version -ntp --no-transfer-progress -T --threads -U"
    ),
)
GRADLE = Runner(
    "gradle",
    "test",
    opts(
        "--tests -p --project-dir -x --exclude-task --max-workers --console -I --init-script -c "
        "--settings-file -b --build-file --warning-mode"
    ),
    opts("--tests -x --exclude-task"),
    positionals="never",
    neutral=opts(
        "--no-daemon --daemon --parallel --console --stacktrace -s --info -i --warning-mode --scan --build-cache"
    ),
)

# Maven lifecycle phases run every earlier one: `verify` includes `test`.
_MAVEN_TEST_PHASES = ("test", "integration-test", "verify", "install")


@tool("mvn", "mvnw", "mvnd")
def _maven(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    goals = [t for t in args if not t.startswith("-")]
    if any(g.endswith((":apply", ":format", ":sort")) for g in goals):
        return writes("a Maven formatter goal (…:apply / …:format) rewrites files")
    if "deploy" in goals or any(g.startswith(("release:", "versions:set")) for g in goals):
        return publishes("`mvn deploy` / release goals publish artefacts")
    skipping = has(args, "-DskipTests", "-Dmaven.test.skip", "-Dmaven.test.skip=true")
    if any(g in _MAVEN_TEST_PHASES for g in goals):
        return Identified(MAVEN, 1, "build" if skipping else "test", "mvn " + " ".join(goals))
    if any(g in ("package", "compile", "test-compile") for g in goals):
        return Identified(MAVEN, 1, "build", "mvn " + " ".join(goals))
    if any(g.endswith((":check", ":checkstyle")) for g in goals):
        return Identified(MAVEN, 1, "lint", "mvn " + " ".join(goals))
    return None


@tool("gradle", "gradlew")
def _gradle(tokens: tuple[str, ...]) -> Identification:
    tasks = [t for t in tokens[1:] if not t.startswith("-")]
    names = [t.rsplit(":", 1)[-1] for t in tasks]
    if any(n.endswith(("Apply", "Format")) or n in ("spotlessApply", "ktlintFormat") for n in names):
        return writes("a Gradle formatter task (…Apply / …Format) rewrites files")
    if any(n.startswith("publish") or n in ("release", "uploadArchives") for n in names):
        return publishes("a Gradle publish task publishes artefacts")
    if any(n == "test" or n.endswith("Test") for n in names):
        return Identified(GRADLE, 1, "test", "gradle " + " ".join(tasks))
    if "check" in names:
        return Identified(GRADLE, 1, "check", "gradle " + " ".join(tasks))
    if "build" in names:
        return Identified(GRADLE, 1, "build", "gradle " + " ".join(tasks))  # build = assemble + check
    if any(n.endswith("Check") or n in ("lint", "detekt", "ktlintCheck") or n.startswith("checkstyle") for n in names):
        return Identified(GRADLE, 1, "lint", "gradle " + " ".join(tasks))
    if any(n in ("assemble", "compileJava", "compileKotlin", "jar") for n in names):
        return Identified(GRADLE, 1, "build", "gradle " + " ".join(tasks))
    return None


@tool("ktlint", "detekt", "checkstyle", "pmd", "spotbugs")
def _jvm_linters(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    fix = {"ktlint": ("-F", "--format"), "detekt": ("--auto-correct", "-ac")}.get(head, ())
    if fix and has(args, *fix):
        return writes(f"`{head}` with {'/'.join(fix)} rewrites files")
    return Identified(LINT_PATHS, 1, "lint", head)


NO_TESTS = (re.compile(r"^\[INFO\] No tests to run\.", re.MULTILINE),)
