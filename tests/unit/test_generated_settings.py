"""The settings have one source, the root package.json: every copy is generated from it by scripts/gen-settings."""

from __future__ import annotations

import dataclasses
import importlib.machinery
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from freshpass.evidence import settings_defaults
from freshpass.evidence.agents import DoneRules
from freshpass.facts.model import KINDS
from freshpass.runner.verify import DEFAULT_PHASE_TIMEOUT
from freshpass.server.settings import SPECS, Settings

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "gen-settings"


def load_generator() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("gen_settings", str(SCRIPT))
    spec = importlib.util.spec_from_loader("gen_settings", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


gen = load_generator()


def manifest_defaults() -> dict[str, object]:
    properties = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["contributes"]["configuration"]
    return {name.removeprefix("freshpass."): spec["default"] for name, spec in properties["properties"].items()}


def test_every_generated_file_is_what_package_json_says() -> None:
    stale = [rel for rel, text in gen.render_all(REPO).items() if (REPO / rel).read_text(encoding="utf-8") != text]
    assert not stale, f"{', '.join(stale)} out of date with package.json: run scripts/gen-settings"


def copy_sources(tmp_path: Path) -> Path:
    for rel in ("package.json", gen.VIMDOC, gen.KINDS_SOURCE):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / rel, tmp_path / rel)
    return tmp_path


def test_a_changed_default_makes_every_copy_out_of_date(tmp_path: Path) -> None:
    repo = copy_sources(tmp_path)
    for rel, text in gen.render_all(repo).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    assert gen.out_of_date(repo) == []
    manifest = json.loads((repo / "package.json").read_text(encoding="utf-8"))
    manifest["contributes"]["configuration"]["properties"]["freshpass.nudge.budget"]["default"] = 3
    (repo / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    generated = [gen.CONFIGURATION_DOC, gen.PYTHON_DEFAULTS, gen.LUA_DEFAULTS, gen.VIMDOC]
    assert sorted(gen.out_of_date(repo)) == sorted(generated)
    rendered = gen.render_all(repo)
    assert "NUDGE_BUDGET: int = 3" in rendered[gen.PYTHON_DEFAULTS]
    assert "budget = 3," in rendered[gen.LUA_DEFAULTS]
    assert "| `freshpass.nudge.budget` | integer | `3` |" in rendered[gen.CONFIGURATION_DOC]


def test_check_mode_names_the_stale_files_and_says_what_to_run(tmp_path: Path) -> None:
    """`scripts/gen-settings --check` in a copy whose generated files were edited by hand."""
    repo = copy_sources(tmp_path)
    (repo / "scripts").mkdir()
    shutil.copy(SCRIPT, repo / "scripts" / "gen-settings")
    subprocess.run([sys.executable, "scripts/gen-settings"], cwd=repo, check=True, capture_output=True)
    assert subprocess.run([sys.executable, "scripts/gen-settings", "--check"], cwd=repo).returncode == 0
    lua = repo / gen.LUA_DEFAULTS
    lua.write_text(lua.read_text().replace("budget = 2", "budget = 5"))
    result = subprocess.run(
        [sys.executable, "scripts/gen-settings", "--check"], cwd=repo, capture_output=True, text=True
    )
    assert result.returncode == 1
    assert gen.LUA_DEFAULTS in result.stderr and "run scripts/gen-settings" in result.stderr


def test_a_new_kind_of_check_makes_the_kind_copies_out_of_date_and_refuses_a_stale_enum(tmp_path: Path) -> None:
    """facts/model.py's `Kind` is the one list of kinds: Neovim's copy is written from it, and a `*.kinds`
    setting of package.json that offers other kinds is refused by name."""
    repo = copy_sources(tmp_path)
    for rel, text in gen.render_all(repo).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    assert gen.load_kinds(repo) == list(KINDS)
    model = repo / gen.KINDS_SOURCE
    model.write_text(model.read_text().replace('"build", "check"]', '"build", "check", "bench"]'))
    assert gen.load_kinds(repo) == [*KINDS, "bench"]
    with pytest.raises(gen.SchemaError, match=r"freshpass\.done\.kinds"):
        gen.render_all(repo)
    manifest = json.loads((repo / "package.json").read_text(encoding="utf-8"))
    for name in ("freshpass.done.kinds", "freshpass.gate.kinds"):
        manifest["contributes"]["configuration"]["properties"][name]["items"]["enum"].append("bench")
    (repo / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert sorted(gen.out_of_date(repo)) == sorted([gen.CONFIGURATION_DOC, gen.LUA_KINDS])
    assert "'check', 'bench' }" in gen.render_all(repo)[gen.LUA_KINDS]


def test_a_setting_without_a_default_is_refused_with_its_name(tmp_path: Path) -> None:
    repo = copy_sources(tmp_path)
    manifest = json.loads((repo / "package.json").read_text(encoding="utf-8"))
    del manifest["contributes"]["configuration"]["properties"]["freshpass.done.scope"]["default"]
    (repo / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(gen.SchemaError, match=r"freshpass\.done\.scope has no 'default'"):
        gen.render_all(repo)


def test_the_server_defaults_are_package_json_defaults() -> None:
    """What the server uses when a client sends nothing is what VS Code shows as the default."""
    manifest = manifest_defaults()
    assert {
        name: tuple(value) if isinstance(value, list) else value for name, value in manifest.items()
    } == settings_defaults.DEFAULTS
    server = Settings()
    for name, spec in SPECS.items():
        expected = manifest[name]
        assert getattr(server, spec.attribute) == (tuple(expected) if isinstance(expected, list) else expected), name
    # Every setting is either read by the server or known to be the editor's.
    assert set(manifest) == set(SPECS) | settings_defaults.EDITOR_ONLY
    assert len(dataclasses.fields(Settings)) == len(SPECS)


def test_other_restated_defaults_agree_with_package_json() -> None:
    """`freshpass hook` and `freshpass verify` have no editor settings; their defaults are still the manifest's."""
    manifest = manifest_defaults()
    rules = DoneRules()
    assert rules.budget == manifest["nudge.budget"]
    assert list(rules.kinds) == manifest["done.kinds"]
    assert rules.scope == manifest["done.scope"]
    assert manifest["verify.timeout"] == DEFAULT_PHASE_TIMEOUT


def test_the_hook_flags_default_to_the_settings_defaults() -> None:
    from freshpass.commands.hook import _rules
    from freshpass.main import build_parser

    args = build_parser().parse_args(["hook", "check"])
    assert _rules(args) == DoneRules()
