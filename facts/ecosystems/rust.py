"""Rust: Cargo packages and workspaces (`cargo test`, `--workspace` where a root package has members)."""

from __future__ import annotations

from freshpass.facts.signals.base import Collector, Package, under
from freshpass.facts.tools.summary import TestCounts

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention


def _cargo(c: Collector, package: Package) -> None:
    rel = under(package.cwd, "Cargo.toml")
    if not c.is_file(rel):
        return
    c.manifest(rel)
    c.package_manager("cargo")
    data = c.load_toml(rel)
    if data is None:
        return
    if "workspace" in data and "package" in data:
        # A root package with members: plain `cargo test` would test only the root package.
        flag, source = " --workspace", f"{rel}#workspace"
    elif "workspace" in data:
        flag, source = "", f"{rel}#workspace"  # virtual workspace: commands apply to every member
    elif "package" in data:
        flag, source = "", f"{rel}#package"
    else:
        c.problem(rel, "neither [package] nor [workspace]: cargo would reject this manifest")
        return
    spellings = ("cargo test --workspace", "cargo test --all") if not flag and "workspace" in data else ()
    _convention(c, f"cargo test{flag}", "test", package.cwd, source, spellings=spellings)
    _convention(c, f"cargo clippy{flag}", "lint", package.cwd, source)
    _convention(c, f"cargo build{flag}", "build", package.cwd, source)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.rust import CARGO

    return Vocabulary(
        runners=("cargo", "cargo-nextest", "rustfmt"),
        narrowing=(*sorted(CARGO.narrowing_options), "TESTNAME (a filter)", "-- --skip/--exact"),
        watch=("cargo watch",),
        writers=("cargo fix", "cargo clippy --fix", "cargo insta accept", "INSTA_UPDATE", "TRYBUILD=overwrite"),
        test_dirs=("tests",),
    )


def _counts(text: str) -> TestCounts | None:
    from freshpass.facts.tools.rust import cargo_counts

    return cargo_counts(text)


ECOSYSTEM = Ecosystem(
    name="rust",
    title="Rust (Cargo)",
    manifests=("Cargo.toml",),
    lockfiles=(("Cargo.lock", "cargo"),),
    package_manager="cargo",
    vocabulary=_vocabulary(),
    summary=_counts,
    read=_cargo,
    docs="https://doc.rust-lang.org/cargo/commands/cargo-test.html",
)
