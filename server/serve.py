"""`freshpass serve`: the language server on stdio (design §6, §8), or on TCP with `--tcp HOST:PORT`.

The server's own door: `freshpass.main` dispatches to it as it does to the commands, and nothing here imports the
command line."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import BinaryIO


def _tcp_address(value: str) -> tuple[str, int]:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"expects HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host.strip("[]"), int(port)


def add_parser(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio", action="store_true", help="talk LSP on stdin/stdout (the default; accepted for editors that pass it)"
    )
    parser.add_argument("--tcp", metavar="HOST:PORT", type=_tcp_address, help="listen on a TCP port instead of stdio")
    parser.add_argument(
        "--log-file", metavar="FILE", help="write the server's own debug log here (stderr gets warnings only)"
    )


def _not_a_cancellation(record: logging.LogRecord) -> bool:
    import asyncio

    return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


def _detach_standard_streams(*, keep_stdout: bool) -> tuple[BinaryIO | None, BinaryIO | None]:
    """Private descriptors for the protocol; descriptor 0 becomes /dev/null and (on stdio) 1 becomes stderr.

    Nothing the server reads or runs can then touch the JSON-RPC stream: a repository file that is a symlink to
    /dev/stdin reads as empty instead of consuming the client's messages, and a stray write to descriptor 1 (a
    library's print, a child that inherits it) lands in the log instead of corrupting the protocol.
    """
    protocol_in: BinaryIO | None = None
    protocol_out: BinaryIO | None = None
    try:
        protocol_in = os.fdopen(os.dup(0), "rb")
        if not keep_stdout:
            sys.stdout.flush()
            protocol_out = os.fdopen(os.dup(1), "wb")
    except OSError:
        return None, None  # no usable stdio: let pygls use what there is
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        try:
            os.dup2(null, 0)
        finally:
            os.close(null)
        if not keep_stdout:
            os.dup2(2, 1)
    except OSError:
        pass
    return protocol_in, protocol_out


def run(args: argparse.Namespace) -> int:
    address = args.tcp
    # stdout is the protocol: logging goes to stderr (or a file), never to stdout.
    handler: logging.Handler = (
        logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    )
    logging.basicConfig(
        level=logging.DEBUG if args.log_file else logging.WARNING,
        handlers=[handler],
        format="%(asctime)s %(name)s %(levelname)s %(message)s",
    )
    # On `exit` over TCP, pygls cancels the connection's reader while asyncio still holds it in a callback, and
    # asyncio logs that cancellation as an error with a traceback. Cancelling is how the server stops: not an error.
    logging.getLogger("asyncio").addFilter(_not_a_cancellation)
    # pygls logs every message body at INFO; that is noise at best and a cost per message at worst.
    logging.getLogger("pygls").setLevel(logging.WARNING if not os.environ.get("FRESHPASS_LSP_TRACE") else logging.DEBUG)

    from freshpass.server.app import create_server

    server = create_server()
    try:
        if address is not None:
            _detach_standard_streams(keep_stdout=True)
            server.start_tcp(*address)
        else:
            protocol_in, protocol_out = _detach_standard_streams(keep_stdout=False)
            server.start_io(protocol_in, protocol_out)
    finally:
        # pygls reads stdin on a worker thread that stays blocked in read() after `exit`, and interpreter shutdown
        # would join it until the client closes the pipe. Our own resources (ledger, watcher, runs) were released
        # by the exit/shutdown handlers, so leave at once with the code LSP prescribes (0 only after `shutdown`).
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(server.exit_code)
