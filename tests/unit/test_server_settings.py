"""Server settings: typed, lenient, readable problems (docs/architecture.md "Settings")."""

from __future__ import annotations

from freshpass.server.settings import Settings, parse_settings
from lsprotocol import types


def test_defaults_match_the_settings_table() -> None:
    settings = parse_settings(None).settings
    assert settings == Settings()
    assert settings.diagnostics_severity == "warning"
    assert settings.diagnostics_agent_severity == "error"
    assert settings.code_lens_enabled is True
    assert settings.ignore == ()
    assert settings.ignore_prose is True
    assert settings.nudge_budget == 2
    assert settings.done_kinds == ("test",)
    assert settings.done_scope == "full"
    assert settings.verify_timeout == 1800.0
    assert settings.terminal_evidence is True


def test_nested_objects_and_dotted_keys_are_both_read() -> None:
    nested = parse_settings({"diagnostics": {"severity": "hint", "agentSeverity": "warning"}, "nudge": {"budget": 0}})
    dotted = parse_settings({"diagnostics.severity": "hint", "diagnostics.agentSeverity": "warning", "nudge.budget": 0})
    assert nested.problems == dotted.problems == []
    assert nested.settings == dotted.settings
    assert nested.settings.severity_for(agent=False) == types.DiagnosticSeverity.Hint
    assert nested.settings.severity_for(agent=True) == types.DiagnosticSeverity.Warning
    assert nested.settings.nudge_budget == 0


def test_bad_values_are_reported_and_keep_the_previous_value() -> None:
    base = parse_settings({"verify": {"timeout": 60}}).settings
    result = parse_settings(
        {"verify": {"timeout": -1}, "codeLens": {"enabled": "yes"}, "done": {"kinds": ["tests"]}, "bogus": 1}, base
    )
    assert result.settings.verify_timeout == 60.0
    assert result.settings.code_lens_enabled is True
    assert result.settings.done_kinds == ("test",)
    assert any("freshpass.verify.timeout = -1" in p and "using 60.0" in p for p in result.problems)
    assert any("freshpass.codeLens.enabled = 'yes'" in p and "true or false" in p for p in result.problems)
    assert any("freshpass.done.kinds" in p for p in result.problems)
    assert any("unknown setting freshpass.bogus" in p for p in result.problems)


def test_client_side_keys_and_nulls_are_not_problems() -> None:
    result = parse_settings({"server": {"command": ["freshpass", "serve"]}, "trace": {"server": "off"}, "ignore": None})
    assert result.problems == []
    assert result.settings == Settings()


def test_a_non_object_is_one_problem() -> None:
    result = parse_settings(["warning"])
    assert result.settings == Settings()
    assert result.problems == ["freshpass settings must be an object, got list; using defaults"]


def test_list_settings_become_tuples() -> None:
    result = parse_settings({"ignore": ["docs/**", "*.snap"], "done": {"kinds": ["test", "lint"], "scope": "targeted"}})
    assert result.problems == []
    assert result.settings.ignore == ("docs/**", "*.snap")
    assert result.settings.done_kinds == ("test", "lint")
    assert result.settings.done_scope == "targeted"


def test_file_uris_map_to_exact_paths() -> None:
    import os
    from pathlib import Path

    from freshpass.server.wire import uri_to_path

    latin1 = Path(os.fsdecode(b"/tmp/caf\xe9/a b.py"))
    assert uri_to_path(latin1.as_uri()) == latin1
    assert uri_to_path("file:///tmp/%E2%82%AC/x.py") == Path("/tmp/€/x.py")
    assert uri_to_path("file://localhost/tmp/x.py") == Path("/tmp/x.py")
    assert uri_to_path("untitled:Untitled-1") is None


def test_trusted_fails_closed() -> None:
    from freshpass.server.client import trusted_from

    assert trusted_from({}) is True  # a client without workspace trust (Neovim)
    assert trusted_from({"trusted": True}) is True
    for value in (False, "false", "true", 0, 1, None, {}, []):
        assert trusted_from({"trusted": value}) is False, value


def test_shared_settings_are_read_and_checked() -> None:
    from freshpass.facts.model import SharedTrust

    result = parse_settings({"shared": {"trust": ["ci"], "signers": ["ci@acme"], "allowedSigners": "a", "fetch": True}})
    assert result.problems == []
    assert result.settings.trust == SharedTrust(("ci",), ("ci@acme",), "a")
    assert result.settings.shared_fetch is True and result.settings.shared_remote == "origin"
    bad = parse_settings({"shared": {"trust": ["everyone"], "remote": " "}})
    assert bad.settings.trust == SharedTrust()
    assert any("freshpass.shared.trust" in p and "ci, person, agent" in p for p in bad.problems)
    assert any("freshpass.shared.remote" in p for p in bad.problems)
