"""The SSRF-safe HTTPS client: resolve once, check every address, connect to what was checked."""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import threading
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

import certifi
import httpcore

from herald.core.net.addresses import (
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    IPAddress,
    Resolver,
    TargetPolicy,
    system_resolver,
)
from herald.core.net.urls import HttpsTarget, parse_https_url

# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------

# A URL parses the same every time: webhooks post to the same few targets over and over, so
# each is parsed once (addresses are still resolved and checked on every request).
_parsed = functools.lru_cache(maxsize=4096)(parse_https_url)


class RequestFailed(Exception):
    """An outbound request got no usable HTTP response. ``kind`` is a stable short code."""

    kind = "error"


class ResolutionFailed(RequestFailed):
    kind = "dns"


class ConnectFailed(RequestFailed):
    kind = "connect"


class TlsFailed(RequestFailed):
    kind = "tls"


class TimedOut(RequestFailed):
    kind = "timeout"


class ProtocolFailed(RequestFailed):
    kind = "protocol"


@dataclass(frozen=True, slots=True)
class HttpsResponse:
    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes  # at most max_response_bytes; the rest is never read
    truncated: bool
    remote_address: str | None  # the checked address the request went to
    duration_ms: int

    def header(self, name: str) -> str | None:
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)


# The absolute monotonic deadline of the request running in this thread. Pooled connections
# outlive requests, so the deadline travels with the request, not with the connection.
_DEADLINE: ContextVar[float | None] = ContextVar("herald_net_deadline", default=None)


def _bounded(timeout: float | None) -> float | None:
    deadline = _DEADLINE.get()
    if deadline is None:
        return timeout
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise httpcore.ReadTimeout("total deadline exceeded")
    return remaining if timeout is None else min(timeout, remaining)


class _DeadlineStream(httpcore.NetworkStream):
    """Caps every socket operation at the time left before the request's total deadline, so a
    server that drips one byte at a time cannot keep a delivery going past it."""

    def __init__(self, inner: httpcore.NetworkStream, peer: str) -> None:
        self._inner = inner
        self.peer = peer  # the checked address this stream is connected to

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        tls = self._inner.start_tls(ssl_context, server_hostname, _bounded(timeout))
        return _DeadlineStream(tls, self.peer)

    def get_extra_info(self, info: str) -> Any:
        if info == "herald_peer":
            return self.peer
        return self._inner.get_extra_info(info)


class PinnedBackend(httpcore.NetworkBackend):
    """Connects only to the checked addresses ``addresses_for(host)`` returns, never to a fresh
    resolution of the name (the socket layer would resolve it again; TLS still uses the name for
    SNI and certificate checks). Every socket operation is also capped by the request's total
    deadline when one is set (webhook deliveries set one)."""

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
                stream = self._inner.connect_tcp(
                    str(ip), port, _bounded(timeout), local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _DeadlineStream(stream, str(ip))
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


def default_ssl_context(ca_file: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca_file or certifi.where())
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class SafeHttpsClient:
    """POSTs to HTTPS targets under :class:`TargetPolicy`; thread-safe; reuses connections.

    Connections are pooled per (host, port, checked addresses): a pooled connection is only
    reused when this request's own resolution and check produced the same addresses.
    """

    def __init__(
        self,
        policy: TargetPolicy,
        *,
        resolver: Resolver | None = None,
        ca_file: str | None = None,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        max_connections_per_target: int = 8,
        max_pools: int = 256,
        user_agent: str = "Herald-Webhooks/1",
    ) -> None:
        self.policy = policy
        self.timeout = timeout
        self.max_response_bytes = max_response_bytes
        self._resolver = resolver or system_resolver
        # SSL_CERT_FILE replaces the default trust store, as it does for OpenSSL itself.
        self._ssl = default_ssl_context(ca_file or os.environ.get("SSL_CERT_FILE"))
        self._max_connections = max_connections_per_target
        self._max_pools = max_pools
        self._user_agent = user_agent
        self._pools: OrderedDict[
            tuple[str, str, int, frozenset[IPAddress]], httpcore.ConnectionPool
        ]
        self._pools = OrderedDict()
        self._lock = threading.Lock()
        self.dns = BoundedResolution()
        self._closed = False

    def __enter__(self) -> SafeHttpsClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pools = list(self._pools.values())
            self._pools.clear()
        for pool in pools:
            pool.close()
        self.dns.close()

    def resolve_checked(
        self, target: HttpsTarget, deadline: float, partition: str = ""
    ) -> tuple[IPAddress, ...]:
        """Resolve once (within the deadline, bounded per partition) and check every address."""
        if target.literal is not None:
            return self.policy.check_addresses(target.host, [target.literal])
        try:
            addresses = self.dns.resolve(
                self._resolver, target.host, partition=partition, deadline=deadline
            )
        except (OSError, UnicodeError) as exc:
            raise ResolutionFailed(f"could not resolve {target.host}: {exc}") from None
        return self.policy.check_addresses(target.host, addresses)

    def post(
        self,
        url: str | HttpsTarget,
        *,
        content: bytes,
        headers: Mapping[str, str],
        partition: str = "",
    ) -> HttpsResponse:
        """POST ``content``; never follows redirects (a 3xx is returned as is).

        ``partition`` keeps connection pools apart (webhooks pass the workspace, so workspaces
        whose targets share a host never wait for each other's connections).
        Raises :class:`InvalidWebhookUrl` when the target breaks the rules (now, after this
        resolution) and :class:`RequestFailed` subclasses when no response arrived in time.
        """
        started = time.monotonic()
        deadline = started + self.timeout
        target = _parsed(url) if isinstance(url, str) else url
        addresses = self.resolve_checked(target, deadline, partition)
        pool = self._pool(partition, target, addresses)
        request_headers = [
            ("Host", target.host_header),
            ("User-Agent", self._user_agent),
            ("Content-Length", str(len(content))),
            *((k, v) for k, v in headers.items() if k.lower() not in {"host", "content-length"}),
        ]
        request = httpcore.Request(
            "POST",
            httpcore.URL(scheme="https", host=target.host, port=target.port, target=target.target),
            headers=request_headers,
            content=content,
            extensions={
                "timeout": dict.fromkeys(("connect", "read", "write", "pool"), self.timeout)
            },
        )
        token = _DEADLINE.set(deadline)
        try:
            with self._translate_errors(target, addresses):
                response = pool.handle_request(request)
                try:
                    stream = response.extensions.get("network_stream")
                    peer = stream.get_extra_info("herald_peer") if stream is not None else None
                    body, truncated = self._read_bounded(response.iter_stream())
                finally:
                    response.close()  # unread remainder: the connection is dropped, not drained
        finally:
            _DEADLINE.reset(token)
        return HttpsResponse(
            status=response.status,
            headers=tuple(
                (k.decode("latin-1"), v.decode("latin-1")) for k, v in response.headers[:100]
            ),
            body=body,
            truncated=truncated,
            remote_address=peer,
            duration_ms=round((time.monotonic() - started) * 1000),
        )

    def _read_bounded(self, chunks: Iterable[bytes]) -> tuple[bytes, bool]:
        kept = bytearray()
        for chunk in chunks:
            room = self.max_response_bytes - len(kept)
            kept += chunk[:room]
            if len(chunk) > room:
                return bytes(kept), True
        return bytes(kept), False

    def _pool(
        self, partition: str, target: HttpsTarget, addresses: tuple[IPAddress, ...]
    ) -> httpcore.ConnectionPool:
        key = (partition, target.host, target.port, frozenset(addresses))
        evicted: list[httpcore.ConnectionPool] = []
        with self._lock:
            if self._closed:
                raise RuntimeError("SafeHttpsClient is closed")
            pool = self._pools.get(key)
            if pool is None:
                pool = httpcore.ConnectionPool(
                    ssl_context=self._ssl,
                    max_connections=self._max_connections,
                    keepalive_expiry=30.0,
                    # The pool is the target's: its checked addresses, whatever the name.
                    network_backend=PinnedBackend(lambda _host: addresses),
                )
                self._pools[key] = pool
                evicted = self._evict_idle_pools()
            self._pools.move_to_end(key)
        for old in evicted:
            old.close()
        return pool

    def _evict_idle_pools(self) -> list[httpcore.ConnectionPool]:
        """Drop the least recently used pools beyond ``max_pools``, never one in use."""
        evicted: list[httpcore.ConnectionPool] = []
        for key in list(self._pools):
            if len(self._pools) <= self._max_pools:
                break
            pool = self._pools[key]
            if all(connection.is_idle() for connection in pool.connections):
                evicted.append(self._pools.pop(key))
        return evicted

    @contextlib.contextmanager
    def _translate_errors(
        self, target: HttpsTarget, addresses: tuple[IPAddress, ...]
    ) -> Iterator[None]:
        where = f"{target.host}:{target.port}"
        try:
            yield
        except httpcore.TimeoutException:
            raise TimedOut(f"no complete response from {where} within {self.timeout:g} s") from None
        except httpcore.ConnectError as exc:
            tls = _ssl_cause(exc)
            if tls is not None:
                raise TlsFailed(f"TLS handshake with {where} failed: {tls}") from None
            shown = ", ".join(str(a) for a in addresses)
            raise ConnectFailed(f"could not connect to {where} ({shown}): {exc}") from None
        except (httpcore.ReadError, httpcore.WriteError) as exc:
            raise ConnectFailed(f"connection to {where} failed: {exc or 'closed'}") from None
        except httpcore.ProtocolError as exc:
            raise ProtocolFailed(f"invalid HTTP response from {where}: {exc}") from None


def _ssl_cause(exc: BaseException) -> ssl.SSLError | None:
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, ssl.SSLError):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None
