"""The delivery client's HTTP/1.1 exchange against a raw TLS server sending exact bytes:
response framing, when a kept-alive connection is reused, and what is refused."""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import trustme

from herald.core.net import ConnectFailed, ProtocolFailed, SafeHttpsClient
from tests.webhooks.webhook_receiver import RECEIVER_HOST

MakeClient = Callable[..., SafeHttpsClient]


@dataclass
class RawServer:
    """Answers each request with the next scripted bytes; ``(bytes, True)`` closes the
    connection after sending them, ``None`` closes it without an answer."""

    context: ssl.SSLContext
    replies: deque[bytes | tuple[bytes, bool] | None] = field(default_factory=deque)
    heads: list[bytes] = field(default_factory=list)
    connections: int = 0

    def __post_init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"https://{RECEIVER_HOST}:{self.port}/hook"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            threading.Thread(target=self._serve, args=(raw,), daemon=True).start()

    def _serve(self, raw: socket.socket) -> None:
        with contextlib.suppress(OSError), self.context.wrap_socket(raw, server_side=True) as tls:
            buffer = b""
            while True:
                while b"\r\n\r\n" not in buffer:
                    chunk = tls.recv(65536)
                    if not chunk:
                        return
                    buffer += chunk
                head, _, buffer = buffer.partition(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                while len(buffer) < length:
                    buffer += tls.recv(65536)
                buffer = buffer[length:]
                self.heads.append(head)
                reply = self.replies.popleft() if self.replies else None
                if reply is None:
                    return
                data, close = reply if isinstance(reply, tuple) else (reply, False)
                tls.sendall(data)
                if close:
                    return

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw_server(ca: trustme.CA) -> Iterator[RawServer]:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(RECEIVER_HOST).configure_cert(context)
    server = RawServer(context)
    yield server
    server.close()


def _post(client: SafeHttpsClient, server: RawServer) -> tuple[int, bytes, bool]:
    response = client.post(server.url, content=b"{}", headers={"Content-Type": "application/json"})
    return response.status, response.body, response.truncated


def test_content_length_and_chunked_bodies_are_read_and_the_connection_reused(
    raw_server: RawServer, make_client: MakeClient
) -> None:
    raw_server.replies.extend(
        [
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n"
            b"\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nTrailer: x\r\n\r\n",
            b"HTTP/1.1 204 No Content\r\n\r\n",
        ]
    )
    client = make_client()
    assert _post(client, raw_server) == (200, b"hello", False)
    assert _post(client, raw_server) == (201, b"abcde", False)
    assert _post(client, raw_server) == (204, b"", False)
    assert raw_server.connections == 1
    head = raw_server.heads[0].decode()
    assert head.startswith("POST /hook HTTP/1.1\r\n")
    assert f"Host: {RECEIVER_HOST}:{raw_server.port}" in head
    assert "Content-Length: 2" in head


@pytest.mark.parametrize(
    "reply",
    [
        b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok",
        b"HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
        (b"HTTP/1.1 200 OK\r\n\r\nok", True),  # no framing: the body ends with the connection
    ],
)
def test_a_connection_the_response_does_not_keep_open_is_not_reused(
    raw_server: RawServer, make_client: MakeClient, reply: bytes | tuple[bytes, bool]
) -> None:
    raw_server.replies.extend([reply, b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"])
    client = make_client(timeout=2.0)
    assert _post(client, raw_server)[:2] == (200, b"ok")
    assert _post(client, raw_server)[0] == 200
    assert raw_server.connections == 2


def test_a_connection_the_server_closed_while_idle_is_not_reused(
    raw_server: RawServer, make_client: MakeClient
) -> None:
    raw_server.replies.extend(
        [
            (b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", True),  # then closes it
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        ]
    )
    client = make_client()
    assert _post(client, raw_server)[0] == 200
    time.sleep(0.2)  # the server's close reaches the idle connection
    assert _post(client, raw_server) == (200, b"ok", False)
    assert raw_server.connections == 2


def test_a_connection_closed_without_an_answer_fails_cleanly(
    raw_server: RawServer, make_client: MakeClient
) -> None:
    raw_server.replies.append(None)
    with pytest.raises(ConnectFailed, match="closed before a complete response head"):
        _post(make_client(), raw_server)


def test_a_large_body_is_cut_and_its_connection_dropped(
    raw_server: RawServer, make_client: MakeClient
) -> None:
    raw_server.replies.extend(
        [
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n"
            + b"x" * 16
            + b"\r\n0\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
        ]
    )
    client = make_client(max_response_bytes=8)
    assert _post(client, raw_server) == (200, b"x" * 8, True)
    assert _post(client, raw_server) == (200, b"ok", False)
    assert raw_server.connections == 2


@pytest.mark.parametrize(
    ("reply", "match"),
    [
        (b"SMTP ready\r\n\r\n", "status line"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "status line"),
        (b"HTTP/1.1 200 OK\r\nbad header\r\n\r\n", "malformed header"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nok", "Content-Length"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "chunk size"),
        (b"HTTP/1.1 101 Switching\r\n\r\n", "switched protocols"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"a" * 70_000 + b"\r\n\r\n", "larger than"),
    ],
)
def test_malformed_responses_are_protocol_failures(
    raw_server: RawServer, make_client: MakeClient, reply: bytes, match: str
) -> None:
    raw_server.replies.append(reply)
    with pytest.raises(ProtocolFailed, match=match):
        _post(make_client(timeout=2.0), raw_server)


@pytest.mark.parametrize(
    "headers",
    [{"X-Evil": "a\r\nHost: elsewhere"}, {"Bad Name": "x"}, {"X-Nul": "a\x00b"}],
)
def test_header_injection_is_refused_before_connecting(
    raw_server: RawServer, make_client: MakeClient, headers: dict[str, str]
) -> None:
    with pytest.raises(ProtocolFailed, match="invalid request header"):
        make_client().post(raw_server.url, content=b"{}", headers=headers)
    assert raw_server.connections == 0
