"""Choosing a root's check once, from the editor (design §2, "Confidence, and a one-click correction").

Two entry points, both thin over `freshpass.facts.choose`:

- the request `freshpass/candidates` `{root | uri, kind = "test"}` answers what the editor needs to ask: whether the
  check of that kind should be confirmed (`needs_choice`: a close call, or it rests only on convention or CI), and
  the candidates — the project's checks of that kind, the primary first, each with where it was declared (`source`)
  and why it was chosen (`basis`), then the narrower entry points a person may still prefer. Writers, publishers
  and watchers are never among them.
- the command `freshpass.choose` `[{root | uri, kind, command, cwd = "."}]` writes the choice to `.freshpass.toml` or
  `[tool.freshpass]` in pyproject.toml, re-reads the root's facts, and answers `{choice, status}`: from then on the
  chosen command is the primary in every door (its basis is `configured`). A choice that cannot be written (a
  composed command, a symlinked or unparseable configuration file) is a request error whose message says why;
  nothing is changed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from freshpass.facts.choose import ChoiceError, candidates, choose
from freshpass.facts.model import KINDS
from freshpass.server.feature import Feature, Handler
from freshpass.server.state import RootState
from freshpass.server.verify import first_argument, request_failed
from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidParams

COMMAND = "freshpass.choose"
CANDIDATES = "freshpass/candidates"


class ChooseFeature(Feature):
    name = "choose"

    def commands(self) -> dict[str, Handler]:
        return {COMMAND: self.choose}

    def requests(self) -> dict[str, Handler]:
        return {CANDIDATES: self.candidates}

    async def _root(self, args: Mapping[str, Any]) -> RootState:
        root = await self.server.resolve_root(root=args.get("root"), uri=args.get("uri"))
        if root is None:
            where = args.get("root") or args.get("uri")
            raise request_failed(f"no freshpass root holds {where}" if where else "no workspace root is open")
        if not root.refreshed.is_set():
            await root.refreshed.wait()
        await self.server.tracker.settle(root)
        return root

    async def candidates(self, params: Any) -> dict[str, Any]:
        args = params if isinstance(params, Mapping) else {}
        kind = _kind(args.get("kind", "test"))
        root = await self._root(args)
        facts = root.facts
        offered = candidates(facts, kind) if facts is not None else []
        return {
            "root": str(root.path),
            "kind": kind,
            "needs_choice": bool(facts is not None and facts.needs_choice(kind)),
            "ambiguous": bool(facts is not None and kind in facts.ambiguous),
            "candidates": [candidate.to_json() for candidate in offered],
        }

    async def choose(self, *arguments: Any) -> dict[str, Any]:
        args = first_argument(arguments)
        kind = _kind(args.get("kind", "test"))
        command, cwd = args.get("command"), args.get("cwd", ".")
        if not isinstance(command, str) or not isinstance(cwd, str):
            raise JsonRpcInvalidParams("freshpass.choose expects [{root or uri, kind, command, cwd?}] with strings")
        root = await self._root(args)
        try:
            choice = await asyncio.to_thread(choose, root.path, kind, command, cwd)
        except ChoiceError as exc:
            raise request_failed(f"freshpass: the {kind} check was not changed: {exc}") from None
        self.server.log(
            types.MessageType.Info,
            f"freshpass: `{choice.command}` is now the {kind} check of {root.path} (written to {choice.file})",
        )
        self.server.tracker.request_refresh(root, {choice.file}, delay=0, facts=True)
        await self.server.tracker.settle(root)
        return {"choice": choice.to_json(), "status": root.status.to_json()}


def _kind(value: Any) -> str:
    if value not in KINDS:
        raise JsonRpcInvalidParams(f"kind must be one of {', '.join(KINDS)}, got {value!r}")
    return str(value)
