"""Go's tools: go test/vet/build, gofmt and goimports, golangci-lint and other linters."""

from __future__ import annotations

import re

from .base import Identification, Identified, Runner, has, installs, opts, prints, system, tool, writes
from .generic import LINT_PATHS
from .summary import TestCounts

GO_TEST = Runner(
    "go test",
    "test",
    opts(
        "-run -skip -count -timeout -tags -p -parallel -cpu -bench -benchtime -coverprofile "
        "-covermode -coverpkg -o -exec -vet -ldflags -gcflags -asmflags -mod -modfile -C -shuffle "
        "-list -outputdir -cpuprofile -memprofile -blockprofile -mutexprofile -trace -fuzz "
        "-fuzztime"
    ),
    opts("-run -skip -list -fuzz"),
    positionals="packages",
    whole_scope=opts("./..."),
    neutral=opts("-v -race -count -timeout -cover -coverprofile -covermode -p -parallel -short -failfast -json"),
)
GO_PACKAGES = Runner(
    "go", "lint", GO_TEST.value_options, frozenset(), positionals="packages", whole_scope=opts("./...")
)


@tool("go")
def _go(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "test":
        if has(args, "-list", "--list"):
            return prints("go test -list lists tests without running them")
        updating = [t for t in args if re.match(r"^--?(update|regen|golden|accept|overwrite)\b", t)]
        if updating:
            return writes(f"go test {updating[0]} rewrites golden or expected-output files")
        return Identified(GO_TEST, 2, "test", "go test")
    if sub == "vet":
        return Identified(GO_PACKAGES, 2, "lint", "go vet")
    if sub == "build":
        return Identified(GO_PACKAGES, 2, "build", "go build")
    if sub in ("fmt", "fix", "generate"):
        return writes(f"`go {sub}` rewrites files")
    if sub == "mod" and args[1:2] in (("tidy",), ("vendor",), ("edit",), ("init",)):
        return writes(f"`go mod {args[1]}` rewrites go.mod, go.sum or vendor/")
    if sub == "mod" and args[1:2] == ("verify",):
        return Identified(GO_PACKAGES, 3, "lint", "go mod verify")
    if sub == "install":
        return system("`go install` installs software on the machine")
    if sub == "get":
        targets = [t for t in args[1:] if not t.startswith("-")]
        if any("@" in t or not t.startswith((".", "/")) for t in targets):
            return writes("`go get MODULE@VERSION` rewrites go.mod")
        return installs("`go get ./...` downloads the project's dependencies")
    if sub == "mod" and args[1:2] == ("download",):
        return installs("`go mod download` downloads the project's modules")
    return None


@tool("gofmt", "goimports", "gofumpt")
def _gofmt(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    if has(args, "-w"):
        return writes(f"`{head} -w` rewrites files")
    if has(args, "-l", "-d"):
        return Identified(LINT_PATHS, 1, "lint", head)
    return prints(f"`{head}` without -l or -d only prints the formatted source")


@tool("golangci-lint", "staticcheck", "revive", "golint", "govulncheck", "errcheck", "gosec", "ineffassign")
def _go_linters(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    sub = args[0] if args else ""
    if has(args, "--fix"):
        return writes(f"`{head} --fix` rewrites files")
    if head == "golangci-lint" and sub == "fmt":
        return writes("`golangci-lint fmt` rewrites files")
    if head == "golangci-lint" and sub in ("linters", "help", "version", "cache", "config", "completion"):
        return prints(f"`golangci-lint {sub}` does not lint")
    skip = 2 if head == "golangci-lint" and sub == "run" else 1
    return Identified(GO_PACKAGES, skip, "lint", head)


_GO_PACKAGE_LINE = re.compile(r"^(ok|FAIL|\?)\s+\S+.*$", re.MULTILINE)
_GO_VERDICT = re.compile(r"^\s*--- (PASS|FAIL|SKIP): ", re.MULTILINE)


def go_counts(text: str) -> TestCounts | None:
    verdicts = _GO_VERDICT.findall(text)
    if not verdicts:
        return None
    return TestCounts(verdicts.count("PASS"), verdicts.count("FAIL"), verdicts.count("SKIP"))


def ran_no_tests(output: str) -> bool:
    lines = [m.group(0) for m in _GO_PACKAGE_LINE.finditer(output)]
    return bool(lines) and all("[no test files]" in ln or "[no tests to run]" in ln for ln in lines)
