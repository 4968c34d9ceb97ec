"""`freshpass serve`: the language server on stdio (design §6, §8), or on TCP with `--tcp HOST:PORT`.

The server's own door: `freshpass.main` dispatches to it as it does to the commands, and nothing here imports the
command line."""

from __future__ import annotations

import argparse
import logging
import os
import stat
import sys
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import asyncio

    from freshpass.server.app import FreshpassServer


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


# pygls warns when a client cancels a request that already finished; VS Code does that all the time (a hover or lens
# request the user moved away from), so the editor's output channel filled with it. Nothing anyone can act on.
PYGLS_CANCEL_NOISE = 'Cancel notification for unknown message id "%s"'


def _not_cancel_noise(record: logging.LogRecord) -> bool:
    return record.msg != PYGLS_CANCEL_NOISE


class _PipeReader:
    """The protocol's input, read on the event loop itself (asyncio's pipe transport).

    pygls's own stdio reader hands every read to a worker thread: three thread round trips per message (header,
    blank line, body), each waiting for the GIL, on the path of every answer. Reading on the loop takes them off it
    (`bench/bench_server.py`: didSave → publishDiagnostics against a pygls server with the default reader). Same
    contract as pygls's reader: a line (or what is left at EOF), `n` bytes (or fewer at EOF), `b""` at EOF.
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._reader: asyncio.StreamReader | None = None

    async def _connected(self) -> asyncio.StreamReader:
        import asyncio

        if self._reader is None:
            reader = asyncio.StreamReader()
            loop = asyncio.get_running_loop()
            await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), self._stream)
            self._reader = reader
        return self._reader

    async def readline(self) -> bytes:
        import asyncio

        reader = await self._connected()
        try:
            return await reader.readuntil(b"\n")
        except asyncio.IncompleteReadError as exc:  # EOF
            return exc.partial
        except asyncio.LimitOverrunError as exc:  # a "line" longer than the buffer: garbage, handed on as it is
            return await reader.readexactly(exc.consumed)

    async def readexactly(self, n: int) -> bytes:
        import asyncio

        reader = await self._connected()
        try:
            return await reader.readexactly(n)
        except asyncio.IncompleteReadError as exc:  # EOF
            return exc.partial


def _readable_on_the_loop(stream: BinaryIO) -> bool:
    """A pipe, socket or terminal (what asyncio's pipe transport takes); a regular file is not."""
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISCHR(mode)


def _start_io(server: FreshpassServer, protocol_in: BinaryIO | None, protocol_out: BinaryIO | None) -> None:
    """pygls's `start_io` with the protocol read on the loop (`_PipeReader`) when the input allows it."""
    if protocol_in is None or not _readable_on_the_loop(protocol_in):
        server.start_io(protocol_in, protocol_out)
        return
    import asyncio
    import threading

    from pygls.io_ import StdoutWriter, run_async

    # What pygls's start_io sets up: `shutdown()` (and with it `exit`) stops the read loop through this event.
    server._stop_event = threading.Event()
    server.protocol.set_writer(StdoutWriter(protocol_out or sys.stdout.buffer))
    pygls_logger = logging.getLogger("pygls.server")
    try:
        asyncio.run(
            run_async(
                stop_event=server._stop_event,
                reader=_PipeReader(protocol_in),
                protocol=server.protocol,
                logger=pygls_logger,
                error_handler=server.report_server_error,
            )
        )
    except BrokenPipeError:
        pygls_logger.error("Connection to the client is lost! Shutting down the server.")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        server.shutdown()


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
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_not_cancel_noise)  # that one message only

    from freshpass.server.app import create_server

    server = create_server()
    try:
        if address is not None:
            _detach_standard_streams(keep_stdout=True)
            server.start_tcp(*address)
        else:
            protocol_in, protocol_out = _detach_standard_streams(keep_stdout=False)
            _start_io(server, protocol_in, protocol_out)
    finally:
        # pygls's own reader (a regular file as input) stays blocked in read() on a worker thread after `exit`, and
        # interpreter shutdown would join it until the client closes the pipe. Our own resources (ledger, watcher,
        # runs) were released by the exit/shutdown handlers, so leave at once with the code LSP prescribes (0 only
        # after `shutdown`).
        logging.shutdown()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(server.exit_code)
