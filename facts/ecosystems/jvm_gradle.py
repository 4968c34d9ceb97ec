"""JVM with Gradle: build scripts and settings, the `gradlew` wrapper when the project ships one."""

from __future__ import annotations

from freshpass.facts.signals.base import Collector, Package, under

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention


def _gradle(c: Collector, package: Package) -> None:
    names = ("build.gradle.kts", "build.gradle", "settings.gradle.kts", "settings.gradle")
    build = next((under(package.cwd, n) for n in names if c.is_file(under(package.cwd, n))), None)
    if build is None:
        return
    c.manifest(build)
    c.package_manager("gradle")
    runner = "./gradlew" if c.is_file(under(package.cwd, "gradlew")) else "gradle"
    _convention(c, f"{runner} test", "test", package.cwd, build)
    _convention(c, f"{runner} check", "check", package.cwd, build)
    _convention(c, f"{runner} build", "build", package.cwd, build)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.jvm import GRADLE

    return Vocabulary(
        runners=("gradle", "gradlew", "./gradlew"),
        narrowing=tuple(sorted(GRADLE.narrowing_options)),
        watch=("--continuous", "-t"),
        test_dirs=("src/test",),
    )


ECOSYSTEM = Ecosystem(
    name="jvm_gradle",
    title="JVM (Gradle)",
    manifests=("build.gradle", "build.gradle.kts"),
    # settings files make a root (a multi-project build) but a module's build script is not a package of its own
    root_markers=("settings.gradle", "settings.gradle.kts"),
    package_manager="gradle",
    wrappers=("./gradlew",),
    vocabulary=_vocabulary(),
    read=_gradle,
    docs="https://docs.gradle.org/current/userguide/java_testing.html#test_filtering",
)
