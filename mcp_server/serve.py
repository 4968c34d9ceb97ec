"""`freshpass mcp`: the MCP server on stdio (design §7.3), built with the official `mcp` SDK.

Tools: `status`, `check_done`, `run`, `receipts` (mcp_server/tools.py). The SDK is imported only when the server
starts, so `freshpass --help` and every other subcommand never pay for it. The SDK's stdio transport serves the
protocol from private descriptors and points descriptors 0 and 1 elsewhere, so nothing freshpass reads or runs can
touch the JSON-RPC stream (as `freshpass serve` does for LSP).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import Any

from freshpass.mcp import tools  # light: the tools import the evidence core only when called

INSTRUCTIONS = (
    "freshpass keeps a receipt for every test, lint and typecheck run, bound to the exact content it ran against. "
    "Before you say the work is done or that tests pass, call `check_done`: `verified` means a fresh passing run "
    "covers the current content; `nudge` names the command to run — call `run` (it runs the project's approved "
    "check and records the receipt), or report plainly why you cannot. Pass your final message as `message` so "
    "claims such as 'all tests pass' are checked against receipts."
)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Speaks MCP on stdin/stdout. Tools: status, check_done, run, receipts. Receipts and nudge budgets belong "
        "to $FRESHPASS_SESSION (default: one per server process)."
    )
    parser.add_argument(
        "--root",
        metavar="DIR",
        default=None,
        help="the project the tools look at when a call gives no path (default: the current directory)",
    )


def build(default_root: Path) -> Any:
    """The MCP server with freshpass's tools, for `default_root` (tests drive it in memory or over stdio)."""
    from freshpass import __version__
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp.types import ToolAnnotations

    server: Any = MCPServer("freshpass", version=__version__, instructions=INSTRUCTIONS)
    reading = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)

    @server.tool(annotations=reading)
    async def status(path: str = "") -> tools.StatusResult:
        """The project's status: is the newest evidence fresh (run against exactly the current content) and
        passing? `path`: a file or directory in the project (default: the server's project)."""
        try:
            return await tools.status(path, default_root)
        except tools.ToolProblem as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, open_world_hint=False))
    async def check_done(
        path: str = "", session: str = "", changed_paths: list[str] | None = None, message: str = ""
    ) -> tools.CheckDoneResult:
        """Call before saying the work is done. `verdict`: verified (a fresh passing run covers the current
        content), nudge (run what `message` names, or report a blocker plainly), exhausted (unverified; say so),
        not_applicable (nothing to verify). `changed_paths`: files you changed. `message`: your final message, so
        claims that checks passed are checked against receipts. `session`: whose nudge budget (default: this
        server's)."""
        try:
            return await tools.check_done(
                path, default_root, session=session, changed_paths=changed_paths or [], message=message
            )
        except tools.ToolProblem as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=ToolAnnotations(destructive_hint=False, idempotent_hint=False, open_world_hint=False))
    async def run(
        command: str = "", path: str = "", timeout: float = tools.DEFAULT_TIMEOUT, session: str = ""
    ) -> tools.RunResult:
        """Run the project's check and record its receipt. Without `command`, runs the approved test command;
        `command` may be another check (a narrower test run, the linter), never an arbitrary command. Returns the
        exit code, the receipt's status and scope, test counts and the end of the output. `timeout` in seconds."""
        try:
            return await tools.run(path, default_root, command=command, timeout=timeout, session=session)
        except tools.ToolProblem as exc:
            raise ToolError(str(exc)) from None

    @server.tool(annotations=reading)
    async def receipts(path: str = "", limit: int = 10) -> tools.ReceiptsResult:
        """The project's receipts, newest first: command, kind, scope, status, exit code, test counts, when."""
        try:
            return await tools.receipts(path, default_root, limit=limit)
        except tools.ToolProblem as exc:
            raise ToolError(str(exc)) from None

    return server


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s %(levelname)s %(message)s")
    default_root = Path(os.path.abspath(args.root)) if args.root else Path.cwd()
    if not default_root.is_dir():
        from freshpass.runner.terminal import say

        say(f"freshpass mcp: --root {args.root} is not a directory")
        return 2
    try:
        build(default_root).run()  # stdio
    except KeyboardInterrupt:
        return 130
    return 0
