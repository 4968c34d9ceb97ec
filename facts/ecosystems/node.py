"""Node.js: package.json scripts run through the manager its lockfile names (npm, pnpm, Yarn, Bun).

`signals/node.py` reads the scripts; this record is what the rest of facts shares about Node."""

from __future__ import annotations

from freshpass.facts.tools.summary import TestCounts

from .base import Ecosystem, Vocabulary


def _counts(text: str) -> TestCounts | None:
    from freshpass.facts.tools.node import jest_counts, mocha_counts, vitest_counts

    return jest_counts(text) or vitest_counts(text) or mocha_counts(text)


def _vocabulary() -> Vocabulary:
    from freshpass.facts.tools.node import JEST, VITEST

    return Vocabulary(
        runners=("npm", "pnpm", "yarn", "bun", "npx", "jest", "vitest", "mocha", "node --test", "eslint", "tsc"),
        narrowing=(*sorted(JEST.narrowing_options | VITEST.narrowing_options), "a test path pattern"),
        watch=("--watch", "--watchAll", "vitest (bare, in a terminal)", "dev", "serve", "start"),
        writers=("-u", "--updateSnapshot", "--update", "eslint --fix", "prettier --write"),
        test_dirs=("test", "tests", "__tests__"),
    )


ECOSYSTEM = Ecosystem(
    name="node",
    title="Node.js",
    manifests=("package.json",),
    lockfiles=(
        ("pnpm-lock.yaml", "pnpm"),
        ("bun.lockb", "bun"),
        ("bun.lock", "bun"),
        ("yarn.lock", "yarn"),
        ("package-lock.json", "npm"),
        ("npm-shrinkwrap.json", "npm"),
    ),
    package_manager="npm",
    wrappers=("npx", "pnpm exec", "yarn", "bunx", "npm exec"),
    vocabulary=_vocabulary(),
    summary=_counts,
    read=lambda c, package: None,  # signals/node.py reads package.json scripts and workspaces
    docs="https://jestjs.io/docs/cli",
)
