"""One deadline for a whole fetch: connecting, sending, waiting for the headers, every redirect
hop and the body.

httpx bounds each connect, read and write, not the exchange: a server that answers every read
with a byte or two (its status line, a header, a chunk) would hold a poll, and the worker
running it, for as long as it likes. :class:`DeadlineBackend` wraps the fetcher's network
backend so that every socket operation gets at most the time left before the deadline of the
fetch running on that thread, and one started after it fails as a timeout at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore

__all__ = ["DeadlineBackend", "fetch_deadline"]

_current = threading.local()


@contextmanager
def fetch_deadline(seconds: float) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now for this thread's sockets (a fetch
    inside another one, as an article page fetched while a feed is parsed, gets its own)."""
    outer = getattr(_current, "deadline", None)
    _current.deadline = time.monotonic() + seconds
    try:
        yield
    finally:
        _current.deadline = outer


def _bounded(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` cut to the time left before the thread's deadline (none: unchanged)."""
    deadline: float | None = getattr(_current, "deadline", None)
    if deadline is None:
        return timeout
    left = deadline - time.monotonic()
    if left <= 0:
        raise error("the fetch's deadline passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, bounded))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class DeadlineBackend(httpcore.NetworkBackend):
    """``inner``'s connections, each socket operation bounded by the thread's deadline."""

    def __init__(self, inner: httpcore.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        bounded = _bounded(timeout, httpcore.ConnectTimeout)
        stream = self._inner.connect_tcp(host, port, bounded, local_address, socket_options)
        return _DeadlineStream(stream)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used for outbound requests")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)
