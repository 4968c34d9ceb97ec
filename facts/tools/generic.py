"""Tools that belong to no one ecosystem: task runners and package scripts (recognised by what their name or body
says), linters and formatters shared by many languages, pre-commit, version control, release and install tools,
and scripts named by path."""

from __future__ import annotations

from pathlib import PurePosixPath

from freshpass.facts.model import Kind
from freshpass.facts.shell import is_assignment

from .base import (
    TEST_DIRS,
    Identification,
    Identified,
    Runner,
    formatter,
    has,
    installs,
    last_resort,
    name_kind,
    opts,
    prints,
    publishes,
    script_kind,
    system,
    tool,
    watches,
    writes,
)
from .wrappers import MAKE_VALUE

LINT_PATHS = Runner(
    "lint",
    "lint",
    opts(
        "--config -c --select --ignore --extend-select --extend-ignore --per-file-ignores --exclude "
        "--extend-exclude --target-version --line-length -l --output-format --cache-dir "
        "--stdin-filename --fixable --unfixable -o --output-file -f --format --ext --rule --plugin "
        "--parser --parser-options --resolve-plugins-relative-to --rulesdir --ignore-path "
        "--ignore-pattern --max-warnings --cache-location --env --global --rcfile --disable "
        "--enable -d -e --jobs -j --max-line-length --settings-path --sp --profile --skip -t -W "
        "--workers --include --force-exclude --log-level --stdin-filepath --timeout --out-format "
        "--new-from-rev --config-file --baseline --level --memory-limit -a --autoload-file "
        "--error-format --cache --require -r --only --except --format-string"
    ),
    opts("--new --new-from-rev --new-from-patch --only"),
    whole_scope=opts(". ./"),
    neutral=opts("-q --quiet -v --verbose --color --no-color --statistics --show-source --show-fixes --no-cache"),
)
TYPECHECK_PATHS = Runner(
    "typecheck",
    "typecheck",
    opts(
        "-p --package -m --module --config-file --python-version --platform --cache-dir --exclude "
        "--follow-imports --junit-xml -c --command --project --pythonpath --pythonplatform "
        "--pythonversion --level --threads --target --lib --outDir --rootDir --jsx "
        "--moduleResolution --types --tsBuildInfoFile --memory-limit --error-format -l "
        "--configuration --baseline"
    ),
    opts("-p --package -m --module -c --command"),
    whole_scope=opts(". ./"),
    neutral=opts("--pretty --no-pretty --show-error-codes --color-output --no-error-summary -v --verbose"),
)
GENERIC_TEST = Runner(
    "test",
    "test",
    opts(
        "--filter -R -L -E -j --parallel -C --project -c --config -g --grep --grep-invert "
        "--reporter --workers --shard --retries --timeout --max-failures --spec --browser --env "
        "--key --tag --group --only -e --output --logger --framework --configuration -f -t "
        "--test-arguments"
    ),
    opts(
        "--filter -R -L -E -g --grep --grep-invert --project --shard --spec --last-failed --only "
        "--failed -t --stale --only-failures --match -m --tests"
    ),
    positionals="always",
)
# A wrapper script's positional arguments select (`./runtests.py admin_views`), and so do the selection flags
# test runners share (`--name test_x`, `-k slow`); its other flags do not.
_SELECTING = opts("--name -n --filter -k --grep -g --only --pattern -p --test -t --spec --tests --tag")
SCRIPT = Runner("script", "check", _SELECTING, _SELECTING, positionals="always", opaque=True)
TASK_RUNNER = Runner(
    "task", "check", frozenset(), frozenset(), positionals="always", passthrough_narrows=True, opaque=True
)
MAKE = Runner("make", "check", MAKE_VALUE, frozenset(), positionals="always", neutral=opts("-s --silent -k -j"))
PRE_COMMIT = Runner(
    "pre-commit",
    "lint",
    opts("--hook-stage -c --config --from-ref -s --source -o --origin --to-ref"),
    opts("--files --from-ref -s --source --to-ref -o --origin"),
    positionals="always",
    whole_scope=opts("--all-files -a"),
    synonyms=(("-a", "--all-files"),),
    neutral=opts("--show-diff-on-failure --color -v --verbose"),
)
BUILD = Runner("build", "build", frozenset(), frozenset(), positionals="never")
BAZEL = Runner(
    "bazel",
    "test",
    opts("--config --test_filter --test_tag_filters"),
    opts("--test_filter --test_tag_filters"),
    positionals="packages",
)


def by_name(runner: Runner, head: int, name: str, label: str) -> Identification:
    """A script, make target or task is recognised by what its name says it does (its body, when known, is
    read by detection; a typed run only has the name)."""
    said = script_kind(name)
    if said == "writes":
        return writes(f"`{label}` rewrites files (by its name); a formatter or fixer is never evidence")
    if said == "publishes":
        return publishes(f"`{label}` releases or publishes (by its name)")
    if said == "watches":
        return watches(f"`{label}` never finishes (by its name): a watcher or server is not a check")
    kind = name_kind(name)
    return Identified(runner, head, kind, label) if kind else None


# -- task runners and package scripts ------------------------------------------------------------------------------

_SCRIPT_HOSTS = opts("npm pnpm yarn bun composer pdm hatch rye pixi")
_TEST_SHORTHAND = opts("npm pnpm yarn composer")


@tool("npm", "pnpm", "yarn", "bun", "composer", "pdm", "hatch", "rye", "pixi")
def _package_scripts(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if head == "bun" and sub in ("test", "build"):
        from .node import bun_build, bun_test

        return bun_test(tokens) if sub == "test" else bun_build(tokens)
    if sub == "run" and len(tokens) > 2:
        name = tokens[2]
        label = f"{head} test" if name == "test" and head in _TEST_SHORTHAND else f"{head} run {name}"
        return by_name(TASK_RUNNER, 3, name, label)
    if head == "hatch" and sub == "test":
        from .python import PYTEST

        return Identified(
            PYTEST, 2, "test", "pytest"
        )  # `hatch test`: hatch's own pytest runner; arguments reach pytest
    if head == "hatch" and sub == "fmt":
        return (
            Identified(LINT_PATHS, 2, "lint", "hatch fmt --check")
            if has(tokens, "--check")
            else writes("`hatch fmt` rewrites files")
        )
    if sub in ("publish", "version", "release") or (head == "hatch" and sub == "build" and has(tokens, "--publish")):
        return publishes(f"`{head} {sub}` publishes a release")
    if sub in ("install", "i", "ci", "add", "remove", "rm", "uninstall", "sync", "link", "unlink", "dedupe", "prune"):
        if has(tokens, "-g", "--global", "--location=global"):
            return system(f"`{head} {sub} -g` installs software on the machine")
        if sub in ("add", "remove", "rm", "uninstall", "link", "unlink") or (head == "composer" and sub == "require"):
            return writes(f"`{head} {sub}` rewrites the package manifest")
        frozen = (
            has(tokens, "--frozen-lockfile", "--immutable", "--frozen", "--locked", "--prefer-offline") or sub == "ci"
        )
        if head in ("npm", "pnpm", "yarn", "bun") and not frozen:
            return writes(f"`{head} {sub}` resolves dependencies and may rewrite the lockfile (`{head} ci` or a frozen "
                          "lockfile would not)")  # fmt: skip
        return installs(f"`{head} {sub}` installs the project's dependencies")
    if sub in ("update", "up", "upgrade", "lock", "outdated", "require") or (head == "composer" and sub == "bump"):
        return writes(f"`{head} {sub}` rewrites the lockfile")
    if head == "yarn" and not sub:
        return writes("bare `yarn` installs dependencies and may rewrite yarn.lock")
    if head in ("pdm", "rye", "hatch", "pixi"):
        from .python import env_managers

        return env_managers(tokens)
    return None


@tool("make", "gmake")
def _make(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    if has(args, "-n", "--dry-run", "--just-print", "--recon", "-q", "--question"):
        return prints("`make -n` only prints (or asks) what it would run")
    sub = args[0] if args else ""
    if sub and not sub.startswith("-") and not is_assignment(sub):
        return by_name(MAKE, 2, sub, f"make {sub}")
    return None


@tool("just", "task", "poe", "invoke", "inv", "mage", "spin", "earthly", "xtask")
def _task(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if sub and not sub.startswith("-") and not is_assignment(sub):
        name = sub.rsplit(":", 1)[-1] if head == "spin" and ":" in sub else sub
        return by_name(TASK_RUNNER, 2, name, f"{head} {sub}")
    return None


@tool("turbo")
def _turbo(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    skip = 2 if sub == "run" else 1
    task = tokens[skip] if len(tokens) > skip else ""
    return by_name(TURBO, skip + 1, task, f"turbo run {task}")


TURBO = Runner(
    "turbo",
    "check",
    opts("--filter -F --concurrency --cache-dir"),
    opts("--filter -F --affected"),
    positionals="always",
)
NX = Runner(
    "nx",
    "check",
    opts("-t --target --targets -p --projects --exclude --base --head --configuration -c --parallel"),
    opts("-p --projects --exclude --base --head --files"),
    positionals="always",
    opaque=True,
)


@tool("nx")
def _nx(tokens: tuple[str, ...]) -> Identification:
    """`nx test app`, `nx run app:test`, `nx run-many -t test`, `nx affected -t test`."""
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("run-many", "affected"):
        for i, token in enumerate(tokens[2:], start=2):
            if token.startswith(("--target=", "--targets=")):
                target = token.split("=", 1)[1]
            elif token in ("-t", "--target", "--targets") and i + 1 < len(tokens):
                target = tokens[i + 1]
            else:
                continue
            return by_name(NX, 2, target.split(",")[0], f"nx {sub} -t {target}")
        return None
    if sub == "run" and len(tokens) > 2 and ":" in tokens[2]:
        return by_name(NX, 3, tokens[2].split(":")[1], f"nx run {tokens[2]}")
    return by_name(NX, 2, sub, f"nx {sub}") if sub and not sub.startswith("-") else None


@tool("lerna")
def _lerna(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("publish", "version"):
        return publishes(f"`lerna {sub}` publishes a release")
    if sub == "run" and len(tokens) > 2:
        return by_name(TASK_RUNNER, 3, tokens[2], f"lerna run {tokens[2]}")
    return None


@tool("bazel", "bazelisk")
def _bazel(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "test":
        return Identified(BAZEL, 2, "test", "bazel test")
    return Identified(BAZEL, 2, "build", "bazel build") if sub == "build" else None


# -- linters and formatters of many languages -----------------------------------------------------------------------

_LINTERS = opts(
    "shellcheck hadolint yamllint actionlint codespell swiftlint semgrep djlint htmlhint checkmake "
    "editorconfig-checker typos markdownlint markdownlint-cli2 cspell vale"
)
# How each linter is told to rewrite files (default: --fix); with any of these it is a fixer, never evidence.
FIX_FLAGS: dict[str, tuple[str, ...]] = {
    "codespell": ("-w", "--write-changes"),
    "typos": ("-w", "--write-changes"),
    "swiftlint": ("--fix", "--autocorrect"),
    "djlint": ("--reformat",),
    "semgrep": ("--autofix",),
}


@tool(*sorted(_LINTERS))
def _linter(tokens: tuple[str, ...]) -> Identification:
    head, args = tokens[0], tokens[1:]
    fix_flags = FIX_FLAGS.get(head, ("--fix",))
    if has(args, *fix_flags):
        return writes(f"`{head}` with {'/'.join(fix_flags)} rewrites files; a fixer run is never evidence")
    return Identified(LINT_PATHS, 1, "lint", head)


@tool("sed", "perl")
def _in_place_editors(tokens: tuple[str, ...]) -> Identification:
    args = tokens[1:]
    in_place = any(t == "-i" or t.startswith(("-i", "--in-place")) for t in args if t.startswith("-") and t != "-")
    if tokens[0] == "perl":
        in_place = any(t.startswith("-") and not t.startswith("--") and "i" in t[1:] and "p" in t[1:] for t in args)
    return writes(f"`{tokens[0]} -i` rewrites files in place") if in_place else None


@tool("hurl")
def _hurl(tokens: tuple[str, ...]) -> Identification:
    return Identified(GENERIC_TEST, 1, "test", "hurl") if has(tokens[1:], "--test") else None


@tool("clang-format", "shfmt")
def _clang_format(tokens: tuple[str, ...]) -> Identification:
    return formatter(
        tokens[0], tokens[1:], check=("--dry-run", "-d", "--diff", "--check"), write=("-i", "--in-place", "-w")
    )


@tool("dprint")
def _dprint(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "fmt":
        return writes("`dprint fmt` rewrites files")
    return Identified(LINT_PATHS, 2, "lint", "dprint check") if sub == "check" else None


@tool("pre-commit", "prek")
def _pre_commit(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub in ("install", "install-hooks", "uninstall", "init-templatedir"):
        return installs(f"`pre-commit {sub}` installs git hooks; it does not run them")
    if sub in ("autoupdate", "migrate-config"):
        return writes(f"`pre-commit {sub}` rewrites the configuration")
    if sub in ("clean", "gc", "validate-config", "validate-manifest", "sample-config"):
        return prints(f"`pre-commit {sub}` does not run the hooks")
    if sub == "run" or not sub or sub.startswith("-"):
        hook = next((t for t in tokens[2:] if not t.startswith("-")), None) if sub == "run" else None
        kind = _HOOK_KINDS.get(hook or "") or (name_kind(hook) if hook else None) or "lint"
        return Identified(PRE_COMMIT, 2 if sub == "run" else 1, kind, "pre-commit run")
    return None


# pre-commit hook ids that say their kind (`pre-commit run mypy --all-files` type-checks).
_HOOK_KINDS: dict[str, Kind] = {
    "mypy": "typecheck",
    "pyright": "typecheck",
    "basedpyright": "typecheck",
    "tsc": "typecheck",
}


# -- version control, releases, installs: never checks -------------------------------------------------------------

_GIT_WRITES = opts(
    "commit tag push add rm mv checkout switch reset restore merge rebase cherry-pick revert am apply stash clean"
)
_PUBLISHERS = opts(
    "twine semantic-release changeset changesets release-it np standard-version gh release-please "
    "bumpversion bump2version bump-my-version tbump towncrier flit docker podman"
)


@tool("goreleaser")
def _goreleaser(tokens: tuple[str, ...]) -> Identification:
    sub = tokens[1] if len(tokens) > 1 else ""
    if sub == "build":
        return Identified(BUILD, 2, "build", "goreleaser build")
    if sub == "check":
        return Identified(LINT_PATHS, 2, "lint", "goreleaser check")
    return publishes(f"`goreleaser {sub or 'release'}` publishes a release")


@tool("git")
def _git(tokens: tuple[str, ...]) -> Identification:
    sub = next((t for t in tokens[1:] if not t.startswith("-")), "")
    if sub in ("push", "tag"):
        return publishes(f"`git {sub}` publishes to a remote or marks a release")
    if sub in _GIT_WRITES:
        return writes(f"`git {sub}` changes the repository")
    if sub in ("clone", "fetch", "pull", "submodule", "init", "worktree", "lfs"):
        return installs(f"`git {sub}` fetches sources (a dependency, test data): preparation, not a change")
    return None  # reading, diffing


@tool(*sorted(_PUBLISHERS))
def _publisher(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if head in ("docker", "podman"):
        if sub in ("push", "login", "tag"):
            return publishes(f"`{head} {sub}` publishes an image")
        return None
    if head == "gh":
        return publishes(f"`gh {sub}` acts on GitHub") if sub in ("release", "pr", "workflow", "api") else None
    if head == "flit":
        return publishes("`flit publish` uploads a release") if sub == "publish" else None
    if head == "twine" and sub == "check":
        return Identified(LINT_PATHS, 2, "lint", "twine check")  # it reads the built packages' metadata
    if head == "towncrier":
        return (
            prints("`towncrier --draft` only prints")
            if has(tokens, "--draft")
            else writes("`towncrier` rewrites the changelog")
        )
    return publishes(f"`{head}` releases or uploads")


_INSTALLERS = opts("pip pip3 pipx apt apt-get brew gem conda mamba micromamba virtualenv corepack nvm rustup sdk")


@tool(*sorted(_INSTALLERS))
def _installer(tokens: tuple[str, ...]) -> Identification:
    head, sub = tokens[0], tokens[1] if len(tokens) > 1 else ""
    if head in ("pip", "pip3") and sub in ("check", "list", "show", "freeze", "download"):
        return None if sub == "check" else prints(f"`pip {sub}` only reports")
    if head == "gem" and sub in ("push", "yank"):
        return publishes(f"`gem {sub}` publishes to rubygems")
    if head in ("pip", "pip3", "virtualenv", "conda", "mamba", "micromamba") and not has(tokens, "--user"):
        return installs(f"`{head}` installs into the project's environment")
    return system(f"`{head}` installs software on the machine")


@tool("open", "xdg-open", "start", "wslview", "sensible-browser")
def _opens_a_window(tokens: tuple[str, ...]) -> Identification:
    return watches(f"`{tokens[0]}` opens a window on the desktop: not a check")


_SAFE_UTILITIES = opts(
    "echo printf true false test [ cd pushd popd export set unset source . mkdir cat ls pwd which command type "
    "sleep exit return shift trap read wait env printenv date tee touch cp ln rm mv chmod head tail grep sed awk "
    "find xargs sort uniq wc tr cut basename dirname realpath readlink"
)


def is_plain_utility(head: str) -> bool:
    """A shell utility that neither checks nor changes the project in a way that matters to detection."""
    return head in _SAFE_UTILITIES


# What a script named by its file name ends with (`run_tests.sh`): a command of this name may be a check.
SCRIPT_SUFFIXES = (".sh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".bash")


@last_resort
def _script_path(tokens: tuple[str, ...]) -> Identification:
    head = tokens[0]
    if "/" in head or PurePosixPath(head).suffix in SCRIPT_SUFFIXES:
        found = by_name(SCRIPT, 1, head, head)
        if found is None and TEST_DIRS.intersection(PurePosixPath(head).parts[:-1]):
            return Identified(SCRIPT, 1, "test", head)  # `test/runner.rb`: a script of the test suite
        return found
    return None
