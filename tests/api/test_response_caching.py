"""API answers carry workspace data behind a key sent in the ``x-api-key`` header, which (unlike
``Authorization``) does not stop a shared cache from storing them. Every answer that sets no
caching rule of its own is sent with ``Cache-Control: no-store`` and ``nosniff``: a browser or
proxy keeps no copy of one workspace's monitors, webhook or results, and never reads an answer
as anything but its declared type."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from fastapi import FastAPI
from httpx import Response

from tests.serving import uvicorn_thread


@pytest.fixture
def client(app: FastAPI) -> Iterator[httpx.Client]:
    """Real HTTP: the app served by uvicorn on a loopback port."""
    with uvicorn_thread(app) as base, httpx.Client(base_url=base, timeout=30) as http:
        yield http


def _not_stored(response: Response) -> None:
    assert response.headers.get("cache-control") == "no-store", response.request.url
    assert response.headers.get("x-content-type-options") == "nosniff", response.request.url


def test_authenticated_answers_are_not_stored(client: httpx.Client, auth: dict[str, str]) -> None:
    created = client.post(
        "/v1/monitors",
        headers=auth,
        json={"name": "Grain", "search": {"query": "grain harvest"}},
    )
    assert created.status_code == 201, created.text
    monitor_id = created.json()["id"]
    for response in (
        created,
        client.get("/v1/monitors", headers=auth),
        client.get(f"/v1/monitors/{monitor_id}", headers=auth),
        client.get(f"/v1/monitors/{monitor_id}/results", headers=auth),
        client.get("/v1/webhooks", headers=auth),
        client.get("/v1/news/clusters", headers=auth),
    ):
        assert response.status_code in {200, 201}, response.text
        _not_stored(response)


@pytest.mark.parametrize(
    ("path", "headers", "status"),
    [
        ("/v1/monitors", {}, 401),
        ("/v1/monitors", {"x-api-key": "hk_wrong"}, 401),
        ("/v1/monitors/mon_nosuchmonitor", None, 404),
        ("/v1/monitors/a%2Fb", None, 404),  # refused by the middleware itself,
    ],
)
def test_refusals_are_not_stored(
    client: httpx.Client,
    auth: dict[str, str],
    path: str,
    headers: dict[str, str] | None,
    status: int,
) -> None:
    response = client.get(path, headers=auth if headers is None else headers)
    assert response.status_code == status, response.text
    _not_stored(response)


def test_a_route_keeps_its_own_caching_rule(client: httpx.Client) -> None:
    page = client.get("/console/")
    assert page.headers["cache-control"] == "no-cache"  # revalidated, never guessed
