"""Wrapper scripts a project keeps for running its checks (`scripts/test`, `script/cibuild`, `run_tests.sh` …).

Their bodies are read (by `facts.checks`): a script that rewrites files or never exits is not a check, and what it
runs decides its kind; its name decides only when the body says nothing."""

from __future__ import annotations

from .base import Candidate, Collector, Package, under

# Directories that conventionally hold a project's scripts ("scripts to rule them all" uses script/).
SCRIPT_DIRS = ("scripts", "script", "bin", "tools", "ci", "dev", "hack")
_STEMS = (
    "run_tests",
    "run-tests",
    "runtests",
    "test",
    "tests",
    "check",
    "checks",
    "lint",
    "typecheck",
    "type-check",
    "ci",
    "cibuild",
    "build",
    "test-all",
    "check-all",
    "fmt",
    "format",
    "style",
)
_EXTENSIONS = ("", ".sh", ".bash")
_NAMES = {stem + ext: (index, stem) for index, (stem, ext) in enumerate((s, e) for s in _STEMS for e in _EXTENSIONS)}
# At the root only unambiguous names: a bare `test` or `build` file there is rarely a wrapper script.
_ROOT_NAMES = ("run_tests.sh", "run-tests.sh", "test.sh", "tests.sh", "check.sh", "lint.sh", "ci.sh")


def read(c: Collector, package: Package) -> None:
    for name in _ROOT_NAMES:
        rel = under(package.cwd, name)
        if c.is_file(rel):
            _read_script(c, package.cwd, name, name.rsplit(".", 1)[0])
    for directory in SCRIPT_DIRS:
        names = [n for n in c.listdir(under(package.cwd, directory)) if n in _NAMES]
        for name in sorted(names, key=lambda n: _NAMES[n][0]):
            _read_script(c, package.cwd, f"{directory}/{name}", _NAMES[name][1])


def _read_script(c: Collector, cwd: str, rel: str, stem: str) -> None:
    path = under(cwd, rel)
    if not c.is_file(path):
        return
    body = c.read_text(path)
    if body is None:
        return
    first = body.splitlines()[0] if body else ""
    if first.startswith("#!") and not any(shell in first for shell in ("sh", "bash", "zsh")):
        # A Python or Node script: its body is not shell; its name still says what it is for.
        lines: tuple[str, ...] | None = None
    else:
        lines = (body,)
    if c.is_executable(path):
        command, spellings = f"./{rel}", (f"bash {rel}",) if lines is not None else ()
    else:
        interpreter = "sh" if first.rstrip().endswith(("/sh", " sh")) else "bash"
        command, spellings = f"{interpreter} {rel}", ()
    c.context(path)
    c.entry(command, cwd, path, lines, stem)
    c.add(Candidate(command, cwd, path, "local", name=stem, body=lines, spellings=spellings))
