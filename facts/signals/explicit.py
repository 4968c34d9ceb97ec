"""What the project tells freshpass directly: `[tool.freshpass]` in pyproject.toml, or `.freshpass.toml`."""

from __future__ import annotations

from typing import Any, cast

from freshpass.facts.model import FLAKY_POLICIES, KINDS, SHARED_ACTORS, Kind, SharedTrust

from .base import Candidate, Collector, get_path, normalise_cwd


def read(c: Collector) -> None:
    pyproject = c.load_toml("pyproject.toml") if c.exists("pyproject.toml") else None
    section = get_path(pyproject, "tool", "freshpass")
    if section is not None:
        c.manifest("pyproject.toml")
        _read_config(c, section, "pyproject.toml", "tool.freshpass")
    config = c.load_toml(".freshpass.toml") if c.exists(".freshpass.toml") else None
    if config is not None:
        c.manifest(".freshpass.toml")
        c.context(".freshpass.toml")
        _read_config(c, config, ".freshpass.toml", "")


def _read_config(c: Collector, config: Any, rel: str, prefix: str) -> None:
    where = f"{prefix}." if prefix else ""
    if not isinstance(config, dict):
        c.problem(rel, f"[{prefix}] must be a table")
        return
    verify = config.get("verify", [])
    if not isinstance(verify, list):
        c.problem(rel, f'{where}verify must be an array of tables like {{command = "pytest", kind = "test"}}')
        verify = []
    for index, entry in enumerate(verify):
        source = f"{rel}#{where}verify[{index}]"
        if isinstance(entry, str):
            entry = {"command": entry}
        if not isinstance(entry, dict):
            c.problem(rel, f"{where}verify[{index}] must be a table with a 'command' string")
            continue
        command = entry.get("command")
        if not isinstance(command, str) or not command.strip():
            c.problem(rel, f"{where}verify[{index}] needs a non-empty 'command' string")
            continue
        kind = entry.get("kind", "test")
        if kind not in KINDS:
            c.problem(rel, f"{where}verify[{index}].kind {kind!r} is not one of {', '.join(KINDS)}")
            continue
        cwd = entry.get("cwd", ".")
        if not isinstance(cwd, str) or cwd.startswith("/") or normalise_cwd(cwd).startswith(".."):
            c.problem(rel, f"{where}verify[{index}].cwd must be a directory relative to the root, got {cwd!r}")
            continue
        equivalents = entry.get("equivalents", [])
        if not isinstance(equivalents, list) or not all(isinstance(e, str) for e in equivalents):
            c.problem(rel, f"{where}verify[{index}].equivalents must be an array of command strings")
            equivalents = []
        c.add(
            Candidate(
                command,
                cwd,
                source,
                "explicit",
                kind=cast(Kind, kind),
                body=(command,),
                spellings=tuple(equivalents),
            )
        )
    ignore_prose = config.get("ignore_prose", True)
    if not isinstance(ignore_prose, bool):
        c.problem(rel, f"{where}ignore_prose must be true or false")
    else:
        c.ignore_prose = ignore_prose
    flaky = config.get("flaky", "fail")
    if flaky not in FLAKY_POLICIES:
        c.problem(rel, f"{where}flaky must be one of {', '.join(repr(p) for p in FLAKY_POLICIES)}, got {flaky!r}")
    else:
        c.flaky = flaky
    gate = config.get("gate")
    if gate is not None:
        if not isinstance(gate, list) or not gate or not all(isinstance(k, str) and k in KINDS for k in gate):
            c.problem(rel, f"{where}gate must be a non-empty array of kinds ({', '.join(KINDS)})")
        else:
            c.gate = tuple(dict.fromkeys(gate))
    ignore = config.get("ignore", [])
    if not isinstance(ignore, list) or not all(isinstance(g, str) for g in ignore):
        c.problem(rel, f"{where}ignore must be an array of gitignore-style glob strings")
    else:
        for glob in ignore:
            if glob not in c.ignore:
                c.ignore.append(glob)
    _read_shared(c, config.get("shared"), rel, where)


def _read_shared(c: Collector, shared: Any, rel: str, where: str) -> None:
    """`shared = {trust = ["ci"], signers = ["ci@example.org"], allowed_signers = ".github/allowed_signers"}`."""
    if shared is None:
        return
    trust, problem = shared_trust_of(shared, where)
    if problem:
        c.problem(rel, problem)
    elif trust is not None:
        c.shared_trust = trust


def shared_trust_of(shared: Any, where: str = "tool.freshpass.") -> tuple[SharedTrust | None, str]:
    """The trust settings a `shared` table holds, or None and why not (pure: also used on a committed file's
    table, read from the default branch rather than the work tree)."""
    if not isinstance(shared, dict):
        return None, f"[{where}shared] must be a table with trust, signers and allowed_signers"
    values: dict[str, Any] = {}
    for key, attribute in (("trust", "actors"), ("signers", "signers")):
        value = shared.get(key, [])
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            return None, f"{where}shared.{key} must be an array of strings"
        values[attribute] = tuple(value)
    unknown = [actor for actor in values["actors"] if actor not in SHARED_ACTORS]
    if unknown:
        return None, f"{where}shared.trust: {', '.join(unknown)} is not one of {', '.join(SHARED_ACTORS)}"
    allowed = shared.get("allowed_signers", "")
    if not isinstance(allowed, str) or allowed.startswith("/") or normalise_cwd(allowed or ".").startswith(".."):
        return None, f"{where}shared.allowed_signers must be a file path relative to the root"
    if values["signers"] and not allowed:
        return None, f"{where}shared.signers needs shared.allowed_signers: the file their keys are checked against"
    return SharedTrust(allowed_signers=allowed, **values), ""
