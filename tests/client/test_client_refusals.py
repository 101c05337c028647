"""A value of the wrong type is refused by the client before sending, as the server refuses it.

Each bad value goes once past the client's check (plain HTTP) to the real app served by uvicorn
on loopback, on both databases, and once through the client's check, which must send nothing
and raise the same code naming the same fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import herald_client
import httpx
import pytest
from fastapi import FastAPI

from herald.workspaces.service import CreatedKey
from tests.serving import uvicorn_thread

Call = Callable[[herald_client.Client], object]


class CountingTransport(httpx.HTTPTransport):
    """The network, counting what is sent over it."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return super().handle_request(request)


MONITOR = {"name": "Quakes", "search": {"query": "earthquake"}}
# (what a caller asks the client, the same request as it goes on the wire, the fields named)
CASES: list[tuple[Call, str, str, dict[str, Any] | None, list[str]]] = [
    (
        lambda c: c.content.search(query="rates", limit="ten"),  # type: ignore[arg-type]
        "POST", "/v1/content/search", {"query": "rates", "limit": "ten"}, ["limit"],
    ),
    (
        lambda c: c.content.search(query="rates", start_date=5, end_date="2026-11-01"),  # type: ignore[arg-type]
        "POST", "/v1/content/search",
        {"query": "rates", "start_date": 5, "end_date": "2026-11-01"}, ["start_date"],
    ),
    (
        lambda c: c.content.search(query="rates", media_types=["video"]),  # type: ignore[list-item]
        "POST", "/v1/content/search", {"query": "rates", "media_types": ["video"]},
        ["media_types.0"],
    ),
    (
        lambda c: c.monitors.create(name="Quakes", search={"query": "q", "media_types": ["video"]}),
        "POST", "/v1/monitors",
        {"name": "Quakes", "search": {"query": "q", "media_types": ["video"]}},
        ["search.media_types.0"],
    ),
    (
        lambda c: c.entities.search(query="bank", entity_kinds=["alien"]),  # type: ignore[list-item]
        "POST", "/v1/entities/search", {"query": "bank", "entity_kinds": ["alien"]},
        ["entity_kinds.0"],
    ),
    (
        lambda c: c.monitors.create(**MONITOR, schedule={"frequency": "weekly"}),
        "POST", "/v1/monitors", {**MONITOR, "schedule": {"frequency": "weekly"}},
        ["schedule.frequency"],
    ),
    (
        lambda c: c.monitors.create(**MONITOR, schedule={"minute": "five"}),
        "POST", "/v1/monitors", {**MONITOR, "schedule": {"minute": "five"}},
        ["schedule.minute"],
    ),
    (
        lambda c: c.monitors.create(name="Quakes", search={"media_types": ["news"]}),
        "POST", "/v1/monitors", {"name": "Quakes", "search": {"media_types": ["news"]}},
        ["search.query"],
    ),
    (
        lambda c: c.monitors.create(**MONITOR, status="paused"),  # type: ignore[arg-type]
        "POST", "/v1/monitors", {**MONITOR, "status": "paused"}, ["status"],
    ),
    (
        lambda c: c.monitors.list(status="paused"),  # type: ignore[arg-type]
        "GET", "/v1/monitors?status=paused", None, ["status"],
    ),
    (
        lambda c: c.monitors.preview(search={"query": "x"}, days="many"),  # type: ignore[arg-type]
        "POST", "/v1/monitors/preview", {"search": {"query": "x"}, "days": "many"}, ["days"],
    ),
    (
        lambda c: c.webhooks.put(enabled="perhaps"),  # type: ignore[arg-type]
        "PUT", "/v1/webhooks", {"enabled": "perhaps"}, ["enabled"],
    ),
    (
        lambda c: c.webhooks.get_test("abc"),
        "GET", "/v1/webhooks/test?id=abc", None, ["id"],
    ),
]  # fmt: skip


@pytest.fixture
def base_url(app: FastAPI) -> Iterator[str]:
    with uvicorn_thread(app) as url:
        yield url


def test_the_client_refuses_what_the_server_refuses_with_the_same_code_and_fields(
    base_url: str, member_key: CreatedKey
) -> None:
    network = CountingTransport()
    headers = {"x-api-key": member_key.api_key}
    with (
        httpx.Client(base_url=base_url, headers=headers) as http,
        herald_client.Client(
            base_url=base_url, api_key=member_key.api_key, transport=network
        ) as client,
    ):
        for call, method, path, body, fields in CASES:
            answer = http.request(method, path, json=body)
            envelope = answer.json()
            assert answer.status_code == 400, (path, envelope)
            assert [d["field"] for d in envelope["details"]] == fields, envelope

            with pytest.raises(herald_client.RequestNotSentError) as refused:
                call(client)
            refusal = refused.value
            assert isinstance(refusal, herald_client.InvalidRequestError)
            assert (refusal.status_code, refusal.code) == (400, envelope["error"])
            assert [d.field for d in refusal.details] == fields, refusal.details
            assert refusal.message.startswith(f"invalid request: {fields[0]}: ")
            assert refusal.response is None
            assert refusal.request_id is None
            assert str(refusal).startswith("invalid_request (not sent): invalid request: ")
        assert network.sent == []
        # The same client sends what is well typed.
        assert client.monitors.list().monitors == []
        assert len(network.sent) == 1


@pytest.mark.anyio
async def test_the_async_client_refuses_the_same_way() -> None:
    sent: list[httpx.Request] = []

    def answer(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(500)

    async with herald_client.AsyncClient(
        api_key="hk_test", transport=httpx.MockTransport(answer)
    ) as client:
        with pytest.raises(herald_client.RequestNotSentError) as refused:
            await client.monitors.create(name="Q", search={"query": "q"}, status="paused")  # type: ignore[arg-type]
    assert refused.value.code == "invalid_request"
    assert [d.field for d in refused.value.details] == ["status"]
    assert sent == []
