"""The feed fetcher against a real HTTP server on loopback."""

from __future__ import annotations

from datetime import timedelta

import pytest

from herald.core.clock import FrozenClock, SystemClock
from herald.ingest.fetch import FEED_TYPES, FetchError, FetchPolicy, HttpFetcher

from .conftest import LoopbackServer, fixture_bytes

FEED = fixture_bytes("rss20_liftoff.xml")
RSS = "application/rss+xml; charset=utf-8"


def test_conditional_get_with_etag_gives_304(
    server: LoopbackServer, http_fetcher: HttpFetcher
) -> None:
    server.serve(
        "http://feeds.test/rss",
        FEED,
        content_type=RSS,
        etag='"v1"',
        last_modified="Tue, 10 Jun 2003 09:41:01 GMT",
    )
    first = http_fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES)
    assert first.status == 200
    assert first.content == FEED
    assert first.content_type == "application/rss+xml"
    assert (first.etag, first.last_modified) == ('"v1"', "Tue, 10 Jun 2003 09:41:01 GMT")

    again = http_fetcher.fetch(
        server.url("feeds.test/rss"),
        accept=FEED_TYPES,
        etag=first.etag,
        last_modified=first.last_modified,
    )
    assert again.not_modified
    assert again.content == b""
    sent = server.hits[-1].headers
    assert sent["if-none-match"] == '"v1"'
    assert sent["if-modified-since"] == "Tue, 10 Jun 2003 09:41:01 GMT"
    assert sent["user-agent"].startswith("Herald/")


def test_last_modified_alone_also_gives_304(
    server: LoopbackServer, http_fetcher: HttpFetcher
) -> None:
    server.serve(
        "http://feeds.test/rss",
        FEED,
        content_type=RSS,
        last_modified="Tue, 10 Jun 2003 09:41:01 GMT",
    )
    result = http_fetcher.fetch(
        server.url("feeds.test/rss"),
        accept=FEED_TYPES,
        last_modified="Tue, 10 Jun 2003 09:41:01 GMT",
    )
    assert result.not_modified


def test_a_changed_feed_is_fetched_again(server: LoopbackServer, http_fetcher: HttpFetcher) -> None:
    server.serve("http://feeds.test/rss", FEED, content_type=RSS, etag='"v2"')
    result = http_fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES, etag='"v1"')
    assert result.status == 200
    assert result.etag == '"v2"'


def test_declared_oversized_body_is_refused(server: LoopbackServer) -> None:
    server.serve("http://feeds.test/big", FEED * 50, content_type=RSS)
    with (
        HttpFetcher(clock=SystemClock(), policy=FetchPolicy(max_bytes=10_000)) as fetcher,
        pytest.raises(FetchError) as info,
    ):
        fetcher.fetch(server.url("feeds.test/big"), accept=FEED_TYPES)
    assert info.value.kind == "too_large"


def test_a_compressed_body_is_bounded_by_its_decoded_size(server: LoopbackServer) -> None:
    # 1.5 MB of XML that travels as a few kilobytes of gzip: the limit applies to what we read.
    server.serve("http://feeds.test/bomb", FEED * 600, content_type=RSS, gzip=True)
    with (
        HttpFetcher(clock=SystemClock(), policy=FetchPolicy(max_bytes=100_000)) as fetcher,
        pytest.raises(FetchError, match="exceeds 100000 bytes") as info,
    ):
        fetcher.fetch(server.url("feeds.test/bomb"), accept=FEED_TYPES)
    assert info.value.kind == "too_large"
    assert len(server.routes["feeds.test/bomb"].body) > 100_000


def test_wrong_content_type_is_refused(server: LoopbackServer, http_fetcher: HttpFetcher) -> None:
    server.serve(
        "http://feeds.test/page",
        "<html><body>Not a feed</body></html>",
        content_type="text/html; charset=utf-8",
    )
    with pytest.raises(FetchError, match="unexpected content type text/html") as info:
        http_fetcher.fetch(server.url("feeds.test/page"), accept=FEED_TYPES)
    assert info.value.kind == "content_type"


@pytest.mark.parametrize("status", [404, 500, 503])
def test_http_errors_carry_the_status(
    server: LoopbackServer, http_fetcher: HttpFetcher, status: int
) -> None:
    server.serve("http://feeds.test/broken", "oops", content_type="text/plain", status=status)
    with pytest.raises(FetchError) as info:
        http_fetcher.fetch(server.url("feeds.test/broken"), accept=FEED_TYPES)
    assert (info.value.kind, info.value.http_status) == ("http_status", status)
    assert f"HTTP {status}" in info.value.message


def test_slow_server_times_out(server: LoopbackServer) -> None:
    server.serve("http://feeds.test/slow", FEED, content_type=RSS, delay_seconds=1.0)
    policy = FetchPolicy(timeout_seconds=0.2, connect_timeout_seconds=0.2)
    with (
        HttpFetcher(clock=SystemClock(), policy=policy) as fetcher,
        pytest.raises(FetchError) as info,
    ):
        fetcher.fetch(server.url("feeds.test/slow"), accept=FEED_TYPES)
    assert info.value.kind == "timeout"


def test_redirects_are_followed_and_loops_stopped(
    server: LoopbackServer, http_fetcher: HttpFetcher
) -> None:
    server.serve("http://feeds.test/new", FEED, content_type=RSS)
    server.serve(
        "http://feeds.test/old",
        b"",
        status=301,
        content_type=None,
        headers={"Location": server.url("feeds.test/new")},
    )
    result = http_fetcher.fetch(server.url("feeds.test/old"), accept=FEED_TYPES)
    assert result.url == server.url("feeds.test/new")
    assert result.content == FEED

    server.serve(
        "http://feeds.test/loop",
        b"",
        status=302,
        content_type=None,
        headers={"Location": server.url("feeds.test/loop")},
    )
    with pytest.raises(FetchError) as info:
        http_fetcher.fetch(server.url("feeds.test/loop"), accept=FEED_TYPES)
    assert info.value.kind == "redirects"


def test_unreachable_host_is_a_network_error() -> None:
    with (
        HttpFetcher(clock=SystemClock(), policy=FetchPolicy(connect_timeout_seconds=1)) as fetcher,
        pytest.raises(FetchError) as info,
    ):
        fetcher.fetch("http://127.0.0.1:9/feed", accept=FEED_TYPES)  # discard port: refused
    assert info.value.kind == "network"


def test_requests_to_one_host_are_spaced_by_the_politeness_interval(server: LoopbackServer) -> None:
    server.serve("http://feeds.test/rss", FEED, content_type=RSS)
    clock = FrozenClock(SystemClock().now())
    start = clock.now()
    with HttpFetcher(clock=clock, policy=FetchPolicy(host_interval_seconds=5)) as fetcher:
        fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES)
        assert clock.now() == start  # the first request to a host does not wait
        fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES)
        assert clock.now() == start + timedelta(seconds=5)
        # Another host has its own slot.
        fetcher.fetch(f"http://localhost:{server.port}/feeds.test/rss", accept=FEED_TYPES)
        assert clock.now() == start + timedelta(seconds=5)
        fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES)
        assert clock.now() == start + timedelta(seconds=10)
    assert len(server.hits) == 4


def test_private_addresses_are_refused_unless_allowed(server: LoopbackServer) -> None:
    import ipaddress

    server.serve("http://feeds.test/rss", FEED, content_type=RSS)
    guarded = FetchPolicy(host_interval_seconds=0, block_private_addresses=True)
    with HttpFetcher(clock=SystemClock(), policy=guarded) as fetcher:
        with pytest.raises(FetchError, match="loopback") as info:
            fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES)
        assert info.value.kind == "forbidden_address"
        assert server.hits == []  # refused before connecting
        # The refusal names the setting that admits it, with the network to list.
        assert info.value.message.startswith("the address 127.0.0.1 (loopback); ")
        assert "HERALD_FETCH_ALLOW_NETWORKS=127.0.0.1/32" in info.value.message
    # A public name that resolves inside the network is refused the same way; link-local
    # (cloud metadata) space no setting admits, and the refusal does not suggest one.
    with (
        HttpFetcher(
            clock=SystemClock(),
            policy=guarded,
            resolver=lambda host: [ipaddress.ip_address("169.254.169.254")],
        ) as fetcher,
        pytest.raises(FetchError, match=r"169\.254\.169\.254") as metadata,
    ):
        fetcher.fetch("http://metadata.example/latest", accept=FEED_TYPES)
    assert "HERALD_FETCH_ALLOW_NETWORKS" not in metadata.value.message
    allowed = FetchPolicy(
        host_interval_seconds=0,
        block_private_addresses=True,
        allow_networks=(ipaddress.ip_network("127.0.0.0/8"),),
    )
    with HttpFetcher(clock=SystemClock(), policy=allowed) as fetcher:
        assert fetcher.fetch(server.url("feeds.test/rss"), accept=FEED_TYPES).content == FEED


def test_a_redirect_into_the_network_is_refused(server: LoopbackServer) -> None:
    import ipaddress

    # The first hop is allowed (loopback is allow-listed), the redirect target is not.
    server.serve(
        "http://feeds.test/hop",
        b"",
        status=302,
        content_type=None,
        headers={"Location": "http://10.1.2.3/internal"},
    )
    policy = FetchPolicy(
        host_interval_seconds=0,
        block_private_addresses=True,
        allow_networks=(ipaddress.ip_network("127.0.0.0/8"),),
    )
    with (
        HttpFetcher(clock=SystemClock(), policy=policy) as fetcher,
        pytest.raises(FetchError) as info,
    ):
        fetcher.fetch(server.url("feeds.test/hop"), accept=FEED_TYPES)
    assert info.value.kind == "forbidden_address"
    assert "10.1.2.3" in info.value.message


class _Rebinding:
    """A name that answers a public address first and 127.0.0.1 on every later lookup."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, host: str) -> list[object]:
        import ipaddress

        self.calls += 1
        first = self.calls == 1
        return [ipaddress.ip_address("93.184.215.14" if first else "127.0.0.1")]


def test_a_rebinding_name_never_reaches_the_address_the_check_refused(
    server: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpcore

    # The outside internet, faked: connections to anything but loopback are recorded and fail.
    connected: list[str] = []
    real_connect = httpcore.SyncBackend.connect_tcp

    def outside_unreachable(
        self: httpcore.SyncBackend, host: str, port: int, *args: object, **kwargs: object
    ) -> httpcore.NetworkStream:
        connected.append(host)
        if host != "127.0.0.1":
            raise httpcore.ConnectError("the outside internet is not reachable from tests")
        return real_connect(self, host, port, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(httpcore.SyncBackend, "connect_tcp", outside_unreachable)
    guarded = FetchPolicy(host_interval_seconds=0, block_private_addresses=True)
    rebinding = _Rebinding()
    url = f"http://rebind.example:{server.port}/rss"
    with HttpFetcher(clock=SystemClock(), policy=guarded, resolver=rebinding) as fetcher:
        # The check and the connection share one lookup: it connects to the checked public
        # address, never to a fresh resolution of the name ...
        with pytest.raises(FetchError) as first:
            fetcher.fetch(url, accept=FEED_TYPES)
        assert first.value.kind == "network"
        assert connected == ["93.184.215.14"]
        # ... and once the name rebinds to loopback, that answer is refused, not connected to.
        with pytest.raises(FetchError) as second:
            fetcher.fetch(url, accept=FEED_TYPES)
        assert second.value.kind == "forbidden_address"
    assert connected == ["93.184.215.14"]
    assert rebinding.calls == 2
    assert server.hits == []


def test_an_allowed_name_is_fetched_from_the_checked_address(server: LoopbackServer) -> None:
    import ipaddress

    server.serve("http://feeds.pinned.test/rss", FEED, content_type=RSS)
    allowed = FetchPolicy(
        host_interval_seconds=0,
        block_private_addresses=True,
        allow_networks=(ipaddress.ip_network("127.0.0.0/8"),),
    )
    answers = iter([["127.0.0.1"], ["10.9.8.7"]])
    lookups: list[str] = []

    def resolver(host: str) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        lookups.append(host)
        return [ipaddress.ip_address(a) for a in next(answers)]

    url = f"http://feeds.pinned.test:{server.port}/feeds.pinned.test/rss"
    with HttpFetcher(clock=SystemClock(), policy=allowed, resolver=resolver) as fetcher:
        # .test names never resolve in the OS: reaching the server proves the checked address
        # was used for the connection.
        assert fetcher.fetch(url, accept=FEED_TYPES).content == FEED
        fetcher.close()  # no pooled connection: the next fetch looks the name up again
    with HttpFetcher(clock=SystemClock(), policy=allowed, resolver=resolver) as fetcher:
        with pytest.raises(FetchError) as info:
            fetcher.fetch(url, accept=FEED_TYPES)
        assert info.value.kind == "forbidden_address"
    assert lookups == ["feeds.pinned.test", "feeds.pinned.test"]
    assert len(server.hits) == 1
