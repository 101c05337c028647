"""Any unknown id, of any length or shape, in any path parameter is ``404 not_found``."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

# Percent-encoded as they would travel in a URL.
ODD_IDS = [
    "x" * 65,
    "x" * 4000,
    "mon_" + "9" * 200,
    "0",
    "-1",
    "00000000-0000-0000-0000-000000000000",
    "caf%C3%A9",
    "a%20b",
    "%F0%9F%98%80",
    "nul%00byte",
    "%FF%FE",  # not UTF-8
    "..%2F..%2Fetc",
    "%27%3B%20drop%20table%20monitors%3B--",
]


def test_unknown_ids_are_not_found_everywhere(
    client: TestClient, admin_auth: dict[str, str]
) -> None:
    created = client.post(
        "/v1/monitors", json={"name": "watch", "search": {"query": "solar"}}, headers=admin_auth
    )
    assert created.status_code == 201
    monitor = created.json()["id"]
    for odd in ODD_IDS:
        calls: list[tuple[str, str, dict[str, Any] | None]] = [
            ("GET", f"/v1/content/{odd}", None),
            ("GET", f"/v1/entities/{odd}/timeline", None),
            ("GET", f"/v1/news/clusters/{odd}", None),
            ("GET", f"/v1/admin/sources/{odd}", None),
            ("DELETE", f"/v1/admin/sources/{odd}", None),
            ("GET", f"/v1/monitors/{odd}", None),
            ("PATCH", f"/v1/monitors/{odd}", {"name": "renamed"}),
            ("DELETE", f"/v1/monitors/{odd}", None),
            ("POST", f"/v1/monitors/{odd}/run", None),
            ("POST", f"/v1/monitors/{odd}/backfills", {"dates": ["2026-11-01"]}),
            ("GET", f"/v1/monitors/{odd}/backfills", None),
            ("GET", f"/v1/monitors/{odd}/backfills/{odd}", None),
            ("GET", f"/v1/monitors/{monitor}/backfills/{odd}", None),
            ("GET", f"/v1/monitors/{odd}/runs", None),
            ("GET", f"/v1/monitors/{odd}/results", None),
            ("POST", f"/v1/monitors/{odd}/search", {"query": "solar"}),
        ]
        for method, path, body in calls:
            response = client.request(method, path, json=body, headers=admin_auth)
            shown = (method, path[:80], response.text[:200])
            assert response.status_code == 404, shown
            assert response.json()["error"] == "not_found", shown
            assert response.json()["meta"]["request_id"] == response.headers["x-request-id"]
    # The workspace still reads normally afterwards.
    assert client.get(f"/v1/monitors/{monitor}", headers=admin_auth).status_code == 200


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # no storage: query validation
def test_the_webhook_test_id_stays_a_number(client: TestClient, auth: dict[str, str]) -> None:
    """`GET /v1/webhooks/test?id=` takes a delivery number: another shape is invalid_request."""
    for value in ("abc", "0", "x" * 65):
        response = client.get("/v1/webhooks/test", params={"id": value}, headers=auth)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_request")
    unknown = client.get("/v1/webhooks/test", params={"id": "12345"}, headers=auth)
    assert (unknown.status_code, unknown.json()["error"]) == (404, "not_found")
