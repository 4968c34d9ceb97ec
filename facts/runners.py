"""What a simple command really runs, and what kind of check that is (design §3.3–§3.6).

Two steps, both pure:

* `normalise()` peels wrappers off one simple command (`env`, `VAR=x`, `timeout`, `uv run`, `python -m`,
  `npx`, `.venv/bin/`, `./`, `bash script` …) and rewrites package-script spellings to one form
  (`npm t` → `npm run test`), giving an `Invocation` whose tokens start with the tool itself.
* `identify()` looks an invocation's tokens up in the table of recognised runners and says what kind of check it
  is (or that it rewrites files, or only prints help), and how its arguments are read: which options take a value,
  which options and positionals narrow the run.

Both sides of an approved match (the line typed and the facts' declared command) go through `normalise()`, so
`uv run pytest` declared matches `python -m pytest` typed.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

from freshpass.facts.model import Kind
from freshpass.facts.shell import is_assignment

__all__ = [
    "Identified",
    "Invocation",
    "NotEvidence",
    "Rejected",
    "Runner",
    "arg_names_path",
    "identify",
    "normalise",
    "positional_indexes",
    "script_kind",
]


@dataclass(frozen=True)
class Invocation:
    """One command after normalisation.

    `tokens` start with the tool (`pytest`, `go`, `npm` …); package scripts read `(pm, "run", name, *args)`.
    `cwd` is where it runs (after `cd`, `npm --prefix`, `make -C` …), None when unknowable (`cd $DIR`).
    `wrapper_args` are narrowing options consumed by a wrapper (`pnpm --filter web`), kept as `--filter=web`.
    """

    tokens: tuple[str, ...]
    cwd: Path | None
    wrapper_args: tuple[str, ...] = ()
    shell_script: str | None = None  # `bash -c SCRIPT`: the script, to be classified in its own right
    shell_pipefail: bool = False  # `bash -o pipefail -c SCRIPT`


@dataclass(frozen=True)
class Rejected:
    """A command that is never evidence, and why (`sudo pytest`, `python -c …`)."""

    reason: str


def _opts(names: str) -> frozenset[str]:
    """A set of option names written as one whitespace-separated string (the tables stay readable)."""
    return frozenset(names.split())


# --- normalisation ---------------------------------------------------------------------------------------------

_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)?)?|py")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_ELEVATE = frozenset({"sudo", "doas", "su", "pkexec", "run0"})
_TRANSPARENT = frozenset({"command", "builtin", "noglob", "nohup", "exec", "unbuffer", "chronic"})
_BIN_DIRS = frozenset({"bin", ".bin", "Scripts"})


def _value_of(args: tuple[str, ...], i: int, option: str) -> tuple[str | None, int]:
    """Value of `option` at args[i] (`--opt=v`, `--opt v`, `-ov`); returns (value, next index)."""
    token = args[i]
    if token.startswith(option + "="):
        return token[len(option) + 1 :], i + 1
    if token == option:
        return (args[i + 1], i + 2) if i + 1 < len(args) else (None, i + 1)
    if len(option) == 2 and token.startswith(option) and len(token) > 2:
        return token[2:], i + 1
    return None, i + 1


def _skip_options(args: tuple[str, ...], start: int, *, with_value: frozenset[str] = frozenset()) -> int:
    """Index of the first positional in args[start:], skipping options (and the values of `with_value` ones).
    A `--` ends the options and is skipped itself."""
    i = start
    while i < len(args):
        token = args[i]
        if token == "--":
            return i + 1
        if not token.startswith("-") or token == "-":
            return i
        name = token.split("=", 1)[0]
        i += 2 if (name in with_value and "=" not in token) else 1
    return i


def _chdir(cwd: Path | None, target: str) -> Path | None:
    if cwd is None or not target or "$" in target or "`" in target:
        return None
    path = Path(os.path.expanduser(target))
    return Path(os.path.normpath(path if path.is_absolute() else cwd / path))


def _resolve_program(word: str, root: Path | None) -> str:
    """`./x` ≡ `x`; tools in virtualenv / node_modules bin dirs and absolute paths resolve to their name;
    a script under the root reads as its path relative to the root."""
    if "/" not in word:
        return word
    path = PurePosixPath(word)
    if path.parent.name in _BIN_DIRS:
        return path.name
    if path.is_absolute():
        if root is not None:
            try:
                return Path(word).relative_to(root).as_posix()
            except ValueError:
                pass
        return path.name
    while word.startswith("./"):
        word = word[2:].lstrip("/")
    return word


_UV_RUN_VALUE = _opts(
    "--with --with-editable --with-requirements --extra --group --only-group --no-group "
    "--no-extra --package --python -p --env-file --index --index-url --extra-index-url "
    "--default-index --find-links -f --resolution --prerelease --color --cache-dir "
    "--config-file --exclude-newer --refresh-package --reinstall-package --upgrade-package -P "
    "--python-preference --link-mode --keyring-provider --config-setting -C --index-strategy "
    "--from --directory --project"
)
_NPX_VALUE = frozenset({"-p", "--package", "--cache", "--userconfig", "--registry", "--workspace", "-w"})
_CONDA_VALUE = frozenset({"-n", "--name", "-p", "--prefix", "--cwd"})
_COVERAGE_VALUE = _opts("--rcfile --source --include --omit --concurrency --data-file --context")
_TIMEOUT_VALUE = frozenset({"-s", "--signal", "-k", "--kill-after"})
_TIME_VALUE = frozenset({"-f", "--format", "-o", "--output"})
_PYTHON_VALUE = frozenset({"-X", "-W", "--check-hash-based-pycs"})
_RUBY_VALUE = frozenset({"-I", "-r", "-C", "-E", "--encoding"})
_NODE_VALUE = frozenset({"-r", "--require", "--import", "--loader", "--experimental-loader", "--env-file", "-C"})
_NPM_VALUE = frozenset({"--prefix", "-w", "--workspace", "--loglevel", "--userconfig", "--cache", "--registry"})
_PNPM_VALUE = frozenset(
    {"-C", "--dir", "--filter", "-F", "--reporter", "--workspace-concurrency", "--loglevel", "--filter-prod"}
)
_YARN_VALUE = frozenset({"--cwd"})
_MAKE_VALUE = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "-I", "-o", "-W"})
_JUST_VALUE = frozenset({"-f", "--justfile", "-d", "--working-directory", "--set", "--shell", "--dotenv-path"})
_TASK_VALUE = frozenset({"-d", "--dir", "-t", "--taskfile", "-o", "--output", "-C", "--concurrency"})

# `pnpm X` / `yarn X` run a script X unless X is one of the package manager's own commands.
_PM_BUILTINS = _opts(
    "install i add remove rm uninstall update up upgrade exec dlx create init publish pack link "
    "unlink store list ls why outdated audit config rebuild prune fetch import setup env root "
    "bin patch deploy licenses doctor server help info cache global workspaces workspace set "
    "plugin version node dedupe constraints npm explain ci login logout whoami x "
    "upgrade-interactive install-test it"
)
# Environment managers whose `run NAME` may start a script the project declares rather than a binary.
_SCRIPT_HOSTS = _opts("pdm hatch rye pixi")
# Package managers where `PM test` is the `test` script.
_TEST_SHORTHAND = _opts("npm pnpm yarn composer")
_NPM_RUN_WORDS = frozenset({"run", "run-script", "rum", "urn"})
_TEST_ALIASES = frozenset({"test", "t", "tst"})


def normalise(words: tuple[str, ...], cwd: Path | None, root: Path | None = None) -> list[Invocation] | Rejected | None:
    """Peel wrappers off one simple command. Returns the invocations it stands for (one, or one per target for
    `make lint test`), `Rejected` when it is never evidence, or None when nothing runs (bare assignments)."""
    args = tuple(words)
    for _ in range(32):  # wrappers nest (`env X=1 timeout 60 uv run python -m pytest`); bounded by construction
        while args and is_assignment(args[0]):
            args = args[1:]
        if not args:
            return None
        head = _resolve_program(args[0], root)
        base = PurePosixPath(head).name
        rest = args[1:]
        if base in _ELEVATE:
            return Rejected(f"{base} runs it as another user, outside this workspace's environment")
        if base == "env":
            i = 0
            while i < len(rest):
                token = rest[i]
                if token in ("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-"):
                    i += 1
                elif token in ("-u", "--unset"):
                    i += 2
                elif token.startswith(("--unset=", "-u")):
                    i += 1
                elif token in ("-C", "--chdir") or token.startswith("--chdir="):
                    target, i = _value_of(rest, i, "--chdir" if token.startswith("--") else "-C")
                    cwd = _chdir(cwd, target or "")
                elif token in ("-S", "--split-string") and i + 1 < len(rest):
                    rest = rest[:i] + tuple(rest[i + 1].split()) + rest[i + 2 :]
                elif token == "--":
                    i += 1
                    break
                else:
                    break
            args = rest[i:]
            continue
        if base in _TRANSPARENT:
            if base == "command" and rest[:1] and rest[0] in ("-v", "-V"):
                return Rejected("`command -v` only looks a command up")
            if base == "exec":
                i = 0
                while i < len(rest) and rest[i].startswith("-"):
                    i += 2 if rest[i] == "-a" else 1
                rest = rest[i:]
            elif rest[:1] == ("-p",) and base == "command":
                rest = rest[1:]
            args = rest
            continue
        if base == "time":
            args = rest[_skip_options(rest, 0, with_value=_TIME_VALUE) :]
            continue
        if base == "nice":
            i = 0
            while i < len(rest) and rest[i].startswith("-") and rest[i] != "--":
                i += 2 if rest[i] in ("-n", "--adjustment") else 1
            if i < len(rest) and rest[i] == "--":
                i += 1
            args = rest[i:]
            continue
        if base in ("timeout", "gtimeout"):
            i = _skip_options(rest, 0, with_value=_TIMEOUT_VALUE)
            args = rest[i + 1 :]  # the DURATION, then the command
            continue
        if base == "stdbuf" or base == "ionice":
            args = rest[_skip_options(rest, 0, with_value=frozenset({"-c", "-n", "-p", "-i", "-o", "-e"})) :]
            continue
        if base == "xvfb-run":
            args = rest[_skip_options(rest, 0, with_value=frozenset({"-s", "--server-args", "-n", "-e"})) :]
            continue
        if _PYTHON.fullmatch(base):
            i = 0
            while i < len(rest):
                token = rest[i]
                if token == "-m":
                    if i + 1 >= len(rest):
                        return Rejected("`python -m` without a module")
                    args = rest[i + 1 :]
                    break
                if token.startswith("-m") and len(token) > 2:
                    args = (token[2:], *rest[i + 1 :])
                    break
                if token == "-c" or (token.startswith("-") and not token.startswith("--") and token.endswith("c")):
                    return Rejected("inline Python code (`python -c`) is not a recognised check")
                if token == "-":
                    return Rejected("Python reading a program from stdin is not a recognised check")
                if not token.startswith("-"):
                    args = rest[i:]  # `python script.py args`: the script is the program
                    break
                i += 2 if token in _PYTHON_VALUE else 1
            else:
                return None if not rest else Rejected("an interactive Python interpreter is not a check")
            continue
        if base in ("ruby", "php"):
            inline = "-e" if base == "ruby" else "-r"
            i = _skip_options(rest, 0, with_value=_RUBY_VALUE - {inline})
            if inline in rest[:i]:
                return Rejected(f"inline {base} code (`{base} {inline}`) is not a recognised check")
            if i >= len(rest):
                return None
            args = rest[i:]
            continue
        if base == "node" and "--test" not in rest:
            i = _skip_options(rest, 0, with_value=_NODE_VALUE)
            if any(t in ("-e", "--eval", "-p", "--print") for t in rest[:i]):
                return Rejected("inline JavaScript (`node -e`) is not a recognised check")
            if i >= len(rest):
                return None
            args = rest[i:]
            continue
        if base == "coverage" and rest[:1] == ("run",):
            i = 1
            while i < len(rest) and rest[i].startswith("-") and rest[i] != "-m":
                i += 2 if rest[i] in _COVERAGE_VALUE else 1
            args = rest[i + 1 :] if rest[i : i + 1] == ("-m",) else rest[i:]  # `-m MODULE` or a script
            continue
        if base in _SHELLS:
            i = 0
            runs_string = False  # `-c` anywhere among the options: the first operand is the script text
            pipefail = False
            while i < len(rest):
                token = rest[i]
                if token == "--":
                    i += 1
                    break
                if token in ("--rcfile", "--init-file"):
                    i += 2
                    continue
                if token.startswith("--"):
                    i += 1
                    continue
                if len(token) > 1 and token[0] in "-+":
                    letters = token[1:]
                    runs_string = runs_string or "c" in letters
                    if "o" in letters or "O" in letters:  # `-o NAME`, `-euo pipefail`: the option takes a name
                        if rest[i + 1 : i + 2] == ("pipefail",):
                            pipefail = token[0] == "-"
                        i += 2
                        continue
                    i += 1
                    continue
                break
            if i >= len(rest):
                return Rejected(f"`{base} -c` without a script") if runs_string else None
            if runs_string:
                script = rest[i]
                return [Invocation((base, "-c", script), cwd, shell_script=script, shell_pipefail=pipefail)]
            args = rest[i:]
            continue
        if base == "uv" and (rest[:1] == ("run",) or rest[:2] == ("tool", "run")):
            start = 1 if rest[:1] == ("run",) else 2
            i = start
            while i < len(rest) and rest[i].startswith("-"):
                token = rest[i]
                if token == "--":
                    i += 1
                    break
                name = token.split("=", 1)[0]
                if name in ("--directory", "--project"):
                    target, i = _value_of(rest, i, name)
                    if name == "--directory":
                        cwd = _chdir(cwd, target or "")
                    continue
                i += 2 if name in _UV_RUN_VALUE and "=" not in token else 1
            args = rest[i:]
            continue
        if base in ("poetry", "pdm", "pipenv", "rye", "hatch", "conda", "mamba", "micromamba", "pixi"):
            i = 0
            # global options before `run` (`poetry -C app run`, `hatch -e test run`)
            while i < len(rest) and rest[i].startswith("-"):
                token = rest[i]
                if token in ("-C", "--directory", "-p", "--project") and base in ("poetry", "pdm"):
                    target, i = _value_of(rest, i, token)
                    cwd = _chdir(cwd, target or "")
                    continue
                i += 2 if token in ("-e", "--env") and base == "hatch" else 1
            if i >= len(rest):
                return None
            if rest[i] != "run":  # the tool's own command (`hatch test`, `poetry install`): identify decides
                return [Invocation((base, *rest[i:]), cwd)]
            i += 1
            value_options = _CONDA_VALUE if base in ("conda", "mamba", "micromamba") else frozenset({"-e", "--env"})
            while i < len(rest) and rest[i].startswith("-"):
                token = rest[i]
                if token == "--":
                    i += 1
                    break
                if token == "--cwd":
                    target, i = _value_of(rest, i, token)
                    cwd = _chdir(cwd, target or "")
                    continue
                i += 2 if token in value_options and "=" not in token else 1
            args = rest[i:]
            if base == "hatch" and args and ":" in args[0] and "::" not in args[0]:
                in_env = (args[0].split(":", 1)[1], *args[1:])  # `hatch run test:pytest` → pytest in env `test`
                args = in_env if identify(in_env) is not None else args  # else a script (`hatch run lint:check`)
            if base in _SCRIPT_HOSTS and args and "/" not in args[0] and identify(args) is None:
                return [Invocation((base, "run", *args), cwd)]  # a script the project defines (`pdm run lint`)
            continue
        if base == "bundle" and rest[:1] == ("exec",):
            args = rest[_skip_options(rest, 1, with_value=_opts("--gemfile")) :]
            continue
        package_runner = base in ("npx", "bunx", "pnpx", "uvx")
        if package_runner or (base in ("pnpm", "yarn", "npm", "bun") and rest[:1] in (("exec",), ("dlx",), ("x",))):
            start = 0 if package_runner else 1
            value_options = _NPX_VALUE | (_UV_RUN_VALUE if base == "uvx" else frozenset())
            args = rest[_skip_options(rest, start, with_value=value_options) :]
            if args:
                args = (_package_binary(args[0]), *args[1:])
            continue
        if base in ("mvnw", "gradlew"):
            args = (base[:-1], *rest)
            break
        if base == "py.test":
            args = ("pytest", *rest)
            break
        if base == "cargo" and rest[:1] and rest[0].startswith("+"):
            args = ("cargo", *rest[1:])  # `cargo +nightly test`: the toolchain does not change what runs
            break
        args = (head, *rest)
        break
    else:
        return Rejected("too many nested wrappers to analyse")

    return _package_and_task_runners(args, cwd, root)


def _package_binary(spec: str) -> str:
    """`jest@29` → jest, `@biomejs/biome@1.9` → biome, `ruff==0.6` → ruff: the tool a package runner starts."""
    name = spec[1:].split("@", 1)[0] if spec.startswith("@") else spec.split("@", 1)[0]
    name = re.split(r"[=<>~!\[]", name, maxsplit=1)[0] or spec
    return name.rsplit("/", 1)[-1] if spec.startswith("@") else name


def _package_and_task_runners(
    args: tuple[str, ...], cwd: Path | None, root: Path | None
) -> list[Invocation] | Rejected | None:
    """Package scripts in one spelling (`npm t` → `npm run test`) and one invocation per make/task target."""
    head, rest = args[0], args[1:]
    narrowing: list[str] = []  # wrapper options that select a part of a workspace (`pnpm --filter web`)
    if head in ("npm", "pnpm", "yarn", "bun", "composer"):
        value_options = {"npm": _NPM_VALUE, "pnpm": _PNPM_VALUE, "yarn": _YARN_VALUE}.get(head, frozenset())
        i = 0
        while i < len(rest) and rest[i].startswith("-") and rest[i] != "--":
            token = rest[i]
            name = token.split("=", 1)[0]
            value, nxt = _value_of(rest, i, name) if name in value_options else (None, i + 1)
            if name in ("--prefix", "-C", "--dir", "--cwd"):
                cwd = _chdir(cwd, value or "")
            elif name in ("-w", "--workspace", "--filter", "-F", "--filter-prod"):
                narrowing.append(f"{name}={value}")
            i = nxt
        if head == "yarn" and rest[i : i + 1] == ("workspace",) and i + 1 < len(rest):
            narrowing.append(f"workspace={rest[i + 1]}")
            i += 2
        sub = rest[i] if i < len(rest) else None
        after = rest[i + 1 :]
        if sub is None:
            return None if head != "yarn" else Rejected("bare `yarn` installs dependencies")
        script: str | None = None
        if head == "bun" and sub == "test":
            return [Invocation(("bun", "test", *after), cwd, tuple(narrowing))]  # bun's own runner
        if sub in _NPM_RUN_WORDS or (head == "composer" and sub == "run"):
            script_index = _skip_options(after, 0, with_value=value_options)
            if script_index >= len(after):
                return Rejected(f"`{head} {sub}` without a script only lists the scripts")
            script, after = after[script_index], after[script_index + 1 :]
        elif sub in _TEST_ALIASES and head != "bun":
            script = "test"
        elif head == "npm" or sub in _PM_BUILTINS:
            return [Invocation((head, *rest[i:]), cwd, tuple(narrowing))]
        elif head in ("yarn", "pnpm") and sub in _TOOL_NAMES:
            # `yarn jest` runs the jest binary when no script shadows it
            return normalise((sub, *after), cwd, root)
        else:
            script = sub
        if head == "npm":
            # npm reads `--flags` before `--` as its own config; positional words and all after `--` reach the script
            cut = after.index("--") if "--" in after else len(after)
            after = (*(t for t in after[:cut] if not t.startswith("-")), *after[cut + 1 :])
        elif after[:1] == ("--",):
            after = after[1:]
        return [Invocation((head, "run", script, *after), cwd, tuple(narrowing))]
    if head == "deno" and rest[:1] == ("task",) and len(rest) > 1:
        return [Invocation(("deno", "task", *rest[1:]), cwd, tuple(narrowing))]
    if head in ("make", "gmake"):
        i = 0
        targets: list[str] = []
        variables: list[str] = []
        options: list[str] = []
        while i < len(rest):
            token = rest[i]
            name = token.split("=", 1)[0]
            if token.startswith("-") and token != "-":
                if name in ("-C", "--directory") or (token.startswith("-C") and len(token) > 2):
                    value, i = _value_of(rest, i, "-C" if token.startswith("-C") else "--directory")
                    cwd = _chdir(cwd, value or "")
                    continue
                takes_value = name in _MAKE_VALUE and "=" not in token and len(token) == len(name)
                optional_number = name in ("-j", "--jobs", "-l", "--load-average")
                if optional_number and not (i + 1 < len(rest) and rest[i + 1].replace(".", "", 1).isdigit()):
                    takes_value = False  # `make -j test`: the job count is optional
                consumed = 2 if takes_value else 1
                options.extend(rest[i : i + consumed])
                i += consumed
                continue
            (variables if is_assignment(token) else targets).append(token)
            i += 1
        if not targets:
            return [Invocation(("make", *options, *variables), cwd, tuple(narrowing))]
        return [Invocation(("make", target, *options, *variables), cwd, tuple(narrowing)) for target in targets]
    if head == "task":
        i = 0
        options = []
        names: list[str] = []
        passthrough: tuple[str, ...] = ()
        while i < len(rest):
            token = rest[i]
            if token == "--":
                passthrough = rest[i:]
                break
            if token in ("-d", "--dir"):
                value, i = _value_of(rest, i, token)
                cwd = _chdir(cwd, value or "")
                continue
            if token.startswith("-"):
                consumed = 2 if token in _TASK_VALUE else 1
                options.extend(rest[i : i + consumed])
                i += consumed
                continue
            names.append(token)
            i += 1
        return [Invocation(("task", name, *options, *passthrough), cwd, tuple(narrowing)) for name in names] or [
            Invocation(("task", *options), cwd, tuple(narrowing))
        ]
    if head == "just":
        i = 0
        while i < len(rest) and rest[i].startswith("-"):
            token = rest[i]
            if token in ("-d", "--working-directory"):
                value, i = _value_of(rest, i, token)
                cwd = _chdir(cwd, value or "")
                continue
            i += (3 if token == "--set" else 2) if token in _JUST_VALUE else 1
        return [Invocation(("just", *rest[i:]), cwd, tuple(narrowing))]
    return [Invocation(args, cwd, tuple(narrowing))]


# --- recognised runners ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Runner:
    """How a recognised runner reads its arguments.

    `positionals`: "paths" — a positional narrows when it names a test id, an existing path other than the
    root/cwd, or a source/test file; "always" — any positional narrows (jest path patterns, cargo test filters);
    "packages" — Go package patterns (anything but `./...` narrows); "never".
    """

    name: str
    kind: Kind
    value_options: frozenset[str] = frozenset()
    narrowing_options: frozenset[str] = frozenset()
    positionals: str = "paths"
    passthrough_narrows: bool = False  # `tox -- ARGS`: anything after `--` narrows
    test_binary_args: bool = False  # `cargo test -- ARGS`: filters and `--skip`/`--exact` narrow, flags do not
    opaque: bool = False  # a script or task whose options are unknown: `--name WORD` is read as option and value


@dataclass(frozen=True)
class Identified:
    runner: Runner
    head: int  # how many leading tokens name the runner (`go test` = 2)
    kind: Kind
    label: str = ""  # for messages: "pytest", "npm run lint", "make test"


@dataclass(frozen=True)
class NotEvidence:
    """A recognised tool in a mode that never counts: it rewrites files, only prints help, or watches forever."""

    reason: str


PYTEST = Runner(
    "pytest",
    "test",
    value_options=_opts(
        "-k -m -p -c -o -n -r -W --tb --maxfail --deselect --ignore --ignore-glob --rootdir "
        "--basetemp --durations --confcutdir --junitxml --junit-xml --log-level --log-file "
        "--log-cli-level --color --capture --import-mode --cov --cov-report --cov-config "
        "--cov-fail-under --dist --timeout --override-ini --count --reruns --numprocesses "
        "--maxprocesses --show-capture --report-log --config-file --random-order-seed -M"
    ),
    narrowing_options=_opts(
        "-k -m --lf --last-failed --deselect --ignore --ignore-glob --sw --stepwise --sw-skip "
        "--stepwise-skip --pyargs --nf --new-first"
    ),
)
UNITTEST = Runner("unittest", "test", _opts("-k -s -p -t"), _opts("-k -p"), positionals="always")
TOX = Runner(
    "tox",
    "test",
    _opts("-e --env -c --conf -f --root --workdir -x --override --installpkg -p --parallel --discover -m"),
    _opts("-e --env -f -m --labels"),
    positionals="never",
    passthrough_narrows=True,
)
NOX = Runner(
    "nox",
    "test",
    _opts(
        "-s --session --sessions -e -k -t --tags -p --python -f --noxfile --envdir -db "
        "--default-venv-backend --force-python -P"
    ),
    _opts("-s --session --sessions -e -k -t --tags -p --python -P --force-python"),
    positionals="always",
    passthrough_narrows=True,
)
JEST = Runner(
    "jest",
    "test",
    _opts(
        "-t --testNamePattern -c --config --testPathPattern --testPathPatterns "
        "--testPathIgnorePatterns --selectProjects --shard --maxWorkers -w --reporters "
        "--coverageReporters --changedSince --outputFile --rootDir --roots --env --testEnvironment "
        "--testTimeout --seed --filter --coverageDirectory --cacheDirectory"
    ),
    _opts(
        "-t --testNamePattern --testPathPattern --testPathPatterns -o --onlyChanged --changedSince "
        "--findRelatedTests --selectProjects --shard --testPathIgnorePatterns --lastCommit "
        "--onlyFailures -f --filter"
    ),
    positionals="always",
)
VITEST = Runner(
    "vitest",
    "test",
    _opts(
        "-t --testNamePattern --project --shard --dir -c --config -r --root --reporter --outputFile "
        "--environment --pool --exclude --mode --maxWorkers --minWorkers --testTimeout "
        "--sequence.seed"
    ),
    _opts("-t --testNamePattern --project --shard --dir --changed --related --exclude --onlyChanged"),
    positionals="always",
)
MOCHA = Runner(
    "mocha",
    "test",
    _opts(
        "-g --grep -f --fgrep -r --require -R --reporter -t --timeout -s --slow -u --ui --config "
        "--spec --extension --ignore --exclude --file -O --reporter-option --package -j --jobs"
    ),
    _opts("-g --grep -f --fgrep --spec -i --invert --ignore --exclude"),
    positionals="always",
)
NODE_TEST = Runner(
    "node --test",
    "test",
    _opts(
        "--test-name-pattern --test-skip-pattern --test-reporter --test-reporter-destination "
        "--test-concurrency --test-timeout --import --require -r --loader --experimental-loader "
        "--env-file --test-shard"
    ),
    _opts("--test-name-pattern --test-skip-pattern --test-only --test-shard"),
    positionals="always",
)
BUN_TEST = Runner(
    "bun test",
    "test",
    _opts("-t --test-name-pattern --timeout --preload --rerun-each --coverage-reporter"),
    _opts("-t --test-name-pattern --only --bail"),
    positionals="always",
)
DENO_TEST = Runner("deno test", "test", _opts("--filter --config -c --import-map"), _opts("--filter"))
GO_TEST = Runner(
    "go test",
    "test",
    _opts(
        "-run -skip -count -timeout -tags -p -parallel -cpu -bench -benchtime -coverprofile "
        "-covermode -coverpkg -o -exec -vet -ldflags -gcflags -asmflags -mod -modfile -C -shuffle "
        "-list -outputdir -cpuprofile -memprofile -blockprofile -mutexprofile -trace -fuzz "
        "-fuzztime"
    ),
    _opts("-run -skip -list -fuzz"),
    positionals="packages",
)
GO_PACKAGES = Runner("go", "lint", GO_TEST.value_options, frozenset(), positionals="packages")
CARGO = Runner(
    "cargo",
    "test",
    _opts(
        "-p --package --test --bin --example --bench --features -F -j --jobs --target --target-dir "
        "--manifest-path --profile --exclude --message-format --color -Z --config --lockfile-path "
        "-E --filterset --filter-expr --partition -P --retries --test-threads --cargo-profile"
    ),
    _opts(
        "-p --package --test --lib --bin --bins --example --examples --bench --benches --doc "
        "--exclude -E --filterset --filter-expr --partition --tests"
    ),
    positionals="always",
    test_binary_args=True,
)
MAVEN = Runner(
    "mvn",
    "test",
    _opts(
        "-pl --projects -f --file -s --settings -P --activate-profiles -T --threads -rf "
        "--resume-from -D -gs --global-settings -t --toolchains"
    ),
    _opts("-pl --projects -rf --resume-from -Dtest -Dit.test -Dgroups -DexcludedGroups"),
    positionals="never",
)
GRADLE = Runner(
    "gradle",
    "test",
    _opts(
        "--tests -p --project-dir -x --exclude-task --max-workers --console -I --init-script -c "
        "--settings-file -b --build-file --warning-mode"
    ),
    _opts("--tests -x --exclude-task"),
    positionals="never",
)
LINT_PATHS = Runner(
    "lint",
    "lint",
    _opts(
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
    _opts("--new --new-from-rev --new-from-patch --only"),
)
TYPECHECK_PATHS = Runner(
    "typecheck",
    "typecheck",
    _opts(
        "-p --package -m --module --config-file --python-version --platform --cache-dir --exclude "
        "--follow-imports --junit-xml -c --command --project --pythonpath --pythonplatform "
        "--pythonversion --level --threads --target --lib --outDir --rootDir --jsx "
        "--moduleResolution --types --tsBuildInfoFile --memory-limit --error-format -l "
        "--configuration --baseline"
    ),
    _opts("-p --package -m --module -c --command"),
)
TSC = Runner("tsc", "typecheck", TYPECHECK_PATHS.value_options, frozenset())  # tsc -p names the project
RSPEC = Runner(
    "rspec",
    "test",
    _opts("-e --example -t --tag -r --require -f --format -o --out --seed -I --pattern --order -P --exclude-pattern"),
    _opts(
        "-e --example -t --tag --pattern -P --only-failures --next-failure -n --exclude-pattern -E --example-matches"
    ),
)
PHPUNIT = Runner(
    "phpunit",
    "test",
    _opts(
        "--filter -c --configuration --testsuite --group --exclude-group --bootstrap --log-junit "
        "--test-suffix --covers --uses"
    ),
    _opts("--filter --testsuite --group --exclude-group --covers --uses"),
)
GENERIC_TEST = Runner(
    "test",
    "test",
    _opts(
        "--filter -R -L -E -j --parallel -C --project -c --config -g --grep --grep-invert "
        "--reporter --workers --shard --retries --timeout --max-failures --spec --browser --env "
        "--key --tag --group --only -e --output --logger --framework --configuration -f -t "
        "--test-arguments"
    ),
    _opts(
        "--filter -R -L -E -g --grep --grep-invert --project --shard --spec --last-failed --only "
        "--failed -t --stale --only-failures --match -m --tests"
    ),
    positionals="always",
)
# A wrapper script's positional arguments select (`./runtests.py admin_views`); its unknown flags do not.
SCRIPT = Runner("script", "check", frozenset(), frozenset(), positionals="always", opaque=True)
DJANGO = Runner(
    "manage.py test",
    "test",
    _opts("-k --tag --exclude-tag --parallel --settings --pythonpath -p --pattern -t --top-level-directory -v "
          "--verbosity --testrunner"),
    _opts("-k --tag --exclude-tag -p --pattern"),
    positionals="always",
)  # fmt: skip
TASK_RUNNER = Runner(
    "task", "check", frozenset(), frozenset(), positionals="always", passthrough_narrows=True, opaque=True
)
BAZEL = Runner(
    "bazel",
    "test",
    _opts("--config --test_filter --test_tag_filters"),
    _opts("--test_filter --test_tag_filters"),
    positionals="packages",
)


_OTHER_TEST_RUNNERS = _opts(
    "ava tap jasmine karma ctest pytest-watch ward behave robot hurl nosetests trial stestr testr"
)
_RUFF_OTHER_COMMANDS = _opts("rule config linter clean version help server analyze generate-shell-completion")
_LINTERS = _opts(
    "flake8 pylint pyflakes pycodestyle pydocstyle bandit vulture shellcheck hadolint yamllint actionlint codespell "
    "rubocop standardrb phpcs swiftlint ktlint detekt semgrep djlint htmlhint checkmake editorconfig-checker typos"
)
# How each linter is told to rewrite files (default: --fix); with any of these it is a fixer, never evidence.
_FIX_FLAGS: dict[str, tuple[str, ...]] = {
    "rubocop": ("-a", "-A", "--autocorrect", "--auto-correct", "--autocorrect-all", "--auto-correct-all", "-x"),
    "codespell": ("-w", "--write-changes"),
    "typos": ("-w", "--write-changes"),
    "ktlint": ("-F", "--format"),
    "swiftlint": ("--fix", "--autocorrect"),
    "djlint": ("--reformat",),
    "semgrep": ("--autofix",),
    "detekt": ("--auto-correct", "-ac"),
}

_NEVER_FINISHES = re.compile(r"(^|[:_-])(watch|dev|serve|server|start|open|ui)($|[:_-])")
_NAME_KINDS: tuple[tuple[re.Pattern[str], Kind | None], ...] = (
    # writers first: a `lint:fix` script is a fixer even though it says lint
    (re.compile(r"(^|[:_-])(fix|format|fmt|prettier|prettify|autofix|write|lintfix|black|isort)($|[:_-])"), None),
    (re.compile(r"(^|[:_-])(type-?check|typecheck|types|check-types|tsc|mypy|pyright|typing)($|[:_-])"), "typecheck"),
    (
        re.compile(
            r"(^|[:_-])(tests?|unit|unittests?|spec|specs|e2e|integration|pytest|jest|vitest|coverage|cov)($|[:_-])"
        ),
        "test",
    ),
    (re.compile(r"(^|[:_-])(lint|linters?|eslint|ruff|flake8|pylint|style|clippy|vet)($|[:_-])"), "lint"),
    (re.compile(r"^(check|checks|ci|verify|validate|precommit|pre-commit|qa|all-checks|check-all)($|[:_-])"), "check"),
    (re.compile(r"^(build|compile)($|[:_-])"), "build"),
)


def script_kind(name: str) -> Kind | Literal["writes"] | None:
    """Kind of a script/target/task by its name: a Kind, "writes" for a formatter or fixer (`format`,
    `lint:fix`), None when the name says nothing (`dev`, `start`, `install`)."""
    lowered = name.lower()
    stem = re.sub(r"\.(sh|bash|py|js|mjs|cjs|ts|rb|pl|ps1|cmd|bat)$", "", PurePosixPath(lowered).name)
    stem = re.sub(r"^run[_-]?", "", stem) or stem
    stem = "tests" if stem == "runtests" else stem
    if _NEVER_FINISHES.search(stem):
        return None  # `test:watch`, `dev`, `serve`: a watcher or server is not a check
    for pattern, kind in _NAME_KINDS:
        if pattern.search(stem):
            return "writes" if kind is None else kind
    if stem.startswith("test") or stem.endswith("test") or stem.endswith("_spec"):
        return "test"
    return None


_TOOL_NAMES = _opts(
    "jest vitest mocha eslint prettier tsc vue-tsc biome stylelint playwright cypress ava tap "
    "c8 nyc ts-node tsx oxlint xo standard turbo nx"
)


def _has(args: tuple[str, ...], *names: str) -> bool:
    return any(token == name or token.startswith(name + "=") for token in args for name in names)


def _formatter(
    label: str, args: tuple[str, ...], *, check: tuple[str, ...], write: tuple[str, ...] = (), head: int = 1
) -> Identified | NotEvidence:
    """A formatter counts (as lint) only in check mode; otherwise it rewrites files (or just prints)."""
    if _has(args, *check):
        return Identified(LINT_PATHS, head, "lint", f"{label} {check[0]}")
    if write and not _has(args, *write):
        return NotEvidence(f"`{label}` without {' or '.join(check)} neither checks nor rewrites: it prints")
    return NotEvidence(f"`{label}` rewrites files; a formatter run counts only in check mode ({check[0]})")


def identify(tokens: tuple[str, ...]) -> Identified | NotEvidence | None:
    """Which recognised runner a normalised invocation is, if any."""
    if not tokens:
        return None
    head = tokens[0]
    sub = tokens[1] if len(tokens) > 1 else ""
    args = tokens[1:]
    asks_help = _has(args, "--help", "--version", "--usage") or args[:1] in (("-h",), ("-V",), ("help",), ("version",))
    if asks_help and head not in ("make", "npm", "pnpm", "yarn", "bun", "composer", "deno", "task", "just"):
        return NotEvidence(f"`{head}` with help/version arguments only prints")
    if head == "pytest":
        if _has(args, "--collect-only", "--co", "--fixtures", "--markers", "--fixtures-per-test"):
            return NotEvidence("pytest --collect-only lists tests without running them")
        return Identified(PYTEST, 1, "test", "pytest")
    if head == "unittest" or (head == "green") or (head == "nose2"):
        return Identified(UNITTEST, 2 if sub == "discover" else 1, "test", head)
    if head in ("tox", "nox"):
        skip = 1 + (sub in ("run", "r", "run-parallel", "p"))
        if head == "tox" and sub in ("list", "l", "config", "c", "devenv", "depends", "de", "legacy", "quickstart"):
            return NotEvidence(f"`tox {sub}` does not run the test environments")
        if _has(args, "--list", "-l", "--list-sessions", "--notify-only", "--no-install-only", "--install-only"):
            return NotEvidence(f"`{head} {args[0]}` does not run the checks")
        return Identified(TOX if head == "tox" else NOX, skip, "test", head)
    if head == "jest":
        if _has(args, "--watch", "--watchAll"):
            return NotEvidence("jest --watch never finishes: a watcher is not a check")
        if _has(args, "--listTests", "--showConfig", "--clearCache"):
            return NotEvidence("jest with --listTests/--showConfig/--clearCache runs no tests")
        return Identified(JEST, 1, "test", "jest")
    if head == "vitest":
        if sub in ("watch", "dev") or _has(args, "--watch", "-w"):
            return NotEvidence("vitest in watch mode never finishes: a watcher is not a check")
        if sub in ("bench", "list", "init"):
            return NotEvidence(f"`vitest {sub}` runs no tests")
        if sub == "related":
            return Identified(VITEST, 1, "test", "vitest")  # `related FILES`: the files narrow
        return Identified(VITEST, 2 if sub == "run" else 1, "test", "vitest")
    if head == "mocha":
        if _has(args, "--watch", "-w"):
            return NotEvidence("mocha --watch never finishes: a watcher is not a check")
        return Identified(MOCHA, 1, "test", "mocha")
    if head == "node" and "--test" in tokens:
        if _has(args, "--watch"):
            return NotEvidence("node --test --watch never finishes: a watcher is not a check")
        return Identified(NODE_TEST, 1, "test", "node --test")
    if head == "bun" and sub == "test":
        if _has(args, "--watch"):
            return NotEvidence("bun test --watch never finishes: a watcher is not a check")
        return Identified(BUN_TEST, 2, "test", "bun test")
    if head == "deno":
        if sub == "task" and len(tokens) > 2:
            return _by_name(TASK_RUNNER, 3, tokens[2], f"deno task {tokens[2]}")
        if sub == "test":
            return Identified(DENO_TEST, 2, "test", "deno test")
        if sub == "lint":
            return (
                NotEvidence("deno lint --fix rewrites files")
                if _has(args, "--fix")
                else Identified(LINT_PATHS, 2, "lint", "deno lint")
            )
        if sub == "check":
            return Identified(TYPECHECK_PATHS, 2, "typecheck", "deno check")
        if sub == "fmt":
            return _formatter("deno fmt", args[1:], check=("--check",), head=2)
        return None
    if head == "go":
        if sub == "test":
            if _has(args, "-list", "--list"):
                return NotEvidence("go test -list lists tests without running them")
            return Identified(GO_TEST, 2, "test", "go test")
        if sub == "vet":
            return Identified(GO_PACKAGES, 2, "lint", "go vet")
        if sub == "build":
            return Identified(GO_PACKAGES, 2, "build", "go build")
        if sub in ("fmt", "fix"):
            return NotEvidence(f"`go {sub}` rewrites files")
        return None
    if head in ("gofmt", "goimports"):
        if _has(args, "-w"):
            return NotEvidence(f"`{head} -w` rewrites files")
        if _has(args, "-l", "-d"):
            return Identified(LINT_PATHS, 1, "lint", head)
        return NotEvidence(f"`{head}` without -l or -d only prints the formatted source")
    if head in ("golangci-lint", "staticcheck", "revive", "golint"):
        if _has(args, "--fix"):
            return NotEvidence(f"`{head} --fix` rewrites files")
        if head == "golangci-lint" and sub == "fmt":
            return NotEvidence("`golangci-lint fmt` rewrites files")
        skip = 2 if head == "golangci-lint" and sub == "run" else 1
        return Identified(GO_PACKAGES, skip, "lint", head)
    if head == "cargo":
        if sub == "test":
            if _has(args, "--no-run"):
                return Identified(CARGO, 2, "build", "cargo test --no-run")
            return Identified(CARGO, 2, "test", "cargo test")
        if sub == "nextest" and len(tokens) > 2 and tokens[2] == "run":
            return Identified(CARGO, 3, "test", "cargo nextest run")
        if sub == "clippy":
            if _has(args, "--fix"):
                return NotEvidence("`cargo clippy --fix` rewrites files")
            return Identified(CARGO, 2, "lint", "cargo clippy")
        if sub in ("build", "b"):
            return Identified(CARGO, 2, "build", "cargo build")
        if sub in ("check", "c"):
            return Identified(CARGO, 2, "typecheck", "cargo check")
        if sub == "fmt":
            return _formatter("cargo fmt", args[1:], check=("--check",), head=2)
        if sub == "fix":
            return NotEvidence("`cargo fix` rewrites files")
        return None
    if head == "rustfmt":
        return _formatter("rustfmt", args, check=("--check",))
    if head == "mvn":
        goals = [t for t in args if not t.startswith("-")]
        if any(g.endswith((":apply", ":format")) for g in goals):
            return NotEvidence("a Maven formatter goal (…:apply / …:format) rewrites files")
        skipping = _has(args, "-DskipTests", "-Dmaven.test.skip")
        if any(g in ("test", "verify", "install", "integration-test", "deploy") for g in goals):
            return Identified(MAVEN, 1, "build" if skipping else "test", "mvn " + " ".join(goals))
        if any(g in ("package", "compile", "test-compile") for g in goals):
            return Identified(MAVEN, 1, "build", "mvn " + " ".join(goals))
        if any(g.endswith(":check") for g in goals):
            return Identified(MAVEN, 1, "lint", "mvn " + " ".join(goals))
        return None
    if head == "gradle":
        tasks = [t for t in args if not t.startswith("-")]
        names = [t.rsplit(":", 1)[-1] for t in tasks]
        if any(n.endswith(("Apply", "Format")) for n in names):
            return NotEvidence("a Gradle formatter task (…Apply / …Format) rewrites files")
        gradle_kinds: tuple[tuple[str, Kind], ...] = (("test", "test"), ("check", "check"), ("build", "build"))
        for wanted, kind in gradle_kinds:
            if any(n == wanted or (kind == "test" and n.endswith("Test")) for n in names):
                return Identified(GRADLE, 1, kind, "gradle " + " ".join(tasks))
        if any(n.endswith("Check") or n in ("lint", "detekt") for n in names):
            return Identified(GRADLE, 1, "lint", "gradle " + " ".join(tasks))
        return None
    if head == "ruff":
        if sub == "format":
            return _formatter("ruff format", args[1:], check=("--check", "--diff"), head=2)
        skip = 2 if sub == "check" else 1
        if sub in _RUFF_OTHER_COMMANDS:
            return None  # `ruff rule`, `ruff server`, `ruff clean` …; any other word is a path (`ruff .`, legacy)
        if _has(args, "--fix", "--fix-only", "--unsafe-fixes") and not _has(args, "--no-fix", "--diff"):
            return NotEvidence("`ruff check --fix` rewrites files; a fixer run is never evidence")
        if _has(args, "--watch"):
            return NotEvidence("ruff --watch never finishes: a watcher is not a check")
        return Identified(LINT_PATHS, skip, "lint", "ruff check")
    if head == "black":
        return _formatter("black", args, check=("--check", "--diff"))
    if head == "isort":
        return _formatter("isort", args, check=("--check", "--check-only", "-c", "--diff"))
    if head in ("autopep8", "yapf", "clang-format", "shfmt", "stylua"):
        return _formatter(head, args, check=("--diff", "-d", "--dry-run", "--check"), write=("-i", "--in-place", "-w"))
    if head == "prettier":
        return _formatter("prettier", args, check=("--check", "-c", "--list-different", "-l"), write=("--write", "-w"))
    if head in ("eslint", "stylelint", "oxlint", "xo", "standard", "markdownlint", "markdownlint-cli2", "tslint"):
        if _has(args, "--fix") and not _has(args, "--fix-dry-run"):
            return NotEvidence(f"`{head} --fix` rewrites files; a fixer run is never evidence")
        return Identified(LINT_PATHS, 1, "lint", head)
    if head == "biome":
        if _has(args, "--write", "--apply", "--apply-unsafe", "--fix", "--unsafe"):
            return NotEvidence(f"`biome {sub}` with --write/--fix rewrites files")
        if sub in ("check", "lint", "ci", "format"):
            return Identified(LINT_PATHS, 2, "lint", f"biome {sub}")
        return None
    if head == "dprint":
        if sub == "fmt":
            return NotEvidence("`dprint fmt` rewrites files")
        return Identified(LINT_PATHS, 2, "lint", "dprint check") if sub == "check" else None
    if head in _LINTERS:
        fix_flags = _FIX_FLAGS.get(head, ("--fix",))
        if _has(args, *fix_flags):
            return NotEvidence(f"`{head}` with {'/'.join(fix_flags)} rewrites files; a fixer run is never evidence")
        return Identified(LINT_PATHS, 1, "lint", head)
    if head in ("php-cs-fixer", "phpcbf"):
        if head == "php-cs-fixer" and _has(args, "--dry-run"):
            return Identified(LINT_PATHS, 2 if sub == "fix" else 1, "lint", "php-cs-fixer --dry-run")
        return NotEvidence(f"`{head}` rewrites files")
    if head == "terraform":
        if sub == "fmt":
            return _formatter("terraform fmt", args[1:], check=("-check", "--check"), head=2)
        return Identified(LINT_PATHS, 2, "lint", "terraform validate") if sub == "validate" else None
    if head == "pre-commit":
        if sub in ("install", "autoupdate", "clean", "gc", "uninstall", "install-hooks", "init-templatedir"):
            return NotEvidence(f"`pre-commit {sub}` does not run the hooks")
        if sub == "run" or (not sub or sub.startswith("-")):
            return Identified(PRE_COMMIT, 2 if sub == "run" else 1, "lint", "pre-commit run")
        return None
    if head in _opts("mypy dmypy pyright basedpyright pyre pytype psalm phpstan steep sorbet srb flow ty pyrefly"):
        if _has(args, "--watch", "-w") and head in ("pyright", "basedpyright"):
            return NotEvidence(f"{head} --watch never finishes: a watcher is not a check")
        skip = 2 if sub in ("analyse", "analyze", "check", "run", "tc") else 1
        return Identified(TYPECHECK_PATHS, skip, "typecheck", head)
    if head in ("tsc", "vue-tsc", "svelte-check", "tsgo"):
        if _has(args, "--watch", "-w"):
            return NotEvidence(f"{head} --watch never finishes: a watcher is not a check")
        if head == "svelte-check" or _has(args, "--noEmit"):
            return Identified(TSC, 1, "typecheck", f"{head} --noEmit")
        return Identified(TSC, 1, "build", head)
    if head in ("rspec", "rails", "rake", "bin/rails", "bin/rspec", "bin/rake"):
        base = head.rsplit("/", 1)[-1]
        if base == "rspec":
            return Identified(RSPEC, 1, "test", "rspec")
        if sub in ("test", "spec", "test:all", "test:system", "spec:all"):
            return Identified(RAKE, 2, "test", f"{base} {sub}")
        return None
    if (PurePosixPath(head).name == "manage.py" or head == "django-admin") and sub == "test":
        return Identified(DJANGO, 2, "test", f"{head} test")
    if head in ("phpunit", "pest", "paratest", "codecept"):
        return Identified(PHPUNIT, 2 if sub == "run" else 1, "test", head)
    if PurePosixPath(head).name == "artisan" and sub == "test":
        return Identified(PHPUNIT, 2, "test", "php artisan test")
    if head in ("playwright", "cypress") and sub in ("test", "run"):
        return Identified(GENERIC_TEST, 2, "test", f"{head} {sub}")
    if head in _OTHER_TEST_RUNNERS:
        if head == "pytest-watch" or _has(args, "--watch"):
            return NotEvidence(f"{head} in watch mode never finishes: a watcher is not a check")
        return Identified(GENERIC_TEST, 2 if sub == "start" else 1, "test", head)
    if head in _opts("dotnet swift mix stack cabal sbt lein dune zig flutter dart elm-test"):
        return _misc_test(head, sub, args)
    if head == "bazel" or head == "bazelisk":
        if sub == "test":
            return Identified(BAZEL, 2, "test", "bazel test")
        return Identified(BAZEL, 2, "build", "bazel build") if sub == "build" else None
    if head == "turbo":
        skip = 2 if sub == "run" else 1
        task = tokens[skip] if len(tokens) > skip else ""
        return _by_name(TURBO, skip + 1, task, f"turbo run {task}")
    if head in ("npm", "pnpm", "yarn", "bun", "composer", *_SCRIPT_HOSTS) and sub == "run" and len(tokens) > 2:
        name = tokens[2]
        label = f"{head} test" if name == "test" and head in _TEST_SHORTHAND else f"{head} run {name}"
        return _by_name(TASK_RUNNER, 3, name, label)
    if head == "make" and _has(args, "-n", "--dry-run", "--just-print", "--recon", "-q", "--question"):
        return NotEvidence("`make -n` only prints (or asks) what it would run")
    if (
        head in ("make", "just", "task", "poe", "invoke", "inv")
        and sub
        and not sub.startswith("-")
        and not is_assignment(sub)
    ):
        return _by_name(MAKE if head == "make" else TASK_RUNNER, 2, sub, f"{head} {sub}")
    if head == "nx":
        return _nx(tokens)
    if head == "hatch" and sub == "test":
        return Identified(PYTEST, 2, "test", "hatch test")  # hatch's own pytest runner; arguments reach pytest
    if "/" in head or PurePosixPath(head).suffix in (".sh", ".py", ".js", ".mjs", ".ts", ".rb", ".pl", ".bash"):
        return _by_name(SCRIPT, 1, head, head)
    return None


def _by_name(runner: Runner, head: int, name: str, label: str) -> Identified | NotEvidence | None:
    """A script, make target or task is recognised by what its name says it does."""
    kind = script_kind(name)
    if kind == "writes":
        return NotEvidence(f"`{label}` rewrites files (by its name); a formatter or fixer is never evidence")
    return Identified(runner, head, kind, label) if kind else None


def _nx(tokens: tuple[str, ...]) -> Identified | NotEvidence | None:
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
            return _by_name(NX, 2, target.split(",")[0], f"nx {sub} -t {target}")
        return None
    if sub == "run" and len(tokens) > 2 and ":" in tokens[2]:
        return _by_name(NX, 3, tokens[2].split(":")[1], f"nx run {tokens[2]}")
    return _by_name(NX, 2, sub, f"nx {sub}") if sub and not sub.startswith("-") else None


def _misc_test(head: str, sub: str, args: tuple[str, ...]) -> Identified | NotEvidence | None:
    if head == "dotnet":
        if sub == "format":
            if _has(args, "--verify-no-changes"):
                return Identified(LINT_PATHS, 2, "lint", "dotnet format --verify-no-changes")
            return NotEvidence("`dotnet format` rewrites files")
        if sub == "test":
            return Identified(GENERIC_TEST, 2, "test", "dotnet test")
        return Identified(GENERIC_TEST, 2, "build", "dotnet build") if sub == "build" else None
    if head == "mix":
        if sub == "format":
            return _formatter("mix format", args[1:], check=("--check-formatted",), head=2)
        if sub == "credo":
            return Identified(LINT_PATHS, 2, "lint", "mix credo")
        if sub == "dialyzer":
            return Identified(TYPECHECK_PATHS, 2, "typecheck", "mix dialyzer")
    if head == "dart" and sub == "format":
        return _formatter("dart format", args[1:], check=("--set-exit-if-changed",), head=2)
    if head in ("dart", "flutter") and sub == "analyze":
        return Identified(LINT_PATHS, 2, "lint", f"{head} analyze")
    if head == "zig" and sub == "build" and len(args) > 1 and args[1] == "test":
        return Identified(GENERIC_TEST, 3, "test", "zig build test")
    if head == "sbt" and any(a.split()[:1] in (["testOnly"], ["testQuick"]) for a in args):
        return Identified(GENERIC_TEST, 1, "test", "sbt testOnly")  # the selection itself narrows below
    if sub in ("test", "tests") or head == "elm-test":
        return Identified(GENERIC_TEST, 1 if head == "elm-test" else 2, "test", f"{head} {sub}".strip())
    if sub == "build":
        return Identified(GENERIC_TEST, 2, "build", f"{head} build")
    return None


PRE_COMMIT = Runner(
    "pre-commit",
    "lint",
    _opts("--hook-stage -c --config --from-ref -s --source -o --origin --to-ref"),
    _opts("--files --from-ref -s --source --to-ref -o --origin"),
    positionals="always",
)
NX = Runner(
    "nx",
    "check",
    _opts("-t --target --targets -p --projects --exclude --base --head --configuration -c --parallel"),
    _opts("-p --projects --exclude --base --head --files"),
    positionals="always",
    opaque=True,
)
RAKE = Runner("rake", "test", frozenset(), frozenset(), positionals="always")
MAKE = Runner("make", "check", _MAKE_VALUE, frozenset(), positionals="always")
TURBO = Runner(
    "turbo",
    "check",
    _opts("--filter -F --concurrency --cache-dir"),
    _opts("--filter -F --affected"),
    positionals="always",
)


# --- arguments: positionals and narrowing ----------------------------------------------------------------------

_SOURCE_SUFFIXES = _opts(
    ".py .pyi .js .jsx .mjs .cjs .ts .tsx .mts .cts .vue .svelte .go .rs .rb .java .kt .kts "
    ".scala .php .cs .fs .swift .ex .exs .erl .c .cc .cpp .h .hpp .m .lua .sh .feature .robot "
    ".hurl .dart .zig"
)
# Make/task variables that pick what runs: TEST=, TESTS=, TESTARGS=, FILE=, PKG=, RUN=, K= …
_SELECTING_VARIABLE = re.compile(
    r"(^|_)(TESTS?|TESTARGS|TESTFLAGS|TEST_ARGS|TEST_FLAGS|FILES?|PKGS?|PACKAGES?|RUN|K|FILTER|PATTERN|ONLY|SPEC|"
    r"SUITE|ARGS|PYTEST_ARGS|PYTEST_ADDOPTS|WHAT|TARGETS?|CASE|CASES|MODULES?|T)$"
)


def positional_indexes(tokens: tuple[str, ...], runner: Runner | None, start: int = 0) -> list[int]:
    """Indexes of the positional tokens in tokens[start:] (option values and `VAR=x` assignments are not)."""
    value_options = runner.value_options if runner else frozenset()
    out: list[int] = []
    i = start
    while i < len(tokens):
        token = tokens[i]
        if token == "--":
            out.extend(range(i + 1, len(tokens)))
            break
        if token.startswith("-") and token != "-":
            if token in value_options:
                i += 2
                continue
            i += 1
            continue
        if not is_assignment(token):
            out.append(i)
        i += 1
    return out


def _looks_like_path(token: str) -> bool:
    return "/" in token or PurePosixPath(token).suffix.lower() in _SOURCE_SUFFIXES


def arg_names_path(token: str, cwd: Path | None, root: Path | None) -> bool:
    """Does a positional name something narrower than the whole project (design §3.6)?

    `::` test ids, existing paths other than the root and the cwd, and source/test file names narrow;
    `.` does not; a plain word that is not a path (an env name, a goal) does not either."""
    if "::" in token:
        return True
    stripped = token.rstrip("/") or token
    if stripped in (".", "./", ""):
        return False
    if cwd is not None and "$" not in token and "*" not in token:
        try:
            path = Path(os.path.normpath(cwd / os.path.expanduser(stripped)))
            if path.exists():
                return path != cwd and (root is None or path != root)
        except (OSError, ValueError):
            return _looks_like_path(token)
    return _looks_like_path(token)


@dataclass
class Narrowing:
    """Why a run is narrower than the whole project (empty: it is not)."""

    reasons: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.reasons)


def narrowing_of(
    args: tuple[str, ...],
    identified: Identified | None,
    cwd: Path | None,
    root: Path | None,
) -> Narrowing:
    """Which of `args` (the tokens after the runner, or an approved command's trailing args) narrow the run."""
    runner = identified.runner if identified else None
    found = Narrowing()
    narrowing_options = runner.narrowing_options if runner else frozenset()
    value_options = runner.value_options if runner else frozenset()
    i = 0
    after_separator: tuple[str, ...] = ()
    while i < len(args):
        token = args[i]
        if token == "--":
            after_separator = args[i + 1 :]
            break
        if token.startswith("-") and token != "-":
            name = token.split("=", 1)[0]
            attached = _attached_short(token, narrowing_options | value_options)
            if name in narrowing_options or attached in narrowing_options or _narrowing_define(token, runner):
                found.reasons.append(f"option {token}")
            takes_value = name in value_options and "=" not in token and len(token) == len(name)
            # An unknown program's `--option value`: the value is not a selection (`--max-warnings 0`).
            guessed = (runner is None or runner.opaque) and token.startswith("--") and "=" not in token
            if takes_value or (guessed and i + 1 < len(args) and not args[i + 1].startswith("-")):
                i += 2
                continue
            i += 1
            continue
        if is_assignment(token):
            if _SELECTING_VARIABLE.search(token.split("=", 1)[0].upper()):
                found.reasons.append(f"variable {token}")
            i += 1
            continue
        if _positional_narrows(token, runner, cwd, root):
            found.reasons.append(f"argument {token}")
        i += 1
    if after_separator:
        if runner is not None and runner.passthrough_narrows:
            found.reasons.append("arguments after -- " + " ".join(after_separator))
        elif runner is not None and runner.test_binary_args:
            found.reasons.extend(_test_binary_narrowing(after_separator))
        else:
            for token in after_separator:
                if not token.startswith("-") and _positional_narrows(token, runner, cwd, root):
                    found.reasons.append(f"argument {token}")
    return found


def _attached_short(token: str, options: frozenset[str]) -> str | None:
    """`-kslow` → `-k` when `-k` is a known option taking a value."""
    if len(token) > 2 and token[0] == "-" and token[1] != "-":
        return token[:2] if token[:2] in options else None
    return None


def _narrowing_define(token: str, runner: Runner | None) -> bool:
    if runner is None or not token.startswith("-D"):
        return False
    name = token.split("=", 1)[0]
    return name in runner.narrowing_options


def _positional_narrows(token: str, runner: Runner | None, cwd: Path | None, root: Path | None) -> bool:
    mode = runner.positionals if runner else "paths"
    if mode == "never":
        return False
    if mode == "always":
        return token not in (".", "./")
    if mode == "packages":
        return token not in ("./...", "...", "all", "//...", "//:all", "//...:all")
    return arg_names_path(token, cwd, root)


def _test_binary_narrowing(args: tuple[str, ...]) -> list[str]:
    reasons: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token in ("--skip", "--exact", "--ignored"):
            reasons.append(f"test-binary option {token}")
            i += 2 if token == "--skip" else 1
            continue
        if token in ("--test-threads", "--format", "--color", "-Z", "--logfile", "--report-time"):
            i += 2
            continue
        if not token.startswith("-"):
            reasons.append(f"test filter {token}")
        i += 1
    return reasons
