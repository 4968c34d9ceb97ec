"""One module per `freshpass` subcommand; each exposes `add_parser(subparsers)` and `run(args) -> int`."""
