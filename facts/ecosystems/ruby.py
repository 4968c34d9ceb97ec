"""Ruby: Bundler (`bundle exec`), RSpec where `.rspec` or `spec/spec_helper.rb` says so, RuboCop, Standard."""

from __future__ import annotations

import re

from freshpass.facts.signals.base import Candidate, Collector, Package, under

from .base import Ecosystem, Vocabulary
from .base import add_convention as _convention


def _ruby(c: Collector, package: Package) -> None:
    gemfile = under(package.cwd, "Gemfile")
    has_gemfile = c.is_file(gemfile)
    if has_gemfile:
        c.manifest(gemfile)
        c.package_manager("bundler")
    prefix = "bundle exec " if has_gemfile else ""
    gems = c.read_text(gemfile) or "" if has_gemfile else ""
    spec = next(
        (under(package.cwd, n) for n in (".rspec", "spec/spec_helper.rb") if c.is_file(under(package.cwd, n))), None
    )
    if spec is not None:
        _convention(c, f"{prefix}rspec", "test", package.cwd, spec)
    if c.is_file(under(package.cwd, ".rubocop.yml")):
        c.manifest(under(package.cwd, ".rubocop.yml"))
        c.add(Candidate(f"{prefix}rubocop", package.cwd, under(package.cwd, ".rubocop.yml"), "tool", kind="lint",
                        body=(f"{prefix}rubocop",)))  # fmt: skip
    standard = c.is_file(under(package.cwd, ".standard.yml")) or re.search(r"""gem\s+["']standard["']""", gems)
    if standard:
        source = under(package.cwd, ".standard.yml") if c.is_file(under(package.cwd, ".standard.yml")) else gemfile
        c.add(Candidate(f"{prefix}standardrb", package.cwd, source, "tool", kind="lint", body=(f"{prefix}standardrb",)))


def _vocabulary() -> Vocabulary:
    return Vocabulary(
        runners=("rspec", "rake", "bundle", "rails", "ruby", "rubocop", "standardrb"),
        narrowing=("FILE:LINE", "-e/--example", "--tag", "--only-failures", "--next-failure", "TEST=", "TESTOPTS="),
        writers=("rubocop -a/-A", "standardrb --fix"),
        test_dirs=("spec", "test"),
    )


ECOSYSTEM = Ecosystem(
    name="ruby",
    title="Ruby (Bundler)",
    manifests=("Gemfile",),
    manifest_globs=("*.gemspec",),
    lockfiles=(("Gemfile.lock", "bundler"),),
    package_manager="bundler",
    wrappers=("bundle exec",),
    vocabulary=_vocabulary(),
    read=_ruby,
    docs="https://rspec.info/features/3-13/rspec-core/command-line/",
)
