"""The fetcher's bounds against servers that misbehave on purpose (raw sockets on loopback):
one deadline for the whole exchange, headers included."""

from __future__ import annotations

import ipaddress
import socket
import threading
import time
from collections.abc import Iterator

import pytest

from herald.core.clock import SystemClock
from herald.ingest.fetch import FEED_TYPES, FetchError, FetchPolicy, HttpFetcher


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
