"""The fetcher's bounds against servers that misbehave on purpose, on loopback: one deadline
for the whole exchange (headers included), and memory near the size limit whatever the
compression."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator

import pytest

from herald.core.clock import SystemClock
from herald.ingest.fetch import FEED_TYPES, FetchError, FetchPolicy, HttpFetcher

from .conftest import LoopbackServer, fixture_bytes

FEED = fixture_bytes("rss20_liftoff.xml")
RSS = "application/rss+xml; charset=utf-8"


@pytest.fixture
def dripping_server() -> Iterator[int]:
    """A server that sends its status line, then a header line every 50 ms for a minute."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    stop = threading.Event()

    def serve() -> None:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            conn.recv(65536)
            try:
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n")
                for i in range(1200):
                    if stop.wait(0.05):
                        return
                    conn.sendall(b"X-Drip: %d\r\n" % i)
            except OSError:
                return  # the client gave up: what the test expects

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    listener.close()
    thread.join(timeout=5)


@pytest.mark.parametrize("pinned", [False, True], ids=["direct", "pinned"])
def test_headers_dripped_byte_by_byte_stop_at_the_deadline(
    dripping_server: int, pinned: bool
) -> None:
    # Every read gets a line within the read timeout: only the overall deadline can end this.
    policy = FetchPolicy(
        timeout_seconds=0.5,
        connect_timeout_seconds=0.5,
        deadline_seconds=1.0,
        host_interval_seconds=0,
        block_private_addresses=pinned,
        allow_networks=(ipaddress.ip_network("127.0.0.0/8"),) if pinned else (),
    )
    started = time.monotonic()
    with (
        HttpFetcher(clock=SystemClock(), policy=policy) as fetcher,
        pytest.raises(FetchError) as info,
    ):
        fetcher.fetch(f"http://127.0.0.1:{dripping_server}/feed", accept=FEED_TYPES)
    assert info.value.kind == "timeout"
    assert time.monotonic() - started < 3.0


def _compressed(data: bytes, wbits: int) -> bytes:
    packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
    return packer.compress(data) + packer.flush()


def test_a_gzip_bomb_is_never_inflated_far_past_the_limit(server: LoopbackServer) -> None:
    # 128 MiB of zeros travel as about 128 KB; httpx inflated each 64 KiB chunk whole (64 MiB).
    bomb = _compressed(bytes(128 * 1024 * 1024), zlib.MAX_WBITS | 16)
    server.serve(
        "http://feeds.test/bomb", bomb, content_type=RSS, headers={"Content-Encoding": "gzip"}
    )
    limit = 1024 * 1024
    policy = FetchPolicy(max_bytes=limit, host_interval_seconds=0)
    with HttpFetcher(clock=SystemClock(), policy=policy) as fetcher:
        tracemalloc.start()
        try:
            with pytest.raises(FetchError) as info:
                fetcher.fetch(server.url("feeds.test/bomb"), accept=FEED_TYPES)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert info.value.kind == "too_large"
    assert peak < 8 * limit, f"{peak / 1e6:.1f} MB held for a {limit / 1e6:.1f} MB limit"


@pytest.mark.parametrize(
    ("encoding", "wbits"),
    [("gzip", zlib.MAX_WBITS | 16), ("deflate", zlib.MAX_WBITS), ("deflate", -zlib.MAX_WBITS)],
    ids=["gzip", "deflate", "raw-deflate"],
)
def test_compressed_feeds_are_read_whole(
    server: LoopbackServer, http_fetcher: HttpFetcher, encoding: str, wbits: int
) -> None:
    server.serve(
        "http://feeds.test/packed",
        _compressed(FEED * 40, wbits),
        content_type=RSS,
        headers={"Content-Encoding": encoding},
    )
    result = http_fetcher.fetch(server.url("feeds.test/packed"), accept=FEED_TYPES)
    assert result.content == FEED * 40
    assert server.hits[-1].headers["accept-encoding"] == "gzip, deflate"


@pytest.mark.parametrize(
    ("encoding", "body"),
    [("gzip", b"\x1f\x8b\x08\x00 this is no gzip stream"), ("br", b"\x0b\x02\x80hello\x03")],
)
def test_a_corrupt_or_unasked_encoding_is_a_clear_error(
    server: LoopbackServer, http_fetcher: HttpFetcher, encoding: str, body: bytes
) -> None:
    server.serve(
        "http://feeds.test/odd", body, content_type=RSS, headers={"Content-Encoding": encoding}
    )
    with pytest.raises(FetchError) as info:
        http_fetcher.fetch(server.url("feeds.test/odd"), accept=FEED_TYPES)
    assert info.value.kind == "network"
    assert "feeds.test/odd" in info.value.message
