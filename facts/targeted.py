"""The obvious targeted check for one file (`targeted_command_for`): pytest on a test file or the test of a source
file, jest/vitest on a test file, `go test ./dir`, `cargo test -p crate --test name`, spelled through the project's
own runner. Moved as is from `freshpass.facts.classify`, whose shell state and package-script reading it uses.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from freshpass.facts.classify import _script_runner, _ShellState
from freshpass.facts.model import ProjectFacts, VerifyCommand
from freshpass.facts.shell import ShellSyntaxError, join_words, parse_line, simple_commands
from freshpass.facts.tools import Identified, identify, normalise

__all__ = ["targeted_command_for"]


# --- the obvious targeted check for a file ---------------------------------------------------------------------


def targeted_command_for(path: str | os.PathLike[str], root: str | os.PathLike[str], facts: ProjectFacts) -> str | None:
    """The obvious narrower check for one file, or None when the project does not make one obvious.

    pytest on a test file (or on `tests/test_foo.py` for `src/pkg/foo.py` when that exists), jest/vitest on a test
    file or its sibling test, `go test ./dir` for a Go file, `cargo test [-p crate] [--test name]` for Rust. The
    command is spelled through the project's own runner (`uv run pytest …`), prefixed with `cd DIR &&` when the
    verify command runs below the root.
    """
    root_path = Path(os.path.normpath(os.path.abspath(root)))
    file = Path(os.path.normpath(os.path.abspath(root_path / path)))
    try:
        rel = file.relative_to(root_path)
    except ValueError:
        return None
    tests = [c for c in facts.verify_commands if c.kind == "test"]
    suffix = file.suffix
    if suffix == ".py":
        return _targeted_python(file, root_path, tests)
    if suffix in (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".svelte"):
        return _targeted_js(file, root_path, tests)
    if suffix == ".go":
        return _targeted_go(file, root_path, tests)
    if suffix == ".rs":
        return _targeted_rust(file, root_path, rel, tests)
    return None


def _command_cwd(command: VerifyCommand, root: Path) -> Path:
    return Path(os.path.normpath(root / command.cwd))


def _runner_prefix(command: VerifyCommand, root: Path, runner_name: str) -> tuple[list[str], Path] | None:
    """The declared command's words up to and including the runner (`uv run pytest`), and its cwd."""
    try:
        parsed = parse_line(command.command)
    except ShellSyntaxError:
        return None
    state = _ShellState(_command_cwd(command, root))
    for simple in simple_commands(parsed):
        if state.apply_builtin(simple):
            continue
        result = normalise(simple.argv, state.cwd, root)
        if not isinstance(result, list) or not result or state.cwd is None:
            continue
        identified = identify(result[0].tokens)
        if isinstance(identified, Identified) and identified.runner.name == runner_name:
            argv = list(simple.argv)
            # keep the wrapper words, drop the declared command's own arguments after the runner
            tail = len(result[0].tokens) - identified.head
            prefix = argv[: len(argv) - tail] if tail else argv
            return prefix, state.cwd
    return None


def _spell(prefix: list[str], cwd: Path, root: Path, targets: list[str]) -> str:
    words = join_words([*prefix, *targets])
    rel = cwd.relative_to(root).as_posix() if cwd != root else "."
    return words if rel == "." else f"cd {join_words([rel])} && {words}"


def _within(cwd: Path, file: Path) -> bool:
    return file == cwd or cwd in file.parents


def _targeted_python(file: Path, root: Path, tests: list[VerifyCommand]) -> str | None:
    for command in tests:
        found = _runner_prefix(command, root, "pytest")
        if found is None or not _within(found[1], file):
            continue
        prefix, cwd = found
        test_file = file if _is_python_test(file) else _python_test_for(file, cwd)
        if test_file is None:
            return None
        return _spell(prefix, cwd, root, [os.path.relpath(test_file, cwd)])
    return None


def _is_python_test(file: Path) -> bool:
    return file.name.startswith("test_") or file.stem.endswith("_test")


def _python_test_for(source: Path, cwd: Path) -> Path | None:
    """`src/pkg/foo.py` → the first existing of tests/test_foo.py, tests/pkg/test_foo.py, tests/unit/test_foo.py,
    test/test_foo.py, a sibling test_foo.py / foo_test.py, pkg/tests/test_foo.py."""
    name = source.stem
    if name == "__init__":
        return None
    try:
        rel_parts = source.parent.relative_to(cwd).parts
    except ValueError:
        return None
    package_parts = rel_parts[1:] if rel_parts[:1] in (("src",), ("lib",)) else rel_parts
    candidates = [
        cwd / "tests" / f"test_{name}.py",
        cwd / "tests" / Path(*package_parts[1:]) / f"test_{name}.py" if len(package_parts) > 1 else None,
        cwd / "tests" / Path(*package_parts) / f"test_{name}.py" if package_parts else None,
        cwd / "tests" / "unit" / f"test_{name}.py",
        cwd / "test" / f"test_{name}.py",
        source.parent / f"test_{name}.py",
        source.parent / f"{name}_test.py",
        source.parent / "tests" / f"test_{name}.py",
    ]
    return next((c for c in candidates if c is not None and c.is_file()), None)


_JS_TEST = re.compile(r"\.(test|spec)\.[cm]?[jt]sx?$")


def _targeted_js(file: Path, root: Path, tests: list[VerifyCommand]) -> str | None:
    test_file = file if _JS_TEST.search(file.name) else _js_test_for(file)
    if test_file is None:
        return None
    for command in tests:
        cwd = _command_cwd(command, root)
        if not _within(cwd, test_file):
            continue
        words = _js_spelling(command, cwd, root)
        if words is not None:
            return _spell(words, cwd, root, [os.path.relpath(test_file, cwd)])
    return None


def _js_test_for(source: Path) -> Path | None:
    stem = source.name[: -len(source.suffix)]
    for directory in (source.parent, source.parent / "__tests__"):
        for kind in ("test", "spec"):
            for ext in (source.suffix, ".ts", ".tsx", ".js", ".jsx"):
                candidate = directory / f"{stem}.{kind}{ext}"
                if candidate.is_file():
                    return candidate
    return None


def _js_spelling(command: VerifyCommand, cwd: Path, root: Path) -> list[str] | None:
    """How to hand one test file to this declared command: the runner itself (`npx vitest run`), or the package
    script whose last command is jest or vitest (`npm test --`), so that the script's own flags still apply."""
    for name in ("jest", "vitest"):
        found = _runner_prefix(command, root, name)
        if found is not None:
            prefix = found[0]
            return [*prefix, "run"] if name == "vitest" and prefix[-1:] != ["run"] else prefix
    try:
        simple = list(simple_commands(parse_line(command.command)))
    except ShellSyntaxError:
        return None
    if len(simple) != 1:
        return None
    result = normalise(simple[0].argv, cwd, root)
    if not isinstance(result, list) or not result:
        return None
    runner = _script_runner(result[0])
    if runner is None or runner.runner.name not in ("jest", "vitest"):
        return None
    words = list(simple[0].argv)
    # npm keeps arguments after `--` for the script; pnpm, yarn and bun pass them on as they are
    return [*words, "--"] if result[0].tokens[0] == "npm" and "--" not in words else words


def _targeted_go(file: Path, root: Path, tests: list[VerifyCommand]) -> str | None:
    best: tuple[list[str], Path] | None = None
    for command in tests:
        found = _runner_prefix(command, root, "go test")
        if found is not None and _within(found[1], file) and (best is None or len(found[1].parts) > len(best[1].parts)):
            best = found
    if best is None:
        return None
    prefix, cwd = best
    rel = file.parent.relative_to(cwd).as_posix()
    return _spell(prefix, cwd, root, ["." if rel == "." else f"./{rel}"])


def _targeted_rust(file: Path, root: Path, rel: Path, tests: list[VerifyCommand]) -> str | None:
    best: tuple[list[str], Path] | None = None
    for command in tests:
        found = _runner_prefix(command, root, "cargo")
        if found is not None and _within(found[1], file):
            best = found
            break
    if best is None:
        return None
    prefix, cwd = best
    crate_dir = next((d for d in file.parents if (d / "Cargo.toml").is_file() and _within(cwd, d)), None)
    if crate_dir is None:
        return None
    targets: list[str] = []
    if crate_dir != cwd:
        name = _crate_name(crate_dir / "Cargo.toml")
        if name is None:
            return None
        targets += ["-p", name]
    if file.parent == crate_dir / "tests":
        targets += ["--test", file.stem]
    if not targets:
        return None  # a single crate's source file: the whole `cargo test` is already the narrowest obvious run
    return _spell(prefix, cwd, root, targets)


def _crate_name(manifest: Path) -> str | None:
    import tomli

    try:
        data = tomli.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("package", {}).get("name") if isinstance(data.get("package"), dict) else None
    return name if isinstance(name, str) else None
