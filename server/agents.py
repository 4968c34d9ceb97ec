"""`freshpass/checkDone` (design §7.1): the language server's door to the done-check of `freshpass.evidence.agents`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from freshpass.evidence.agents import Decision, DoneRules, evaluate
from freshpass.evidence.claims import find_claims
from freshpass.server.feature import Feature, Handler


class AgentsFeature(Feature):
    """The agents' done-check as a request: `freshpass/checkDone`."""

    name = "agents"

    def requests(self) -> dict[str, Handler]:
        async def answer(params: Any) -> dict[str, Any]:
            return await check_done(self.server, params or {})

        return {"freshpass/checkDone": answer}


async def check_done(server: Any, params: Any) -> dict[str, Any]:
    """The `freshpass/checkDone` request (design §7): `{sessionId?, root?, uri?, changedPaths?, message?}` → the
    decision; `message` is the agent's last message, whose claims must be backed by receipts (design §7.4).

    `server` is the `FreshpassServer`: its roots (with cached facts and the paths it saw change), its settings
    (`nudge.budget`, `done.kinds`, `done.scope`, `ignore`, `ignoreProse`), its one ledger connection and its
    session id (from `initializationOptions.sessionId`, else one per connection). An unusable ledger answers
    `not_applicable` with the reason rather than an error: a harness must never be wedged by freshpass.
    """
    from freshpass.ledger.content import ContentError
    from freshpass.ledger.store import LedgerError
    from pygls.exceptions import JsonRpcInvalidParams

    if not isinstance(params, Mapping):
        raise JsonRpcInvalidParams("freshpass/checkDone expects {sessionId?, root?, uri?, changedPaths?}")
    session = params.get("sessionId")
    if session is not None and not isinstance(session, str):
        raise JsonRpcInvalidParams("freshpass/checkDone: sessionId must be a string")
    changed = params.get("changedPaths") or []
    if not isinstance(changed, (list, tuple)) or not all(isinstance(path, str) for path in changed):
        raise JsonRpcInvalidParams("freshpass/checkDone: changedPaths must be a list of paths or file URIs")
    message = params.get("message")
    if message is not None and not isinstance(message, str):
        raise JsonRpcInvalidParams("freshpass/checkDone: message must be the agent's last message, a string")
    settings = server.settings
    rules = DoneRules(budget=settings.nudge_budget, kinds=tuple(settings.done_kinds), scope=settings.done_scope)

    root = await server.resolve_root(root=params.get("root"), uri=params.get("uri"))
    if root is not None:
        await root.refreshed.wait()
        await server.tracker.settle(root)  # edits the server already heard of are in the status it compares with
        project, facts, fallback, known_status = root.path, root.facts, list(root.session_changed), root.status
    else:
        # A project outside the workspace folders (or asked about before they were added): check it directly.
        project = _project_of(params.get("root") or params.get("uri"))
        facts, fallback, known_status = None, [], None
    if project is not None and not server.trusted and await server.backend.runs_git(project):
        return Decision(
            "not_applicable",
            f"freshpass: {project} is in an untrusted workspace, where freshpass runs nothing (not even git), so "
            "whether receipts cover the content cannot be checked. Say plainly how you verified the change, or that "
            "you did not.",
            nudges_left=rules.budget,
            status=known_status,
        ).to_json()
    if project is None:
        where = params.get("root") or params.get("uri") or "this workspace"
        return Decision(
            "not_applicable", f"freshpass: {where} is not inside a project root; nothing to verify.",
            nudges_left=rules.budget,
        ).to_json()  # fmt: skip
    ledger = await server.backend.open()
    if ledger is None:
        return Decision(
            "not_applicable",
            "freshpass: receipts are unavailable (the ledger cannot be opened; see the server log), so nothing "
            "can be checked. Say plainly how you verified the change, or that you did not.",
            status=known_status,
        ).to_json()
    try:
        decision = await evaluate(
            ledger,
            project,
            session=session or server.session_id,
            rules=rules,
            changed_paths=changed,
            fallback_paths=fallback,
            facts=facts,
            shared=server.shared_options(),
            claims=find_claims(message),
        )
    except (LedgerError, ContentError) as exc:
        return Decision(
            "not_applicable",
            f"freshpass: cannot check {project} right now ({exc}). Say plainly how you verified the change, "
            "or that you did not.",
            status=known_status,
        ).to_json()
    return decision.to_json()


def _project_of(where: Any) -> Path | None:
    """The root holding a `root`/`uri` argument (a path or a `file:` URI), or None."""
    from freshpass.facts.roots import find_root

    if not isinstance(where, str) or not where:
        return None
    try:
        scheme = urlparse(where).scheme
        if scheme == "file":
            where = unquote(urlparse(where).path)
    except ValueError:
        return None
    if scheme != "file" and len(scheme) > 1:
        return None
    path = Path(where)
    return find_root(path) if path.is_absolute() and path.exists() else None
