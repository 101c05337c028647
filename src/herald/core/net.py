"""Outbound HTTPS that cannot be pointed at the inside of the network (SSRF-safe).

Three layers, each usable on its own:

* :func:`forbidden_reason` classifies one IP address (pure; property-tested).
* :func:`parse_https_url` parses a target URL strictly: HTTPS only, no credentials, no ``localhost``
  names, no odd numeric host forms (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``).
* :class:`SafeHttpsClient` resolves the host once, refuses the request unless *every* resolved
  address is allowed, then connects to those checked addresses itself (the socket layer never
  resolves the name again, so a DNS answer that changes between check and connect — rebinding —
  cannot redirect the request). The hostname is still used for SNI, certificate verification and
  the ``Host`` header. Redirects are never followed, the kept response body is bounded and the
  whole exchange (DNS included) has one total deadline.

Addresses inside operator-allowed networks (``HERALD_WEBHOOK_ALLOW_NETWORKS``) are admitted, except
link-local and cloud metadata addresses, which stay forbidden whatever the operator allows.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import ssl
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import certifi
import httpcore
import httpx

from herald.errors import InvalidWebhookUrl

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str], Sequence[IPAddress]]

DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024
MAX_URL_LENGTH = 2048

# --------------------------------------------------------------------------------------------
# Address classification (pure)
# --------------------------------------------------------------------------------------------

_net = ipaddress.ip_network

# Never admitted, whatever the operator allows: the cloud metadata services live here.
ALWAYS_FORBIDDEN: tuple[tuple[IPNetwork, str], ...] = (
    (_net("169.254.0.0/16"), "link-local (cloud metadata) space"),
    (_net("fe80::/10"), "IPv6 link-local space"),
    (_net("100.100.100.200/32"), "a cloud metadata address"),
    (_net("fd00:ec2::254/128"), "a cloud metadata address"),
)

# IANA special-purpose registries (IPv4 and IPv6), most specific first so the reason is precise.
_FORBIDDEN_V4: tuple[tuple[IPNetwork, str], ...] = (
    (_net("0.0.0.0/32"), "the unspecified address"),
    (_net("0.0.0.0/8"), "the 'this network' range"),
    (_net("10.0.0.0/8"), "a private network (RFC 1918)"),
    (_net("100.64.0.0/10"), "shared CGNAT space (RFC 6598)"),
    (_net("127.0.0.0/8"), "loopback"),
    (_net("172.16.0.0/12"), "a private network (RFC 1918)"),
    (_net("192.0.0.0/24"), "IETF protocol assignment space"),
    (_net("192.0.2.0/24"), "documentation space"),
    (_net("192.88.99.0/24"), "the deprecated 6to4 relay range"),
    (_net("192.168.0.0/16"), "a private network (RFC 1918)"),
    (_net("198.18.0.0/15"), "benchmarking space"),
    (_net("198.51.100.0/24"), "documentation space"),
    (_net("203.0.113.0/24"), "documentation space"),
    (_net("224.0.0.0/4"), "multicast"),
    (_net("255.255.255.255/32"), "the broadcast address"),
    (_net("240.0.0.0/4"), "reserved space"),
)
_FORBIDDEN_V6: tuple[tuple[IPNetwork, str], ...] = (
    (_net("::/128"), "the unspecified address"),
    (_net("::1/128"), "loopback"),
    (_net("2001:db8::/32"), "documentation space"),
    (_net("3fff::/20"), "documentation space"),
    (_net("2001::/32"), "Teredo tunnel space"),
    (_net("2001::/23"), "IETF protocol assignment space"),
    (_net("2002::/16"), "6to4 tunnel space"),
    (_net("fc00::/7"), "a unique-local (private) network"),
    (_net("fec0::/10"), "deprecated site-local space"),
    (_net("ff00::/8"), "multicast"),
)
_GLOBAL_UNICAST_V6 = _net("2000::/3")
# DNS64/NAT64 well-known prefix: the IPv4 address is embedded in the last 32 bits.
_NAT64 = _net("64:ff9b::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def canonical_address(ip: IPAddress) -> IPAddress:
    """``::ffff:a.b.c.d`` is the IPv4 address ``a.b.c.d``: judge (and connect to) that."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
    return ip


def forbidden_reason(ip: IPAddress, allow_networks: Sequence[IPNetwork] = ()) -> str | None:
    """Why a webhook may not connect to ``ip`` (a short phrase), or ``None`` when it may.

    Total over every IPv4 and IPv6 address. An address is allowed when it is globally reachable
    unicast, or lies inside one of ``allow_networks`` and is not in :data:`ALWAYS_FORBIDDEN`.
    """
    ip = canonical_address(ip)
    embedded = _embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    for candidate in (ip, embedded):
        if candidate is None:
            continue
        for network, reason in ALWAYS_FORBIDDEN:
            if candidate.version == network.version and candidate in network:
                return reason
    if any(ip.version == n.version and ip in n for n in allow_networks):
        return None
    if embedded is not None:  # NAT64: the IPv4 address inside decides
        inner = forbidden_reason(embedded, allow_networks)
        return None if inner is None else f"{inner} (NAT64 form)"
    table = _FORBIDDEN_V4 if ip.version == 4 else _FORBIDDEN_V6
    for network, reason in table:
        if ip in network:
            return reason
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST_V6:
        return "outside the IPv6 global unicast range"
    if not ip.is_global:  # anything Python's copy of the IANA registry knows that we missed
        return "special-purpose space"
    return None


def parse_allow_networks(text: str | Iterable[str]) -> tuple[IPNetwork, ...]:
    """``"127.0.0.0/8, 10.1.0.0/16"`` -> networks. A bad entry raises ``ValueError`` naming it."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    networks: list[IPNetwork] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError as exc:
            raise ValueError(f"not a CIDR network: {part!r} ({exc})") from None
    return tuple(networks)


@dataclass(frozen=True, slots=True)
class TargetPolicy:
    """Which addresses outbound requests may reach beyond the public internet."""

    allow_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, text: str | Iterable[str]) -> TargetPolicy:
        return cls(parse_allow_networks(text))

    def check_address(self, host: str, ip: IPAddress) -> IPAddress:
        """The address to connect to; raises :class:`InvalidWebhookUrl` when it is forbidden."""
        reason = forbidden_reason(ip, self.allow_networks)
        if reason is not None:
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            spelled = f"::ffff:{mapped}" if mapped is not None else str(ip)
            shown = f"{host} resolves to {spelled}" if host != str(ip) else f"address {spelled}"
            raise InvalidWebhookUrl(
                f"Webhook URL is not allowed: {shown}, which is {reason}; "
                "targets must be public internet addresses"
            )
        return canonical_address(ip)

    def check_addresses(self, host: str, addresses: Sequence[IPAddress]) -> tuple[IPAddress, ...]:
        """Every address must pass: a name with one public and one private address is refused."""
        if not addresses:
            raise InvalidWebhookUrl(f"Webhook URL host {host} does not resolve to any address")
        checked: list[IPAddress] = []
        for ip in addresses:
            canon = self.check_address(host, ip)
            if canon not in checked:
                checked.append(canon)
        return tuple(checked)


# --------------------------------------------------------------------------------------------
# URL parsing (pure)
# --------------------------------------------------------------------------------------------

_LOCALHOST_NAMES = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
)
_HOST_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True, slots=True)
class HttpsTarget:
    """A parsed, syntactically acceptable HTTPS target (addresses not yet checked)."""

    url: str  # normalised, without fragment
    host: str  # ASCII (IDNA) host name or IP literal, no brackets
    port: int
    target: str  # path and query, as sent on the request line
    literal: IPAddress | None  # set when the host is an IP literal

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


def _is_numeric_label(label: str) -> bool:
    low = label.lower()
    if low.startswith("0x"):
        return all(c in "0123456789abcdef" for c in low[2:])
    return low.isdigit()


def _canonical_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Dotted-quad decimal without leading zeros, or ``None`` for any other numeric spelling."""
    labels = host.split(".")
    if len(labels) != 4:
        return None
    for label in labels:
        if not label.isdigit() or (len(label) > 1 and label[0] == "0") or int(label) > 255:
            return None
    return ipaddress.IPv4Address(host)


def _refuse_odd_ipv4(url: str, host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a numeric host spells, or ``None`` for a host name.

    WHATWG: a numeric last label makes the host an IPv4 address. Only the canonical spelling is
    accepted, so 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 never reach a resolver that would
    read them as 127.0.0.1.
    """
    bare = host[:-1] if host.endswith(".") else host
    if not bare or not _is_numeric_label(bare.rsplit(".", 1)[-1]):
        return None
    literal = _canonical_ipv4(host)
    if literal is None:
        raise _invalid(
            url,
            "numeric hosts must be written as a dotted-decimal IPv4 address "
            "(decimal, octal and hex forms are refused)",
        )
    return literal


def _invalid(url: str, why: str) -> InvalidWebhookUrl:
    shown = url if len(url) <= 200 else url[:200] + "…"
    return InvalidWebhookUrl(f"Webhook URL {shown!r} is not allowed: {why}")


def parse_https_url(raw: str) -> HttpsTarget:
    """Parse a target URL by the target rules; raise :class:`InvalidWebhookUrl` saying why not."""
    if not isinstance(raw, str) or not raw:
        raise InvalidWebhookUrl("Webhook URL must be a non-empty string")
    url = raw.strip()
    if len(url) > MAX_URL_LENGTH:
        raise InvalidWebhookUrl(f"Webhook URL is longer than {MAX_URL_LENGTH} characters")
    # Whitespace, control characters and backslashes are where URL parsers disagree.
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F or c == "\\" for c in url):
        raise _invalid(url, "it contains whitespace, control characters or backslashes")
    try:
        split = urlsplit(url)
        loose_host = split.hostname or ""
    except ValueError as exc:
        raise _invalid(url, f"it cannot be parsed ({exc})") from None
    if ":" not in loose_host:
        _refuse_odd_ipv4(url, loose_host)  # before httpx, which rejects some of them vaguely
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise _invalid(url, f"it cannot be parsed ({exc})") from None
    if parsed.scheme != "https":
        raise _invalid(url, "the scheme must be https")
    if parsed.userinfo or "@" in split.netloc:
        raise _invalid(url, "it must not contain credentials (user:password@)")
    try:
        host = parsed.raw_host.decode("ascii").lower()
    except UnicodeDecodeError:
        raise _invalid(url, "the host name is not valid") from None
    if not host:
        raise _invalid(url, "it has no host")
    if (split.hostname or "").rstrip(".") != parsed.host.lower().rstrip("."):
        raise _invalid(url, "its host is ambiguous")
    port = 443 if parsed.port is None else parsed.port
    if not 1 <= port <= 65535:
        raise _invalid(url, "the port must be between 1 and 65535")

    literal: IPAddress | None = None
    if ":" in host:  # httpx strips the brackets of an IPv6 literal
        try:
            literal = ipaddress.IPv6Address(host)
        except ValueError:
            raise _invalid(url, "the IPv6 address is not valid") from None
        if literal.scope_id:
            raise _invalid(url, "IPv6 zone identifiers are not allowed")
    else:
        bare = host[:-1] if host.endswith(".") else host
        labels = bare.split(".")
        literal = _refuse_odd_ipv4(url, host)
        if literal is None:
            if bare in _LOCALHOST_NAMES or bare.endswith(".localhost"):
                raise _invalid(url, "localhost names are not allowed")
            if len(bare) > 253 or any(
                not 0 < len(label) <= 63 or not set(label) <= _HOST_LABEL_CHARS for label in labels
            ):
                raise _invalid(url, "the host name is not valid")
    target = parsed.raw_path.decode("ascii") or "/"
    normalised = str(parsed.copy_with(fragment=None))
    return HttpsTarget(url=normalised, host=host, port=port, target=target, literal=literal)


def check_target_url(
    raw: str, policy: TargetPolicy, resolver: Resolver | None = None
) -> tuple[HttpsTarget, tuple[IPAddress, ...]]:
    """Parse ``raw`` and check every address it resolves to (the save-time check).

    Raises :class:`InvalidWebhookUrl` for a URL that breaks the rules or does not resolve.
    """
    target = parse_https_url(raw)
    if target.literal is not None:
        return target, policy.check_addresses(target.host, [target.literal])
    try:
        addresses = (resolver or system_resolver)(target.host)
    except (OSError, UnicodeError) as exc:
        raise InvalidWebhookUrl(
            f"Webhook URL host {target.host} could not be resolved ({exc})"
        ) from None
    return target, policy.check_addresses(target.host, addresses)


def system_resolver(host: str) -> list[IPAddress]:
    """All addresses of ``host`` from the operating system's resolver, in its order."""
    found: list[IPAddress] = []
    for *_, sockaddr in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM):
        ip = ipaddress.ip_address(str(sockaddr[0]))
        if ip not in found:
            found.append(ip)
    return found


# --------------------------------------------------------------------------------------------
# The client
# --------------------------------------------------------------------------------------------


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


class _PinnedBackend(httpcore.NetworkBackend):
    """Connects only to addresses that were checked; the host name httpcore passes is ignored on
    purpose (it would be resolved again by the socket layer)."""

    def __init__(self, addresses: tuple[IPAddress, ...]) -> None:
        self._addresses = addresses
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
        for ip in self._addresses:
            try:
                stream = self._inner.connect_tcp(
                    str(ip), port, _bounded(timeout), local_address, socket_options
                )
            except httpcore.ConnectError as exc:
                failure = exc
                continue
            return _DeadlineStream(stream, str(ip))
        assert failure is not None  # addresses is never empty
        raise failure

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("unix sockets are not used for outbound requests")

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


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
        self._dns = ThreadPoolExecutor(max_workers=4, thread_name_prefix="herald-dns")
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
        self._dns.shutdown(wait=False, cancel_futures=True)

    def resolve_checked(self, target: HttpsTarget, deadline: float) -> tuple[IPAddress, ...]:
        """Resolve once (within the deadline) and check every address."""
        if target.literal is not None:
            return self.policy.check_addresses(target.host, [target.literal])
        future = self._dns.submit(self._resolver, target.host)
        try:
            addresses = future.result(timeout=max(deadline - time.monotonic(), 0.0))
        except FutureTimeout:
            future.cancel()
            raise TimedOut(f"resolving {target.host} took longer than the deadline") from None
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
        target = parse_https_url(url) if isinstance(url, str) else url
        addresses = self.resolve_checked(target, deadline)
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
                    network_backend=_PinnedBackend(addresses),
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
