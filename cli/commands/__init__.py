"""One module per `freshpass` subcommand; each exposes `add_parser(subparsers)` and `run(args) -> int`."""


class UsageError(Exception):
    """A usage error in a subcommand: reported as one line, exit 2."""
