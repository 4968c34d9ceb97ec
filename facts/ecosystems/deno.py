"""Deno: deno.json(c) tasks and `deno test`; `signals/node.py` reads the tasks."""

from __future__ import annotations

from .base import Ecosystem, Vocabulary

ECOSYSTEM = Ecosystem(
    name="deno",
    title="Deno",
    manifests=("deno.json", "deno.jsonc"),
    lockfiles=(("deno.lock", "deno"),),
    package_manager="deno",
    vocabulary=Vocabulary(
        runners=("deno",),
        narrowing=("--filter", "a test file"),
        watch=("--watch",),
        writers=("deno fmt (without --check)", "deno lint --fix"),
    ),
    read=lambda c, package: None,  # signals/node.py reads deno tasks
    docs="https://docs.deno.com/runtime/reference/cli/test/",
)
