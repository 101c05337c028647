"""``herald worker --metrics-port PORT``: ``/metrics`` and ``/metrics/shared`` on a port of the
worker's own (workers serve no API), with the same token rule as the API's ``/metrics``."""

from __future__ import annotations

import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST

from herald.metrics.exposition import Metrics

log = logging.getLogger(__name__)


class MetricsServer:
    def __init__(self, metrics: Metrics, host: str, port: int) -> None:
        self._server = ThreadingHTTPServer((host, port), _handler(metrics))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="metrics-server", daemon=True
        )

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler(metrics: Metrics) -> type[BaseHTTPRequestHandler]:
    pages = {"/metrics": metrics.per_process, "/metrics/shared": metrics.shared}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = pages.get(self.path.split("?", 1)[0])
            if page is None:
                self._send(
                    404, *_error("not_found", "this port serves /metrics and /metrics/shared")
                )
            elif not metrics.authorised(self.headers.get("authorization", "")):
                message = "metrics need 'Authorization: Bearer <metrics token>'"
                self._send(401, *_error("unauthorized", message))
            else:
                try:
                    body = page()
                except Exception:
                    log.exception("could not collect metrics", extra={"path": self.path})
                    self._send(503, *_error("not_ready", "the metrics could not be read"))
                    return
                self._send(200, CONTENT_TYPE_LATEST, body)

        def _send(self, status: int, content_type: str, body: bytes) -> None:
            self.send_response(status)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            """Scrapes are not logged (every few seconds, for ever)."""

    return Handler


def _error(code: str, message: str) -> tuple[str, bytes]:
    body = {"error": code, "message": message, "meta": {"request_id": None}}
    return "application/json", json.dumps(body, separators=(",", ":")).encode()  # as the API's
