"""Haskell with Stack: `stack.yaml` next to the package's `.cabal` or `package.yaml`; `stack test`."""

from __future__ import annotations

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

ECOSYSTEM = Ecosystem(
    name="haskell_stack",
    title="Haskell (Stack)",
    manifests=("stack.yaml",),
    lockfiles=(("stack.yaml.lock", "stack"),),
    package_manager="stack",
    conventions=(Convention("test", "stack test"), Convention("build", "stack build")),
    vocabulary=Vocabulary(
        runners=("stack",),
        narrowing=("a target (`pkg:test:unit`)", "--ta / --test-arguments (a tasty -p or hspec -m filter)"),
        watch=("--file-watch",),
        test_dirs=("test",),
    ),
    summary=_summaries.haskell,
    supersedes=("haskell_cabal",),  # a Stack project's .cabal is Stack's to build
    docs="https://docs.haskellstack.org/en/stable/commands/build_command/",
)
