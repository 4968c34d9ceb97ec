"""Readiness of a started app: poll a loopback URL until it answers 2xx/3xx (design §5).

Only loopback hosts are polled (`127.0.0.0/8`, `::1`, `localhost`): a verify run checks the app it started on this
machine, and must never become a way to make requests to other hosts. `localhost` is tried as both 127.0.0.1 and
::1 without asking the resolver, because dev servers bind either depending on the runtime, and a hosts file could
point `localhost` elsewhere.
"""

from __future__ import annotations

import asyncio
import http.client
import ipaddress
import socket
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

PROBE_TIMEOUT = 2.0  # seconds one request may take; a slow answer is retried until the ready timeout


class ReadinessError(ValueError):
    """The readiness URL cannot be used (not loopback, not http, no port)."""


@dataclass(frozen=True)
class ReadyTarget:
    url: str  # as shown to people
    scheme: str
    addresses: tuple[str, ...]  # loopback IPs to connect to, in order
    host_header: str
    port: int
    path: str


def _loopback_addresses(host: str) -> tuple[str, ...] | None:
    if host.lower() == "localhost":
        return ("127.0.0.1", "::1")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    return (str(address),) if address.is_loopback else None


def ready_target(ready_url: str | None, port: int | None, *, port_override: int | None = None) -> ReadyTarget:
    """Resolve the recipe's `ready_url` (a URL, a path, or None) and port into what to poll.

    `port_override` (`freshpass verify --port N`) replaces the URL's port too. Raises `ReadinessError` with a
    message a person can act on.
    """
    if ready_url is not None and not isinstance(ready_url, str):
        raise ReadinessError(f"ready_url {ready_url!r}: expected a URL or a path such as /health")
    for name, value in (("port", port), ("--port", port_override)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or not 0 < value < 65536):
            raise ReadinessError(f"{name} {value!r}: expected a port number 1-65535")
    effective_port = port_override or port
    if not ready_url or ready_url.startswith("/"):
        if effective_port is None:
            raise ReadinessError(
                'the start command has no known port: pass --port N, or set "port" in the recipe (or use --skip-start)'
            )
        path = ready_url or "/"
        return ReadyTarget(
            url=f"http://localhost:{effective_port}{path}",
            scheme="http",
            addresses=("127.0.0.1", "::1"),
            host_header=f"localhost:{effective_port}",
            port=effective_port,
            path=path,
        )
    try:
        parts = urlsplit(ready_url)
        host = parts.hostname or ""
    except ValueError as exc:  # "http://[::1" — an unclosed IPv6 bracket, and other URLs urllib cannot split
        raise ReadinessError(f"ready_url {ready_url!r} is not a valid URL ({exc})") from None
    if parts.scheme not in {"http", "https"}:
        raise ReadinessError(f"ready_url {ready_url!r}: only http:// and https:// URLs can be polled")
    addresses = _loopback_addresses(host)
    if addresses is None:
        raise ReadinessError(
            f"ready_url {ready_url!r}: host {host!r} is not loopback; freshpass only polls the app it started "
            "on this machine (127.0.0.1, localhost or ::1)"
        )
    try:
        url_port = parts.port
    except ValueError as exc:
        raise ReadinessError(f"ready_url {ready_url!r}: {exc}") from None
    if url_port == 0:
        raise ReadinessError(f"ready_url {ready_url!r}: port 0 cannot be polled")
    final_port = port_override or url_port or port or (443 if parts.scheme == "https" else 80)
    netloc_host = f"[{host}]" if ":" in host else host
    netloc = f"{netloc_host}:{final_port}"
    path = parts.path or "/"
    if parts.query:
        path += f"?{parts.query}"
    return ReadyTarget(
        url=urlunsplit((parts.scheme, netloc, parts.path or "/", parts.query, "")),
        scheme=parts.scheme,
        addresses=addresses,
        host_header=netloc,
        port=final_port,
        path=path,
    )


def probe(target: ReadyTarget, timeout: float = PROBE_TIMEOUT) -> tuple[bool, str]:
    """One GET against the loopback addresses: (ready, what was seen, e.g. "HTTP 500" or "connection refused").

    The first address that answers HTTP decides. When none does, the first address's error is reported: for
    `localhost`, "connection refused" on 127.0.0.1 says more than ::1 being unavailable on a host without IPv6.
    """
    errors: list[str] = []
    for address in target.addresses:
        connection: http.client.HTTPConnection
        if target.scheme == "https":
            # The app's own dev certificate is rarely trusted; we only ask whether it answers.
            context = ssl.create_default_context()
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
            connection = http.client.HTTPSConnection(address, target.port, timeout=timeout, context=context)
        else:
            connection = http.client.HTTPConnection(address, target.port, timeout=timeout)
        try:
            connection.request("GET", target.path, headers={"Host": target.host_header, "User-Agent": "freshpass"})
            response = connection.getresponse()
            response.read(65536)
            status = response.status
            return 200 <= status < 400, f"HTTP {status}"  # the app answered: another address will not differ
        except ConnectionRefusedError:
            errors.append("connection refused")
        except TimeoutError:
            errors.append(f"no answer within {timeout:g}s")
        except OSError as exc:
            errors.append(f"connection error: {exc.strerror or exc}")
        except http.client.HTTPException as exc:
            errors.append(f"not an HTTP answer: {type(exc).__name__}")
        finally:
            connection.close()
    return False, errors[0] if errors else "no answer"


def port_taken(target: ReadyTarget, timeout: float = 0.5) -> str | None:
    """The address already accepting connections on the target's port, if any.

    Checked before the app starts: otherwise a leftover server on that port would answer the readiness probes
    and an app that failed to bind would look ready.
    """
    for address in target.addresses:
        try:
            with socket.create_connection((address, target.port), timeout=timeout):
                return address
        except OSError:
            continue
    return None


@dataclass
class Readiness:
    url: str
    ready: bool
    last_status: str  # "HTTP 200", "connection refused", …
    attempts: int
    waited: float  # seconds

    def to_json(self) -> dict[str, object]:
        return {
            "url": self.url,
            "ready": self.ready,
            "last_status": self.last_status,
            "attempts": self.attempts,
            "waited": round(self.waited, 3),
        }


async def wait_until_ready(
    target: ReadyTarget,
    *,
    timeout: float,
    stop: asyncio.Future[Any] | None = None,
    on_status: Callable[[str, int], None] | None = None,
) -> Readiness:
    """Poll `target` until it is ready, `timeout` seconds pass, or `stop` completes (the app exited, a cancel)."""
    started = time.monotonic()
    deadline = started + timeout
    attempts = 0
    last = "not polled yet"
    delay = 0.05
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        attempts += 1
        ready, last = await asyncio.to_thread(probe, target, min(PROBE_TIMEOUT, max(remaining, 0.1)))
        if on_status is not None:
            on_status(last, attempts)
        if ready:
            return Readiness(target.url, True, last, attempts, time.monotonic() - started)
        # Wait before the next probe, but wake at once when the app exits or the run is cancelled.
        pause = min(delay, max(deadline - time.monotonic(), 0))
        delay = min(delay * 2, 0.2)  # refused loopback connects cost nothing: keep the latency to ready low
        if stop is None:
            await asyncio.sleep(pause)
        else:
            done, _ = await asyncio.wait({stop}, timeout=pause)
            if done:
                break
    return Readiness(target.url, False, last, attempts, time.monotonic() - started)
