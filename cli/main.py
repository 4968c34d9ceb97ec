"""`freshpass` command line: a thin dispatcher over one module per subcommand (design §8).

Subcommand modules are imported lazily and keep heavy imports inside `run()`: a command line imports the module of
its own subcommand only (`freshpass run` is added to every command it runs, so its start-up is measured:
`bench/bench_run.py`), and `--help` imports them all.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

# name -> one-line help; the module is freshpass.commands.<name> (hyphens become underscores), except the doors
# that are not the command line's own (the language server): this module is the one place that knows both.
ELSEWHERE = {"serve": "freshpass.server.serve", "mcp": "freshpass.mcp.serve"}
SUBCOMMANDS: dict[str, str] = {
    "facts": "list the verify commands this project declares",
    "classify": "explain what a command line would count as (runs nothing)",
    "run": "run a command exactly as your shell would and record the receipt",
    "verify": "run the project's recipe: bootstrap, build, test, start + readiness",
    "status": "is the newest evidence fresh and passing? (exit 0 only when it is)",
    "log": "receipts, newest first",
    "trust": "trust a folder, so agents' tools (MCP `run`) may run its checks; --revoke, --list",
    "gate": "refuse a push whose content has no fresh passing full test (git pre-push hook: --install)",
    "share": "attach receipts to git (refs/notes/freshpass) so clones with the same content see them",
    "shell-init": "the bash, zsh or fish hook: checks typed in any terminal become receipts",
    "serve": "the language server (stdio by default)",
    "mcp": "the MCP server for coding agents (stdio): status, check_done, run, receipts",
    "hook": "coding agents' hooks: stop checks and recording their own runs",
}


def _parser_class() -> type[argparse.ArgumentParser]:
    import argparse
    from typing import NoReturn

    class _Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            # One readable line instead of argparse's usage dump (design §8: exit 2 with a one-line reason).
            self.exit(2, f"{self.prog}: {message} (see '{self.prog} --help')\n")

    return _Parser


def _subcommand_of(argv: Sequence[str]) -> str | None:
    """The subcommand a command line names: its first word that is not an option (the top-level parser takes no
    option with a value)."""
    for word in argv:
        if word == "--":
            return None
        if not word.startswith("-"):
            return word if word in SUBCOMMANDS else None
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given a command line naming a subcommand, only that subcommand's parser is built and its module
    imported. Without one (`--help`, a typo) every subcommand is there, for the help and the error."""
    import importlib

    from freshpass import __version__

    _Parser = _parser_class()
    only = _subcommand_of(argv) if argv is not None else None
    parser = _Parser(
        prog="freshpass",
        description="Receipts for 'the tests pass': which command ran, what scope, what it returned, "
        "and whether it ran after the latest change.",
    )
    parser.add_argument("--version", action="version", version=f"freshpass {__version__}")
    subparsers = parser.add_subparsers(dest="subcommand", metavar="COMMAND", parser_class=_Parser)
    for name, help_text in SUBCOMMANDS.items():
        if only is not None and name != only:
            continue  # argparse only ever dispatches to the subcommand named: the others need no parser
        sub = subparsers.add_parser(name, help=help_text, description=help_text)
        module = importlib.import_module(ELSEWHERE.get(name) or f"freshpass.commands.{name.replace('-', '_')}")
        module.add_parser(sub)
        sub.set_defaults(_module=module)
    return parser


def _never_fail_to_print() -> None:
    """A terminal whose encoding cannot show a character gets an escape instead of a UnicodeEncodeError."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (OSError, ValueError):
                pass


def main(argv: Sequence[str] | None = None) -> int:
    _never_fail_to_print()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["hook"] and argv[1:2] in (["record"], ["pre"]):
        # Run on every shell call an agent makes: a command that is no check is answered before anything heavy.
        from freshpass.fastentry import hook

        answered = hook(argv[1], argv[2:])
        if answered is not None:
            return answered
    from freshpass.commands import UsageError

    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "subcommand", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args._module.run(args) or 0)
    except UsageError as exc:
        from freshpass.runner.terminal import say

        say(f"freshpass {args.subcommand}: {exc}")
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
