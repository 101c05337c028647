"""One HTTP/1.1 POST over TLS to checked addresses, on kept-alive connections (webhooks).

A webhook delivery is always the same exchange: one small POST, one response of which at most a
bounded prefix is kept. Written out here it costs a fraction of a general client's work per
request (one write, a read or two, no per-request pool scan), which is what lets one process
deliver a thousand a second. What it keeps of the general client:

* sockets go only to the addresses the caller checked (:class:`TargetConnections` is built for
  one set of them); the host name is used for SNI, certificate verification and ``Host``;
* one total deadline covers waiting for a connection, connecting, TLS, writing and every read,
  so a server that drips a byte at a time cannot hold a request past it;
* the response head is bounded, its framing is checked (``Content-Length`` or chunked, or read
  to the close), and a body beyond the kept limit is never read: the connection is dropped;
* a connection is reused only after a complete, well-framed HTTP/1.1 response without
  ``Connection: close``, within the keep-alive time, and only if the server has not closed it
  (or sent anything) while it was idle.
"""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from herald.core.net.addresses import IPAddress
from herald.core.net.failures import ConnectFailed, ProtocolFailed, TlsFailed

MAX_HEAD_BYTES = 64 * 1024  # status line and headers of one response
KEEPALIVE_SECONDS = 30.0
_READ_SIZE = 65536


class DeadlinePassed(Exception):
    """The request's total deadline passed (the client turns it into its ``TimedOut``)."""


@dataclass(slots=True)
class Reply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes
    truncated: bool
    peer: str


class _Connection:
    __slots__ = ("idle_until", "peer", "sock")

    def __init__(self, sock: ssl.SSLSocket, peer: str) -> None:
        self.sock = sock
        self.peer = peer  # the checked address this socket is connected to
        self.idle_until = 0.0

    def usable(self, now: float) -> bool:
        """Still open on the server's side: an idle connection has nothing to read."""
        if now > self.idle_until or self.sock.pending():
            return False
        try:
            readable, _, _ = select.select([self.sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


class TargetConnections:
    """The kept-alive connections to one target (host, port, checked addresses) of one
    partition: at most ``limit`` at a time, idle ones reused newest first."""

    def __init__(
        self,
        context: ssl.SSLContext,
        host: str,
        port: int,
        addresses: Sequence[IPAddress],
        limit: int,
    ) -> None:
        self._context = context
        self._host = host
        self._port = port
        self._addresses = tuple(addresses)
        self._limit = limit
        self._idle: list[_Connection] = []
        self._open = 0  # idle + in use
        self._ready = threading.Condition()
        self._closed = False

    def in_use(self) -> bool:
        with self._ready:
            return self._open > len(self._idle)

    def close(self) -> None:
        """Close the idle connections; those in use are closed when their request ends (a
        request that started before still completes)."""
        with self._ready:
            self._closed = True
            idle, self._idle = self._idle, []
            self._open -= len(idle)
        for connection in idle:
            connection.close()

    def post(self, head: bytes, body: bytes, deadline: float, keep: int) -> Reply:
        """Send one request (``head`` ends with the blank line) and read its response."""
        connection = self._acquire(deadline)
        reusable = False
        try:
            if connection is None:
                connection = self._connect(deadline)
            sock = connection.sock
            _send(sock, head + body, deadline)
            reply, reusable = _read_response(sock, deadline, keep)
            reply.peer = connection.peer
            return reply
        finally:
            self._release(connection, reusable)

    # -- the pool -----------------------------------------------------------------------------
    def _acquire(self, deadline: float) -> _Connection | None:
        """An idle connection to reuse, or None when the caller may open a new one."""
        stale: list[_Connection] = []
        try:
            with self._ready:
                while True:
                    now = time.monotonic()
                    while self._idle:
                        connection = self._idle.pop()
                        if connection.usable(now):
                            return connection
                        self._open -= 1
                        stale.append(connection)
                    if self._open < self._limit:
                        self._open += 1
                        return None
                    if now >= deadline or not self._ready.wait(deadline - now):
                        raise DeadlinePassed
        finally:
            for connection in stale:
                connection.close()

    def _release(self, connection: _Connection | None, reusable: bool) -> None:
        with self._ready:
            if connection is not None and reusable and not self._closed:
                connection.idle_until = time.monotonic() + KEEPALIVE_SECONDS
                self._idle.append(connection)
                connection = None
            else:
                self._open -= 1
            self._ready.notify()
        if connection is not None:
            connection.close()

    def _connect(self, deadline: float) -> _Connection:
        failure: OSError | None = None
        for ip in self._addresses:
            try:
                raw = socket.create_connection((str(ip), self._port), _remaining(deadline))
            except TimeoutError:
                raise DeadlinePassed from None
            except OSError as exc:
                failure = exc
                continue
            try:
                raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                raw.settimeout(_remaining(deadline))
                sock = self._context.wrap_socket(raw, server_hostname=self._host)
            except ssl.SSLError as exc:
                raw.close()
                raise TlsFailed(
                    f"TLS handshake with {self._host}:{self._port} failed: {exc}"
                ) from None
            except TimeoutError:
                raw.close()
                raise DeadlinePassed from None
            except BaseException:
                raw.close()
                raise
            return _Connection(sock, str(ip))
        shown = ", ".join(str(a) for a in self._addresses)
        where = f"{self._host}:{self._port}"
        raise ConnectFailed(f"could not connect to {where} ({shown}): {failure}")


# -- the exchange --------------------------------------------------------------------------------


def _remaining(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlinePassed
    return left


def _send(sock: ssl.SSLSocket, data: bytes, deadline: float) -> None:
    view = memoryview(data)
    while view:
        sock.settimeout(_remaining(deadline))
        try:
            sent = sock.send(view)
        except TimeoutError:
            raise DeadlinePassed from None
        view = view[sent:]


class _Reader:
    """Reads a response from a socket within the deadline, buffering what came early."""

    def __init__(self, sock: ssl.SSLSocket, deadline: float) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buffer = bytearray()
        self.eof = False

    def fill(self) -> bool:
        """Read what the server sent next; False at the end of the stream."""
        if self.eof:
            return False
        self.sock.settimeout(_remaining(self.deadline))
        try:
            chunk = self.sock.recv(_READ_SIZE)
        except TimeoutError:
            raise DeadlinePassed from None
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def line(self, limit: int) -> bytes:
        """One CRLF-terminated line (without it), at most ``limit`` bytes long."""
        while True:
            end = self.buffer.find(b"\r\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 2]
                return line
            if len(self.buffer) > limit:
                raise ProtocolFailed("response line too long")
            if not self.fill():
                raise ProtocolFailed("connection closed in the middle of the response")

    def take(self, count: int) -> bytes:
        """Exactly ``count`` bytes (the server must send them)."""
        while len(self.buffer) < count:
            if not self.fill():
                raise ProtocolFailed("connection closed in the middle of the response body")
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data


def _read_head(reader: _Reader) -> tuple[int, bytes, list[tuple[str, str]]]:
    """The next response's status, HTTP version and headers (1xx interim responses skipped)."""
    while True:
        while True:
            end = reader.buffer.find(b"\r\n\r\n")
            if end >= 0:
                break
            if len(reader.buffer) > MAX_HEAD_BYTES:
                raise ProtocolFailed(f"response head larger than {MAX_HEAD_BYTES} bytes")
            if not reader.fill():
                raise ConnectionError("closed before a complete response head")
        if end > MAX_HEAD_BYTES:
            raise ProtocolFailed(f"response head larger than {MAX_HEAD_BYTES} bytes")
        lines = bytes(reader.buffer[:end]).split(b"\r\n")
        del reader.buffer[: end + 4]
        version, status = _status_line(lines[0])
        if 100 <= status < 200:
            if status == 101:
                raise ProtocolFailed("the server switched protocols unasked")
            continue
        return status, version, [_header(line) for line in lines[1:]]


def _status_line(line: bytes) -> tuple[bytes, int]:
    parts = line.split(b" ", 2)
    code = parts[1] if len(parts) > 1 else b""
    if parts[0] not in (b"HTTP/1.1", b"HTTP/1.0") or len(code) != 3 or not code.isdigit():
        raise ProtocolFailed(f"not an HTTP/1.x status line: {line[:80]!r}")
    return parts[0], int(code)


def _header(line: bytes) -> tuple[str, str]:
    name, colon, value = line.partition(b":")
    if not colon or not name or name != name.strip() or b" " in name or b"\t" in name:
        raise ProtocolFailed(f"malformed header line: {line[:80]!r}")
    return name.decode("latin-1"), value.strip(b" \t").decode("latin-1")


def _read_response(sock: ssl.SSLSocket, deadline: float, keep: int) -> tuple[Reply, bool]:
    """The response and whether the connection may carry another request."""
    reader = _Reader(sock, deadline)
    status, version, headers = _read_head(reader)
    lowered = [(name.lower(), value) for name, value in headers]
    connection = {
        v.strip().lower() for n, value in lowered if n == "connection" for v in value.split(",")
    }
    reusable = version == b"HTTP/1.1" and "close" not in connection
    codings = [
        v.strip().lower()
        for n, value in lowered
        if n == "transfer-encoding"
        for v in value.split(",")
    ]
    lengths = {value.strip() for n, value in lowered if n == "content-length"}
    if status in (204, 304):
        body, truncated = b"", False
    elif codings:
        if codings[-1] != "chunked":  # framed by the close of the connection
            body, truncated = _until_close(reader, keep)
            reusable = False
        else:
            body, truncated = _chunked(reader, keep)
        reusable = reusable and not lengths
    elif lengths:
        if len(lengths) != 1 or not next(iter(lengths)).isdigit():
            raise ProtocolFailed("invalid Content-Length")
        length = int(next(iter(lengths)))
        truncated = length > keep
        body = reader.take(min(length, keep))
    else:
        body, truncated = _until_close(reader, keep)
        reusable = False
    reusable = reusable and not truncated and not reader.buffer and not reader.eof
    return Reply(status, headers, body, truncated, ""), reusable


def _until_close(reader: _Reader, keep: int) -> tuple[bytes, bool]:
    while len(reader.buffer) <= keep and reader.fill():
        pass
    return bytes(reader.buffer[:keep]), len(reader.buffer) > keep


def _chunked(reader: _Reader, keep: int) -> tuple[bytes, bool]:
    kept = bytearray()
    while True:
        size_text = reader.line(1024).split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            raise ProtocolFailed(f"invalid chunk size {size_text[:40]!r}") from None
        if size == 0:
            while reader.line(MAX_HEAD_BYTES):  # trailers, up to the blank line
                pass
            return bytes(kept), False
        if len(kept) + size > keep:
            kept += reader.take(keep - len(kept))
            return bytes(kept), True
        kept += reader.take(size)
        if reader.take(2) != b"\r\n":
            raise ProtocolFailed("chunk not followed by CRLF")
