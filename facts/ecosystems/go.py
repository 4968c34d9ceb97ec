"""Go: modules and `go.work` workspaces; every module below the root is its own unit (`go test ./...`)."""

from __future__ import annotations

from freshpass.facts.signals.base import Collector, Package, normalise_cwd
from freshpass.facts.tools.summary import TestCounts

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention

# Directories whose go.mod files are fixtures or copies of dependencies, never the project's modules.
_GO_SKIP = {"vendor", "testdata", "node_modules", "third_party", "examples", "example", "_examples", "fixtures"}


def go_work_modules(c: Collector) -> list[str] | None:
    text = c.read_text("go.work")
    if text is None:
        return None
    c.manifest("go.work")
    modules: list[str] = []
    in_block = False
    for raw in text.splitlines():
        line = raw.split("//", 1)[0].strip()
        if in_block:
            if line == ")":
                in_block = False
            elif line:
                modules.append(normalise_cwd(line.strip('"')))
        elif line.startswith("use"):
            rest = line[3:].strip()
            if rest == "(":
                in_block = True
            elif rest:
                modules.append(normalise_cwd(rest.strip('"')))
    return modules


def _go(c: Collector) -> None:
    modules = go_work_modules(c)
    source_of: dict[str, str] = {}
    for module in modules or []:
        source_of[module] = "go.work"
    if c.is_file("go.mod"):
        source_of.setdefault(".", "go.mod")
    if not source_of:
        return
    # Nested modules are their own units (`go test ./...` stops at a nested go.mod). Look one and two levels
    # down with a bounded glob: never a recursive walk.
    for shape in ("*/go.mod", "*/*/go.mod"):
        for match in c.glob(shape, 200):
            module = match.rpartition("/")[0]
            parts = module.split("/")
            if any(part in _GO_SKIP or part.startswith((".", "_")) for part in parts):
                continue
            source_of.setdefault(module, f"{module}/go.mod")
    c.package_manager("go")
    for module in sorted(source_of, key=lambda m: (m != ".", m)):
        gomod = "go.mod" if module == "." else f"{module}/go.mod"
        if not c.is_file(gomod):
            c.problem(source_of[module], f"module directory {module!r} has no go.mod")
            continue
        c.manifest(gomod)
        source = source_of[module] if module != "." else "go.mod"
        _convention(c, "go test ./...", "test", module, source)
        _convention(c, "go vet ./...", "lint", module, source)
        _convention(c, "go build ./...", "build", module, source)


def _read(c: Collector, package: Package) -> None:
    if package.cwd == ".":
        _go(c)


def _counts(text: str) -> TestCounts | None:
    from freshpass.facts.tools.go import go_counts

    return go_counts(text)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.go import GO_TEST

    return Vocabulary(
        runners=("go", "gofmt", "golangci-lint", "staticcheck"),
        narrowing=(*sorted(GO_TEST.narrowing_options), "a package other than ./..."),
        narrowing_env=(("GOFLAGS", "go test"),),
        writers=("gofmt -w", "go mod tidy", "go generate"),
    )


ECOSYSTEM = Ecosystem(
    name="go",
    title="Go",
    manifests=("go.mod",),
    root_markers=("go.work",),
    lockfiles=(("go.sum", "go"),),
    package_manager="go",
    vocabulary=_vocabulary(),
    summary=_counts,
    read=_read,
    root_only=True,
    docs="https://pkg.go.dev/cmd/go#hdr-Test_packages",
    full_test="`go test ./...` in each module",
)
