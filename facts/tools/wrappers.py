"""Peel wrappers off one simple command (design §3.3): what a command line really runs.

`normalise()` strips what does not change which tool runs (`env`, `VAR=x`, `timeout`, `nice`, `time` …), resolves
interpreter and environment wrappers to the tool (`python -m X`, `uv run X`, `poetry run X`, `npx X`, `bundle exec X`,
`.venv/bin/X`, `./x`), and rewrites package-script spellings to one form (`npm t` → `npm run test`), giving an
`Invocation` whose tokens start with the tool itself; `make lint test` gives one invocation per target. Both sides
of an approved match (the line typed and the facts' declared command) go through it, so `uv run pytest` declared
matches `python -m pytest` typed.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import replace
from pathlib import Path, PurePosixPath

from freshpass.facts.shell import is_assignment

from .base import Invocation, Rejected, identify, known_heads, opts, updating_assignment

_opts = opts

_PYTHON = re.compile(r"(python|pypy)(\d+(\.\d+)?)?|py")
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_POWERSHELLS = frozenset({"pwsh", "powershell", "pwsh.exe", "powershell.exe"})
_POWERSHELL_VALUE = frozenset(
    {"-executionpolicy", "-ep", "-workingdirectory", "-wd", "-configurationname", "-settingsfile", "-outputformat",
     "-of", "-inputformat", "-if", "-windowstyle", "-version", "-psconsolefile"}
)  # fmt: skip
_ELEVATE = frozenset({"sudo", "doas", "su", "pkexec", "run0"})
_TRANSPARENT = frozenset({"command", "builtin", "noglob", "nohup", "exec", "unbuffer", "chronic"})
_BIN_DIRS = frozenset({"bin", ".bin", "Scripts"})
_OPTION_VARIABLE = re.compile(r"^\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)$")  # `$branch_option`


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
    if path.parent.name == "tools" and path.name in known_heads():
        return path.name  # phive installs PHAR tools into tools/ (`./tools/phpstan`)
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


def _powershell_script(word: str, cwd: Path | None) -> str:
    """PowerShell runs `./build` as `build.ps1` when only that file is there: both spell the one script."""
    if cwd is None or not word.startswith(("./", ".\\")) or "." in PurePosixPath(word).name:
        return word
    try:
        if not (cwd / word).exists() and (cwd / f"{word}.ps1").is_file():
            return f"{word}.ps1"
    except (OSError, ValueError):
        pass
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
_BUN_VALUE = frozenset({"--filter", "-F", "--cwd", "--elide-lines"})
MAKE_VALUE = frozenset({"-C", "--directory", "-f", "--file", "--makefile", "-j", "--jobs", "-l", "-I", "-o", "-W"})
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
# Bun's own commands, which no script shadows (`bun build` bundles; `bun lint` would run the script).
_BUN_OWN = _opts("test build repl pm upgrade")
# Environment managers whose `run NAME` may start a script the project declares rather than a binary.
_SCRIPT_HOSTS = _opts("pdm hatch rye pixi")
# Package managers where `PM test` is the `test` script.
_TEST_SHORTHAND = _opts("npm pnpm yarn composer")
_NPM_RUN_WORDS = frozenset({"run", "run-script", "rum", "urn"})
_TEST_ALIASES = frozenset({"test", "t", "tst"})
# Binaries `yarn X` / `pnpm X` start when no script of that name shadows them.
_TOOL_NAMES = _opts(
    "jest vitest mocha eslint prettier tsc vue-tsc biome stylelint playwright cypress ava tap "
    "c8 nyc ts-node tsx oxlint xo standard turbo nx"
)
# The binaries `yarn NAME` / `pnpm NAME` are read as running directly: a script of one of these names is spelled
# with `run` only, or its shorthand would read as the tool (`pnpm tsc` for a script "tsc": "tsc --noEmit").
DIRECT_BINARIES = _TOOL_NAMES


def normalise(words: tuple[str, ...], cwd: Path | None, root: Path | None = None) -> list[Invocation] | Rejected | None:
    """Peel wrappers off one simple command. Returns the invocations it stands for (one, or one per target for
    `make lint test`), `Rejected` when it is never evidence, or None when nothing runs (bare assignments)."""
    args = tuple(words)
    env_narrowing: list[str] = []  # `PYTEST_ADDOPTS="-k slow" pytest`: the environment selects part of the run
    for _ in range(32):  # wrappers nest (`env X=1 timeout 60 uv run python -m pytest`); bounded by construction
        while args and is_assignment(args[0]):
            updating = updating_assignment(args[0])
            if updating is not None and len(args) > 1:
                return Rejected(f"`{updating}` makes the run rewrite the files it checks against", writes=True)
            if len(args) > 1 and (_narrowing_assignment(args[0], cwd, root) or _selecting_assignment(args[0])):
                env_narrowing.append(args[0])
            args = args[1:]
        if not args:
            return None
        head = _resolve_program(_powershell_script(args[0], cwd), root)
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
        if base in _POWERSHELLS:
            i = 0
            while i < len(rest) and rest[i].startswith("-"):
                option = rest[i].lower()
                if option in ("-command", "-c", "-encodedcommand", "-e", "-ec"):
                    return Rejected("inline PowerShell (`pwsh -Command`) is not a recognised check")
                if option in ("-file", "-f"):
                    i += 1
                    break
                i += 2 if option in _POWERSHELL_VALUE else 1
            if i >= len(rest):
                return None if not rest else Rejected("an interactive PowerShell is not a check")
            args = rest[i:]  # `pwsh -NoProfile ./build.ps1 -Test`: the script is the program
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
            # a variable among its options (`coverage run $branch_option -m pytest`) holds more of its options
            while i < len(rest) and (rest[i].startswith("-") or _OPTION_VARIABLE.match(rest[i])) and rest[i] != "-m":
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
        if base in ("nr", "nlx", "ni", "nci", "nun", "nu", "na"):
            # @antfu/ni: the same commands through whichever package manager the project uses
            if base == "nr":
                if not rest:
                    return Rejected("bare `nr` asks which script to run")
                args = ("pnpm", "run", *rest)
                break
            if base == "nlx":
                args = ("npx", *rest)
                continue
            args = ("npm", "install" if base != "nun" else "uninstall", *rest)
            break
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

    args, cwd = _runner_directory(args, cwd)
    found = _package_and_task_runners(_nox_canonical(args), cwd, root)
    if env_narrowing and isinstance(found, list):
        return [replace(i, wrapper_args=(*i.wrapper_args, *env_narrowing)) for i in found]
    return found


def _selecting_assignment(word: str) -> bool:
    """`TEST_FILTER="WebApi" make test`: a variable whose name says it selects, given a value, as `make` reads it
    from the environment too (the same rule as `make test TESTS=x`)."""
    from freshpass.facts.ecosystems.registry import narrowing_env

    from .args import _SELECTING_VARIABLE

    name, _, value = word.partition("=")
    if name in narrowing_env():
        return False  # a runner's own options variable (`PYTEST_ADDOPTS`): its value is read as those options
    return bool(value.strip("'\" ")) and bool(_SELECTING_VARIABLE.search(name.upper()))


def _narrowing_assignment(word: str, cwd: Path | None, root: Path | None) -> bool:
    """Does `VAR=value` hand the runner options that select part of its suite (`PYTEST_ADDOPTS=--deselect x`)?"""
    from freshpass.facts.ecosystems.registry import narrowing_env

    from .args import narrowing_of
    from .base import Identified

    name, _, value = word.partition("=")
    runner = narrowing_env().get(name)
    if runner is None:
        return False
    try:
        options = tuple(shlex.split(value))
    except ValueError:
        return True  # unreadable options: not the plain suite
    found = identify(runner)
    if not isinstance(found, Identified):
        return bool(options)
    return bool(narrowing_of(options, found, cwd, root))


def _cmake_build_directory(cwd: Path | None) -> bool:
    """A CMake build tree holding no Makefile of the project's own: configured (`CMakeCache.txt`), or not
    configured yet and named `build` beside the `CMakeLists.txt` it is for."""
    if cwd is None:
        return False
    try:
        if (cwd / "CMakeCache.txt").is_file():
            return True  # its Makefile, if any, is the one CMake generated
        return cwd.name == "build" and not cwd.exists() and (cwd.parent / "CMakeLists.txt").is_file()
    except OSError:
        return False


def _runner_directory(args: tuple[str, ...], cwd: Path | None) -> tuple[tuple[str, ...], Path | None]:
    """`ctest --test-dir build` ≡ `ctest` in build/, `meson test -C build` ≡ `meson test` in build/: a run typed
    either way from either place is the same run."""
    if not args:
        return args, cwd
    if args[0] == "ctest":
        option = "--test-dir"
    elif args == ("make", "test") and _cmake_build_directory(cwd):
        return ("ctest",), cwd  # the test target CMake's Makefile generator writes runs ctest
    elif args[0] == "meson" and args[1:2] == ("test",):
        option = "-C"
    else:
        return args, cwd
    for i, token in enumerate(args[1:], start=1):
        if token == option and i + 1 < len(args):
            return (*args[:i], *args[i + 2 :]), _chdir(cwd, args[i + 1])
        if token.startswith(option + "="):
            return (*args[:i], *args[i + 1 :]), _chdir(cwd, token.split("=", 1)[1])
    return args, cwd


_NOX_COMBINED = re.compile(r"^-([rRx]+)([se])$")
_NOX_PYTHON_SUFFIX = re.compile(r"^(?P<session>[\w.:-]+?)-(?:\d+(?:\.\d+)*|pypy\d*(?:\.\d+)?)$")


def _nox_canonical(args: tuple[str, ...]) -> tuple[str, ...]:
    """nox's combined flags (`-rs` = `-r -s`) and a session's interpreter suffix (`test-3.12` is session `test` on
    one of its interpreters: the whole suite) in one spelling."""
    if not args or args[0] != "nox":
        return args
    out: list[str] = ["nox"]
    session_value = False
    for index, token in enumerate(args[1:], start=1):
        if token == "--":
            out.extend(args[index:])  # the session's own arguments, as they are
            break
        combined = _NOX_COMBINED.match(token)
        if combined:
            out.extend(f"-{flag}" for flag in combined.group(1))
            token = f"-{combined.group(2)}"
        if session_value:
            suffix = _NOX_PYTHON_SUFFIX.match(token)
            token = suffix.group("session") if suffix else token
        session_value = token in ("-s", "-e", "--session", "--sessions")
        out.append(token)
    return tuple(out)


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
        value_options = {"npm": _NPM_VALUE, "pnpm": _PNPM_VALUE, "yarn": _YARN_VALUE, "bun": _BUN_VALUE}.get(
            head, frozenset()
        )
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
        if head == "bun" and sub in _BUN_OWN:
            return [Invocation(("bun", *rest[i:]), cwd, tuple(narrowing))]  # bun's own test runner, bundler …
        if sub in _NPM_RUN_WORDS or (head == "composer" and sub == "run"):
            script_index = _skip_options(after, 0, with_value=value_options)
            for j in range(script_index):  # options between `run` and the script (`bun run --filter web lint`)
                name, _eq, value = after[j].partition("=")
                if name in ("--filter", "-F", "-w", "--workspace") and not value and j + 1 < script_index:
                    narrowing.append(f"{name}={after[j + 1]}")
                elif name in ("--filter", "-F", "-w", "--workspace"):
                    narrowing.append(after[j])
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
                takes_value = name in MAKE_VALUE and "=" not in token and len(token) == len(name)
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
