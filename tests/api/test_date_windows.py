"""Dates at every endpoint that takes them: one set of window rules, and never a 500.

- a datetime start and a date-only end on the same day is a valid window (the end is inclusive);
- a start after the end is ``date_window_too_long``, webhook events and stats included;
- dates at the edges of the calendar (0001-01-01, 9999-12-31, offsets past them) are a 400 in the
  error envelope or a normal answer, never a 500.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

Call = Callable[[dict[str, str]], Any]


@pytest.fixture
def monitor_id(client: TestClient, auth: dict[str, str]) -> str:
    body = {"name": "solar watch", "search": {"query": "solar"}}
    response = client.post("/v1/monitors", json=body, headers=auth)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def endpoints(client: TestClient, auth: dict[str, str], monitor_id: str) -> dict[str, Call]:
    """Each endpoint as a call taking ``{"start": ..., "end": ...}`` in its own parameter names."""

    def dates(window: dict[str, str], start: str = "start_date", end: str = "end_date") -> Any:
        return {{"start": start, "end": end}[name]: value for name, value in window.items()}

    def search(path: str) -> Call:
        return lambda w: client.post(path, json={"query": "solar", **dates(w)}, headers=auth)

    def get(path: str, **names: str) -> Call:
        return lambda w: client.get(path, params=dates(w, **names), headers=auth)

    return {
        "content search": search("/v1/content/search"),
        "store search": search(f"/v1/monitors/{monitor_id}/search"),
        "results": get(f"/v1/monitors/{monitor_id}/results"),
        "clusters": get("/v1/news/clusters"),
        "webhook events": get("/v1/webhooks/events", start="start", end="end"),
        "webhook stats": get("/v1/webhooks/stats", start="start", end="end"),
    }


def test_a_datetime_start_and_a_date_only_end_on_the_same_day_is_a_window(
    client: TestClient, auth: dict[str, str], monitor_id: str
) -> None:
    for name, call in endpoints(client, auth, monitor_id).items():
        response = call({"start": "2026-11-20T10:00:00Z", "end": "2026-11-20"})
        assert response.status_code == 200, (name, response.json())


@pytest.mark.parametrize(
    "window",
    [
        {"start": "2026-11-21", "end": "2026-11-20"},
        {"start": "2026-11-20T10:00:01Z", "end": "2026-11-20T10:00:00Z"},
        {"start": "2026-11-21T00:00:00Z", "end": "2026-11-20"},
    ],
)
def test_start_after_end_is_date_window_too_long_everywhere(
    client: TestClient, auth: dict[str, str], monitor_id: str, window: dict[str, str]
) -> None:
    calls = endpoints(client, auth, monitor_id)
    calls["ledger"] = lambda w: client.get(
        f"/v1/monitors/{monitor_id}/backfills",
        params={"start_date": w["start"][:10], "end_date": w["end"][:10]},
        headers=auth,
    )
    calls["timeline"] = lambda w: client.get(
        "/v1/entities/ent_unknown/timeline",
        params={"start_date": w["start"], "end_date": w["end"]},
        headers=auth,
    )
    for name, call in calls.items():
        if name == "ledger" and window["start"][:10] == window["end"][:10]:
            continue  # the ledger takes dates only: the same day twice is a valid window
        response = call(window)
        assert response.status_code == 400, (name, response.json())
        assert response.json()["error"] == "date_window_too_long", name


EDGES = [
    "0001-01-01",
    "9999-12-31",
    "0001-01-01T00:00:00Z",
    "0001-01-01T00:30:00+01:00",  # before the calendar once converted to UTC
    "9999-12-31T23:59:59.999999Z",
    "9999-12-31T23:00:00-05:00",  # after it
]


@pytest.mark.parametrize("value", EDGES)
def test_dates_at_the_calendar_edges_are_never_a_500(
    client: TestClient, auth: dict[str, str], monitor_id: str, value: str
) -> None:
    calls = endpoints(client, auth, monitor_id)
    calls["timeline"] = lambda w: client.get(
        "/v1/entities/ent_unknown/timeline",
        params={k + "_date": v for k, v in w.items()},
        headers=auth,
    )
    if len(value) == 10:
        calls["ledger"] = lambda w: client.get(
            f"/v1/monitors/{monitor_id}/backfills",
            params={k + "_date": v for k, v in w.items()},
            headers=auth,
        )
    windows = [{"start": value}, {"end": value}, {"start": value, "end": value}]
    for name, call in calls.items():
        for window in windows:
            response = call(window)
            assert response.status_code in (200, 400, 404), (name, window, response.text)
            if response.status_code != 200:
                body = response.json()
                assert body["meta"]["request_id"] == response.headers["x-request-id"]
                assert body["error"] in {
                    "invalid_request",
                    "date_window_incomplete",
                    "date_window_too_long",
                    "not_found",
                }, (name, window, body)


def test_a_window_from_the_first_day_of_the_calendar_is_answered(
    client: TestClient, auth: dict[str, str], monitor_id: str
) -> None:
    """Year-1 instants reach both databases and come back zero-padded."""
    results = client.get(
        f"/v1/monitors/{monitor_id}/results",
        params={"start_date": "0001-01-01", "end_date": "2026-11-20"},
        headers=auth,
    )
    assert results.status_code == 200, results.text
    stats = client.get(
        "/v1/webhooks/stats",
        params={"start": "0001-01-01", "end": "0001-01-02"},
        headers=auth,
    )
    assert stats.status_code == 200, stats.text
    assert stats.json()["start_at"] == "0001-01-01T00:00:00Z"
    assert stats.json()["end_at"] == "0001-01-02T23:59:59.999Z"
    end_of_calendar = client.get("/v1/webhooks/events", params={"end": "9999-12-31"}, headers=auth)
    assert end_of_calendar.status_code == 400
    assert end_of_calendar.json()["details"][0]["field"] == "end"


@pytest.mark.parametrize("name", ["start", "end"])
def test_an_empty_date_parameter_is_a_400_not_an_absent_one(
    client: TestClient, auth: dict[str, str], monitor_id: str, name: str
) -> None:
    calls = {k: v for k, v in endpoints(client, auth, monitor_id).items() if "search" not in k}
    for endpoint, call in calls.items():
        response = call({name: ""})
        assert response.status_code == 400, (endpoint, response.text)
        body = response.json()
        assert body["error"] == "invalid_request", endpoint
        assert body["details"][0]["field"].startswith(name), (endpoint, body)
