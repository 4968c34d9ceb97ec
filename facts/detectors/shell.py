"""Reading command lines found in manifests: which are checks, which rewrite files, which never exit.

Detection needs this for CI `run:` steps, wrapper-script bodies, Makefile/just/Task recipes and package scripts.
It is deliberately smaller than the classifier (design §3): here the question is only "is this line a check the
project runs, and of what kind?", never about exit status or scope.
"""

from __future__ import annotations

import functools
import re
import shlex
from dataclasses import dataclass

from freshpass.facts.model import Kind

from .base import join_cwd

# The names design §2 accepts for package scripts and task-runner targets, with their kinds.
CHECK_NAMES: dict[str, Kind] = {
    "test": "test",
    "tests": "test",
    "lint": "lint",
    "typecheck": "typecheck",
    "type-check": "typecheck",
    "types": "typecheck",
    "check": "check",
    "build": "build",
}

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d(\.\d+)?)?$|^pypy3?$")
# Lines that are shell syntax rather than a command; a condition (`if make lint`) is not a check's own run.
_SHELL_KEYWORDS = {"if", "elif", "fi", "for", "while", "until", "done", "case", "esac", "}", "function"}
_LEADING_KEYWORDS = {"then", "else", "do", "{", "!"}


# Words in a target/env/session name that say it changes things or runs forever: never a check.
NOT_CHECK_WORDS = frozenset(
    [
        "format",
        "fmt",
        "fix",
        "install",
        "setup",
        "clean",
        "release",
        "publish",
        "deploy",
        "serve",
        "dev",
        "develop",
        "watch",
        "start",
        "bump",
        "upgrade",
        "update",
        "lock",
    ]
)


def guess_kind(name: str) -> Kind | None:
    """The kind a target/env/session/script name suggests, or None when it does not name a check."""
    lowered = name.lower()
    if lowered in CHECK_NAMES:
        return CHECK_NAMES[lowered]
    if set(re.split(r"[-_:./\s]+", lowered)) & NOT_CHECK_WORDS:
        return None
    if re.search(r"test|spec|^py(py)?\d*$|^py\d|coverage|^cov$|unit|integration|e2e", lowered):
        return "test"
    if re.search(r"type|typing|mypy|pyright|pytype", lowered):
        return "typecheck"
    if re.search(r"lint|flake8|pylint|ruff|style|pep8|pre-commit|precommit|golangci|vet", lowered):
        return "lint"
    if re.search(r"^check|^verify$|^ci$|^all-checks$|^qa$", lowered):
        return "check"
    if re.search(r"^build|^compile|^docs?$|^package$|^dist$", lowered):
        return "build"
    return None


def split_segments(line: str) -> list[tuple[str, list[str]]] | None:
    """Simple commands of a shell line as (original text, tokens), split on control operators (`&&`, `||`, `;`,
    `|`, `&`); None when quotes do not balance. The text is kept as written so `$VAR` stays what CI runs."""
    texts: list[str] = []
    start = index = 0
    quote: str | None = None
    length = len(line)
    while index < length:
        char = line[index]
        if quote is not None:
            if char == "\\" and quote == '"':
                index += 2
                continue
            if char == quote:
                quote = None
            index += 1
            continue
        if char == "\\":
            index += 2
            continue
        if char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            break  # a comment runs to the end of the line
        elif char in ";&|":
            if char == "&" and (line[index - 1 : index] == ">" or line[index + 1 : index + 2] == ">"):
                index += 1  # `2>&1`, `&>file`: redirections, not operators
                continue
            texts.append(line[start:index])
            while index < length and line[index] in ";&|":
                index += 1
            start = index
            continue
        index += 1
    if quote is not None:
        return None
    texts.append(line[start:index])
    segments: list[tuple[str, list[str]]] = []
    for text in texts:
        try:
            tokens = shlex.split(text)
        except ValueError:
            return None
        if tokens:
            segments.append((text.strip(), tokens))
    return segments


def split_line(line: str) -> list[list[str]] | None:
    """Token lists of the simple commands of a shell line; None when the line does not parse."""
    segments = split_segments(line)
    return None if segments is None else [tokens for _text, tokens in segments]


def _strip_prefixes(tokens: list[str]) -> list[str]:
    """Drop what does not change which tool runs: env assignments, `env`, `time`, `timeout 60`, `exec`…"""
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if _ASSIGNMENT.match(token):
            i += 1
        elif token in ("env", "command", "time", "exec", "noglob", "xvfb-run"):
            i += 1
            while i < len(tokens) and tokens[i].startswith("-"):
                i += 1
        elif token == "nice":
            i += 1
            if i + 1 < len(tokens) and tokens[i] == "-n":
                i += 2
        elif token == "timeout":
            i += 1
            while i < len(tokens) and tokens[i].startswith("-"):
                i += 1
            i += 1  # the duration
        else:
            break
    return tokens[i:]


def tool_tokens(tokens: list[str]) -> list[str]:
    """The tool and its arguments once interpreter and environment wrappers are peeled off."""
    tokens = _strip_prefixes(tokens)
    for _ in range(6):  # wrappers nest (`uv run python -m pytest`); a bound keeps odd input cheap
        if not tokens:
            return tokens
        head = tokens[0].rsplit("/", 1)[-1] if "/" in tokens[0] and not tokens[0].startswith("./") else tokens[0]
        if head in ("uv", "poetry", "pdm", "pipenv", "rye") and len(tokens) > 1 and tokens[1] == "run":
            rest = tokens[2:]
            while rest and rest[0].startswith("-"):
                option = rest.pop(0)
                if (
                    option
                    in (
                        "--with",
                        "--extra",
                        "--group",
                        "--python",
                        "-p",
                        "--package",
                        "--directory",
                        "--project",
                        "--env-file",
                    )
                    and rest
                ):
                    rest.pop(0)
            tokens = rest
        elif head == "hatch" and len(tokens) > 1 and tokens[1] == "run":
            rest = tokens[2:]
            if rest and ":" in rest[0] and not rest[0].startswith("-"):
                rest = [rest[0].split(":", 1)[1], *rest[1:]]
            tokens = rest
        elif head in ("npx", "bunx") or (head in ("pnpm", "yarn") and len(tokens) > 1 and tokens[1] in ("exec", "dlx")):
            rest = tokens[1:] if head in ("npx", "bunx") else tokens[2:]
            while rest and rest[0].startswith("-"):
                rest.pop(0)
            tokens = rest
        elif (head == "bundle" and tokens[1:2] == ["exec"]) or (_PYTHON.match(head) and tokens[1:2] == ["-m"]):
            tokens = tokens[2:]
        elif head == "coverage" and len(tokens) > 1 and tokens[1] == "run":
            rest = tokens[2:]
            while rest and rest[0].startswith("-") and rest[0] != "-m":
                rest.pop(0)
            tokens = rest[1:] if rest[:1] == ["-m"] else ["python", *rest]
        else:
            tokens = _strip_prefixes(tokens)
            break
    if tokens and "/" in tokens[0]:
        # `.venv/bin/pytest`, `/usr/bin/make`, `vendor/bin/phpunit` are the tool itself; `./scripts/x` stays a path.
        base = tokens[0].rsplit("/", 1)[1]
        parent = tokens[0].rsplit("/", 1)[0]
        if parent.endswith("bin") or tokens[0].startswith("/"):
            tokens = [base, *tokens[1:]]
    return tokens


def _positional(tokens: list[str]) -> list[str]:
    return [t for t in tokens if not t.startswith("-")]


def _has(tokens: list[str], *options: str) -> bool:
    return any(t in options or any(t.startswith(o + "=") for o in options if o.startswith("--")) for t in tokens)


def is_writer(tokens: list[str]) -> bool:
    """Does this command rewrite files (formatters in write mode, fixers)? Such a run is never a check."""
    tokens = tool_tokens(tokens)
    if not tokens:
        return False
    tool, args = tokens[0], tokens[1:]
    checking = _has(args, "--check", "--diff", "--check-only", "--list-different", "-l", "--dry-run")
    if _has(
        args,
        "--fix",
        "--fix-only",
        "--write",
        "--apply",
        "--apply-unsafe",
        "--autocorrect",
        "--autocorrect-all",
        "--unsafe-fixes",
        "--in-place",
    ):
        return True
    if tool == "ruff" and args[:1] == ["format"]:
        return not checking
    if tool in (
        "black",
        "isort",
        "autopep8",
        "yapf",
        "blue",
        "autoflake",
        "pyupgrade",
        "prettier",
        "gofmt",
        "goimports",
        "rustfmt",
        "clang-format",
        "shfmt",
        "standard",
    ):
        if tool == "prettier":
            return not _has(args, "--check", "-c", "--list-different", "-l")
        if tool in ("gofmt", "goimports", "shfmt"):
            return _has(args, "-w")
        if tool == "clang-format":
            return _has(args, "-i")
        return not checking
    if tool == "cargo" and args[:1] == ["fmt"]:
        return not checking
    if tool in ("go", "deno") and args[:1] == ["fmt"]:
        return not checking if tool == "deno" else True
    if tool == "rubocop" and _has(args, "-a", "-A"):
        return True
    if tool in ("biome", "@biomejs/biome") and args[:1] == ["format"]:
        return _has(args, "--write")
    if tool in ("npm", "pnpm", "yarn", "bun"):
        script = script_name(tool, args)
        return script is not None and guess_kind(script) is None and bool(re.search(r"format|fmt|fix", script))
    if tool in ("make", "just", "task"):
        return any(re.fullmatch(r"(format|fmt|fix|lint-fix|style-fix)", t) for t in _positional(args))
    return False


_SERVERS = {
    "nodemon",
    "watchexec",
    "entr",
    "ptw",
    "pytest-watch",
    "http-server",
    "live-server",
    "serve",
    "webpack-dev-server",
    "browser-sync",
    "uvicorn",
    "gunicorn",
    "hypercorn",
    "daphne",
    "air",
    "reflex",
}


def is_watcher(tokens: list[str]) -> bool:
    """Does this command run until interrupted (watch mode, a dev server)? Such a script is not a check."""
    tokens = tool_tokens(tokens)
    if not tokens:
        return False
    tool, args = tokens[0], tokens[1:]
    if _has(args, "--watch", "--watchAll", "--watch-all", "--serve"):
        return True
    if tool in _SERVERS:
        return True
    sub = _positional(args)[:1]
    if tool in (
        "vite",
        "next",
        "nuxt",
        "astro",
        "remix",
        "svelte-kit",
        "gatsby",
        "ng",
        "parcel",
        "vitest",
        "jest",
        "tsc",
        "webpack",
        "rollup",
        "esbuild",
        "ava",
        "mocha",
    ):
        if tool == "vite":
            return not sub or sub[0] in ("dev", "serve")
        if tool in ("tsc", "rollup", "esbuild", "mocha", "ava") and _has(args, "-w"):
            return True
        if tool == "parcel":
            return not sub or sub[0] not in ("build",)
        return bool(sub) and sub[0] in ("dev", "serve", "watch", "start", "develop")
    if tool == "react-scripts" and sub[:1] == ["start"]:
        return True
    if tool == "cargo" and sub[:1] == ["watch"]:
        return True
    if tool in ("python", "python3") or _PYTHON.match(tool):
        return len(args) > 1 and args[0] == "-m" and args[1] == "http.server"
    if tool == "manage.py" or (len(args) > 0 and args[0].endswith("manage.py")):
        return "runserver" in args
    if tool == "flask" and sub[:1] == ["run"]:
        return True
    if tool in ("npm", "pnpm", "yarn", "bun"):
        script = script_name(tool, args)
        return script in ("start", "dev", "serve", "watch") if script else False
    return False


_INSTALLERS = re.compile(
    r"^(pip3?|uv|poetry|pdm|pipenv|npm|pnpm|yarn|bun|bundle|gem|go|cargo|composer|apt|apt-get|brew|conda|mamba)$"
)


def is_install(tokens: list[str]) -> bool:
    """Does this command install dependencies or tools (a bootstrap step, not a check)?"""
    tokens = _strip_prefixes(tokens)
    if tokens and _PYTHON.match(tokens[0]) and tokens[1:3] in (["-m", "pip"], ["-m", "venv"]):
        return True
    if tokens and tokens[0] in ("virtualenv", "pre-commit") and tokens[1:2] in ([], ["install"]):
        return tokens[0] == "virtualenv" or tokens[1:2] == ["install"]
    if not tokens or not _INSTALLERS.match(tokens[0]):
        return False
    verbs = _positional(tokens[1:])
    if tokens[0] == "yarn" and not verbs:
        return True
    return bool(verbs) and verbs[0] in (
        "install",
        "i",
        "ci",
        "sync",
        "add",
        "get",
        "update",
        "upgrade",
        "lock",
        "pip",
        "venv",
        "bootstrap",
    )


def script_name(tool: str, args: list[str]) -> str | None:
    """The package script a `npm|pnpm|yarn|bun …` line runs (`npm test` → test), or None for built-ins."""
    # pnpm/yarn options that take a value (`--filter web`, `-C dir`) would otherwise look like the script name.
    cleaned: list[str] = []
    skip = False
    for arg in args:
        if arg == "--":
            break  # the rest goes to the script itself
        if skip:
            skip = False
            continue
        if arg in ("--filter", "-F", "-C", "--dir", "--prefix", "-w", "--workspace", "--cwd"):
            skip = arg not in ("-w",) or tool != "pnpm"
            continue
        if not arg.startswith("-"):
            cleaned.append(arg)
    words = cleaned[1:] if tool == "pnpm" and cleaned[:1] == ["recursive"] else cleaned
    if not words:
        return None
    verb = words[0]
    if tool == "npm":
        if verb in ("test", "t", "tst"):
            return "test"
        if verb in ("run", "run-script", "rum", "urn") and len(words) > 1:
            return words[1]
        return None
    if tool == "bun":
        return words[1] if verb == "run" and len(words) > 1 else None
    if tool == "yarn" and verb == "workspaces" and len(words) > 1:
        rest = words[1:]
        if rest[0] == "foreach":
            rest = rest[1:]
        if rest and rest[0] == "run" and len(rest) > 1:
            return rest[1]
        return None
    if verb == "run" and len(words) > 1:
        return words[1]
    builtins = {
        "install",
        "i",
        "add",
        "remove",
        "rm",
        "up",
        "upgrade",
        "update",
        "dlx",
        "exec",
        "create",
        "init",
        "publish",
        "pack",
        "link",
        "unlink",
        "why",
        "outdated",
        "audit",
        "info",
        "dedupe",
        "prune",
        "import",
        "config",
        "store",
        "env",
        "set",
        "cache",
        "version",
        "npm",
        "plugin",
        "global",
        "licenses",
        "ci",
    }
    return None if verb in builtins else verb


@dataclass(frozen=True)
class Recognised:
    command: str
    kind: Kind
    cwd: str


# Tools whose subcommand says the kind (`go vet` lints, `cargo check` checks, `deno check` type-checks).
_SUBCOMMAND_KINDS: dict[str, dict[str, Kind]] = {
    "go": {"test": "test", "build": "build", "vet": "lint"},
    "cargo": {
        "test": "test",
        "nextest": "test",
        "build": "build",
        "clippy": "lint",
        "check": "check",
        "fmt": "lint",
        "doc": "build",
        "bench": "test",
        "miri": "test",
    },
    "bazel": {"test": "test", "build": "build"},
    "deno": {"test": "test", "lint": "lint", "check": "typecheck", "fmt": "lint"},
    "dotnet": {"test": "test", "build": "build"},
}
# Maven lifecycle phases run every earlier one: `verify` includes `test`.
_MAVEN_GOALS: tuple[tuple[str, Kind], ...] = (
    ("verify", "check"),
    ("install", "check"),
    ("test", "test"),
    ("package", "build"),
    ("compile", "build"),
)


def command_kind(tokens: list[str]) -> Kind | None:
    """The kind of check a simple command runs, or None when it is not a check (install, echo, a writer…)."""
    if not tokens or is_writer(tokens) or is_watcher(tokens) or is_install(tokens):
        return None
    tokens = tool_tokens(tokens)
    if not tokens:
        return None
    tool, args = tokens[0], tokens[1:]
    words = _positional(args)
    sub = words[0] if words else ""
    if tool in (
        "pytest",
        "py.test",
        "unittest",
        "tox",
        "nox",
        "jest",
        "vitest",
        "mocha",
        "ava",
        "rspec",
        "phpunit",
        "pest",
        "ctest",
        "nextest",
        "trial",
        "green",
        "ward",
        "behave",
        "karma",
        "cucumber-js",
    ):
        if tool == "tox" and _has(args, "-e"):
            env = args[args.index("-e") + 1] if "-e" in args and args.index("-e") + 1 < len(args) else ""
            return guess_kind(env.split(",")[0]) or "test"
        if tool == "nox" and _has(args, "-s", "--session", "--sessions"):
            for flag in ("-s", "--session", "--sessions"):
                if flag in args and args.index(flag) + 1 < len(args):
                    return guess_kind(args[args.index(flag) + 1]) or "test"
        return "test"
    if tool == "node" and "--test" in args:
        return "test"
    if tool in ("playwright", "cypress") and sub in ("test", "run"):
        return "test"
    if tool in (
        "ruff",
        "flake8",
        "pylint",
        "pycodestyle",
        "pydocstyle",
        "pyflakes",
        "bandit",
        "eslint",
        "stylelint",
        "golangci-lint",
        "staticcheck",
        "rubocop",
        "standardrb",
        "shellcheck",
        "hadolint",
        "yamllint",
        "markdownlint",
        "markdownlint-cli2",
        "codespell",
        "phpcs",
        "black",
        "isort",
        "prettier",
        "biome",
        "@biomejs/biome",
        "actionlint",
        "ktlint",
        "detekt",
        "checkstyle",
        "clang-tidy",
        "cpplint",
        "pre-commit",
        "prek",
        "lefthook",
        "gofmt",
        "deptry",
        "vulture",
        "semgrep",
        "oxlint",
        "xo",
        "slither",
    ):
        if tool in ("pre-commit", "prek"):
            return "lint" if sub in ("run", "") else None
        if tool == "ruff" and sub not in ("check", "format", "") and not sub.startswith("."):
            return None
        if tool in ("black", "isort", "prettier", "gofmt"):
            return "lint"  # is_writer already rejected write mode
        return "lint"
    if tool in (
        "mypy",
        "dmypy",
        "pyright",
        "basedpyright",
        "pytype",
        "pyre",
        "vue-tsc",
        "svelte-check",
        "flow",
        "phpstan",
        "psalm",
        "sorbet",
        "srb",
        "steep",
        "ty",
    ):
        return "typecheck"
    if tool == "tsc":
        return "typecheck" if _has(args, "--noEmit") else "build"
    if tool == "go":
        return _SUBCOMMAND_KINDS["go"].get(sub)
    if tool == "cargo":
        return _SUBCOMMAND_KINDS["cargo"].get(sub)
    if tool in ("mvn", "./mvnw", "mvnw"):
        goals = [w for w in words if ":" not in w]
        for goal, kind in _MAVEN_GOALS:
            if goal in goals:
                return kind
        return None
    if tool in ("gradle", "./gradlew", "gradlew"):
        for task in words:
            task = task.rsplit(":", 1)[-1]
            if task in ("test", "check", "build", "lint") or guess_kind(task):
                return guess_kind(task)
        return None
    if tool in ("npm", "pnpm", "yarn", "bun"):
        if tool == "bun" and sub == "test":
            return "test"
        script = script_name(tool, args)
        return guess_kind(script) if script else None
    if tool in (
        "make",
        "gmake",
        "just",
        "task",
        "rake",
        "invoke",
        "inv",
        "mage",
        "turbo",
        "nx",
        "lerna",
        "moon",
        "spin",
        "hatch",
        "composer",
        "poe",
        "earthly",
        "bazel",
        "bazelisk",
    ):
        targets = [w for w in words if "=" not in w]
        if tool in ("turbo", "lerna") and targets[:1] == ["run"]:
            targets = targets[1:]
        if tool == "nx" and targets[:1] in (["run-many"], ["affected"]):
            for flag in ("-t", "--target", "--targets"):
                if flag in args and args.index(flag) + 1 < len(args):
                    return guess_kind(args[args.index(flag) + 1])
            return None
        if tool == "hatch" and targets[:1] in (["test"], ["fmt"]):
            return "test" if targets[0] == "test" else ("lint" if _has(args, "--check") else None)
        if tool == "composer" and targets[:1] in (["run-script"], ["run"]):
            targets = targets[1:]
        if tool in ("bazel", "bazelisk"):
            return _SUBCOMMAND_KINDS["bazel"].get(sub)
        if not targets:
            return "check" if tool in ("make", "gmake", "rake") else None
        return guess_kind(targets[0].rsplit(":", 1)[-1] if tool in ("nx",) else targets[0])
    if tool == "deno":
        return _SUBCOMMAND_KINDS["deno"].get(sub) or (
            guess_kind(words[1]) if sub == "task" and len(words) > 1 else None
        )
    if tool == "dotnet":
        return _SUBCOMMAND_KINDS["dotnet"].get(sub)
    if _PYTHON.match(tool) and words:
        script = words[0]
        if script.endswith("manage.py"):
            return "test" if words[1:2] == ["test"] else None
        if script.endswith(".py"):
            return guess_kind(script.rsplit("/", 1)[-1][:-3])
        return None
    if tool in ("bash", "sh", "zsh") and words and not _has(args, "-c"):
        return _script_kind(words[0])
    if tool.startswith("./") or "/" in tool or tool.endswith((".sh", ".py")):
        return _script_kind(tool)
    return None


def _script_kind(path: str) -> Kind | None:
    name = path.rsplit("/", 1)[-1]
    stem = re.sub(r"\.(sh|bash|py|zsh)$", "", name)
    return guess_kind(stem)


# `2>&1`, `> log.txt`, `&>> out` at the end: where output goes, not part of the check.
_TRAILING_REDIRECT = re.compile(r"(\s+(\d?>>?&?\d*|&>>?)\s*[^\s<>&|;'\"]*)+$")


def recognise_line(line: str, cwd: str = ".") -> list[Recognised]:
    """The checks one shell line runs (`cd app && npm test` → npm test in app), in order."""
    found: list[Recognised] = []
    for text, tokens in split_segments(line) or []:
        # `then pytest`, `do make test`, `! grep …`: the keyword only introduces the command.
        while tokens and tokens[0] in _LEADING_KEYWORDS:
            text = text.split(None, 1)[1] if len(text.split(None, 1)) > 1 else ""
            tokens = tokens[1:]
        if not tokens or tokens[0] in _SHELL_KEYWORDS:
            continue
        if tokens[0] in ("cd", "pushd") and len(tokens) == 2:
            cwd = join_cwd(cwd, tokens[1])
            continue
        if tokens[0] in ("cd", "pushd", "popd"):
            cwd = "."
            continue
        kind = command_kind(tokens)
        if kind is not None:
            found.append(Recognised(_TRAILING_REDIRECT.sub("", " ".join(text.split())), kind, cwd))
    return found


def logical_lines(body: str) -> list[str]:
    """Lines of a shell script with `\\` continuations joined and comments/blank lines dropped."""
    lines: list[str] = []
    pending = ""
    for raw in body.splitlines():
        line = raw.strip() if pending else raw.rstrip()
        if line.endswith("\\"):
            pending += line[:-1].rstrip() + " "
            continue
        line = (pending + line).strip()
        pending = ""
        if line and not line.startswith("#"):
            lines.append(line)
    if pending.strip():
        lines.append(pending.strip())
    return lines


def body_rejection(lines: list[str]) -> str | None:
    """Why a script/recipe body is not a check: 'rewrites files' or 'never exits'; None when it may be one."""
    for line in lines:
        reason = _line_rejection(line)
        if reason is not None:
            return reason
    return None


@functools.lru_cache(maxsize=4096)
def _line_rejection(line: str) -> str | None:
    # Cached: monorepos repeat the same script bodies (`vitest run`, `tsc --noEmit`) in every package.
    for tokens in split_line(line) or []:
        if is_writer(tokens):
            return "rewrites files"
        if is_watcher(tokens):
            return "never exits"
    return None
