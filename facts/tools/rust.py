"""Rust's tools: cargo (test, nextest, insta, clippy, build, check, fmt, doc) and rustfmt."""

from __future__ import annotations

import re

from .base import (
    Identification,
    Identified,
    Runner,
    formatter,
    has,
    installs,
    opts,
    publishes,
    system,
    tool,
    watches,
    writes,
)
from .summary import TestCounts

CARGO = Runner(
    "cargo",
    "test",
    opts(
        "-p --package --test --bin --example --bench --features -F -j --jobs --target --target-dir "
        "--manifest-path --profile --exclude --message-format --color -Z --config --lockfile-path "
        "-E --filterset --filter-expr --partition -P --retries --test-threads --cargo-profile --test-runner"
    ),
    opts(
        "-p --package --test --lib --bin --bins --example --examples --bench --benches --doc "
        "--exclude -E --filterset --filter-expr --partition --tests -F --features"
    ),
    positionals="always",
    test_binary_args=True,
    whole_scope=opts("--workspace --all-features --all-targets"),
    synonyms=(("--all", "--workspace"), ("--package", "-p"), ("--features", "-F")),
    neutral=opts("-q --quiet -v --verbose --locked --frozen --offline --release --color -j --jobs --no-fail-fast"),
)


CARGO_BUILD = Runner(
    "cargo",
    "build",
    CARGO.value_options,
    CARGO.narrowing_options,
    positionals="never",
    whole_scope=CARGO.whole_scope,
    synonyms=CARGO.synonyms,
    neutral=CARGO.neutral,
)


@tool("cargo")
def _cargo(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    sub = args[0] if args else ""
    if sub == "test" or sub == "t":
        if has(args, "--no-run"):
            return Identified(CARGO, 2, "build", "cargo test --no-run")
        return Identified(CARGO, 2, "test", "cargo test")
    if sub == "nextest" and len(tokens) > 2 and tokens[2] == "run":
        return Identified(CARGO, 3, "test", "cargo nextest run")
    if sub == "insta" and len(tokens) > 2 and tokens[2] == "test":
        if has(args, "--accept", "--review", "--accept-unseen") or has(args, "--force-update-snapshots"):
            return writes("`cargo insta test --accept/--review` rewrites snapshot files")
        return Identified(CARGO, 3, "test", "cargo insta test")  # insta's runner: cargo test (or nextest) underneath
    if sub == "insta" and len(tokens) > 2 and tokens[2] in ("accept", "review", "reject"):
        return writes(f"`cargo insta {tokens[2]}` rewrites snapshot files")
    if sub == "clippy":
        if has(args, "--fix"):
            return writes("`cargo clippy --fix` rewrites files")
        return Identified(CARGO_BUILD, 2, "lint", "cargo clippy")
    if sub in ("build", "b"):
        return Identified(CARGO_BUILD, 2, "build", "cargo build")
    if sub in ("check", "c"):
        return Identified(CARGO_BUILD, 2, "typecheck", "cargo check")
    if sub == "doc" or sub == "d":
        return Identified(CARGO_BUILD, 2, "build", "cargo doc")
    if sub == "fmt":
        return formatter("cargo fmt", args[1:], check=("--check",), head=2)
    if sub == "fix":
        return writes("`cargo fix` rewrites files")
    if sub in ("update", "generate-lockfile") or sub == "add" or sub == "rm":
        return writes(f"`cargo {sub}` rewrites Cargo.lock or Cargo.toml")
    if sub in ("publish", "release", "yank", "owner"):
        return publishes(f"`cargo {sub}` publishes to crates.io")
    if sub in ("install", "uninstall", "binstall"):
        return system(f"`cargo {sub}` installs software on the machine")
    if sub == "fetch":
        return installs("`cargo fetch` downloads the project's dependencies")
    if sub == "watch":
        return watches("`cargo watch` never finishes: a watcher is not a check")
    if sub in ("deny", "audit", "machete", "udeps", "semver-checks", "hack", "msrv", "shear"):
        if sub == "hack" and len(tokens) > 2:
            return _cargo(("cargo", *tokens[2:]))
        return Identified(CARGO_BUILD, 2, "lint", f"cargo {sub}")
    if sub == "bench":
        return Identified(CARGO, 2, "test", "cargo bench")
    if sub == "miri" and len(tokens) > 2 and tokens[2] == "test":
        return Identified(CARGO, 3, "test", "cargo miri test")
    return None


@tool("rustfmt")
def _rustfmt(tokens: tuple[str, ...]) -> Identification:
    return formatter("rustfmt", tokens[1:], check=("--check",))


@tool("cargo-nextest")
def _nextest(tokens: tuple[str, ...]) -> Identification:
    return Identified(CARGO, 2, "test", "cargo nextest run") if tokens[1:2] == ("run",) else None


_CARGO_RESULT = re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", re.MULTILINE)
_NEXTEST_SUMMARY = re.compile(r"^\s*Summary \[.*?\]\s+(\d+) tests? run: (\d+) passed(?:.*?(\d+) failed)?", re.MULTILINE)


def cargo_counts(text: str) -> TestCounts | None:
    results = _CARGO_RESULT.findall(text)
    if not results:
        return None
    return TestCounts(
        passed=sum(int(r[0]) for r in results),
        failed=sum(int(r[1]) for r in results),
        skipped=sum(int(r[2]) for r in results),
    )


def ran_no_tests(output: str) -> bool:
    results = [(int(a), int(b)) for a, b, _ in _CARGO_RESULT.findall(output)]
    return bool(results) and sum(a + b for a, b in results) == 0
