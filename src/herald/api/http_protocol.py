"""The HTTP/1.1 protocol ``herald serve`` runs: uvicorn's, with its one plain-text answer replaced.

uvicorn answers a request it cannot parse (a request line or headers over the parser's limits, or
malformed ones) with ``400`` and the text ``Invalid HTTP request received.``, before the app sees
it. Herald answers it like every other error: the JSON envelope with a request id, in the body and
in ``x-request-id``, and a log line carrying the same id.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol

from herald.api.errors import error_bytes
from herald.logging import request_id_var

log = logging.getLogger("herald.access")

UNPARSEABLE = "the request could not be read: its request line or headers are malformed or too long"


def _answer_400(transport: Any) -> None:
    request_id = uuid.uuid4().hex
    token = request_id_var.set(request_id)
    try:
        body = error_bytes("invalid_request", UNPARSEABLE)
        log.warning("unparseable request", extra={"status": 400})
    finally:
        request_id_var.reset(token)
    head = (
        "HTTP/1.1 400 Bad Request\r\n"
        "content-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        f"x-request-id: {request_id}\r\n"
        "connection: close\r\n\r\n"
    )
    transport.write(head.encode("ascii") + body)
    transport.close()


class JsonErrorH11Protocol(H11Protocol):
    def send_400_response(self, msg: str) -> None:
        del msg
        _answer_400(self.transport)


def protocol_class() -> type[Any]:
    """httptools' parser when it is installed (uvicorn's own preference), else h11's."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is optional
        return JsonErrorH11Protocol

    class JsonErrorHttpToolsProtocol(HttpToolsProtocol):
        def send_400_response(self, msg: str) -> None:
            del msg
            _answer_400(self.transport)

    return JsonErrorHttpToolsProtocol
