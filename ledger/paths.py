"""Where the ledger lives. Kept apart from the store so that reading it imports neither SQLite nor asyncio."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

LEDGER_ENV = "FRESHPASS_LEDGER"


def default_ledger_path(env: Mapping[str, str] | None = None) -> Path:
    """`$FRESHPASS_LEDGER`, else `$XDG_STATE_HOME/freshpass/ledger.db` (XDG default `~/.local/state`)."""
    env = os.environ if env is None else env
    override = env.get(LEDGER_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    state_home = env.get("XDG_STATE_HOME", "").strip()
    # XDG: a relative path in the variable is invalid and must be ignored.
    base = Path(state_home) if state_home and Path(state_home).is_absolute() else Path.home() / ".local" / "state"
    return base / "freshpass" / "ledger.db"
