"""Monitor CRUD over HTTP: shapes, defaults, limits, pinned errors, workspace isolation."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock

MonitorFactory = Callable[..., dict[str, Any]]
# Request validation does not depend on the storage backend: those many cases run on SQLite only.
SQLITE_ONLY = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
MONITOR_FIELDS = {
    "id",
    "team_id",
    "name",
    "description",
    "status",
    "search",
    "schedule",
    "next_run_at",
    "created_at",
    "updated_at",
}


def test_create_with_defaults(client: TestClient, auth: dict[str, str], clock: FrozenClock) -> None:
    clock.advance(timedelta(minutes=7, seconds=42))  # 12:07:42Z
    response = client.post(
        "/v1/monitors",
        json={"name": "Solar", "search": {"query": "solar power"}},
        headers=auth,
    )
    assert response.status_code == 201
    body = response.json()
    assert set(body) == MONITOR_FIELDS  # a bare resource: no meta
    assert body["id"].startswith("mon_")
    assert body["team_id"].startswith("team_")
    assert body["status"] == "active"
    assert body["description"] is None
    assert body["search"] == {"query": "solar power"}
    assert body["schedule"] == {"frequency": "hourly", "timezone": "UTC", "minute": 7}
    assert body["next_run_at"] == "2026-11-25T13:07:00Z"
    assert body["created_at"] == body["updated_at"] == "2026-11-25T12:07:42Z"


def test_create_daily_in_a_zone_and_disabled(client: TestClient, auth: dict[str, str]) -> None:
    response = client.post(
        "/v1/monitors",
        json={
            "name": "Rates",
            "description": "Central bank decisions",
            "search": {
                "query": "interest rates",
                "media_types": ["news", "wire"],
                "include_domains": ["Reuters.com"],
                "entity_ids": ["ent_x"],
            },
            "schedule": {"frequency": "daily", "timezone": "Asia/Kathmandu", "run_time": "06:30"},
        },
        headers=auth,
    )
    assert response.status_code == 201
    body = response.json()
    assert body["schedule"] == {
        "frequency": "daily",
        "timezone": "Asia/Kathmandu",
        "run_time": "06:30",
    }
    assert body["next_run_at"] == "2026-11-26T00:45:00Z"  # 06:30 at +05:45
    assert body["search"]["include_domains"] == ["reuters.com"]
    disabled = client.post(
        "/v1/monitors",
        json={"name": "Off", "search": {"query": "x"}, "status": "disabled"},
        headers=auth,
    ).json()
    assert disabled["status"] == "disabled"
    assert disabled["next_run_at"] is None


@pytest.mark.parametrize(
    ("body", "status", "code", "field"),
    [
        (
            {"name": "x", "search": {"query": "a", "start_date": "2026-01-01"}},
            400,
            "field_not_allowed",
            "search.start_date",
        ),
        (
            {"name": "x", "search": {"query": "a", "end_date": "2026-01-01"}},
            400,
            "field_not_allowed",
            "search.end_date",
        ),
        (
            {"name": "x", "search": {"query": "a", "limit": 5}},
            400,
            "field_not_allowed",
            "search.limit",
        ),
        (
            {"name": "x", "search": {"query": "a"}, "schedule": {"timezone": "Mars/Base"}},
            400,
            "invalid_timezone",
            "schedule.timezone",
        ),
        (
            {
                "name": "x",
                "search": {"query": "a"},
                "schedule": {"frequency": "daily", "minute": 5},
            },
            400,
            "invalid_request",
            "schedule.minute",
        ),
        (
            {
                "name": "x",
                "search": {"query": "a"},
                "schedule": {"frequency": "hourly", "run_time": "05:00"},
            },
            400,
            "invalid_request",
            "schedule.run_time",
        ),
        (
            {"name": "x", "search": {"query": "a"}, "schedule": {"minute": 60}},
            400,
            "invalid_request",
            "schedule.minute",
        ),
        (
            {
                "name": "x",
                "search": {
                    "query": "a",
                    "include_domains": ["a.com"],
                    "exclude_domains": ["b.com"],
                },
            },
            400,
            "domain_filter_conflict",
            "search.exclude_domains",
        ),
        (
            {
                "name": "x",
                "search": {"query": "a", "include_domains": [f"d{i}.com" for i in range(11)]},
            },
            400,
            "too_many_domains",
            "search.include_domains",
        ),
        (
            {"name": "x", "search": {"query": "a", "media_types": ["video"]}},
            400,
            "invalid_request",
            "search.media_types.0",
        ),
        ({"name": "x", "search": {}}, 400, "invalid_request", "search.query"),
        ({"search": {"query": "a"}}, 400, "invalid_request", "name"),
        ({"name": "x"}, 400, "invalid_request", "search"),
        (
            {"name": "x", "search": {"query": "a"}, "colour": "red"},
            400,
            "invalid_request",
            "colour",
        ),
        (
            {"name": "x", "search": {"query": "a"}, "status": "paused"},
            400,
            "invalid_request",
            "status",
        ),
        ({"name": 5, "search": {"query": "a"}}, 400, "invalid_request", "name"),
    ],
)
@SQLITE_ONLY
def test_create_errors(
    client: TestClient,
    auth: dict[str, str],
    body: dict[str, Any],
    status: int,
    code: str,
    field: str,
) -> None:
    response = client.post("/v1/monitors", json=body, headers=auth)
    assert response.status_code == status
    error = response.json()
    assert error["error"] == code
    assert error["meta"]["request_id"] == response.headers["x-request-id"]
    assert field in [d["field"] for d in error["details"]]


def test_list_newest_first_with_filter_and_pages(
    client: TestClient, auth: dict[str, str], clock: FrozenClock, make_monitor: MonitorFactory
) -> None:
    made = []
    for i in range(5):
        clock.advance(timedelta(seconds=1))
        made.append(make_monitor(f"q{i}", status="disabled" if i == 2 else "active"))
    body = client.get("/v1/monitors?limit=2", headers=auth).json()
    assert set(body) == {"monitors", "limit", "offset", "next_offset", "has_more", "meta"}
    assert [m["id"] for m in body["monitors"]] == [made[4]["id"], made[3]["id"]]
    assert (body["limit"], body["offset"], body["next_offset"], body["has_more"]) == (2, 0, 2, True)
    last = client.get("/v1/monitors?limit=2&offset=4", headers=auth).json()
    assert [m["id"] for m in last["monitors"]] == [made[0]["id"]]
    assert (last["next_offset"], last["has_more"]) == (None, False)
    disabled = client.get("/v1/monitors?status=disabled", headers=auth).json()
    assert [m["id"] for m in disabled["monitors"]] == [made[2]["id"]]
    active = client.get("/v1/monitors?status=active", headers=auth).json()
    assert len(active["monitors"]) == 4
    assert client.get("/v1/monitors", headers=auth).json()["limit"] == 50


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=101", "offset=-1", "status=paused", "limit=abc"]
)
@SQLITE_ONLY
def test_list_rejects_out_of_range_values(
    client: TestClient, auth: dict[str, str], query: str
) -> None:
    response = client.get(f"/v1/monitors?{query}", headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_get_patch_delete(
    client: TestClient, auth: dict[str, str], clock: FrozenClock, make_monitor: MonitorFactory
) -> None:
    monitor = make_monitor(schedule={"frequency": "daily", "run_time": "06:00"})
    path = f"/v1/monitors/{monitor['id']}"
    assert client.get(path, headers=auth).json() == monitor

    clock.advance(timedelta(hours=1))
    renamed = client.patch(path, json={"name": "Renamed"}, headers=auth)
    assert renamed.status_code == 200
    assert renamed.json()["name"] == "Renamed"
    assert renamed.json()["next_run_at"] == monitor["next_run_at"]
    assert renamed.json()["updated_at"] == "2026-11-25T13:00:00Z"

    moved = client.patch(
        path, json={"schedule": {"timezone": "America/New_York"}}, headers=auth
    ).json()
    assert moved["schedule"] == {
        "frequency": "daily",
        "timezone": "America/New_York",
        "run_time": "06:00",
    }
    assert moved["next_run_at"] == "2026-11-26T11:00:00Z"  # 06:00 EST
    hourly = client.patch(
        path, json={"schedule": {"frequency": "hourly", "minute": 30}}, headers=auth
    ).json()
    assert hourly["schedule"]["minute"] == 30
    assert hourly["next_run_at"] == "2026-11-25T13:30:00Z"
    assert hourly["search"] == monitor["search"]

    deleted = client.delete(path, headers=auth)
    assert deleted.status_code == 200
    assert deleted.json()["status"] == "disabled"
    assert deleted.json()["next_run_at"] is None
    again = client.delete(path, headers=auth)
    assert again.status_code == 200
    assert again.json()["status"] == "disabled"
    # a disabled monitor can be renamed but is never scheduled again
    patched = client.patch(path, json={"schedule": {"minute": 5}}, headers=auth).json()
    assert patched["next_run_at"] is None


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"search": {"query": "other"}}, "field_not_allowed", "search"),
        ({"status": "active"}, "field_not_allowed", "status"),
        ({"name": "x", "status": "disabled"}, "field_not_allowed", "status"),
        ({"description": "x"}, "invalid_request", "description"),
        ({"schedule": {"timezone": "Nowhere/Land"}}, "invalid_timezone", "schedule.timezone"),
        ({"schedule": {"run_time": "09:00"}}, "invalid_request", "schedule.run_time"),
        ({"name": ""}, "invalid_request", "name"),
    ],
)
@SQLITE_ONLY
def test_patch_errors(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    body: dict[str, Any],
    code: str,
    field: str,
) -> None:
    monitor = make_monitor()
    response = client.patch(f"/v1/monitors/{monitor['id']}", json=body, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == code
    assert field in [d["field"] for d in response.json()["details"]]
    assert client.get(f"/v1/monitors/{monitor['id']}", headers=auth).json() == monitor


def test_run_now_and_backfill_on_a_disabled_monitor_are_409(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    monitor = make_monitor()
    client.delete(f"/v1/monitors/{monitor['id']}", headers=auth)
    run = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    assert run.status_code == 409
    assert run.json()["error"] == "monitor_disabled"
    backfill = client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-11-01"]}, headers=auth
    )
    assert backfill.status_code == 409
    assert backfill.json()["error"] == "monitor_disabled"


MONITOR_ROUTES = [
    ("GET", ""),
    ("PATCH", ""),
    ("DELETE", ""),
    ("POST", "/run"),
    ("POST", "/backfills"),
    ("GET", "/backfills"),
    ("GET", "/backfills/00000000-0000-0000-0000-000000000000"),
    ("GET", "/runs"),
    ("GET", "/results"),
    ("POST", "/search"),
]


@pytest.mark.parametrize(("method", "suffix"), MONITOR_ROUTES)
def test_another_workspace_gets_404_everywhere(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    make_monitor: MonitorFactory,
    method: str,
    suffix: str,
) -> None:
    monitor = make_monitor()
    body: dict[str, Any] | None = None
    if method == "PATCH":
        body = {"name": "stolen"}
    elif suffix == "/backfills":
        body = {"dates": ["2026-11-01"]}
    elif suffix == "/search":
        body = {"query": "solar"}
    for target in (monitor["id"], "mon_doesnotexist0000000"):
        response = client.request(
            method, f"/v1/monitors/{target}{suffix}", json=body, headers=other_auth
        )
        assert response.status_code == 404, (target, response.text)
        assert response.json()["error"] == "not_found"
    assert client.get(f"/v1/monitors/{monitor['id']}", headers=auth).json() == monitor
    assert client.get("/v1/monitors", headers=other_auth).json()["monitors"] == []


def test_monitors_need_a_key(client: TestClient) -> None:
    response = client.get("/v1/monitors")
    assert response.status_code == 401
    assert response.json()["error"] == "unauthorized"
