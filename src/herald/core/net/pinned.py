"""Name resolution with a deadline, and connections pinned to checked addresses (for httpx).

The ingest fetcher talks through httpx; :class:`PinnedBackend` is its network backend, so its
sockets go only to addresses that were resolved once and checked. Webhook deliveries use the
same :class:`BoundedResolution` but their own HTTP/1.1 exchange (:mod:`herald.core.net.http11`).
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

import httpcore

from herald.core.net.addresses import IPAddress, Resolver
from herald.core.net.failures import TimedOut


class PinnedBackend(httpcore.NetworkBackend):
    """Connects only to the checked addresses ``addresses_for(host)`` returns, never to a fresh
    resolution of the name (the socket layer would resolve it again; TLS still uses the name for
    SNI and certificate checks)."""

    def __init__(self, addresses_for: Callable[[str], Sequence[IPAddress]]) -> None:
        self._addresses_for = addresses_for
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        failure: httpcore.ConnectError | None = None
        for ip in self._addresses_for(host):
            try:
                return self._inner.connect_tcp(
                    str(ip), port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
        assert failure is not None  # a check never returns no address
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used for outbound requests")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


DNS_THREADS = 32
DNS_PER_PARTITION = 4


class BoundedResolution:
    """Runs blocking name lookups with a deadline and a per-partition (workspace) bound.

    The operating system's resolver cannot be interrupted: a lookup of a name whose server never
    answers holds its thread until the resolver gives up on its own. The caller is freed at its
    deadline, and the thread is charged to the caller's partition until it comes back; a
    partition with :data:`DNS_PER_PARTITION` lookups still out gets an immediate
    :class:`TimedOut` instead of another thread. One workspace's never-answering names thus hold
    at most that many of the :data:`DNS_THREADS` threads, and every other workspace resolves as
    usual.
    """

    def __init__(self, threads: int = DNS_THREADS, per_partition: int = DNS_PER_PARTITION) -> None:
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="herald-dns")
        self._per_partition = per_partition
        self._out: Counter[str] = Counter()
        self._lock = threading.Lock()

    def resolve(
        self, resolver: Resolver, host: str, *, partition: str, deadline: float
    ) -> tuple[IPAddress, ...]:
        with self._lock:
            if self._out[partition] >= self._per_partition:
                raise TimedOut(
                    f"resolving {host}: {self._per_partition} earlier lookups of this "
                    "workspace are still unanswered"
                )
            self._out[partition] += 1

        def lookup() -> tuple[IPAddress, ...]:
            try:
                return tuple(resolver(host))
            finally:
                with self._lock:
                    self._out[partition] -= 1
                    if self._out[partition] <= 0:
                        del self._out[partition]

        try:
            future = self._pool.submit(lookup)
        except RuntimeError:
            with self._lock:
                self._out[partition] -= 1
            raise
        try:
            return future.result(timeout=max(deadline - time.monotonic(), 0.0))
        except FutureTimeout:
            future.cancel()
            raise TimedOut(f"resolving {host} took longer than the deadline") from None

    @staticmethod
    def deadline_in(seconds: float) -> float:
        """The deadline :meth:`resolve` takes, ``seconds`` from now (on the monotonic clock)."""
        return time.monotonic() + seconds

    def outstanding(self, partition: str) -> int:
        with self._lock:
            return self._out[partition]

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
