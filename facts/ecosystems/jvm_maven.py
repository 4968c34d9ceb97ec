"""JVM with Maven: `pom.xml`, the `mvnw` wrapper when the project ships one (`./mvnw test`)."""

from __future__ import annotations

from freshpass.facts.signals.base import Collector, Package, under

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention


def _maven(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "pom.xml")
    if not c.is_file(rel):
        return
    c.manifest(rel)
    c.package_manager("maven")
    text = c.read_text(rel)
    if text is not None:
        import xml.etree.ElementTree as ElementTree  # only Maven projects pay for it

        try:
            ElementTree.fromstring(text.encode())
        except ElementTree.ParseError as exc:
            c.problem(rel, f"invalid XML: {exc}")
        except RecursionError:
            c.problem(rel, "XML nested too deeply to read")
    runner = "./mvnw" if c.is_file(under(package.cwd, "mvnw")) else "mvn"
    _convention(c, f"{runner} test", "test", package.cwd, rel)
    _convention(c, f"{runner} verify", "check", package.cwd, rel)
    if text is not None and "spotless-maven-plugin" in text:
        # the formatter plugin the build declares, in its check goal (reports, never rewrites: `:apply` does)
        _convention(c, f"{runner} spotless:check", "lint", package.cwd, rel)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.jvm import MAVEN

    return Vocabulary(
        runners=("mvn", "mvnw", "./mvnw", "mvnd"),
        narrowing=tuple(sorted(MAVEN.narrowing_options)),
        test_dirs=("src/test",),
    )


ECOSYSTEM = Ecosystem(
    name="jvm_maven",
    title="JVM (Maven)",
    manifests=("pom.xml",),
    package_manager="maven",
    wrappers=("./mvnw",),
    vocabulary=_vocabulary(),
    read=_maven,
    docs="https://maven.apache.org/surefire/maven-surefire-plugin/examples/single-test.html",
    full_test="`./mvnw test` (`mvn test` without the wrapper)",
)
