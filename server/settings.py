"""The server's settings: one typed object, read leniently.

The names and defaults come from the root `package.json` `contributes.configuration`, their one source, through
the generated `freshpass.evidence.settings_defaults` (scripts/gen-settings; docs/configuration.md lists them). Values
arrive from `initializationOptions` (nested as VS Code's
`getConfiguration("freshpass")` returns it), from `workspace/configuration` section `freshpass`, and again on
`workspace/didChangeConfiguration`. Both nested objects (`{"diagnostics": {"severity": …}}`) and dotted keys
(`{"diagnostics.severity": …}`) are accepted because clients differ. A bad value never stops the server: it is
reported as a readable problem and the default is used instead.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pathspec
from freshpass.evidence import settings_defaults as defaults
from freshpass.facts.model import KINDS, SHARED_ACTORS, SharedTrust
from lsprotocol import types

SEVERITIES: dict[str, types.DiagnosticSeverity] = {
    "hint": types.DiagnosticSeverity.Hint,
    "information": types.DiagnosticSeverity.Information,
    "info": types.DiagnosticSeverity.Information,
    "warning": types.DiagnosticSeverity.Warning,
    "error": types.DiagnosticSeverity.Error,
}
SCOPES = ("full", "targeted")


@dataclass(frozen=True)
class Settings:
    """Every setting the server reads (docs/configuration.md), with package.json's defaults."""

    diagnostics_severity: str = defaults.DIAGNOSTICS_SEVERITY
    diagnostics_agent_severity: str = defaults.DIAGNOSTICS_AGENT_SEVERITY
    code_lens_enabled: bool = defaults.CODE_LENS_ENABLED
    ignore: tuple[str, ...] = defaults.IGNORE
    ignore_prose: bool = defaults.IGNORE_PROSE
    nudge_budget: int = defaults.NUDGE_BUDGET
    done_kinds: tuple[str, ...] = defaults.DONE_KINDS
    done_scope: str = defaults.DONE_SCOPE
    gate_kinds: tuple[str, ...] = defaults.GATE_KINDS  # what `freshpass gate` requires (the CLI reads the default)
    verify_timeout: float = defaults.VERIFY_TIMEOUT
    verify_path: tuple[str, ...] = defaults.VERIFY_PATH
    terminal_evidence: bool = defaults.TERMINAL_EVIDENCE
    shared_trust: tuple[str, ...] = defaults.SHARED_TRUST
    shared_signers: tuple[str, ...] = defaults.SHARED_SIGNERS
    shared_allowed_signers: str = defaults.SHARED_ALLOWED_SIGNERS
    shared_fetch: bool = defaults.SHARED_FETCH
    shared_remote: str = defaults.SHARED_REMOTE

    def severity_for(self, *, agent: bool) -> types.DiagnosticSeverity:
        return SEVERITIES[self.diagnostics_agent_severity if agent else self.diagnostics_severity]

    @property
    def trust(self) -> SharedTrust:
        """The user's `shared.*` trust settings (design §4.6)."""
        return SharedTrust(self.shared_trust, self.shared_signers, self.shared_allowed_signers)

    def hides(self, relative: str) -> bool:
        """Does this editor hide diagnostics on `relative` (`ignore`, `ignoreProse`)? Content ids never depend on
        it: they follow the project's own rules."""
        return _hidden(self.ignore, self.ignore_prose).match_file(relative)


@functools.lru_cache(maxsize=8)
def _hidden(ignore: tuple[str, ...], ignore_prose: bool) -> pathspec.PathSpec:
    from freshpass.evidence.status import ignored_paths

    return ignored_paths(ignore, ignore_prose)


@dataclass(frozen=True)
class _Spec:
    attribute: str
    check: Any  # (value) -> converted value, raises ValueError with a readable reason


def _severity(value: Any) -> str:
    if isinstance(value, str) and value.lower() in SEVERITIES:
        return "information" if value.lower() == "info" else value.lower()
    raise ValueError("expected one of hint, information, warning, error")


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    raise ValueError("expected true or false")


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, (list, tuple)) and all(isinstance(item, str) for item in value):
        return tuple(value)
    raise ValueError("expected a list of strings")


def _kinds(value: Any) -> tuple[str, ...]:
    kinds = _strings(value)
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown or not kinds:
        raise ValueError(f"expected a non-empty list of {', '.join(KINDS)}")
    return kinds


def _actors(value: Any) -> tuple[str, ...]:
    actors = _strings(value)
    if any(actor not in SHARED_ACTORS for actor in actors):
        raise ValueError(f"expected a list of {', '.join(SHARED_ACTORS)}")
    return actors


def _string(value: Any) -> str:
    if isinstance(value, str):
        return value
    raise ValueError("expected a string")


def _name(value: Any) -> str:
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise ValueError("expected a non-empty string")


def _scope(value: Any) -> str:
    if value in SCOPES:
        return str(value)
    raise ValueError("expected full or targeted")


def _non_negative_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise ValueError("expected a whole number ≥ 0")


def _positive_seconds(value: Any) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
        return float(value)
    raise ValueError("expected a number of seconds > 0")


# dotted setting name (without the `freshpass.` prefix) -> how to read it
SPECS: dict[str, _Spec] = {
    "diagnostics.severity": _Spec("diagnostics_severity", _severity),
    "diagnostics.agentSeverity": _Spec("diagnostics_agent_severity", _severity),
    "codeLens.enabled": _Spec("code_lens_enabled", _bool),
    "ignore": _Spec("ignore", _strings),
    "ignoreProse": _Spec("ignore_prose", _bool),
    "nudge.budget": _Spec("nudge_budget", _non_negative_int),
    "done.kinds": _Spec("done_kinds", _kinds),
    "done.scope": _Spec("done_scope", _scope),
    "gate.kinds": _Spec("gate_kinds", _kinds),
    "verify.timeout": _Spec("verify_timeout", _positive_seconds),
    "verify.path": _Spec("verify_path", _strings),
    "terminalEvidence": _Spec("terminal_evidence", _bool),
    "shared.trust": _Spec("shared_trust", _actors),
    "shared.signers": _Spec("shared_signers", _strings),
    "shared.allowedSigners": _Spec("shared_allowed_signers", _string),
    "shared.fetch": _Spec("shared_fetch", _bool),
    "shared.remote": _Spec("shared_remote", _name),
}
# Keys that belong to the editor (package.json's editor-only settings such as `server.command`, VS Code's `trace`)
# or to initializationOptions itself: known, not settings.
CLIENT_SIDE_KEYS = {
    "server",
    "trace.server",
    "trace",
    "sessionId",
    "agent",
    "trusted",
    "pythonInterpreter",
    *defaults.EDITOR_ONLY,
}


@dataclass
class SettingsResult:
    settings: Settings
    problems: list[str] = field(default_factory=list)


def _flatten(value: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    for key, item in value.items():
        name = f"{prefix}{key}"
        if isinstance(item, Mapping) and name not in SPECS:
            yield from _flatten(item, f"{name}.")
        else:
            yield name, item


def parse_settings(raw: Any, base: Settings | None = None) -> SettingsResult:
    """Read a `freshpass` settings object; unknown keys and bad values become problems, never exceptions."""
    settings = base or Settings()
    problems: list[str] = []
    if raw is None:
        return SettingsResult(settings, problems)
    if not isinstance(raw, Mapping):
        problems.append(f"freshpass settings must be an object, got {type(raw).__name__}; using defaults")
        return SettingsResult(settings, problems)
    changes: dict[str, Any] = {}
    for name, value in _flatten(raw):
        name = name.removeprefix("freshpass.")
        if name in CLIENT_SIDE_KEYS or name.startswith(("server.", "trace.")):
            continue
        spec = SPECS.get(name)
        if spec is None:
            problems.append(f"unknown setting freshpass.{name} (ignored)")
            continue
        if value is None:  # VS Code sends null for "not set": keep the default
            continue
        try:
            changes[spec.attribute] = spec.check(value)
        except ValueError as exc:
            kept = getattr(settings, spec.attribute)
            problems.append(f"freshpass.{name} = {value!r}: {exc}; using {kept!r}")
    return SettingsResult(dataclasses.replace(settings, **changes), problems)
