"""A real HTTP server on loopback that plays "the internet" for ingestion tests.

Routes are keyed by ``host/path`` (``liftoff.msfc.nasa.gov/news/2003/news-starcity.asp``); the
:class:`LoopbackInternet` fetcher rewrites any ``http(s)://host/path`` to
``http://127.0.0.1:PORT/host/path`` and fetches it with the real :class:`HttpFetcher`, so the
code under test speaks HTTP (conditional GET, status codes, sizes, content types) for real.
"""

from __future__ import annotations

import gzip
import html
import json
import threading
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from herald.core.clock import SystemClock
from herald.db.models.ingest import Source
from herald.ingest.fetch import FetchPolicy, FetchResult, HttpFetcher
from herald.ingest.model import IncomingItem
from herald.ingest.normalize import item_from_mapping
from herald.runtime import Runtime

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass
class Route:
    body: bytes
    content_type: str | None = "text/html; charset=utf-8"
    status: int = 200
    etag: str | None = None
    last_modified: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0
    gzip: bool = False


@dataclass
class Hit:
    path: str
    headers: dict[str, str]
    at: float


class LoopbackServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[Hit] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return

            def do_GET(self) -> None:
                key = self.path.lstrip("/")
                server.hits.append(
                    Hit(key, {k.lower(): v for k, v in self.headers.items()}, time.monotonic())
                )
                route = server.routes.get(key) or server.routes.get(key.split("?", 1)[0])
                if route is None:
                    self._send(404, b"not found", "text/plain", {})
                    return
                if route.delay_seconds:
                    time.sleep(route.delay_seconds)
                headers = dict(route.headers)
                if route.etag:
                    headers["ETag"] = route.etag
                if route.last_modified:
                    headers["Last-Modified"] = route.last_modified
                if (route.etag and self.headers.get("If-None-Match") == route.etag) or (
                    route.last_modified
                    and self.headers.get("If-Modified-Since") == route.last_modified
                ):
                    self._send(304, b"", None, headers)
                    return
                body = route.body
                if route.gzip:
                    body = gzip.compress(body)
                    headers["Content-Encoding"] = "gzip"
                self._send(route.status, body, route.content_type, headers)

            def _send(
                self, status: int, body: bytes, content_type: str | None, headers: dict[str, str]
            ) -> None:
                self.send_response(status)
                if content_type:
                    self.send_header("Content-Type", content_type)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if body:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client stopped reading (size limit, timeout): that is the test

        self._httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self._thread.start()

    def url(self, key: str) -> str:
        return f"http://127.0.0.1:{self.port}/{key}"

    def serve(self, url: str, body: bytes | str, **kwargs: object) -> None:
        """Serve ``body`` for an outside URL such as ``http://example.com/a``."""
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[_key(url)] = Route(body=data, **kwargs)  # type: ignore[arg-type]

    def hits_for(self, url: str) -> list[Hit]:
        key = _key(url)
        return [hit for hit in self.hits if hit.path.split("?", 1)[0] == key.split("?", 1)[0]]

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        # A client that hangs up early (size limit, timeout) is what those tests provoke.
        return


def _key(url: str) -> str:
    parts = urlsplit(url)
    key = f"{parts.hostname}{parts.path or '/'}"
    return f"{key}?{parts.query}" if parts.query else key


class LoopbackInternet:
    """A :class:`~herald.ingest.fetch.Fetcher` whose internet is the loopback server."""

    def __init__(self, server: LoopbackServer, fetcher: HttpFetcher) -> None:
        self._server = server
        self._fetcher = fetcher
        self.requested: list[str] = []

    def fetch(
        self,
        url: str,
        *,
        accept: Iterable[str],
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchResult:
        self.requested.append(url)
        requested = self._server.url(_key(url))
        result = self._fetcher.fetch(
            requested, accept=accept, etag=etag, last_modified=last_modified
        )
        return FetchResult(
            url if result.url == requested else self._outside(result.url),
            result.status,
            result.content,
            result.content_type,
            result.etag,
            result.last_modified,
            result.charset,
            None if result.moved_to is None else self._outside(result.moved_to),
        )

    def _outside(self, url: str) -> str:
        """The outside URL a loopback URL stands for (where redirects ended)."""
        prefix = self._server.url("")
        if not url.startswith(prefix):
            return url
        host, _, rest = url[len(prefix) :].partition("/")
        return f"http://{host}/{rest}"


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    srv = LoopbackServer()
    yield srv
    srv.close()


@pytest.fixture
def http_fetcher() -> Iterator[HttpFetcher]:
    with HttpFetcher(clock=SystemClock(), policy=FetchPolicy(host_interval_seconds=0)) as f:
        yield f


@pytest.fixture
def internet(server: LoopbackServer, http_fetcher: HttpFetcher) -> LoopbackInternet:
    return LoopbackInternet(server, http_fetcher)


def stored_source(runtime: Runtime, source_id: str) -> Source:
    """The source's row as stored now."""
    with runtime.sessions.read() as session:
        source = session.get(Source, source_id)
        assert source is not None
        return source


def fixture_bytes(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def ecbplus_docs() -> dict[str, dict[str, str]]:
    lines = (FIXTURES / "ecbplus_syndication.jsonl").read_text(encoding="utf-8").splitlines()
    return {doc["doc_id"]: doc for doc in map(json.loads, lines)}


def ecbplus_item(doc_id: str, **overrides: object) -> IncomingItem:
    """The fixture's article ``doc_id`` as a news item (its first line the title), with
    ``overrides`` of the ingestion fields."""
    doc = ecbplus_docs()[doc_id]
    lines = doc["text"].split("\n")
    raw: dict[str, object] = {
        "url": doc["source_url"],
        "media_type": "news",
        "title": lines[0],
        "published_date": "2012-12-23T23:00:00Z",
        "source": {"name": doc["source_domain"], "domain": doc["source_domain"]},
        "body": "\n".join(lines[1:]),
    }
    raw.update(overrides)
    return item_from_mapping(raw)


def article_page(
    title: str,
    paragraphs: list[str],
    *,
    site: str,
    author: str | None = None,
    published: str | None = None,
) -> str:
    """A news page around real text: navigation, related links and footer boilerplate that
    extraction must drop."""
    meta = ""
    if author:
        meta += f'<meta name="author" content="{html.escape(author)}">'
    if published:
        meta += f'<meta property="article:published_time" content="{published}">'
    body = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(title)} | {site}</title>{meta}</head><body>"
        f'<header><nav><a href="/">Home</a> <a href="/news">News</a> '
        f'<a href="/sports">Sports</a> <a href="/login">Sign in</a></nav></header>'
        f"<main><article><h1>{html.escape(title)}</h1>{body}</article>"
        f'<aside><h2>Most read</h2><ul><li><a href="/a">Weather for the weekend</a></li>'
        f'<li><a href="/b">Lottery results</a></li></ul></aside></main>'
        f"<footer><p>Copyright {site}. All rights reserved. Terms of use. Privacy policy.</p>"
        f"</footer></body></html>"
    )
