"""A real HTTPS server on loopback that records what webhook deliveries look like on arrival.

Certificates come from a test CA (trustme); the server answers with scripted :class:`Reply`
objects (status, body, delay, slow drip) so tests can play every kind of target.
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import ssl
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import trustme

RECEIVER_HOST = "receiver.herald.test"  # .test never resolves: only the pinned address can work


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b"ok"
    headers: Sequence[tuple[str, str]] = ()
    delay: float = 0.0  # seconds before answering
    drip_interval: float | None = None  # send the body one byte at a time, this far apart
    gate: threading.Event | None = None  # hold the answer until the test opens the gate


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]  # lower-cased names
    body: bytes


@dataclass
class _State:
    replies: deque[Reply] = field(default_factory=deque)
    default: Reply = field(default_factory=Reply)
    responder: Callable[[Received], Reply] | None = None
    requests: list[Received] = field(default_factory=list)
    sni_names: list[str | None] = field(default_factory=list)
    connections: list[socket.socket] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.RLock = field(default_factory=threading.RLock)  # responders may read state


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real receivers do
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        state = self.server.state
        length = int(self.headers.get("content-length", "0"))
        received = Received(
            "POST",
            self.path,
            {k.lower(): v for k, v in self.headers.items()},
            self.rfile.read(length),
        )
        with state.lock:
            state.requests.append(received)
            if state.responder is not None:
                reply = state.responder(received)
            else:
                reply = state.replies.popleft() if state.replies else state.default
        if reply.delay and state.stop.wait(reply.delay):
            return
        if reply.gate is not None:
            while not reply.gate.wait(0.05):
                if state.stop.is_set():
                    return
        self.send_response(reply.status)
        for name, value in reply.headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if reply.drip_interval is None:
            self.wfile.write(reply.body)
            return
        for i in range(len(reply.body)):
            if state.stop.wait(reply.drip_interval):
                return
            self.wfile.write(reply.body[i : i + 1])
            self.wfile.flush()


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], context: ssl.SSLContext, state: _State) -> None:
        self.context = context
        self.state = state
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.address_family = family
        super().__init__(address, _Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind does a reverse DNS lookup of the address; not needed here.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = "localhost", self.server_address[1]

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, addr = self.socket.accept()
        sock.settimeout(30)
        # The handshake runs in the handler thread, so a client that rejects our certificate
        # cannot stall the accept loop.
        tls = self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False)
        with self.state.lock:
            self.state.connections.append(tls)
        return tls, addr

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # TLS failures and reset connections are what some tests provoke


class HttpsReceiver:
    def __init__(
        self,
        ca: trustme.CA,
        *,
        names: Sequence[str] = (RECEIVER_HOST, "127.0.0.1"),
        bind: str = "127.0.0.1",
    ) -> None:
        self.state = _State()
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ca.issue_cert(*names).configure_cert(context)
        context.sni_callback = self._record_sni
        self._server = _Server((bind, 0), context, self.state)
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )

    def _record_sni(self, sslobj: ssl.SSLObject, name: str | None, ctx: ssl.SSLContext) -> None:
        with self.state.lock:
            self.state.sni_names.append(name)

    def __enter__(self) -> HttpsReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self.state.stop.set()
        self._server.shutdown()
        self._server.server_close()
        with self.state.lock:
            connections = list(self.state.connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
            conn.close()
        self._thread.join(timeout=5)

    def url(self, path: str = "/hook", host: str = RECEIVER_HOST) -> str:
        shown = f"[{host}]" if ":" in host else host
        return f"https://{shown}:{self.port}{path}"

    def script(self, *replies: Reply) -> None:
        with self.state.lock:
            self.state.replies.extend(replies)

    def respond_with(self, responder: Callable[[Received], Reply]) -> None:
        self.state.responder = responder

    @property
    def requests(self) -> list[Received]:
        with self.state.lock:
            return list(self.state.requests)

    @property
    def connection_count(self) -> int:
        with self.state.lock:
            return len(self.state.connections)

    @property
    def sni_names(self) -> list[str | None]:
        with self.state.lock:
            return list(self.state.sni_names)


class FakeResolver:
    """DNS under test control: each name answers from a script (the last answer repeats)."""

    def __init__(self, answers: dict[str, Sequence[Sequence[str]]] | None = None) -> None:
        self._answers = {k: [list(a) for a in v] for k, v in (answers or {}).items()}
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def answer(self, host: str, *rounds: Sequence[str]) -> None:
        with self._lock:
            self._answers[host] = [list(r) for r in rounds]

    def __call__(self, host: str) -> list[Any]:
        import ipaddress

        with self._lock:
            self.calls.append(host)
            script = self._answers.get(host)
            if not script:
                raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
            current = script.pop(0) if len(script) > 1 else script[0]
        return [ipaddress.ip_address(a) for a in current]
