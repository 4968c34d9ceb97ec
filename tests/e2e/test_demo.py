"""The README's first quick-start command, in a fresh clone, with a Python whose pip refuses system installs.

Debian and Ubuntu mark their system Python as externally managed (PEP 668): `pip install` into it fails with
"externally-managed-environment". The test builds such a Python faithfully: a copy of this machine's base
interpreter in a prefix of its own (not a virtualenv: `sys.prefix == sys.base_prefix`) whose stdlib directory holds
an `EXTERNALLY-MANAGED` file, the marker pip reads. It proves pip refuses to install into it, then runs the README's
command in a `git clone` of this repository (committed files only) with that Python first on PATH. freshpass and
its dependencies are installed from the clone and PyPI (pip's cache makes that quick) into the demo's own
virtualenv: installing the real package is the point of the command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MARKER = """\
[externally-managed]
Error=This Python is managed by the system (a PEP 668 stand-in made by tests/e2e/test_demo.py).
"""

pytestmark = pytest.mark.e2e


def quick_start_commands(readme: str) -> list[str]:
    """The command blocks of the README's "Quick start" section, in order."""
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.DOTALL)]


def externally_managed_python(prefix: Path) -> Path:
    """A non-virtualenv Python at `prefix` whose system site is marked EXTERNALLY-MANAGED."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    base = Path(sys.base_prefix)
    binary = base / "bin" / version
    stdlib = Path(sysconfig.get_paths(vars={"installed_base": sys.base_prefix, "base": sys.base_prefix})["stdlib"])
    assert binary.is_file() and (stdlib / "os.py").is_file(), f"no base interpreter at {binary} / {stdlib}"
    (prefix / "bin").mkdir(parents=True)
    shutil.copy2(binary, prefix / "bin" / version)  # a copy: Python finds its prefix from where the binary is
    (prefix / "bin" / "python3").symlink_to(version)
    lib = prefix / "lib" / version
    lib.mkdir(parents=True)
    for entry in stdlib.iterdir():
        if entry.name not in ("site-packages", "dist-packages", "EXTERNALLY-MANAGED"):
            (lib / entry.name).symlink_to(entry)
    (lib / "EXTERNALLY-MANAGED").write_text(MARKER)
    # pip itself, so that the test can show it refusing (a distribution's system Python ships pip the same way).
    site = lib / "site-packages"
    site.mkdir()
    import pip

    (site / "pip").symlink_to(Path(pip.__file__).parent)
    return prefix / "bin" / "python3"


def test_the_first_quick_start_command_shows_fresh_stale_fresh_under_pep_668(tmp_path: Path) -> None:
    commands = quick_start_commands((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(commands) == 2, f"the README's quick start must have exactly two commands, has {commands}"
    demo = commands[0]

    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(REPO), str(clone)], check=True, capture_output=True)
    assert (clone / "examples" / "calc" / "pyproject.toml").is_file(), "the example project must be committed"

    python = externally_managed_python(tmp_path / "system-python")
    clean = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env = {**clean, "PATH": f"{python.parent}{os.pathsep}{clean['PATH']}"}
    probe = subprocess.run(
        ["python3", "-c", "import sys; print(sys.prefix == sys.base_prefix, sys.prefix)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.split() == ["True", str(python.parent.parent)], "python3 on PATH must be the stand-in"
    refused = subprocess.run(
        ["python3", "-m", "pip", "install", "--dry-run", "--no-index", "--no-deps", "."],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
    )
    assert refused.returncode != 0 and "externally-managed-environment" in refused.stderr, refused.stderr

    result = subprocess.run(
        ["bash", "-c", demo], cwd=clone, env=env, capture_output=True, text=True, timeout=110, stdin=subprocess.DEVNULL
    )
    output = result.stdout
    assert result.returncode == 0, f"{demo} failed:\n{output}\n{result.stderr}"
    assert "externally-managed" not in result.stderr
    after_run = output.index("passed (full)")
    stale = output.index("stale —", after_run)
    assert "changed   calc/ops.py" in output[stale:]
    assert "passed (full)" in output[stale:], "fresh again after the edit is undone"
    assert re.search(r"done in \d+ s: fresh → stale → fresh", output)
    # The demo used a virtualenv made from the stand-in, never its system site.
    assert f"home = {python.parent}" in (clone / ".cache" / "demo-venv" / "pyvenv.cfg").read_text()
    assert not list((python.parent.parent / "lib").glob("python3*/site-packages/freshpass*"))
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True, check=True)
    assert status.stdout == "", f"the demo dirtied the checkout:\n{status.stdout}"
