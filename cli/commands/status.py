"""`freshpass status` (design §8)."""

from __future__ import annotations

import argparse

from freshpass.main import UsageError


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("rest", nargs=argparse.REMAINDER)


def run(args: argparse.Namespace) -> int:
    raise UsageError("not built yet")
