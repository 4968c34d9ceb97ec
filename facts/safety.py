"""What a body does besides checking, read the way a careful contributor reads it before pressing Run.

`facts.checks` follows every candidate's body through the entry points it names (nested scripts, task
dependencies, pass-through arguments); this module holds the rules it applies to what it finds there, so that the
four sorts of command a click must never run are decided in one place:

- **watchers and servers**: a body that never exits (`--watch`, bare `vitest` in a terminal) and an entry point
  named for serving or watching (`dev`, `serve`, `start`, `watch`, `preview`);
- **writers**: fixers, formatters, generators and snapshot or golden-file updates (recognised by the tool
  vocabulary, `facts.tools`), fix-enabling configuration, `rm`;
- **fetchers**: a body that brings other code onto the machine (`git clone`, `curl`/`wget` of a remote URL) and
  then runs that code is not a check of this project;
- **installers and publishers** (recognised by the tool vocabulary).

A guard is resolved rather than held against the target: a Taskfile task whose `status:` only asks whether a tool
is present (`command -v gotestsum`) is a setup step that runs only where the tool is missing, so the `test` task
that depends on it is still the project's test; its install is not part of the check.

Everything here reads text; nothing runs.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from freshpass.facts.lazyre import lazy

# `command -v gotestsum`, `which golangci-lint`, `type -p x`, `hash x`, `test -x "$(command -v x)"`, `x --version`
_TOOL_PROBE = lazy(
    r"^\s*(?:!\s*)?(?:(?:command\s+-v|which|type(?:\s+-[pP])?|hash)\s+[\w.+-]+|test\s+-[fx]\s+\S+|"
    r"\[\s+-[fx]\s+\S+\s+\]|[\w./+-]+\s+(?:--version|version))(?:\s*[>&|0-9/dvnul]*)?\s*$"
)


def is_tool_probe(line: str) -> bool:
    """Does a guard line only ask whether a tool (or file) is there? (`command -v gotestsum`, `which x`)"""
    return bool(_TOOL_PROBE.match(line))


def guarded_setup(status: Iterable[object]) -> bool:
    """A Taskfile task whose `status:` lines are all tool probes: it only prepares a tool that may be missing.
    The tasks depending on it are judged on their own commands."""
    lines = [line for line in status if isinstance(line, str)]
    return bool(lines) and all(is_tool_probe(line) for line in lines)


# -- fetchers --------------------------------------------------------------------------------------------------------

_LOOPBACK = lazy(r"^(?:https?://)?(?:localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0)(?::\d+)?(?:/|$)")
_FETCH_SUBCOMMANDS: dict[str, frozenset[str]] = {
    "git": frozenset({"clone"}),
    "gh": frozenset({"repo"}),
    "hg": frozenset({"clone"}),
    "svn": frozenset({"checkout", "co", "export"}),
}
_DOWNLOADERS = frozenset({"curl", "wget", "aria2c"})


def fetches(argv: Sequence[str]) -> str | None:
    """Why a command brings other code onto the machine (`git clone …`, `curl -O https://…`), or None.
    A request to a loopback address (a readiness probe) fetches nothing."""
    if not argv:
        return None
    program = argv[0].rsplit("/", 1)[-1]
    if program in _FETCH_SUBCOMMANDS:
        sub = next((word for word in argv[1:] if not word.startswith("-")), "")
        if sub in _FETCH_SUBCOMMANDS[program] and (program != "gh" or "clone" in argv[2:]):
            return f"`{program} {sub}` fetches another project's code"
        return None
    if program in _DOWNLOADERS:
        urls = [word for word in argv[1:] if "://" in word or word.startswith("www.")]
        if urls and not all(_LOOPBACK.match(url.split("://", 1)[-1]) for url in urls):
            return f"`{program}` downloads from the network"
    return None


# -- watchers --------------------------------------------------------------------------------------------------------

# Words of an entry point's name that say it serves or watches: `dev`, `start`, `test:watch`, `serve-docs`.
_WATCH_WORDS = frozenset({"dev", "develop", "serve", "server", "start", "watch", "preview"})
_NAME_WORDS = lazy(r"[A-Za-z][a-z]*|[A-Z]+(?![a-z])")
# vitest outside `run` (and without `--run`) watches the files in a terminal; it exits only in CI or without a TTY.
_VITEST_ONCE = frozenset({"run", "bench", "list", "typecheck", "related", "--run", "--watch=false", "--no-watch"})


_CHECK_WORDS = frozenset({"test", "tests", "spec", "specs", "lint", "check", "checks", "typecheck", "e2e", "verify"})


def watcher_name(name: str) -> bool:
    """Does an entry point's name say it serves or watches (`dev`, `start`, `devServer`), and no check
    (`test-serve` runs the tests of the server build; its body decides)?"""
    words = {word.lower() for word in _NAME_WORDS.findall(name)}
    return bool(words & _WATCH_WORDS) and not words & _CHECK_WORDS


def watches_in_terminal(argv: Sequence[str]) -> str | None:
    """Why a command never exits when a person runs it in a terminal (bare `vitest`), or None."""
    words = list(argv)
    while (words and words[0] in ("npx", "pnpx", "bunx", "exec")) or words[:2] in (["pnpm", "exec"], ["yarn", "exec"]):
        words = words[2:] if words[:1] in (["pnpm"], ["yarn"]) else words[1:]
    if words[:1] == ["vitest"] and not _VITEST_ONCE.intersection(words[1:]):
        return "bare `vitest` watches the files in a terminal (`vitest run` runs once)"
    return None


def strip_guarded(text: str) -> bool:
    """Is a script line a guarded install (`command -v x >/dev/null || go install x@latest`)? Its install runs
    only where the tool is missing: the line prepares, it does not decide what the body is."""
    head, sep, _rest = text.partition("||")
    return bool(sep) and is_tool_probe(head)
