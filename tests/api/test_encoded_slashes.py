"""An escaped slash (``%2F``) in a path is part of one segment, never a separator: no id holds
one, so such a path is ``404 not_found`` and never reaches the route its decoded form would name
(``GET /v1/monitors/ID%2Fruns`` is not the runs of ``ID``; ``DELETE /v1/monitors/ID%2Ffeed``
revokes nothing). Over real HTTP: uvicorn decodes the path before routing, as any server does."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from tests.serving import uvicorn_thread


def test_an_escaped_slash_never_reaches_another_route(
    app: FastAPI, admin_auth: dict[str, str]
) -> None:
    with uvicorn_thread(app) as base_url, httpx.Client(base_url=base_url) as http:
        created = http.post(
            "/v1/monitors", json={"name": "watch", "search": {"query": "solar"}}, headers=admin_auth
        )
        assert created.status_code == 201, created.text
        monitor = created.json()["id"]
        feed = http.post(f"/v1/monitors/{monitor}/feed", headers=admin_auth)
        assert feed.status_code == 201, feed.text
        feed_path = httpx.URL(feed.json()["feed_url"]).path
        calls: list[tuple[str, str, dict[str, Any] | None]] = [
            ("GET", f"/v1/monitors/{monitor}%2Fruns", None),
            ("GET", f"/v1/monitors/{monitor}%2fresults", None),
            ("GET", f"/v1/monitors/{monitor}%2Fbackfills", None),
            ("POST", f"/v1/monitors/{monitor}%2Frun", None),
            ("POST", f"/v1/monitors/{monitor}%2Fbackfills", {"dates": ["2026-11-20"]}),
            ("POST", f"/v1/monitors/{monitor}%2Fsearch", {"query": "solar"}),
            ("DELETE", f"/v1/monitors/{monitor}%2Ffeed", None),
            ("PATCH", f"/v1/monitors/x%2F..%2F{monitor}", {"name": "renamed"}),
            ("DELETE", f"/v1/monitors/x%2F..%2F{monitor}", None),
            ("GET", "/v1/entities/ent_x%2Ftimeline", None),
            ("GET", "/v1/content/cnt_x%2Fy", None),
            ("DELETE", "/v1/admin/content/cnt_x%2Fy", None),
            ("GET", "/v1/news/clusters/clu_x%2Fy", None),
            ("GET", "/v1/admin/sources/src_x%2Fy", None),
            ("POST", "/v1/webhooks/deliveries%2F1%2Freplay", None),
            ("GET", f"{feed_path}%2Fx", None),
            ("GET", "/console/..%2fapi.js", None),
        ]
        for method, path, body in calls:
            response = http.request(method, path, json=body, headers=admin_auth)
            shown = (method, path, response.text[:200])
            assert response.status_code == 404, shown
            assert response.json()["error"] == "not_found", shown
            assert "%2F" in response.json()["message"], shown
            assert response.json()["meta"]["request_id"] == response.headers["x-request-id"]
        # Nothing was run, renamed, disabled or revoked, and the monitor reads as before.
        assert http.get(f"/v1/monitors/{monitor}/runs", headers=admin_auth).json()["runs"] == []
        ledger = http.get(f"/v1/monitors/{monitor}/backfills", headers=admin_auth).json()
        assert ledger["backfills"] == [], ledger
        after = http.get(f"/v1/monitors/{monitor}", headers=admin_auth).json()
        assert (after["name"], after["status"]) == ("watch", "active")
        assert http.get(feed_path).status_code == 200
        # An escaped slash in the query string is data, as before.
        listed = http.get("/v1/monitors?status=a%2Fb", headers=admin_auth)
        assert (listed.status_code, listed.json()["error"]) == (400, "invalid_request")
