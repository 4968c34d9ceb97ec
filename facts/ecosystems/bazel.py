"""Bazel: `MODULE.bazel` or `WORKSPACE`; `bazel test //...` runs every test target."""

from __future__ import annotations

from . import _summaries
from .base import Convention, Ecosystem, Vocabulary

ECOSYSTEM = Ecosystem(
    name="bazel",
    title="Bazel",
    manifests=("MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel"),
    lockfiles=(("MODULE.bazel.lock", "bazel"),),
    package_manager="bazel",
    packages=False,  # BUILD files below are packages of the one workspace
    conventions=(Convention("test", "bazel test //..."), Convention("build", "bazel build //...")),
    vocabulary=Vocabulary(
        runners=("bazel", "bazelisk"),
        narrowing=("a target pattern other than //...", "--test_filter", "--test_tag_filters"),
    ),
    summary=_summaries.bazel,
    docs="https://bazel.build/docs/user-manual#test",
)
