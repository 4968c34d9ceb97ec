"""Who the client is and what it asked for: `initializationOptions`, the `freshpass` settings, pulled configuration.

`ClientOptions.read()` turns `initializationOptions` into typed values (with a readable message for each value it
refuses); `Configuration` owns the server's `Settings` and applies every later source of them.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from freshpass.server.settings import Settings, parse_settings
from freshpass.server.wire import plain
from lsprotocol import types

# clientInfo.name of coding agents (lower case, compared by substring): they get `diagnostics.agentSeverity`. Crush's
# LSP library says `powernap`, Claude Code `Claude Code`; OpenCode sends none (its set-up says `agent: true`).
AGENT_CLIENT_NAMES = (
    "opencode", "crush", "powernap", "claude-code", "claude code", "codex", "aider", "goose", "amp-"
)  # fmt: skip
# initializationOptions keys that are not settings
OPTION_KEYS = ("sessionId", "agent", "trusted", "pythonInterpreter")

Log = Callable[[types.MessageType, str], None]


def is_agent_client(client_name: str, options: Mapping[str, Any]) -> bool:
    """An agent says so (`initializationOptions.agent: true`, which every documented set-up sends) or is known by the
    name its client sends (design §7.1)."""
    return options.get("agent") is True or any(name in client_name.lower() for name in AGENT_CLIENT_NAMES)


def trusted_from(options: Mapping[str, Any]) -> bool:
    """Workspace trust from initializationOptions: absent means trusted (clients without workspace trust), only
    the JSON value `true` otherwise. Anything else — "false", 0, null, "true" — fails closed."""
    return "trusted" not in options or options["trusted"] is True


@dataclass(frozen=True)
class ClientOptions:
    """The client's identity and the non-settings part of `initializationOptions`."""

    client_name: str = ""
    session_id: str = ""
    is_agent: bool = False
    trusted: bool = True
    # The Python interpreter the editor selected (VS Code's Python extension): its environment runs the project's
    # commands (runner/environment.py).
    python_interpreter: str | None = None
    settings: Mapping[str, Any] = field(default_factory=dict)  # the rest: the `freshpass` settings object

    @classmethod
    def read(cls, params: types.InitializeParams, log: Log) -> ClientOptions:
        options = plain(params.initialization_options)
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            log(
                types.MessageType.Warning,
                "freshpass: initializationOptions must be an object; ignored, and the workspace is treated as "
                "untrusted (nothing will be run)",
            )
            options = {"trusted": False}
        client = params.client_info.name if params.client_info else ""
        session = options.get("sessionId")
        # Editors that know about workspace trust (VS Code's Restricted Mode) say `trusted: false`: then nothing
        # is ever executed, whatever a lens or an agent asks; status and receipts still work. Only an absent
        # `trusted` (a client without workspace trust, such as Neovim) or exactly `true` is trusted: "false", 0,
        # null or any other value fails closed.
        if "trusted" in options and not isinstance(options["trusted"], bool):
            log(
                types.MessageType.Warning,
                f"freshpass: initializationOptions.trusted = {options['trusted']!r} is not true or false; "
                "treating the workspace as untrusted (nothing will be run)",
            )
        interpreter = options.get("pythonInterpreter")
        if "pythonInterpreter" in options and interpreter is not None and not isinstance(interpreter, str):
            log(
                types.MessageType.Warning,
                f"freshpass: initializationOptions.pythonInterpreter = {interpreter!r} is not a path; ignored",
            )
        return cls(
            client_name=client,
            session_id=(
                session if isinstance(session, str) and session else f"lsp:{client or 'client'}:{uuid.uuid4().hex[:8]}"
            ),
            is_agent=is_agent_client(client, options),
            trusted=trusted_from(options),
            python_interpreter=interpreter if isinstance(interpreter, str) and interpreter.strip() else None,
            settings={key: value for key, value in options.items() if key not in OPTION_KEYS},
        )


class Configuration:
    """The server's settings and every source of them: initializationOptions, didChangeConfiguration pushes and
    `workspace/configuration` pulls. A value that cannot be used is a warning in the client's log; the rest apply."""

    def __init__(self, log: Log) -> None:
        self.settings = Settings()
        self._log = log

    def apply(self, raw: Any, origin: str) -> bool:
        """Apply a settings object; True when the settings changed."""
        raw = plain(raw)
        if isinstance(raw, Mapping) and isinstance(raw.get("freshpass"), Mapping):
            raw = raw["freshpass"]
        result = parse_settings(raw, self.settings)
        for problem in result.problems:
            self._log(types.MessageType.Warning, f"freshpass: {origin}: {problem}")
        changed = result.settings != self.settings
        self.settings = result.settings
        return changed

    async def pull(self, ask: Callable[[types.ConfigurationParams], Any] | None) -> bool:
        """Ask the client for the `freshpass` section (`ask` is None when the client cannot be asked)."""
        if ask is None:
            return False
        try:
            values = await ask(types.ConfigurationParams(items=[types.ConfigurationItem(section="freshpass")]))
        except Exception as exc:
            self._log(types.MessageType.Info, f"freshpass: workspace/configuration failed: {exc}")
            return False
        if not values or values[0] is None:
            return False
        return self.apply(values[0], "workspace/configuration")
