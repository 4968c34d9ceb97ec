"""From candidates to checks (design §2): what each declared thing runs, which are the same check, which one a
contributor runs, and what is set aside and why.

1. **Bodies, not names.** Each candidate's body is read with the one tool vocabulary (`facts.tools`), following
   references into other entry points (`$(MAKE) lint`, `npm run lint && npm test`, a CI step's `make richtest`, a
   repository script a line runs by path). What it runs decides: anything that rewrites files, commits, tags,
   publishes or releases is never a check; a body that never exits is a watcher; one that installs packages
   changes the environment first; otherwise the kinds of the checks it runs give its kind. The name decides only
   when the body says nothing (a Python script, `docker compose run app pytest`), and then only a plain name
   (`test`, `lint`) makes a check on its own: `cov:mac` or `build:crypto` with an unreadable body is not proposed.
2. **One check, many spellings.** Candidates are the same check when their canonical invocations are equal
   (`nox -v -s tests` ≡ `nox --session tests`, `cargo test --all` ≡ `--workspace`), when a wrapper runs exactly
   one check of its kind (`make test` whose recipe is `go test ./...`), or when a tool's configuration, a
   convention or the docs name the suite a stronger entry point already runs (bare `ruff check` next to `make
   lint` running it; `cargo test` next to `just test` running nextest). Each group is one check; its best-ranked
   member is the primary spelling, the others its equivalents. A check another one of its kind runs together
   with more (`pnpm test-unit` inside `pnpm test`) is set aside as narrower.
3. **Ranked as a contributor sees it.** explicit configuration > local entry points (wrapper scripts, Make/just/
   Task targets, package scripts, tox and nox, composer, rake, spin) > commands only the contributor docs give >
   tool configuration through the environment manager > ecosystem convention > CI. Within a tier: named in the
   contributor docs first, then an exact name (`test`, not `test-ci`), then run by CI too, then the tool's
   default, then the root before a sub-project.
4. **CI is a fallback**, only for a kind nothing local declares, and only for steps a contributor can run: no
   workflow expressions, no `$GITHUB_*`, no variables only CI sets, no tool only the job installs, no directory
   another repository's checkout or a build creates, no ignored failure, not pull-request-only. A CI step that
   matches a local check corroborates it; one narrower than it is set aside as narrower.
5. **Packages** of a workspace get their own checks (with `cwd`) for a kind the root declares nothing for.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import cast

from freshpass.facts.lazyre import lazy
from freshpass.facts.model import KINDS, Kind, Origin, ProjectFacts, SetAside, SetAsideReason, VerifyCommand
from freshpass.facts.safety import fetches, is_tool_probe, watcher_name, watches_in_terminal
from freshpass.facts.shell import ScriptCommand, join_words, script_commands
from freshpass.facts.signals.base import Candidate, Collector, EntryPoint
from freshpass.facts.signals.ci import EXPRESSION, StepContext
from freshpass.facts.signals.docs import PACKAGE_DOCS
from freshpass.facts.tools import (
    Effect,
    Identified,
    Invocation,
    NotEvidence,
    Rejected,
    identify,
    name_kind,
    name_stem,
    names_kind,
    narrowing_of,
    script_kind,
    suite_of,
)
from freshpass.facts.tools import normalise as normalise_words
from freshpass.facts.tools.base import TEST_DIRS
from freshpass.facts.tools.generic import SCRIPT_SUFFIXES, is_plain_utility

_TIERS: dict[Origin, int] = {"explicit": 0, "local": 1, "docs": 2, "tool": 3, "convention": 4, "ci": 5}
_EXACT_NAMES: dict[Kind, frozenset[str]] = {
    "test": frozenset({"test", "tests", "py", "spec", "specs"}),
    "lint": frozenset({"lint", "linters"}),
    "typecheck": frozenset({"typecheck", "type-check", "types", "typing", "mypy"}),
    "build": frozenset({"build", "all"}),
    "check": frozenset(
        {"check", "checks", "all", "default", "verify", "ok", "ci", "precommit", "pre-commit", "validate"}
    ),
}


_UMBRELLAS = frozenset({"all", "default", "ok", "ci"})


def _name_says(name: str) -> Kind | None:
    """The check kind a name says: an exact name (`all`, `default`, `ok` are whole checks) or what `name_kind`
    reads in it (`test:unit` is a test)."""
    lowered = name.lower()
    stem = name_stem(lowered) if lowered else ""
    for kind in ("test", "lint", "typecheck", "check", "build"):
        if lowered in _EXACT_NAMES[kind] or stem in _EXACT_NAMES[kind]:
            return cast(Kind, kind)
    return name_kind(name) if name else None


# Names of entry points meant for CI: coverage uploads, junit reports, `test-ci`. A contributor runs the plain one.
_CI_FLAVOURED = lazy(r"(^|[:_-])(ci|cibuild|coverage-ci|ci-check.*|github|gha|junit|report)($|[:_-])")
# A script kept for CI (`ci/test.sh`, `.ci/run-tests`): what CI runs, not a contributor's entry point.
_CI_SCRIPT = lazy(r"^\.?ci/[^/]+$")
_CI_NAMED = lazy(r"(^|[.:_-])ci($|[.:_-])")
_MAX_DEPTH = 6
_MAX_COMMANDS = 2000  # per candidate, references included
_MAX_SCRIPT_BYTES = 256 * 1024
# Variables any shell has: a command using them is still runnable outside CI.
_COMMON_VARIABLES = frozenset(
    {"HOME", "PWD", "PATH", "USER", "SHELL", "TMPDIR", "CI", "OLDPWD", "PYTHON", "PYTHONPATH", "GOPATH", "GOBIN"}
)
_CI_VARIABLE = lazy(r"\$\{?(GITHUB_|RUNNER_|ACTIONS_|INPUT_)")
_VARIABLE_NAME = lazy(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")
# Directories a build or CI step creates: a check run there is not runnable on a fresh clone.
_ARTEFACT_DIR = lazy(r"(^|/)(dist|build|target|out|_build|site|coverage|\.tox|\.nox|node_modules)(/|$)")
# What a body line holds that only its tool fills in (`{envtmpdir}`, `$(BINARY)`, `${{ matrix.x }}`).
_BROWSER_SUITES = frozenset({"playwright test", "cypress run", "playwright run", "cypress test"})
# Release packaging: a build of every platform and archive the release configuration lists, not the local build.
_RELEASE_BUILD_SUITES = frozenset({"goreleaser build"})
_CONTAINERS = lazy(r"^(docker|podman|docker-compose|nerdctl|kubectl|vagrant|earthly)\b")
# A run naming a workspace package (`bun run --filter web test`): freshpass reads it in that package.
_WORKSPACE_FILTER = lazy(r"(^|\s)(--filter|-F|--workspace|-w)(\s|=)")
_PLACEHOLDERS = lazy(r"\{[a-z_]+\}|\$\(|\$\{")
_PLACEHOLDER = lazy(r"<[A-Za-z][\w .-]*>|\.\.\.\s*$|\[[A-Za-z_-]+\]")
_ASSIGNMENT = lazy(r"^[A-Za-z_][A-Za-z0-9_]*=")


# -- canonical forms -----------------------------------------------------------------------------------------------

Key = tuple[str, tuple[str, ...]]  # (cwd relative to the root, canonical tokens)


def canonical_tokens(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """One spelling per check: package managers' `run` unified, option synonyms applied, options that change only
    how a run reports dropped, options sorted; positionals keep their order; a tox env's or nox session's
    pass-through arguments (`-- -n auto`) are the person's own."""
    if not tokens:
        return tokens
    if len(tokens) >= 3 and tokens[0] in ("npm", "pnpm", "yarn", "bun") and tokens[1] == "run":
        return ("<package-script>", tokens[2], *tokens[3:])
    found = identify(tokens)
    if not isinstance(found, Identified):
        return tokens
    runner = found.runner
    head, rest = tokens[: found.head], tokens[found.head :]
    if runner.passthrough_narrows and "--" in rest:
        rest = rest[: rest.index("--")]
    synonyms = dict(runner.synonyms)
    positionals: list[str] = []
    options: list[str] = []
    i = 0
    while i < len(rest):
        token = rest[i]
        if token == "--":
            positionals.extend(rest[i:])
            break
        if token.startswith("-") and token != "-":
            name, eq, value = token.partition("=")
            name = synonyms.get(name, name)
            takes_value = name in runner.value_options and not eq and i + 1 < len(rest)
            if name in runner.neutral:
                i += 2 if takes_value else 1
                continue
            if takes_value:
                options.append(f"{name}={rest[i + 1]}")
                i += 2
                continue
            options.append(f"{name}={value}" if eq else name)
            i += 1
            continue
        if not positionals and token in runner.leading_words:
            i += 1
            continue
        positionals.append(token)
        i += 1
    return (*head, *positionals, *sorted(options))


def _relative(cwd: Path | None, root: Path) -> str | None:
    """`cwd` relative to `root` in POSIX form (both normalised), None when unknown or outside."""
    if cwd is None:
        return None
    here, base = os.fspath(cwd), os.fspath(root)
    if here == base:
        return "."
    prefix = base if base.endswith(os.sep) else base + os.sep
    if not here.startswith(prefix):
        return None
    return here[len(prefix) :].replace(os.sep, "/")


# -- reading bodies ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """A check a body runs."""

    key: Key
    kind: Kind
    suite: str  # what it is a run of: "pytest:test", "cargo:test" (cargo test and nextest alike), "flake8"
    text: str  # as written
    full: bool  # no narrowing arguments
    env_dependent: bool  # variables set for it (`X=1 pytest`, or exported before it)
    reference: bool = False  # an entry point it runs (`make lint`), whose own body is read too
    depth: int = 0  # 0: written in the body itself; more: inside an entry point it runs
    named: bool = False  # its kind comes only from a name (`sh check.sh`): weaker than the runner's own name
    covers: frozenset[Kind] = frozenset()  # kinds an umbrella runs too (`gradle check` runs the tests)


_PREFIXED = re.compile(r"\$(?:\{[A-Za-z_]\w*\}(?:[^$`\\\s]*/)?|[A-Za-z_]\w*/(?:[^$`\\\s]*/)?)([\w.+-]+)")


def prefixed_program(word: str) -> str | None:
    """The program a word names behind a directory variable (`${PREFIX}ruff`, `$VENV/bin/pytest` → `ruff`,
    `pytest`), or None when the variable is the whole program (`$CC`) or more of it is expanded."""
    match = _PREFIXED.fullmatch(word)
    return match.group(1) if match else None


@dataclass
class Analysis:
    runs: list[Run] = field(default_factory=list)
    effect: NotEvidence | None = None  # destructive or never-ending, with its reason
    installs: list[str] = field(default_factory=list)  # software it installs on the machine
    unknown: list[str] = field(default_factory=list)  # commands freshpass does not know
    blockers: list[str] = field(default_factory=list)  # why it cannot run outside CI
    ignored: int = 0  # checks whose failure does not fail the body (`pytest || true`)
    fetches: list[str] = field(default_factory=list)  # why it brings other code onto the machine (`git clone`)
    terminal_watch: list[str] = field(default_factory=list)  # why it never exits in a terminal (bare `vitest`)

    def kinds(self) -> list[Kind]:
        return list(dict.fromkeys(run.kind for run in self.runs))

    def known_kinds(self) -> list[Kind]:
        """Kinds known from what runs, not from what something is called."""
        return list(dict.fromkeys(run.kind for run in self.runs if not run.named))

    def absorb(self, other: Analysis) -> None:
        if other.effect is not None and (
            self.effect is None or (self.effect.effect == "watches" and other.effect.destructive)
        ):
            self.effect = other.effect
        self.installs.extend(i for i in other.installs if i not in self.installs)
        self.ignored += other.ignored
        self.blockers.extend(b for b in other.blockers if b not in self.blockers)
        self.runs.extend(other.runs)
        self.unknown.extend(other.unknown)


_SEVERITY = {"watches": 0, "writes": 1, "publishes": 2}
_DOING = {"writes": "rewrites files (its argument says so)", "publishes": "publishes (its argument says so)"}
_VERB = lazy(r"^[a-z][a-z:_-]*$")
# Interpreters the wrappers leave in place before a script they run (`perl tools/run.pl test`); python, node, ruby,
# php, the shells and PowerShell are peeled off by the wrappers already, and `go run` and friends are read here.
_INTERPRETERS = frozenset({"perl"})
_FILTERS = frozenset({"--filter", "-F", "-w", "--workspace", "workspace"})


def _worse(current: NotEvidence | None, found: NotEvidence) -> NotEvidence:
    """What a body does that disqualifies it most: publishing over rewriting files over never finishing."""
    if current is None or _SEVERITY.get(found.effect, -1) > _SEVERITY.get(current.effect, -1):
        return found
    return current


# Variables that change how a run looks or where it caches, not what it checks.
_BENIGN_VARIABLES = frozenset(
    {
        "PATH", "CI", "FORCE_COLOR", "NO_COLOR", "TERM", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "SHELL",
        "LANG", "LANGUAGE", "TZ", "COLUMNS", "RUST_BACKTRACE", "CARGO_TERM_COLOR", "PY_COLORS", "CLICOLOR",
        "CLICOLOR_FORCE", "GOFLAGS", "GOOS", "GOARCH", "CGO_ENABLED", "HOME", "TMPDIR", "NODE_ENV", "VERBOSE",
        "RICHGO_FORCE_COLOR",
    }
)  # fmt: skip


def _env_dependent(command: ScriptCommand, exported: set[str]) -> bool:
    """Does the command set variables the tool reads for what to check (`DJANGO_SETTINGS_MODULE=… pytest`)?"""
    assigned = {
        w.text.split("=", 1)[0]
        for w in command.words
        if "=" in w.text and not w.quoted and w.text[:1].isalpha() and w.text.split("=", 1)[1]
    }
    names = {n for n in assigned | exported if n not in _BENIGN_VARIABLES and not n.startswith("LC_")}
    return bool(names)


class Reader:
    """Reads candidates' bodies against the entry points of one repository."""

    def __init__(self, c: Collector) -> None:
        self.c = c
        self.root = Path(os.path.normpath(c.root))
        self._parsed: dict[tuple[str, str], list[tuple[Invocation | None, ScriptCommand, Rejected | None]]] = {}
        self.entries: dict[Key, EntryPoint] = {}
        for entry in c.entry_points:
            for key in self.keys_of(entry.command, entry.cwd):
                self.entries.setdefault(key, entry)
        self._memo: dict[tuple[Key, tuple[str, ...]], Analysis] = {}
        self._loaded_packages: dict[str, dict[str, str]] = {}

    def keys_of(self, command: str, cwd: str) -> list[Key]:
        """Canonical keys of the commands a line runs (one for a simple command)."""
        keys: list[Key] = []
        for invocation, _command in self.invocations(command, cwd):
            rel = _relative(invocation.cwd, self.root)
            if rel is not None:
                keys.append((rel, canonical_tokens(invocation.tokens)))
        return keys

    def key_of(self, command: str, cwd: str) -> Key | None:
        keys = self.keys_of(command, cwd)
        return keys[-1] if keys else None

    def invocations(self, text: str, cwd: str) -> Iterable[tuple[Invocation, ScriptCommand]]:
        for invocation, command, _rejected in self._invocations(text, cwd):
            if invocation is not None:
                yield invocation, command

    def _invocations(self, text: str, cwd: str) -> list[tuple[Invocation | None, ScriptCommand, Rejected | None]]:
        """What a line runs, read once per (line, place): the same bodies are reached from many entry points."""
        found = self._parsed.get((text, cwd))
        if found is None:
            found = self._parsed[(text, cwd)] = list(self._read_invocations(text, cwd))
        return found

    def _read_invocations(
        self, text: str, cwd: str
    ) -> Iterable[tuple[Invocation | None, ScriptCommand, Rejected | None]]:
        directory: Path | None = Path(os.path.normpath(self.root / cwd))
        for command in script_commands(text):
            argv = command.argv
            if argv[:1] in (("cd",), ("pushd",)):
                target = argv[1] if len(argv) > 1 else ""
                if command.words[1:2] and command.words[1].expands:
                    directory = None
                elif target and directory is not None:
                    directory = Path(os.path.normpath(directory / os.path.expanduser(target)))
                continue
            if argv[:1] == ("popd",):
                directory = Path(os.path.normpath(self.root / cwd))
                continue
            result = normalise_words(argv, directory, self.root)
            if isinstance(result, list):
                for invocation in result:
                    yield self._in_workspace_package(invocation), command, None
            elif isinstance(result, Rejected):
                yield None, command, result

    def _in_workspace_package(self, invocation: Invocation) -> Invocation:
        """`bun run --filter frontend lint`, `pnpm -F web test`, `npm -w api run build`: the package's own script,
        run in its directory (when the filter names exactly one package of the workspace)."""
        filters = [a.split("=", 1)[1] for a in invocation.wrapper_args if a.split("=", 1)[0] in _FILTERS]
        if len(filters) != 1 or not invocation.tokens[:2] or invocation.tokens[1] != "run":
            return invocation
        name = filters[0].strip("'\"")
        cwd = self.c.package_names.get(name)
        if cwd is None and name.startswith("./"):
            cwd = name[2:].rstrip("/")
        if cwd is None:
            cwd = next((d for d in self.c.node_managers if d.rsplit("/", 1)[-1] == name), None)
        if cwd is None:
            return invocation
        return Invocation(invocation.tokens, Path(os.path.normpath(self.root / cwd)))

    def analyse(self, candidate: Candidate) -> Analysis:
        analysis = Analysis()
        if candidate.body is None:
            analysis.unknown.append("(its body is not shell)")
            return analysis
        # An entry point's own body does not name itself; a CI step or a docs line naming one is read through it.
        own_keys = (
            set(self.keys_of(candidate.command, candidate.cwd)) if candidate.origin not in ("ci", "docs") else set()
        )
        for text in candidate.body:
            self._read(text, candidate.cwd, analysis, own_keys, 0, candidate.ci)
        return analysis

    def _entry(self, key: Key) -> tuple[EntryPoint, tuple[str, ...]] | None:
        """The entry point a run names, and the arguments the run adds to it (`npm run lint -- --fix`)."""
        cwd, tokens = key
        for length in range(len(tokens), 0, -1):
            entry = self.entries.get((cwd, tokens[:length]))
            extra = tokens[length:]
            if entry is None:
                continue
            if length == 1 and any(not t.startswith("-") and "=" not in t for t in extra):
                break  # `make test-full` is another target than bare `make`, not `make` with an argument
            return entry, extra
        if tokens[:1] in (("make",), ("gmake",)) and len(tokens) > 1 and cwd in self.c.make_files:
            from freshpass.facts.signals.tasks import instantiate

            target = next((t for t in tokens[1:] if not t.startswith("-") and "=" not in t), None)
            lines = instantiate(self.c.make_files[cwd], target) if target else None
            if lines is not None:
                entry = EntryPoint(f"make {target}", cwd, "Makefile", tuple(lines), target or "")
                self.entries[(cwd, ("make", target or ""))] = entry
                return entry, ()
        if tokens[:1] == ("<package-script>",) and len(tokens) > 1:
            scripts = self._package_scripts(cwd)
            if tokens[1] in scripts:
                return self.entries[(cwd, tokens[:2])], tokens[2:]
        script = self._script_entry(cwd, tokens)
        return (script, tokens[1:]) if script is not None else None

    def _package_scripts(self, cwd: str) -> dict[str, str]:
        """The scripts of a package.json that no workspace declaration named (`cd web/ui && npm run build`),
        read when a line runs one, registered as entry points."""
        if cwd in self._loaded_packages:
            return self._loaded_packages[cwd]
        rel = "package.json" if cwd == "." else f"{cwd}/package.json"
        data = self.c.load_json(rel) if self.c.is_file(rel) else None
        scripts = data.get("scripts") if isinstance(data, dict) else None
        found = {str(k): v for k, v in scripts.items() if isinstance(v, str)} if isinstance(scripts, dict) else {}
        for name, body in found.items():
            entry = EntryPoint(f"npm run {name}", cwd, f"{rel}#scripts.{name}", (body,), name)
            self.entries.setdefault((cwd, ("<package-script>", name)), entry)
        self._loaded_packages[cwd] = found
        return found

    def _script_entry(self, cwd: str, tokens: tuple[str, ...]) -> EntryPoint | None:
        """A shell script of the repository a line runs by path (`script/fmt`, `./ci/test-complete`)."""
        program = tokens[0] if tokens else ""
        if "/" not in program or program.startswith(("/", "-", "$")):
            return None
        rel = os.path.normpath(os.path.join(cwd, program)).replace(os.sep, "/")
        if rel.startswith("..") or not self.c.is_file(rel):
            return None
        text = self.c.read_text(rel) if self.c.path(rel).stat().st_size <= _MAX_SCRIPT_BYTES else None
        if text is None:
            return None
        first = text.splitlines()[0] if text else ""
        interpreted = os.path.splitext(rel)[1] in (".rb", ".py", ".js", ".mjs", ".cjs", ".ts", ".pl", ".php", ".lua")
        shell = not interpreted and (not first.startswith("#!") or any(s in first for s in ("sh", "bash", "zsh")))
        found = identify((program,))
        in_tests = bool(TEST_DIRS.intersection(Path(rel).parts[:-1]))  # `test/runner.rb`: a script of the suite
        plain = isinstance(found, Identified) and (_plain_name(name_stem(program), found.kind) or in_tests)
        kind = found.kind if isinstance(found, Identified) and not shell and plain else None
        if in_tests and not shell and kind in (None, "check"):
            kind = "test"  # a program kept with the tests (`tests/check_app.py`) is a run of the suite
        entry = EntryPoint(program, cwd, rel, (text,) if shell else None, name_stem(program), kind)
        self.entries[(cwd, (program,))] = entry
        return entry

    def _read(self, text: str, cwd: str, into: Analysis, skip: set[Key], depth: int, ci: StepContext | None) -> None:
        exported: set[str] = set()
        guarded = False  # the last command asked whether a tool is there (`command -v x || go install x`)
        for invocation, command, rejected in self._invocations(text, cwd):
            if len(into.runs) + len(into.unknown) > _MAX_COMMANDS:
                return
            self.c.check_time()
            argv = command.argv
            probe, guarded = guarded, False
            if command.failure_ignored and is_tool_probe(command.text):
                guarded = True
                continue
            fetched = fetches(argv)
            if fetched is not None:
                into.fetches.append(fetched)
                continue
            watching = watches_in_terminal(argv)
            if watching is not None:
                into.terminal_watch.append(watching)
            if rejected is not None:
                if rejected.writes and into.effect is None:
                    into.effect = NotEvidence(rejected.reason, "writes")
                continue
            assert invocation is not None
            tokens = invocation.tokens
            if argv[:1] == ("export",):
                exported.update(a.split("=", 1)[0] for a in argv[1:] if "=" in a)
                continue
            head_word = next((w for w in command.words if "=" not in w.text or w.quoted), None)
            if head_word is not None and head_word.expands and tokens and "$" in tokens[0]:
                program = prefixed_program(tokens[0])
                if program is None:
                    into.unknown.append(command.text)
                    continue
                tokens = (program, *tokens[1:])  # `${PREFIX}ruff check --fix`: a run of ruff from some directory
                peeled = normalise_words(tokens, invocation.cwd, self.root)  # `${PREFIX}coverage run -m pytest`
                if isinstance(peeled, list) and len(peeled) == 1:
                    tokens = peeled[0].tokens
            rel = _relative(invocation.cwd, self.root)
            key: Key | None = (rel, canonical_tokens(tokens)) if rel is not None else None
            if ci is not None:
                self._ci_blockers(command, invocation, rel, ci, into)
            found = self._entry(key) if key is not None and key not in skip and depth < _MAX_DEPTH else None
            if found is not None and key is not None:
                entry, extra = found
                if "--" in tokens and not extra:
                    extra = tokens[tokens.index("--") :]  # `nox -s tests -- -k x`: the key leaves the person's own out
                if entry.body is None and entry.kind is None and self._told_to_write(tokens, command, into):
                    continue
                before = len(into.runs)
                self._read_reference(entry, extra, key, command, exported, into, skip, depth, ci)
                if invocation.wrapper_args:  # `TEST_FILTER=x make test`: the environment selects part of it
                    into.runs[before:] = [replace(run, full=False) for run in into.runs[before:]]
                continue
            # a PowerShell script before `./build` is read by its name alone
            if self._told_run(tokens, rel, key, command, exported, depth, into, powershell_only=True):
                continue
            identified = identify(tokens)
            if isinstance(identified, NotEvidence):
                if identified.effect in ("writes", "publishes", "watches"):
                    into.effect = _worse(into.effect, identified)
                elif identified.effect == "system" and not probe:
                    into.installs.append(command.text)
                continue
            if isinstance(identified, Identified):
                if command.failure_ignored or command.condition:
                    into.ignored += 1
                    continue
                writes = self._configured_to_write(identified, tokens, rel)
                # output redirected over a file of the repository (`> docs/cli.md`) rewrites it; into a file a run
                # makes (`> tmp.out`) it is a by-product
                tracked = next(
                    (
                        t
                        for t in command.writes_to
                        if rel is not None
                        and not t.startswith(("/", "$", "~"))
                        and self.c.is_file(posixpath.normpath(posixpath.join(rel, t)))
                    ),
                    None,
                )
                if writes is None and tracked is not None:
                    writes = f"`{command.text}` writes its output over `{tracked}`, a file of the repository"
                if writes is not None:
                    into.effect = _worse(into.effect, NotEvidence(writes, "writes"))
                    continue
                identified = self._configured_kind(identified, tokens, rel)
                narrowing = narrowing_of(tokens[identified.head :], identified, invocation.cwd, self.root)
                narrowing.reasons.extend(invocation.wrapper_args)
                if narrowing and rel is not None and self._whole_suite(rel, identified, narrowing.reasons):
                    narrowing.reasons.clear()
                env = _env_dependent(command, exported)
                if key is not None:
                    run = Run(
                        key, identified.kind, suite_of(identified), command.text, not narrowing, env, False, depth
                    )
                    into.runs.append(replace(run, covers=identified.covers) if identified.covers else run)
                continue
            if tokens[:1] == ("rm",) and rel is not None:
                removed = self._removes_tracked(tokens[1:], rel)
                if removed is not None:
                    into.effect = _worse(into.effect, NotEvidence(f"`{command.text}` deletes {removed}", "writes"))
                continue  # removing what a run made (`rm -rf build`, `rm -r test/dest`) is cleaning up
            if (tokens and is_plain_utility(tokens[0])) or argv[:1] in (("set",), ("source",), (".",), ("exit",)):
                continue
            if self._told_to_write(tokens, command, into):
                continue
            if self._told_run(tokens, rel, key, command, exported, depth, into):
                continue
            into.unknown.append(command.text)

    def _configured_to_write(self, found: Identified, tokens: tuple[str, ...], cwd: str | None) -> str | None:
        """Why a checker writes because its configuration says so (`[tool.ruff] fix = true` under a bare
        `ruff check`), or None."""
        if found.runner.name != "ruff check" or cwd is None or "--no-fix" in tokens or "--diff" in tokens:
            return None
        places = _places_above(cwd)
        if not any(self.c.tool_settings.get(f"{place}:ruff.fix") for place in places):
            return None
        return f"`{join_words(tokens)}` rewrites files: the ruff configuration sets fix = true"

    def _removes_tracked(self, args: tuple[str, ...], cwd: str) -> str | None:
        """What of the repository's own files an `rm` deletes (`rm testdata/*.golden`), or None when it removes
        only what is not there in a checkout (build output, a run's leftovers) or cannot be told (`rm -rf $DIR`)."""
        for arg in args:
            if arg.startswith("-") or "$" in arg or arg.startswith(("/", "~")):
                continue
            rel = posixpath.normpath(posixpath.join(cwd, arg))
            if rel.startswith("..") or rel == ".":
                return f"`{arg}`" if rel == "." else None
            if any(ch in arg for ch in "*?["):
                parent = posixpath.dirname(rel) or "."
                pattern = posixpath.basename(rel)
                if any(ch in parent for ch in "*?[") or not self.c.is_dir(parent):
                    continue
                hits = [name for name in self.c.listdir(parent)[:_MAX_LISTED] if fnmatch.fnmatchcase(name, pattern)]
                if hits:
                    return f"files of the repository (`{arg}`)"
            elif self.c.is_file(rel) or self.c.is_dir(rel):
                return f"`{arg}`, part of the repository"
        return None

    def _configured_kind(self, found: Identified, tokens: tuple[str, ...], cwd: str | None) -> Identified:
        """`tsc` builds unless its project says `"noEmit": true` (followed through `extends`): then it only checks
        types, as `tsc --noEmit` does."""
        if found.runner.name != "tsc" or found.kind != "build" or cwd is None:
            return found
        args = tokens[1:]
        project = "tsconfig.json"
        for index, token in enumerate(args):
            if token in ("-p", "--project") and index + 1 < len(args):
                project = args[index + 1]
            elif token.startswith("--project="):
                project = token.partition("=")[2]
        rel = posixpath.normpath(posixpath.join(cwd, project))
        if not rel.endswith(".json"):
            rel = posixpath.join(rel, "tsconfig.json")
        for _ in range(4):  # `extends` chains are short; bounded all the same
            if rel.startswith("..") or not self.c.is_file(rel):
                return found
            data = self.c.load_json(rel, comments=True)
            options = data.get("compilerOptions") if isinstance(data, dict) else None
            if isinstance(options, dict) and "noEmit" in options:
                if options["noEmit"] is True:
                    return replace(found, kind="typecheck", label=f"{found.label} --noEmit")
                return found
            parent = data.get("extends") if isinstance(data, dict) else None
            if not isinstance(parent, str) or not parent.startswith("."):
                return found  # a package's shared config (`@tsconfig/node20`) is not read
            rel = posixpath.normpath(posixpath.join(posixpath.dirname(rel), parent))
            if not rel.endswith(".json"):
                rel += ".json"
        return found

    def _told_to_write(self, tokens: tuple[str, ...], command: ScriptCommand, into: Analysis) -> bool:
        """An unknown program told what to do by a verb: `scripts/main.py generate`, `./tools/release.sh publish`."""
        said = next((script_kind(w) for w in tokens[1:] if _VERB.match(w) and script_kind(w) in _DOING), None)
        if said is None:
            return False
        into.effect = _worse(into.effect, NotEvidence(f"`{command.text}` {_DOING[said]}", cast(Effect, said)))
        return True

    def _told_run(
        self,
        tokens: tuple[str, ...],
        cwd: str | None,
        key: Key | None,
        command: ScriptCommand,
        exported: set[str],
        depth: int,
        into: Analysis,
        *,
        powershell_only: bool = False,
    ) -> bool:
        """Record the run of a project program told a check (`_told_to_check`); whether there was one."""
        told = self._told_to_check(tokens, cwd, powershell_only=powershell_only)
        if told is None or key is None or command.failure_ignored or command.condition:
            return False
        env = _env_dependent(command, exported)
        into.runs.append(
            Run(key, told[0], join_words(list(tokens[:3])), command.text, told[1], env, False, depth, True)
        )
        return True

    def _told_to_check(
        self, tokens: tuple[str, ...], cwd: str | None, *, powershell_only: bool = False
    ) -> tuple[Kind, bool] | None:
        """The project's own program told a check by its verb (`go run _scripts/make.go test -v`, `deno run
        tools/ci.ts lint`, `perl tools/run.pl test`), or a PowerShell script by its switch (`./build.ps1 -Test`):
        (the kind, full when no further word narrows it), or None. The program is a file of the repository, run
        directly or by an interpreter (a script the reader opens itself, `./x.py`, is read by its body instead);
        the kind rests on that one word (a `named` run)."""
        if cwd is None or not tokens:
            return None
        at = 0
        if tokens[0] in _INTERPRETERS:
            at = 1
        elif tokens[:2] in (("go", "run"), ("deno", "run"), ("bun", "run")):
            at = 2
        if len(tokens) <= at or tokens[at].startswith("-"):
            return None
        program = tokens[at]
        if not ("/" in program or "." in program) or not self.c.is_file(
            posixpath.normpath(posixpath.join(cwd, program))
        ):
            return None
        powershell = program.lower().endswith(".ps1")
        if powershell_only and not powershell:
            return None
        after = tokens[at + 1 :]
        if powershell:
            switches = [w[1:] for w in after if w.startswith("-") and w[1:2].isalpha()]
            said = script_kind(switches[0].lower()) if switches else None
            if said not in KINDS:
                return None
            return cast(Kind, said), len(after) == 1
        words = [word for word in after if not word.startswith("-")]
        if not words or not _VERB.match(words[0]):
            return None
        said = script_kind(words[0])
        if said not in KINDS:
            return None
        return cast(Kind, said), len(words) == 1

    def args_target(self, candidate: Candidate, depth: int = 0) -> str:
        """The command a run's extra arguments reach: a package script's (and composer, hatch, pdm, just) last
        command, following scripts it runs; a tox env's or nox session's test command (`-- ARGS`); a script's
        command that passes `$@` on. Empty when arguments reach nothing known."""
        if candidate.body is None or depth > _MAX_DEPTH:
            return ""
        head = candidate.command.split()[:1]
        appends = head and head[0] in ("npm", "pnpm", "yarn", "bun", "composer", "hatch", "pdm", "just", "deno", "mix")
        posargs = head and head[0] in ("tox", "nox")
        last: tuple[Invocation, ScriptCommand] | None = None
        for text in candidate.body:
            for invocation, command in self.invocations(text, candidate.cwd):
                if any(w.text in ("$@", "$*", "${@}") or "$@" in w.text for w in command.words[1:]):
                    return self._receiver(invocation, depth)
                if posargs and not isinstance(identify(invocation.tokens), Identified):
                    continue
                last = (invocation, command)
        if last is None or not (appends or posargs):
            return ""
        return self._receiver(last[0], depth)

    def _receiver(self, invocation: Invocation, depth: int) -> str:
        rel = _relative(invocation.cwd, self.root)
        found = self._entry((rel, canonical_tokens(invocation.tokens))) if rel is not None else None
        if found is not None and found[0].body is not None:
            entry = found[0]
            inner = Candidate(entry.command, entry.cwd, entry.source, "local", name=entry.name, body=entry.body)
            return self.args_target(inner, depth + 1) or join_words(list(invocation.tokens))
        return join_words(list(invocation.tokens))

    def _narrows(self, entry: EntryPoint, extra: tuple[str, ...]) -> bool:
        """Do the arguments a run adds to an entry point (`nox -s tests -- tests/unit`) narrow what it runs?"""
        passed = extra[1:] if extra[:1] == ("--",) else extra
        if entry.body is None:
            return bool(passed)
        target = self.args_target(Candidate(entry.command, entry.cwd, entry.source, "local", body=entry.body))
        commands = script_commands(target) if target else []
        found = identify(commands[0].argv) if commands else None
        if not isinstance(found, Identified):
            return any(not t.startswith("-") for t in passed)
        cwd = Path(os.path.normpath(self.root / entry.cwd))
        return bool(narrowing_of(passed, found, cwd, self.root))

    def _whole_suite(self, cwd: str, found: Identified, reasons: list[str]) -> bool:
        """Do the arguments name the whole suite? `pytest tests` where pytest's `testpaths` is `tests`; a test
        runner given the one conventional test directory there is (`vusted ./test` next to no `spec/`)."""
        named = [r.split(" ", 1)[1].strip("/").removeprefix("./") for r in reasons if r.startswith("argument ")]
        if not named or len(named) != len(reasons):
            return False
        if found.runner.name == "pytest":
            testpaths = self.c.tool_settings.get(f"{cwd}:pytest.testpaths") or []
            if testpaths:
                return sorted(named) == sorted(testpaths)
        if found.kind != "test" or len(named) != 1 or named[0] not in TEST_DIRS:
            return False
        return self._test_dirs(cwd) == {named[0]}

    def _test_dirs(self, cwd: str) -> set[str]:
        try:
            base = self.root / cwd
            return {name for name in TEST_DIRS if (base / name).is_dir() and not (base / name).is_symlink()}
        except OSError:
            return set()

    def _read_reference(
        self,
        entry: EntryPoint,
        extra: tuple[str, ...],
        key: Key,
        command: ScriptCommand,
        exported: set[str],
        into: Analysis,
        skip: set[Key],
        depth: int,
        ci: StepContext | None,
    ) -> None:
        inner = self._entry_analysis(entry, key, extra, skip | {key}, depth + 1, ci)
        kinds = inner.kinds()
        named = identify(key[1])
        into.absorb(inner)
        destructive = inner.effect is not None
        kind = kinds[0] if len(kinds) == 1 else ("check" if kinds else entry.kind)
        by_name = not inner.known_kinds() and entry.kind is None
        if kind is None and not inner.installs and isinstance(named, Identified):
            kind = named.kind if _plain_name(entry.name, named.kind) else None
        if kind is not None and not command.failure_ignored and not destructive:
            env = _env_dependent(command, exported)
            full = not extra or not self._narrows(entry, extra)
            into.runs.append(Run(key, kind, " ".join(key[1][:3]), command.text, full, env, True, depth, by_name))
        elif not kinds and not inner.runs and entry.body is None:
            into.unknown.append(command.text)

    def _entry_analysis(
        self, entry: EntryPoint, key: Key, extra: tuple[str, ...], skip: set[Key], depth: int, ci: StepContext | None
    ) -> Analysis:
        memo_key = (key, extra)
        if memo_key in self._memo and ci is None:
            return self._memo[memo_key]
        analysis = Analysis()
        if entry.body is None:
            if entry.kind is None:
                analysis.unknown.append(entry.command)
            elif entry.suite:
                # a library's task (`Rake::TestTask`) runs a known tool over files it configures: that suite, whole
                analysis.runs.append(Run(key, entry.kind, entry.suite, entry.command, True, False, False, depth + 1))
        else:
            body = list(entry.body)
            if extra and body and (key[1][:1] == ("<package-script>",) or entry.command.split()[:1] == ["mix"]):
                # a package script's extra arguments are appended to its last command (`npm run lint -- --fix`),
                # and so are a mix alias's (`mix format --check-formatted` where `format: "format --migrate"`)
                body[-1] = body[-1].rstrip() + " " + join_words(list(extra))
            for text in body:
                self._read(text, entry.cwd, analysis, skip, depth, ci)
        if ci is None:
            self._memo[memo_key] = analysis
        return analysis

    def _ci_blockers(
        self, command: ScriptCommand, invocation: Invocation, rel: str | None, ci: StepContext, into: Analysis
    ) -> None:
        text = command.text
        found = identify(invocation.tokens)
        if not isinstance(found, Identified) and (not invocation.tokens or is_plain_utility(invocation.tokens[0])):
            return
        reasons: list[str] = []
        if EXPRESSION.search(text):
            reasons.append("it uses workflow expressions (${{ … }})")
        if _CI_VARIABLE.search(text):
            reasons.append("it uses variables only GitHub Actions sets")
        for word in command.words:
            if not word.expands:
                continue
            for name in _VARIABLE_NAME.findall(word.text):
                if name in ci.expression_env:
                    reasons.append(f"${name} comes from a workflow expression")
                elif (
                    name not in _COMMON_VARIABLES and name not in ci.env and not name.startswith(("GITHUB_", "RUNNER_"))
                ):
                    reasons.append(f"${name} is set only in CI")
        if command.failure_ignored or ci.failure_ignored:
            reasons.append("CI ignores its failure")
        if ci.pull_request_only:
            reasons.append("it runs only on pull requests")
        if rel is None or "${{" in rel or (invocation.cwd is not None and not invocation.cwd.is_dir()):
            reasons.append("it runs in a directory CI creates")
        elif rel != "." and (
            _ARTEFACT_DIR.search(rel) or any(rel == p or rel.startswith(p + "/") for p in ci.checkout_paths)
        ):
            reasons.append(f"it runs in {rel}, which CI checks out or builds")
        head = invocation.tokens[0] if invocation.tokens else ""
        if head in ci.installed and not isinstance(identify((head,)), Identified) and not is_plain_utility(head):
            reasons.append(f"it needs {head}, which only CI installs")
        for reason in reasons:
            if reason not in into.blockers:
                into.blockers.append(reason)


def _plain_name(name: str, kind: Kind) -> bool:
    """A name that says its kind plainly (`test`, `tests`, `lint`, `test-all`), not a variant (`cov:mac`) nor an
    umbrella that says nothing of what it does (`all`, `default`)."""
    lowered = name.lower()
    stem = name_stem(lowered) if lowered else ""
    if lowered in _UMBRELLAS or stem in _UMBRELLAS:
        return False
    if lowered in _EXACT_NAMES[kind] or stem in _EXACT_NAMES[kind]:
        return True
    return kind == "test" and re.fullmatch(r"(run[_-]?)?tests?([_:-](all|suite|unit))?", stem) is not None


# -- deciding ------------------------------------------------------------------------------------------------------


@dataclass
class Decided:
    """A candidate with its kind (or why it is set aside) and what it runs."""

    candidate: Candidate
    kind: Kind | None
    analysis: Analysis
    keys: list[Key]
    set_aside: tuple[SetAsideReason, str] | None = None
    docs: int | None = None  # position of its first mention in the contributor docs
    ci_runs: list[str] = field(default_factory=list)  # CI sources that run it
    weak: bool = False  # only its name says it is a check (its body is unreadable or says nothing)

    @property
    def heavy(self) -> bool:
        """It runs the checks inside containers (`docker compose exec backend pytest`) or drives a browser against
        a running app (`playwright test`): it needs a container engine or a browser and a server, which many
        machines (and agents' sandboxes) do not have. Ranked after a check that needs neither; so is a release
        build (`goreleaser build`: every platform's binary and archive) after the local build."""
        if any(_CONTAINERS.match(line) for line in self.analysis.unknown):
            return True
        suites = {r.suite for r in self.analysis.runs if not r.reference}
        return bool(suites) and (suites <= _BROWSER_SUITES or suites <= _RELEASE_BUILD_SUITES)

    @property
    def tier(self) -> int:
        return _TIERS[self.candidate.origin]


_MAX_LISTED = 2000  # names of one directory looked at for an `rm` glob
_SCRIPT_INTERPRETERS = frozenset(
    {"node", "python", "python3", "ruby", "perl", "php", "bash", "sh", "tsx", "ts-node", "bun"}
)


def _runs_a_program_file(text: str) -> bool:
    """Does an unread command run a program file of the project (`node scripts/gen.js`, `./tools/make-docs`)?"""
    words = text.split()
    while words and ("=" in words[0] or words[0] in _SCRIPT_INTERPRETERS):
        words = words[1:]
    return bool(words) and ("/" in words[0] or words[0].endswith(SCRIPT_SUFFIXES)) and not words[0].startswith("$")


def decide(reader: Reader, candidate: Candidate) -> Decided:
    analysis = reader.analyse(candidate)
    keys = [
        key
        for spelling in (candidate.command, *candidate.spellings)
        for key in [reader.key_of(spelling, candidate.cwd)]
        if key is not None
    ]
    decided = Decided(candidate, None, analysis, keys)
    if candidate.set_aside is not None:
        decided.set_aside = cast("tuple[SetAsideReason, str]", candidate.set_aside)
        return decided
    if candidate.origin == "explicit":
        decided.kind = candidate.kind
        return decided
    effect = analysis.effect
    if effect is not None and effect.effect in ("writes", "publishes", "watches"):
        decided.set_aside = (cast(SetAsideReason, effect.effect), effect.reason)
        if effect.effect == "writes" and analysis.kinds():
            # never proposed; but a run of it still ran its checks (the receipt is bound to the content it saw)
            kinds = analysis.kinds()
            said = _name_says(candidate.name) if candidate.name else None
            decided.kind = said if said in kinds else (kinds[0] if len(kinds) == 1 else "check")
        return decided
    if analysis.fetches:
        decided.set_aside = ("fetches", f"{analysis.fetches[0]}: it runs code that is not this project's")
        return decided
    name_says = script_kind(candidate.name) if candidate.name and candidate.origin == "local" else None
    if name_says == "publishes":
        # `release:` that only builds today is still what the maintainers named for releasing: never one click
        decided.set_aside = ("publishes", f"`{candidate.name}` is named for releasing or publishing")
        return decided
    unread = next((t for t in analysis.unknown if _runs_a_program_file(t)), None) if name_says else None
    if name_says == "writes" and unread is not None:
        # `generate:types` = `node scripts/generate-types.js && tsc`: what the unread program does, the name says
        decided.set_aside = ("writes", f"`{candidate.name}` is named for writing, and `{unread}` is unread")
        return decided
    if candidate.name and watcher_name(candidate.name) and candidate.origin in ("local", "docs") and analysis.runs:
        decided.set_aside = ("watches", f"`{candidate.name}` names a server or watcher: it never finishes")
        return decided
    if analysis.terminal_watch and not (candidate.name and _plain_name(candidate.name, "test")):
        decided.set_aside = ("watches", analysis.terminal_watch[0])
        return decided
    if analysis.installs and candidate.origin != "ci":
        decided.set_aside = ("installs", f"it installs software on the machine (`{analysis.installs[0]}`)")
        return decided
    known = analysis.known_kinds()
    said = _name_says(candidate.name) if candidate.name else None
    if candidate.kind is not None:
        decided.kind = candidate.kind
    elif known:
        # what its tools are, and what the entry points it runs are called (`rake spec` beside rubocop)
        kinds = list(dict.fromkeys([*known, *analysis.kinds()]))
        decided.kind = said if said in kinds else (kinds[0] if len(kinds) == 1 else "check")
        if len(kinds) > 1 and candidate.name and _CI_NAMED.search(candidate.name.lower()):
            decided.kind = "check"  # `test.ci`, `ci-test` running lint, types and tests: what CI runs, the umbrella
        mute = candidate.name and said is None and script_kind(candidate.name) is None and not candidate.default
        several = len({r.key for r in analysis.runs}) > 1 and len(set(analysis.kinds())) > 1
        if mute and candidate.origin == "local" and (analysis.unknown or several):
            # `perf`: a build, then a benchmark — its name says no check, and it does more than one (`t` running
            # the suite in two configurations is that suite, twice)
            runs = ", ".join(f"`{r.text}`" for r in analysis.runs[:2])
            decided.kind, decided.set_aside = None, ("not-a-check", f"it runs {runs} among other things")
    elif analysis.runs or analysis.unknown or candidate.body is None:
        # Only names speak: its own (`test`), else those of what it runs (`sh check.sh`). A plain name makes a
        # check; a variant (`cov:mac`, `build:validation`) is weak: never proposed on a name alone.
        named = analysis.kinds()
        by_name = script_kind(candidate.name) if candidate.name else None
        umbrella = bool(candidate.name) and name_stem(candidate.name.lower()) in _UMBRELLAS
        if named and (said not in KINDS or umbrella) and by_name is None:
            decided.kind = named[0] if len(named) == 1 else "check"  # `default: spec rubocop`: what it runs says
            # strong when it runs entry points, or when the contributor docs spell a project program's own verb
            # (`./build -Test`, `go run make.go test`): the maintainers' word says what it is
            decided.weak = not all(
                r.depth == 0 and (r.reference or (r.named and candidate.origin == "docs")) for r in analysis.runs
            )
        elif by_name in ("writes", "publishes", "watches"):
            what = {"writes": "rewrites files", "publishes": "publishes", "watches": "never finishes"}[by_name]
            reason = f"its name says it {what}, and its body does not show otherwise"
            decided.set_aside = (cast(SetAsideReason, by_name), reason)
        elif said in KINDS:
            decided.kind = cast(Kind, said)
            # a variant's name (`prism_spec`) is enough when what it runs is the plainly named check of that kind
            # (`PARSER_ENGINE=parser_prism rake spec`): that check, run another way
            runs_check = any(r.reference and r.depth == 0 and r.kind == decided.kind for r in analysis.runs)
            decided.weak = not _plain_name(candidate.name, decided.kind) and not runs_check
        elif named:
            decided.kind = named[0] if len(named) == 1 else "check"
            decided.weak = True
    if decided.kind is None and decided.set_aside is None and analysis.ignored and candidate.origin != "ci":
        decided.set_aside = ("not-a-check", "its checks' failures are ignored (`|| true`)")
    if (
        candidate.origin == "ci"
        and decided.kind is not None
        and analysis.unknown
        and EXPRESSION.search(" ".join(analysis.unknown))
    ):
        analysis.blockers.append("a command only the workflow fills in (${{ … }})")
    if candidate.origin == "ci" and decided.kind is not None and analysis.blockers:
        decided.set_aside = ("ci-only", "CI only: " + "; ".join(analysis.blockers))
    return decided


# -- grouping and ranking --------------------------------------------------------------------------------------------


@dataclass
class Group:
    members: list[Decided]
    kind: Kind

    def best(self) -> Decided:
        return min(self.members, key=_rank)

    @property
    def cwd(self) -> str:
        return self.best().candidate.cwd

    def keys(self) -> set[Key]:
        return {key for member in self.members for key in member.keys}

    @property
    def weak(self) -> bool:
        return all(member.weak for member in self.members)


def _exactness(decided: Decided, kind: Kind) -> int:
    """How plainly an entry point's name says its kind (`test` 0, `test-unit` 1, `perf` 2, `test-ci` 3); a
    tool's or convention's name is the tool's, not the project's word for the check."""
    if decided.candidate.origin not in ("explicit", "local"):
        return 2
    name = decided.candidate.name.lower()
    if (name and _CI_FLAVOURED.search(name)) or _CI_SCRIPT.match(decided.candidate.source):
        return 3
    if name in _EXACT_NAMES[kind] or (name and name_stem(name) in _EXACT_NAMES[kind]):
        return 0
    return 1 if name and (name_kind(name) == kind or names_kind(name, kind)) else 2


def _umbrella(decided: Decided) -> int:
    """1 for an entry point named as an umbrella (`all`, `default`, `ok`, `ci`), which says nothing of what it
    runs; 0 for one named for what it does."""
    name = decided.candidate.name.lower()
    return 1 if name and (name in _UMBRELLAS or name_stem(name) in _UMBRELLAS) else 0


def _rank(decided: Decided) -> tuple[int, ...]:
    kind = decided.kind or "check"
    tier = min(decided.tier, _TIERS["local"]) if decided.docs is not None and decided.tier <= 1 else decided.tier
    return (
        tier,
        decided.docs if decided.docs is not None else 1_000_000,
        _exactness(decided, kind),
        0 if decided.ci_runs else 1,
        0 if decided.candidate.default else 1,
        0 if decided.candidate.cwd == "." else 1,
        decided.candidate.order,
    )


def _group_rank(group: Group) -> tuple[int, ...]:
    best = _rank(group.best())
    docs = min((m.docs for m in group.members if m.docs is not None), default=None)
    ci = any(m.ci_runs for m in group.members)
    tier = min(m.tier for m in group.members)
    # Named by the docs at all counts first; where in which document is only a late tie-break (two sub-projects'
    # READMEs have no order between them).
    return (
        1 if group.weak else 0,
        1 if all(m.heavy for m in group.members) else 0,
        0 if docs is not None and docs < 0 else 1,  # what the docs call the full suite
        0 if docs is not None and docs < PACKAGE_DOCS else 1,  # documented (root documents) before declared
        0 if group.cwd == "." else 1,  # the root's own check before a sub-project's
        tier,
        0 if docs is not None else 1,  # named by the docs
        best[2],
        _umbrella(group.best()),  # `check` before a `default` that also happens to check
        docs if docs is not None else 1_000_000,  # the docs' order: contributor docs first, then READMEs
        0 if ci else 1,
        *best[4:],
    )


class _UnionFind:
    def __init__(self, size: int) -> None:
        self.parent = list(range(size))

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def group(decided: list[Decided]) -> tuple[list[Group], list[Decided]]:
    """Groups of one check each, and the candidates set aside while grouping (a tool the project runs only through
    its own runner)."""
    # What the project declares explicitly claims its spellings: the same command read elsewhere is that check.
    claimed: dict[Key, Kind] = {}
    for item in decided:
        if item.candidate.origin == "explicit" and item.kind is not None:
            for key in item.keys:
                claimed.setdefault(key, item.kind)
    for item in decided:
        if item.candidate.origin != "explicit":
            kind = next((claimed[k] for k in item.keys if k in claimed), None)
            if kind is not None:
                item.kind, item.set_aside = kind, None
    # An ecosystem's convention says what its command is: a document naming `make check` in an Autotools project
    # names Automake's test suite, whatever the target's name alone would say.
    conventional: dict[Key, Kind] = {}
    for item in decided:
        if item.candidate.origin == "convention" and item.kind is not None and item.set_aside is None:
            for key in item.keys:
                conventional.setdefault(key, item.kind)
    for item in decided:
        if item.candidate.origin == "docs" and item.kind is not None and item.set_aside is None:
            kind = next((conventional[k] for k in item.keys if k in conventional), None)
            if kind is not None:
                item.kind = kind
    items = [d for d in decided if d.kind is not None and d.set_aside is None]
    uf = _UnionFind(len(items))
    by_key: dict[tuple[Kind, Key], int] = {}
    for index, item in enumerate(items):
        assert item.kind is not None
        for key in item.keys:
            uf.union(index, by_key.setdefault((item.kind, key), index))
    # The contributor docs naming a command lift the entry point that is that command.
    for item in items:
        if item.docs is None:
            continue
        for other in items:
            if other is not item and other.kind == item.kind and set(other.keys) & set(item.keys):
                other.docs = item.docs if other.docs is None else min(other.docs, item.docs)
    # A wrapper that runs exactly one check of its kind is that check; two wrappers running the same one are one.
    by_run: dict[tuple[Kind, Key], int] = {}
    for index, item in enumerate(items):
        single = _single_run(item)
        if single is None:
            continue
        same = by_key.get((cast(Kind, item.kind), single.key))
        if same is not None:
            uf.union(index, same)
        uf.union(index, by_run.setdefault((cast(Kind, item.kind), single.key), index))
    # A wrapper whose runs of its kind are all spellings of one check (bare `tox` running `tox -e py311` and
    # `tox -e py312`, which run the same suite) is that check too.
    for index, item in enumerate(items):
        runs = [r for r in item.analysis.runs if r.kind == item.kind and r.depth == 0]
        if not runs or not all(r.full and not r.env_dependent for r in runs):
            continue
        roots = {uf.find(by_key[(cast(Kind, item.kind), r.key)]) for r in runs if (item.kind, r.key) in by_key}
        if len(roots) == 1 and all((item.kind, r.key) in by_key for r in runs):
            uf.union(index, roots.pop())
    set_aside: list[Decided] = []
    # A tool's configuration, a convention or the docs naming the suite a stronger entry point runs: that check.
    for index, item in enumerate(items):
        if item.candidate.origin not in ("tool", "convention", "docs"):
            continue
        if any(r.reference and r.depth == 0 for r in item.analysis.runs):
            continue  # it names an entry point (`pnpm run test-unit`): that entry point is the check, not a suite
        suite = _suite_of(item)
        if suite is None:
            continue
        hosts = [
            (j, run)
            for j, other in enumerate(items)
            if (other.tier < item.tier or (other.tier == item.tier and j < index and item.tier == _TIERS["docs"]))
            and other.kind == item.kind
            and other.candidate.cwd == item.candidate.cwd
            for run in other.analysis.runs
            if not run.reference and run.suite == suite and run.key[0] == item.candidate.cwd
        ]
        if not hosts:
            continue
        j, run = min(hosts, key=lambda h: _rank(items[h[0]]))
        if run.env_dependent and item.candidate.origin != "docs":
            name = suite.split(":", 1)[0]
            host = items[j].candidate.command
            item.set_aside = ("routed", f"the project runs {name} through `{host}`, which sets its environment")
            set_aside.append(item)
            continue
        if item.docs is not None:
            items[j].docs = item.docs if items[j].docs is None else min(items[j].docs or 0, item.docs)
        uf.union(index, j)
    groups: dict[int, Group] = {}
    for index, item in enumerate(items):
        if item.set_aside is not None:
            continue
        groups.setdefault(uf.find(index), Group([], cast(Kind, item.kind))).members.append(item)
    return list(groups.values()), set_aside


def _releasing_context(ci: StepContext | None) -> str:
    """The job or workflow a CI step belongs to, when its name says it releases or deploys (`deploy`,
    `publish-docs.yml`)."""
    if ci is None:
        return ""
    workflow = PurePosixPath(ci.workflow).stem
    if ci.job and script_kind(ci.job) == "publishes":
        return f"the `{ci.job}` job"
    if script_kind(workflow) == "publishes":
        return f"the `{workflow}` workflow"
    return ""


def _places_above(cwd: str) -> list[str]:
    """`a/b` → `a/b`, `a`, `.`: a place and the directories that hold it, nearest first."""
    parts = [] if cwd in (".", "") else cwd.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts), 0, -1)] + ["."]


def _single_run(decided: Decided) -> Run | None:
    """The one full check a body runs (directly, not an entry point's inner commands), of its own kind and
    nothing else besides (`ok: lint && test` is not `lint`)."""
    runs = [r for r in decided.analysis.runs if r.depth == 0]
    if len({r.key for r in runs}) != 1 or runs[0].kind != decided.kind:
        return None
    run = runs[0]
    return run if run.full and not run.env_dependent else None


def _suite_of(decided: Decided) -> str | None:
    runs = [r for r in decided.analysis.runs if not r.reference and r.depth == 0]
    suites = {r.suite for r in runs}
    return runs[0].suite if len(suites) == 1 else None


def _direct_runs(group_: Group) -> frozenset[Key]:
    """The checks of its kind a group's primary runs itself (entry points it names included)."""
    best = group_.best()
    return frozenset(r.key for r in best.analysis.runs if r.kind == group_.kind and r.depth == 0)


# Qualifiers that make a name the whole of its check, not a variant of it (`test_all`, `test-full`).
_WHOLE_QUALIFIER = re.compile(r"^(?:all|full|everything|complete|ci|whole)$")


def _opaque_variant(candidate: Group, other: Group) -> bool:
    """Whether `candidate` is named as a variant of `other` (`make test_classic` beside `make test`, `rake
    spec:unit` beside `rake spec`), both run by the same program, where neither body can be read to tell."""
    if any(m.candidate.body not in (None, (m.candidate.command,)) for g in (candidate, other) for m in g.members):
        return False  # a body to read (a document's line is its own body: nothing more is known of it)
    mine, theirs = candidate.best().candidate.command.split(), other.best().candidate.command.split()
    if len(mine) != len(theirs) or len(mine) < 2 or mine[:-1] != theirs[:-1]:
        return False
    name, base = mine[-1], theirs[-1]
    if not name.startswith(base) or len(name) <= len(base) + 1 or name[len(base)] not in "-_:":
        return False
    return not _WHOLE_QUALIFIER.match(name[len(base) + 1 :])


def _parts(groups: list[Group], reader: Reader) -> list[Group]:
    """Groups another group of the same kind runs together with more checks of that kind (`pnpm test-unit` run by
    `pnpm test`, `rake spec:unit` run by the default task): narrower parts of that check. What the other names
    counts as more even where its body cannot be read (`npm run test:unit && npm run test:browser`)."""
    parts: list[Group] = []
    taken: set[int] = set()
    keys = [g.keys() for g in groups]
    direct = [_direct_runs(g) for g in groups]
    runs_of = [{(r.key, r.kind) for m in g.members for r in m.analysis.runs} for g in groups]
    named = [_named_in_body(reader, g) for g in groups]
    for i, candidate in enumerate(groups):
        for j, other in enumerate(groups):
            if i == j or other.kind != candidate.kind or j in taken:
                continue
            other_kinds = {key for key, kind in runs_of[j] if kind != candidate.kind}
            runs = {key for key, kind in runs_of[j] if kind == candidate.kind}
            if not _prepares(candidate) and not _prepares(other) and not other.weak:
                runs |= named[j] - other_kinds
            # it runs this check and more; or this one runs a part of what it runs (`spec` ⊂ `all_specs`); or,
            # where neither body can be read, this one is named as a variant of it (`make test_classic`)
            own = {key for key, _ in runs_of[i]}  # what this one runs itself is no "more" (`X=1 pnpm test:ci`)
            if (
                (runs & keys[i] and runs - keys[i] - keys[j] - own)
                or (direct[i] and direct[j] and direct[i] < direct[j])
                or _opaque_variant(candidate, other)
            ):
                parts.append(candidate)
                taken.add(i)
                for member in candidate.members:
                    member.set_aside = ("narrower", f"a part of `{other.best().candidate.command}`")
                break
    return parts


# -- the whole decision ------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    checks: list[VerifyCommand]
    set_aside: list[SetAside]
    ambiguous: tuple[str, ...] = ()  # kinds whose primary is a close call


def _strength(rank: tuple[int, ...]) -> tuple[int, ...]:
    """What a group's rank says about the strength of its evidence, without the tie-breaks that only order
    (where in a document it is first mentioned, the order of declaration)."""
    return (*rank[:9], rank[10], rank[12])  # not the docs' order, being a runner's default, nor declaration order


def _ambiguous(groups: list[Group]) -> tuple[str, ...]:
    """Kinds whose primary has a rival of the same strength at the same place: two commands the contributor
    documents both give for the full run, two entry points named alike (`make test` and `nox -s tests`) that
    no document separates. Only real rivals count: a weak or heavy rival, one narrower (already set aside), one
    of another tier or less plainly named, or one at another place is a clear choice."""
    found: list[str] = []
    for kind in KINDS:
        of_kind = [g for g in groups if g.kind == kind]
        if len(of_kind) < 2:
            continue
        ranked = sorted(((_group_rank(g), index, g) for index, g in enumerate(of_kind)), key=lambda r: r[:2])
        (rank, _, primary), rest = ranked[0], ranked[1:]
        best = primary.best()
        rival = next((r for r, _, g in rest if g.cwd == best.candidate.cwd), None)
        if rival is None or primary.weak or best.candidate.origin == "explicit" or best.tier > _TIERS["docs"]:
            continue
        if _strength(rank) == _strength(rival):
            found.append(kind)
    return tuple(found)


# A step named for preparing a run (`test.setup`, `test:prepare`, `test-db-reset`), not a part of it.
_PREPARES = lazy(r"(^|[.:_-])(setup|prepare|init|install|deps|bootstrap|clean|reset|seed|migrate|db)($|[.:_-])")


def _prepares(group_: Group) -> bool:
    return any(_PREPARES.search(m.candidate.name or "") for m in group_.members)


def _named_in_body(reader: Reader, group_: Group) -> set[Key]:
    """The entry points a group's bodies name (`npm run test:mocha` in `npm test`'s script), read or not."""
    found: set[Key] = {r.key for m in group_.members for r in m.analysis.runs}
    for member in group_.members:
        for text in member.candidate.body or ():
            found.update(reader.keys_of(text, member.candidate.cwd))
    return found


def decide_checks(c: Collector, packages: Iterable[str]) -> Outcome:
    """`packages`: the workspace members the root's own scripts drive (their checks count only for kinds the
    root declares nothing for); independent sub-projects keep their own checks."""
    from freshpass.facts.classify import classify

    reader = Reader(c)
    package_dirs = {p for p in packages if p != "."}
    local = [item for item in c.candidates if item.origin != "ci"]
    ci = [item for item in c.candidates if item.origin == "ci"]
    decided = [decide(reader, candidate) for candidate in local]
    decided.extend(_docs_candidates(c, reader))
    groups, set_aside = group(decided)
    for part in _parts(groups, reader):
        groups.remove(part)
        set_aside.extend(part.members)
    for weak in [g for g in groups if g.weak]:
        groups.remove(weak)
        # one a check of its kind runs (`npm test` running `npm run test:mocha` && …): a part of that check
        whole = next(
            (g for g in groups if g.kind == weak.kind and not g.weak and weak.keys() & _named_in_body(reader, g)),
            None,
        )
        if _prepares(weak):
            whole = None  # `test.setup` run before `mix test`: it prepares the run, it checks nothing
        for member in weak.members:
            if whole is not None:
                member.set_aside = ("narrower", f"a part of `{whole.best().candidate.command}`")
            else:
                member.set_aside = (
                    "not-a-check",
                    "only its name says it checks; what it runs is not readable as shell",
                )
            set_aside.append(member)

    # CI: corroborate local checks, set aside what is narrower or CI-only, fall back for kinds nothing local has.
    provisional = ProjectFacts(root=str(reader.root), verify_commands=_to_commands(groups, reader, provisional=True))
    ci_decided = [decide(reader, step) for candidate in ci for step in _ci_steps(reader, candidate)]
    # the local check of each kind at each place: a CI step stands in only where nothing local checks that kind
    local_kinds = {(g.kind, g.cwd): g for g in sorted(groups, key=_group_rank)[::-1]}
    fallback: list[Decided] = []
    for item in ci_decided:
        if item.kind is None and item.set_aside is None:
            continue  # not a check at all (a setup step, an echo)
        if item.set_aside is None or item.set_aside[0] == "ci-only":
            match = classify(
                item.candidate.command, cwd=reader.root / item.candidate.cwd, root=reader.root, facts=provisional
            )
            headline = match.headline
            if headline is not None and headline.approved:
                target = _group_of(groups, headline.source, headline.kind)
                if target is not None and headline.scope == "full":
                    for member in target.members:
                        if item.candidate.source not in member.ci_runs:
                            member.ci_runs.append(item.candidate.source)
                    item.set_aside = None
                    continue
                if headline.scope == "targeted" and item.set_aside is None:
                    item.set_aside = ("narrower", f"narrower than `{headline.canonical_command}`")
                    continue
        if item.set_aside is not None:
            continue
        releasing = _releasing_context(item.candidate.ci)
        if releasing:
            item.set_aside = ("ci-only", f"a step of {releasing}, which publishes: not a check a contributor runs")
            continue
        local_check = next(
            (
                local_kinds[(cast(Kind, item.kind), place)]
                for place in _places_above(item.candidate.cwd)
                if (item.kind, place) in local_kinds
            ),
            None,
        )
        if local_check is not None:
            command = local_check.best().candidate.command
            item.set_aside = ("ci-only", f"a CI step; the project's local {item.kind} check is `{command}`")
            continue
        own = [r for r in item.analysis.runs if r.kind == item.kind and r.depth == 0 and not r.reference]
        if item.kind == "test" and own and not any(r.full for r in own):
            # `pytest tests/test_api.py` in a job: a part of a suite nothing local declares, not the check (a
            # linter given the source directory, `mypy src`, is that check)
            item.set_aside = ("narrower", f"a CI step that runs a part of the suite (`{own[0].text}`)")
            continue
        fallback.append(item)
    if fallback:
        extra, more_aside = group(fallback)
        groups.extend(extra)
        set_aside.extend(more_aside)

    # Packages: their own checks count for a kind the root declares nothing for that runs them.
    checks: list[Group] = []
    for found in sorted(groups, key=_group_rank):
        covering = _covering(found, groups) if _in_package(found.cwd, package_dirs) else None
        if covering is not None:
            command = covering.best().candidate.command
            for member in found.members:
                member.set_aside = ("package", f"a package's own check; the root's `{command}` runs it")
                set_aside.append(member)
            continue
        checks.append(found)
    commands = _to_commands(checks, reader)
    listed = {id(item) for item in set_aside}
    for candidate in [*decided, *ci_decided]:
        if candidate.set_aside is not None and id(candidate) not in listed:
            listed.add(id(candidate))
            set_aside.append(candidate)
    return Outcome(commands, _set_aside_json(set_aside), _ambiguous(checks))


def _ci_steps(reader: Reader, candidate: Candidate) -> list[Candidate]:
    """A CI `run:` block as the checks it runs, one candidate each, spelled as written and where it runs
    (`cd web && npm ci && npm test` → `npm test` in web); a block with no check is kept whole (it may write)."""
    if candidate.body is None or candidate.kind is not None:
        return [candidate]
    analysis = reader.analyse(candidate)
    runs = [r for r in analysis.runs if r.depth == 0]
    if not runs or analysis.effect is not None:
        return [candidate]
    steps: list[Candidate] = []
    for run in runs:
        step = Candidate(run.text, run.key[0], candidate.source, "ci", name=candidate.name, body=(run.text,))
        step.ci, step.order = candidate.ci, candidate.order
        steps.append(step)
    return steps


# Runners that run a script in every package of a workspace.
_RECURSIVE = lazy(
    r"(^|\s)(-r|--recursive|--workspaces|-ws|run-many|foreach|--filter(=|\s)['\"]?\*)(\s|$)|^(turbo|lerna|nx) "
)


def _covering(package_check: Group, groups: list[Group]) -> Group | None:
    """The root's local check of the same kind that runs this package's check: by name, or by running the
    script in every package (`pnpm -r test`, `turbo run test`, `yarn workspaces foreach run test`)."""
    keys = package_check.keys()
    for root in groups:
        if root.cwd != "." or root.kind != package_check.kind or root.best().candidate.origin == "ci":
            continue
        runs = [r for m in root.members for r in m.analysis.runs]
        if any(r.key in keys for r in runs) or any(_RECURSIVE.search(r.text) for r in runs):
            return root
        if any(_RECURSIVE.search(line) for m in root.members for line in m.candidate.body or ()):
            return root
    return None


def _in_package(cwd: str, packages: set[str]) -> bool:
    return any(cwd == p or cwd.startswith(p + "/") for p in packages)


def _group_of(groups: list[Group], source: str | None, kind: Kind | None) -> Group | None:
    for candidate in groups:
        if candidate.kind == kind and candidate.best().candidate.source == source:
            return candidate
    return None


def _documented_umbrella(groups: list[Group]) -> Group | None:
    """A check or build the contributor docs name that runs the tests among other things (`./gradlew clean
    check`, `./gradlew build`), when the docs name no test-only command: for the docs it *is* how the tests are
    run."""
    tests = [g for g in groups if g.kind == "test"]
    if any(m.docs is not None for g in tests for m in g.members):
        return None
    documented = [g for g in groups if g.kind in ("check", "build") and any(m.docs is not None for m in g.members)]
    for candidate in sorted(documented, key=_group_rank):
        runs = [r for m in candidate.members for r in m.analysis.runs]
        if any(r.kind == "test" or "test" in r.covers for r in runs):
            return candidate
    return None


def _same_ecosystem(ordered: list[Group]) -> list[Group]:
    """Two ecosystems' conventions at one place (a project Autotools and CMake both build): the kind nothing but
    a convention decides follows the ecosystem whose convention the primary test is: `make check` documented,
    so `make` builds, not `cmake --build build`."""
    test = next((g for g in ordered if g.kind == "test"), None)
    if test is None:
        return ordered
    sources = {m.candidate.source for m in test.members if m.candidate.origin == "convention"}
    if not sources:
        return ordered
    out = list(ordered)
    for kind in KINDS:
        of_kind = [g for g in out if g.kind == kind]
        if (
            kind == "test"
            or len(of_kind) < 2
            or not _by_convention(of_kind[0])
            or of_kind[0].best().candidate.source in sources
        ):
            continue
        first = of_kind[0]
        same = next(
            (
                g
                for g in of_kind[1:]
                if _by_convention(g) and g.cwd == first.cwd == test.cwd and g.best().candidate.source in sources
            ),
            None,
        )
        if same is not None:
            out.remove(same)
            out.insert(out.index(first), same)
    return out


def _by_convention(group_: Group) -> bool:
    return all(m.candidate.origin == "convention" for m in group_.members)


def _to_commands(groups: list[Group], reader: Reader, *, provisional: bool = False) -> list[VerifyCommand]:
    """The checks in rank order (the first of each kind is the primary). `provisional`: only for classifying CI
    steps against them, so what a run's extra arguments reach is not worked out."""
    umbrella = _documented_umbrella(groups)
    if umbrella is not None and umbrella.kind == "build":
        groups = [*groups, Group(umbrella.members, "test")]  # `./gradlew build` builds, and runs the tests
    elif umbrella is not None:
        groups = [g if g is not umbrella else Group(g.members, "test") for g in groups]
    ordered = _same_ecosystem(sorted(groups, key=_group_rank))
    primaries: list[Group] = []
    rest: list[Group] = []
    for candidate in ordered:
        (rest if any(p.kind == candidate.kind for p in primaries) else primaries).append(candidate)
    primaries.sort(key=lambda g: KINDS.index(g.kind))
    rest.sort(key=lambda g: (KINDS.index(g.kind), _group_rank(g)))
    return [_command(g, reader, provisional=provisional) for g in (*primaries, *rest)]


def _command(group_: Group, reader: Reader, *, provisional: bool = False) -> VerifyCommand:
    members = sorted(group_.members, key=_rank)
    best = members[0]
    cwd = best.candidate.cwd
    spellings: list[str] = []
    also: list[str] = []
    for member in members:
        for spelling in (member.candidate.command, *member.candidate.spellings):
            spellings.append(_from(cwd, member.candidate.cwd, spelling))
        run = _single_run(member)
        if run is not None and not _PLACEHOLDERS.search(run.text) and not _WORKSPACE_FILTER.search(run.text):
            spellings.append(_from(cwd, _spelled_at(reader, run, member.candidate.cwd), run.text))
        for source in (member.candidate.source, *member.ci_runs):
            if source != best.candidate.source and source not in also:
                also.append(source)
    primary = spellings[0]
    equivalents = tuple(s for s in dict.fromkeys(spellings) if s != primary)
    # Cite where the check is declared; the docs that name it go to `also`.
    declared = next(
        (m for m in members if m.candidate.origin not in ("docs", "ci") and set(m.keys) & set(best.keys)), None
    )
    source = best.candidate.source
    if best.candidate.origin == "docs" and declared is not None:
        source = declared.candidate.source
        also = [best.candidate.source, *(s for s in also if s not in (best.candidate.source, source))]
    origin = (
        declared.candidate.origin if best.candidate.origin == "docs" and declared is not None else best.candidate.origin
    )
    if origin != "explicit" and any(m.docs is not None for m in members):
        origin = "docs"  # the contributor documents spell it out: the strongest word after configuration
    suites = sorted(
        {
            r.suite
            for m in members
            for r in m.analysis.runs
            if not r.reference and r.key[0] == cwd and (r.kind == group_.kind or group_.kind in r.covers)
        }
    )
    return VerifyCommand(
        command=primary,
        kind=group_.kind,
        cwd=cwd,
        source=source,
        equivalents=equivalents,
        origin=origin,
        also=tuple(also),
        suites=tuple(suites),
        args_to=reader.args_target(best.candidate) if best.candidate.command == primary and not provisional else "",
        selectors=tuple(
            dict.fromkeys(s for m in members if m.candidate.command == primary for s in m.candidate.selectors)
        ),
    )


def _spelled_at(reader: Reader, run: Run, cwd: str) -> str:
    """Where `run.text` is spelled from: `cwd` when its own words reach the run's directory from there (`ctest
    --test-dir build`, `make -C sub test`), else the run's directory (the part after `cd build &&`)."""
    reached = [_relative(invocation.cwd, reader.root) for invocation, _ in reader.invocations(run.text, cwd)]
    return cwd if reached == [run.key[0]] else run.key[0]


def _from(cwd: str, member_cwd: str, spelling: str) -> str:
    """A spelling made at `member_cwd`, as typed from `cwd`."""
    if member_cwd == cwd:
        return spelling
    relative = os.path.relpath(member_cwd, cwd).replace(os.sep, "/")
    return f"cd {join_words([relative])} && {spelling}"


def _set_aside_json(items: list[Decided]) -> list[SetAside]:
    out: list[SetAside] = []
    seen: set[tuple[str, str, str]] = set()
    for item in items:
        if item.set_aside is None:
            continue
        why, reason = item.set_aside
        key = (" ".join(item.candidate.command.split()), item.candidate.cwd, why)
        if key in seen:
            continue
        seen.add(key)
        out.append(SetAside(key[0], item.kind, item.candidate.cwd, item.candidate.source, why, reason))
    return out


def _names_an_absent_path(c: Collector, line: str, cwd: str) -> bool:
    """A line whose command is a path the tree does not hold (`test/factories.rb` in a list of where files may
    live, `spec/**/*.rb`): a path written in a document, not something this project can run."""
    words = [w for w in line.split() if not _ASSIGNMENT.match(w)]
    if not words or "/" not in words[0] or words[0].startswith(("/", "~", "$")):
        return False
    head = words[0].strip("'\"")
    if any(ch in head for ch in "*?[{"):
        return True
    if set(PurePosixPath(head).parts[:-1]) & _MADE_DIRS:
        return False  # installed or built before it runs (`vendor/bin/phpunit`, `build/tests/all`)
    rel = posixpath.normpath(head if cwd in ("", ".") else f"{cwd}/{head}")
    # PowerShell runs `./build` as `build.ps1`
    return not rel.startswith("..") and not c.exists(rel) and not c.is_file(f"{rel}.ps1")


# Directories a fresh checkout does not hold until dependencies are installed or the project is built.
_MADE_DIRS = frozenset(
    {"vendor", "node_modules", ".venv", "venv", "env", ".tox", ".nox", "target", "build", "_build", "dist", "out",
     "bin", ".bin", "obj", "tools", "zig-out", ".build", "_opam", "deps"}
)  # fmt: skip


_MAKEFILE_WRITERS = (
    "GNUmakefile",
    "makefile",
    "Makefile",
    "Makefile.in",
    "Makefile.am",
    "configure",
    "configure.ac",
    "configure.in",
    "Makefile.PL",
    "Build.PL",
)


def _cmake_build_tree(c: Collector, line: str, cwd: str) -> str:
    """`make test` documented for a directory that holds a `CMakeLists.txt` and nothing that writes a Makefile in
    place: the Makefile is the one CMake generates in its build tree, so the line runs there."""
    words = line.split()
    if len(words) < 2 or words[0] != "make" or any(w.startswith("-") for w in words[1:]):
        return cwd
    here = "" if cwd in ("", ".") else f"{cwd}/"
    if not c.is_file(f"{here}CMakeLists.txt") or any(c.exists(f"{here}{name}") for name in _MAKEFILE_WRITERS):
        return cwd
    return f"{here}build"


def _docs_candidates(c: Collector, reader: Reader) -> list[Decided]:
    """Contributor docs' command lines that run a full check: each lifts the entry point it names, or becomes a
    candidate of its own (spelled as its check run is written) when no entry point is that command."""
    out: list[Decided] = []
    for line, source, position, cwd in c.docs:
        if EXPRESSION.search(line) or _PLACEHOLDER.search(line) or _names_an_absent_path(c, line, cwd):
            continue
        cwd = _cmake_build_tree(c, line, cwd)
        probe = decide(reader, Candidate(line, cwd, source, "docs", body=(line,)))
        if probe.kind is None or probe.set_aside is not None:
            continue
        runs = [r for r in probe.analysis.runs if r.depth == 0]
        if len(runs) != 1 or not runs[0].full:
            continue  # a narrowed example (`pytest tests/test_x.py`), or several commands at once
        run = runs[0]
        named = reader._entry(run.key) if run.reference else None
        if probe.analysis.unknown and not (
            # an entry point the docs name plainly (`make test` through a `%:` rule forwarding every goal to a
            # build program): its body cannot be read, but the maintainers' word says what it is
            named is not None and not named[1] and _plain_name(named[0].name, probe.kind)
        ):
            continue
        # naming an entry point (`nr test-e2e`) is naming that check: it takes the entry point's name and kind
        name = named[0].name if named is not None else ""
        # Spelled where the docs run it when the run's own words reach its directory (`ctest --test-dir build`),
        # else where the run happens (the part after `cd build &&`).
        candidate = Candidate(run.text, _spelled_at(reader, run, cwd), source, "docs", name=name, body=(run.text,))
        item = decide(reader, candidate)
        if item.kind is None or item.set_aside is not None:
            continue
        item.docs = position
        out.append(item)
    return out
