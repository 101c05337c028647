"""Scripted responses for unit tests of the client (the network replaced by httpx.MockTransport),
and a client that reads them.

Bodies follow the pinned shapes of API-DECISIONS.md; the real-app tests check them against the
server itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import herald_client
import httpx

KEY = "hk_test_key_0123456789abcdef0123456789abcdef"

CONTENT_ITEM: dict[str, Any] = {
    "id": "cnt_abc",
    "media_type": "news",
    "published_date": "2026-11-20T08:00:00Z",
    "title": "Central bank holds rates",
    "source": {"name": "Example Wire", "domain": "example.com"},
    "key_points": ["Rates unchanged", "Inflation easing"],
    "language": "en",
    "article_id": "art_1",
}

MONITOR: dict[str, Any] = {
    "id": "mon_1",
    "team_id": "team_1",
    "name": "Rates",
    "description": None,
    "status": "active",
    "search": {"query": "central bank rates"},
    "schedule": {"frequency": "hourly", "timezone": "UTC", "minute": 7},
    "next_run_at": "2026-11-25T13:07:00Z",
    "created_at": "2026-11-25T12:07:00Z",
    "updated_at": "2026-11-25T12:07:00Z",
}


def error_body(
    code: str, message: str = "nope", request_id: str = "req_err", **extra: Any
) -> dict[str, Any]:
    return {"error": code, "message": message, "meta": {"request_id": request_id}, **extra}


def monitor_page(offset: int, total: int, limit: int) -> dict[str, Any]:
    ids = range(offset, min(total, offset + limit))
    following = offset + limit if offset + limit < total else None
    return {
        "monitors": [{**MONITOR, "id": f"mon_{i}"} for i in ids],
        "limit": limit,
        "offset": offset,
        "next_offset": following,
        "has_more": following is not None,
        "meta": {"request_id": f"req_{offset}"},
    }


class Recorder:
    """A handler that answers from ``respond`` and keeps every request it saw."""

    def __init__(self, respond: Callable[[httpx.Request], httpx.Response]) -> None:
        self.respond = respond
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.respond(request)

    def body(self, index: int = -1) -> Any:
        return json.loads(self.requests[index].content)


def json_response(status: int, body: Any, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=body, headers={"x-request-id": "req_hdr", **headers})


def make_client(handler: Recorder, **options: Any) -> herald_client.Client:
    options.setdefault("retry_backoff", 0.0)
    return herald_client.Client(
        base_url="http://herald.test",
        api_key=KEY,
        transport=httpx.MockTransport(handler),
        **options,
    )


def search_ok(_: httpx.Request | None = None) -> httpx.Response:
    return json_response(
        200,
        {
            "results": [{"score": 0.9, "content_item": CONTENT_ITEM}],
            "meta": {"request_id": "req_1"},
        },
    )
