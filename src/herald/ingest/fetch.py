"""Fetching feeds, article pages and transcripts over HTTP, politely and within bounds.

- conditional GET: the caller passes the ETag / Last-Modified it stored; a 304 comes back as a
  result with ``not_modified`` and no body;
- a bounded body: a declared ``Content-Length`` over the limit is refused before reading, and the
  download stops as soon as the (decoded) body passes the limit, so a gzip bomb stops too, and
  is inflated no further than the limit (:mod:`herald.ingest.bounded_body`);
- timeouts for connect/read plus an overall deadline for servers that drip bytes (headers,
  redirect hops and body alike: :mod:`herald.ingest.deadline`);
- a per-host politeness delay (one request per host per interval, across threads);
- a content-type check against what the caller can parse.

Failures raise :class:`FetchError` with a ``kind`` the source record can show as its last error.
The transport is injectable (``httpx.BaseTransport``); tests use a real loopback server.

With ``block_private_addresses`` (what ingestion runs with) every connection, redirect hops
included, goes through :class:`herald.core.net.pinned.PinnedBackend`, as webhook deliveries do:
the host is resolved once, every address is checked by the same rules (and operator
allow-list) as webhook targets, and the connection goes to exactly the checked addresses. The
socket layer never resolves the name again, so a name that answers with a
public address to the check and with an internal one afterwards (DNS rebinding) cannot reach the
inside of the network.
"""

from __future__ import annotations

import ipaddress
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import ClassVar, Protocol
from urllib.parse import urlsplit

import httpcore
import httpx

from herald import __version__
from herald.core.clock import Clock
from herald.core.net import (
    IPAddress,
    IPNetwork,
    allow_list_admits,
    canonical_address,
    forbidden_reason,
    system_resolver,
)
from herald.core.net.failures import RequestFailed
from herald.core.net.pinned import BoundedResolution, PinnedBackend
from herald.errors import HeraldError
from herald.ingest.bounded_body import ACCEPT_ENCODING, BodyTooLarge, UnreadableBody, read_bounded
from herald.ingest.deadline import DeadlineBackend, fetch_deadline
from herald.ingest.http_headers import charset_of, media_type_of, retry_after

__all__ = [
    "FEED_TYPES",
    "GENERIC_TYPES",
    "HTML_TYPES",
    "JSON_TYPES",
    "TRANSCRIPT_TYPES",
    "FetchError",
    "FetchPolicy",
    "FetchResult",
    "Fetcher",
    "HttpFetcher",
]

FEED_TYPES: tuple[str, ...] = (
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/xml",
    "text/xml",
    "application/x-rss+xml",
    "application/x-atom+xml",
)
HTML_TYPES: tuple[str, ...] = ("text/html", "application/xhtml+xml")
JSON_TYPES: tuple[str, ...] = ("application/json", "application/ld+json", "text/json")
TRANSCRIPT_TYPES: tuple[str, ...] = (
    "text/vtt",
    "application/x-subrip",
    "application/srt",
    "text/srt",
    "application/x-srt",
    "text/plain",
    *JSON_TYPES,
    *HTML_TYPES,
)
# What servers send when they do not know a file's type (VTT and SRT files often get these).
# Accepted for a transcript only when the feed declared its type; the size limit still applies.
GENERIC_TYPES: tuple[str, ...] = (
    "application/octet-stream",
    "binary/octet-stream",
    "application/binary",
    "application/download",
    "application/force-download",
    "application/x-download",
    "application/unknown",
)


class FetchError(HeraldError):
    """A fetch that produced no usable document. ``kind`` is one of ``timeout``, ``network``,
    ``http_status``, ``too_large``, ``content_type``, ``redirects``, ``forbidden_address``.
    ``retry_after`` is the wait in seconds a 429 or 503 asked for (its ``Retry-After``)."""

    status: ClassVar[int] = 502
    code: ClassVar[str] = "fetch_failed"

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        http_status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.http_status = http_status
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class FetchPolicy:
    timeout_seconds: float = 20.0
    connect_timeout_seconds: float = 10.0
    deadline_seconds: float = 60.0
    max_bytes: int = 10 * 1024 * 1024
    host_interval_seconds: float = 1.0
    max_redirects: int = 5
    user_agent: str = f"Herald/{__version__} (self-hosted content intelligence; feed reader)"
    # Feeds name the pages and transcripts Herald fetches, so a hostile feed could point at the
    # inside of the network (SSRF): when set, every request and redirect hop must resolve to
    # public addresses only, or to ``allow_networks``.
    block_private_addresses: bool = False
    allow_networks: tuple[IPNetwork, ...] = ()


@dataclass(frozen=True, slots=True)
class FetchResult:
    url: str  # the final URL, after redirects
    status: int
    content: bytes
    content_type: str | None
    etag: str | None
    last_modified: str | None
    charset: str | None = None  # the Content-Type header's charset parameter, as sent
    # Where the resource moved for good: the final URL when there were redirects and every hop
    # was permanent (301 or 308); None without redirects or when a hop was temporary.
    moved_to: str | None = None

    @property
    def not_modified(self) -> bool:
        return self.status == 304


class Fetcher(Protocol):
    """What adapters need to read the web: the real :class:`HttpFetcher`, or a test double
    that sends every host to a loopback server."""

    def fetch(
        self,
        url: str,
        *,
        accept: Iterable[str],
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchResult: ...


class HttpFetcher:
    def __init__(
        self,
        *,
        clock: Clock,
        policy: FetchPolicy | None = None,
        transport: httpx.BaseTransport | None = None,
        verify: bool | str = True,
        resolver: Callable[[str], Sequence[IPAddress]] = system_resolver,
    ) -> None:
        self._clock = clock
        self.policy = policy or FetchPolicy()
        self._resolve = resolver
        self._dns = BoundedResolution(threads=8, per_partition=8)
        # A transport of our own is pinned; one passed in (tests) gets the same check as an
        # event hook on every request and redirect hop.
        hooked = transport is not None and self.policy.block_private_addresses
        if transport is None:
            transport = self._own_transport(verify)
        self._client = httpx.Client(
            transport=transport,
            verify=verify,
            follow_redirects=True,
            max_redirects=self.policy.max_redirects,
            timeout=httpx.Timeout(
                self.policy.timeout_seconds, connect=self.policy.connect_timeout_seconds
            ),
            headers={"user-agent": self.policy.user_agent, "accept-encoding": ACCEPT_ENCODING},
            event_hooks={"request": [self._check_target]} if hooked else {},
        )
        self._host_lock = threading.Lock()
        self._next_slot: dict[str, float] = {}

    def __enter__(self) -> HttpFetcher:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()
        self._dns.close()

    def _own_transport(self, verify: bool | str) -> httpx.HTTPTransport:
        """A transport whose sockets keep the fetch's deadline and, when private addresses are
        blocked, connect only to checked addresses."""
        transport = httpx.HTTPTransport(verify=verify)
        pool = transport._pool  # httpx takes no network backend; its pool does (httpx 0.28)
        if not hasattr(pool, "_network_backend"):
            raise RuntimeError("this httpx version takes no network backend")
        inner: httpcore.NetworkBackend = (
            PinnedBackend(self._checked_addresses)
            if self.policy.block_private_addresses
            else httpcore.SyncBackend()
        )
        pool._network_backend = DeadlineBackend(inner)
        return transport

    def _checked_addresses(self, host: str) -> list[IPAddress]:
        """Resolve ``host`` once (with a deadline) and check every address; what connects."""
        try:
            addresses = [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            deadline = self._dns.deadline_in(self.policy.connect_timeout_seconds)
            try:
                addresses = list(
                    self._dns.resolve(self._resolve, host, partition="", deadline=deadline)
                )
            except RequestFailed as exc:
                raise FetchError("timeout", str(exc)) from None
            except (OSError, UnicodeError) as exc:
                raise FetchError("network", f"cannot resolve {host}: {exc}") from None
        if not addresses:
            raise FetchError("network", f"{host} resolves to no address")
        for address in addresses:
            reason = forbidden_reason(address, self.policy.allow_networks)
            if reason is not None:
                raise FetchError("forbidden_address", _forbidden_message(host, address, reason))
        return addresses

    def fetch(
        self,
        url: str,
        *,
        accept: Iterable[str],
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchResult:
        accepted = tuple(accept)
        headers = {"accept": ", ".join([*accepted, "*/*;q=0.1"])}
        if etag:
            headers["if-none-match"] = etag
        if last_modified:
            headers["if-modified-since"] = last_modified
        self._wait_turn(url)
        try:
            with fetch_deadline(self.policy.deadline_seconds):
                return self._get(url, headers, accepted)
        except httpx.TooManyRedirects:
            raise FetchError(
                "redirects", f"more than {self.policy.max_redirects} redirects"
            ) from None
        except httpx.TimeoutException:
            raise FetchError("timeout", f"timed out fetching {url}") from None
        except httpx.InvalidURL as exc:
            raise FetchError("network", f"invalid URL {url!r}: {exc}") from None
        except httpx.HTTPError as exc:
            raise FetchError(
                "network", f"could not fetch {url}: {exc.__class__.__name__}: {exc}"
            ) from None

    def _get(self, url: str, headers: dict[str, str], accepted: tuple[str, ...]) -> FetchResult:
        limit = self.policy.max_bytes
        started = self._clock.monotonic()
        with self._client.stream("GET", url, headers=headers) as response:
            final_url = str(response.url)
            etag = response.headers.get("etag")
            modified = response.headers.get("last-modified")
            moved_to = final_url if _moved_for_good(response.history) else None
            if response.status_code == 304:
                return FetchResult(final_url, 304, b"", None, etag, modified, moved_to=moved_to)
            if response.status_code >= 400 or response.status_code < 200:
                wait = None
                if response.status_code in (429, 503):
                    wait = retry_after(response.headers.get("retry-after"), self._clock.now())
                raise FetchError(
                    "http_status",
                    f"HTTP {response.status_code} from {final_url}"
                    + ("" if wait is None else f" (retry after {wait:.0f} s)"),
                    http_status=response.status_code,
                    retry_after=wait,
                )
            content_type = media_type_of(response.headers.get("content-type"))
            if content_type and accepted and content_type not in accepted:
                raise FetchError(
                    "content_type",
                    f"unexpected content type {content_type} from {final_url} "
                    f"(expected one of {', '.join(accepted)})",
                )
            declared = response.headers.get("content-length")
            if declared and declared.isdigit() and int(declared) > limit:
                raise FetchError("too_large", f"body of {declared} bytes exceeds {limit} bytes")

            def in_time() -> None:
                if self._clock.monotonic() - started > self.policy.deadline_seconds:
                    raise FetchError("timeout", f"download of {final_url} took too long")

            encoding = response.headers.get("content-encoding")
            try:
                body = read_bounded(response.iter_raw(), encoding, limit, in_time)
            except BodyTooLarge:
                raise FetchError("too_large", f"body exceeds {limit} bytes ({final_url})") from None
            except UnreadableBody as exc:
                raise FetchError("network", f"could not read {final_url}: {exc}") from None
            return FetchResult(
                final_url,
                response.status_code,
                body,
                content_type,
                etag,
                modified,
                charset_of(response.headers.get("content-type")),
                moved_to,
            )

    def _check_target(self, request: httpx.Request) -> None:
        """Refuse a request (or redirect hop) whose host resolves outside the allowed space."""
        self._checked_addresses(request.url.host)

    def _wait_turn(self, url: str) -> None:
        """Reserve this host's next slot, then sleep until it (outside the lock)."""
        host = (urlsplit(url).hostname or "").lower()
        interval = self.policy.host_interval_seconds
        with self._host_lock:
            now = self._clock.monotonic()
            slot = max(now, self._next_slot.get(host, now))
            self._next_slot[host] = slot + interval
        if slot > now:
            self._clock.sleep(slot - now)


# Permanent redirects: the resource has a new URL that later requests should use.
_PERMANENT_REDIRECTS = frozenset({301, 308})


def _moved_for_good(history: Sequence[httpx.Response]) -> bool:
    """Whether the redirects that led to a response were all permanent (and there were some)."""
    return bool(history) and all(hop.status_code in _PERMANENT_REDIRECTS for hop in history)


def _forbidden_message(host: str, address: IPAddress, reason: str) -> str:
    """Why a fetch was refused, and the setting that admits the address when one can."""
    literal = host.strip("[]").lower() in (str(address), str(canonical_address(address)))
    where = f"the address {address}" if literal else f"{host} resolves to {address}"
    message = f"{where} ({reason})"
    if allow_list_admits(address):
        network = ipaddress.ip_network(canonical_address(address))
        message += (
            "; feeds, pages and transcripts on loopback or private addresses are fetched only"
            " when the server runs with HERALD_FETCH_ALLOW_NETWORKS listing their network,"
            f" e.g. HERALD_FETCH_ALLOW_NETWORKS={network}"
        )
    return message
