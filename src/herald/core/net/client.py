"""The SSRF-safe HTTPS client: resolve once, check every address, connect to what was checked."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

import certifi

from herald.core.net.addresses import (
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    IPAddress,
    Resolver,
    TargetPolicy,
    system_resolver,
)
from herald.core.net.failures import (
    ConnectFailed,
    ProtocolFailed,
    RequestFailed,
    ResolutionFailed,
    TimedOut,
    TlsFailed,
)
from herald.core.net.http11 import DeadlinePassed, TargetConnections
from herald.core.net.pinned import BoundedResolution, PinnedBackend
from herald.core.net.urls import HttpsTarget, parse_https_url

__all__ = [
    "BoundedResolution",
    "ConnectFailed",
    "HttpsResponse",
    "PinnedBackend",
    "ProtocolFailed",
    "RequestFailed",
    "ResolutionFailed",
    "SafeHttpsClient",
    "TimedOut",
    "TlsFailed",
    "default_ssl_context",
]

# A URL parses the same every time: webhooks post to the same few targets over and over, so
# each is parsed once (addresses are still resolved and checked on every request).
_parsed = functools.lru_cache(maxsize=4096)(parse_https_url)

# RFC 9110 field names are tokens; values may not carry CR, LF or NUL (no header injection).
_FIELD_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_FORBIDDEN_IN_VALUE = re.compile(r"[\r\n\x00]")
_SET_BY_CLIENT = frozenset({"host", "content-length", "user-agent", "connection"})


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


def default_ssl_context(ca_file: str | None) -> ssl.SSLContext:
    context = ssl.create_default_context(cafile=ca_file or certifi.where())
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    return context


class SafeHttpsClient:
    """POSTs to HTTPS targets under :class:`TargetPolicy`; thread-safe; reuses connections.

    Connections are pooled per (partition, host, port, checked addresses): a kept-alive
    connection is only reused when this request's own resolution and check produced the same
    addresses, so every request is checked and no socket ever reaches an unchecked address.
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
        self._pools: OrderedDict[tuple[str, str, int, frozenset[IPAddress]], TargetConnections]
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
        head = self._request_head(target, headers, len(content))
        addresses = self.resolve_checked(target, deadline, partition)
        pool = self._pool(partition, target, addresses)
        with self._translate_errors(target):
            reply = pool.post(head, content, deadline, self.max_response_bytes)
        return HttpsResponse(
            status=reply.status,
            headers=tuple(reply.headers[:100]),
            body=reply.body,
            truncated=reply.truncated,
            remote_address=reply.peer,
            duration_ms=round((time.monotonic() - started) * 1000),
        )

    def _request_head(self, target: HttpsTarget, headers: Mapping[str, str], length: int) -> bytes:
        lines = [
            f"POST {target.target} HTTP/1.1",
            f"Host: {target.host_header}",
            f"User-Agent: {self._user_agent}",
            f"Content-Length: {length}",
        ]
        for name, value in headers.items():
            if not _FIELD_NAME.fullmatch(name) or _FORBIDDEN_IN_VALUE.search(value):
                raise ProtocolFailed(f"invalid request header {name!r}")
            if name.lower() not in _SET_BY_CLIENT:
                lines.append(f"{name}: {value}")
        lines.append("\r\n")
        return "\r\n".join(lines).encode("latin-1")

    def _pool(
        self, partition: str, target: HttpsTarget, addresses: tuple[IPAddress, ...]
    ) -> TargetConnections:
        key = (partition, target.host, target.port, frozenset(addresses))
        evicted: list[TargetConnections] = []
        with self._lock:
            if self._closed:
                raise RuntimeError("SafeHttpsClient is closed")
            pool = self._pools.get(key)
            if pool is None:
                # The pool is the target's: its checked addresses, whatever the name.
                pool = TargetConnections(
                    self._ssl, target.host, target.port, addresses, self._max_connections
                )
                self._pools[key] = pool
                evicted = self._evict_idle_pools()
            self._pools.move_to_end(key)
        for old in evicted:
            old.close()
        return pool

    def _evict_idle_pools(self) -> list[TargetConnections]:
        """Drop the least recently used pools beyond ``max_pools``, never one in use."""
        evicted: list[TargetConnections] = []
        for key in list(self._pools):
            if len(self._pools) <= self._max_pools:
                break
            if not self._pools[key].in_use():
                evicted.append(self._pools.pop(key))
        return evicted

    @contextlib.contextmanager
    def _translate_errors(self, target: HttpsTarget) -> Iterator[None]:
        where = f"{target.host}:{target.port}"
        try:
            yield
        except DeadlinePassed:
            raise TimedOut(f"no complete response from {where} within {self.timeout:g} s") from None
        except ProtocolFailed as exc:
            raise ProtocolFailed(f"invalid HTTP response from {where}: {exc}") from None
        except (OSError, ssl.SSLError) as exc:
            raise ConnectFailed(f"connection to {where} failed: {exc or 'closed'}") from None
