"""GET /v1/news/clusters: every rule of the list in the interface and in API-DECISIONS.md
"Clusters" (featured, ordering, window defaults, limits, paging)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.runtime import Runtime
from tests.clusters.api_support import LIST_FIELDS, ids, make_cluster


def test_the_default_list_is_regular_clusters_created_in_the_last_seven_days(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    recent = make_cluster(runtime, "recent", created_at=now - timedelta(days=1))
    edge = make_cluster(runtime, "edge", created_at=now - timedelta(days=7) + timedelta(minutes=1))
    make_cluster(runtime, "old", created_at=now - timedelta(days=7, minutes=1))
    make_cluster(runtime, "stub", created_at=now - timedelta(hours=2), members=1, sources=1)

    response = client.get("/v1/news/clusters", headers=auth)
    assert response.status_code == 200
    body = response.json()
    assert ids(body) == [recent, edge]
    assert (body["limit"], body["offset"], body["next_offset"], body["has_more"]) == (
        25,
        0,
        None,
        False,
    )
    assert body["meta"]["request_id"] == response.headers["x-request-id"]
    cluster = body["clusters"][0]
    assert set(cluster) == LIST_FIELDS
    assert cluster["cluster_type"] == "cluster"
    assert cluster["status"] == "regular"
    assert cluster["created_at"] == (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_newest_first_with_limit_offset_and_next_offset(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    made = [make_cluster(runtime, f"c{n}", created_at=now - timedelta(hours=n)) for n in range(30)]
    first = client.get("/v1/news/clusters", headers=auth).json()
    assert ids(first) == made[:25]  # default limit 25, newest first
    assert (first["next_offset"], first["has_more"]) == (25, True)
    rest = client.get("/v1/news/clusters", params={"offset": 25}, headers=auth).json()
    assert ids(rest) == made[25:]
    assert (rest["offset"], rest["next_offset"], rest["has_more"]) == (25, None, False)
    page = client.get("/v1/news/clusters", params={"limit": 100}, headers=auth).json()
    assert ids(page) == made
    two = client.get("/v1/news/clusters", params={"limit": 2, "offset": 3}, headers=auth).json()
    assert ids(two) == made[3:5]
    assert two["next_offset"] == 5


@pytest.mark.parametrize(
    "params",
    [{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"offset": -1}],
)
def test_out_of_range_paging_is_a_400(
    client: TestClient, auth: dict[str, str], params: dict[str, Any]
) -> None:
    response = client.get("/v1/news/clusters", params=params, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_creation_windows(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    late = make_cluster(
        runtime, "late", created_at=day - timedelta(days=10, hours=-23)
    )  # D-10 23:00
    early = make_cluster(runtime, "early", created_at=day - timedelta(days=20))
    current = make_cluster(runtime, "current", created_at=now - timedelta(hours=1))

    def listed(**params: str) -> list[str]:
        response = client.get("/v1/news/clusters", params=params, headers=auth)
        assert response.status_code == 200, response.json()
        return ids(response.json())

    d10 = (day - timedelta(days=10)).date().isoformat()
    d30 = (day - timedelta(days=30)).date().isoformat()
    assert listed(start_date=d30, end_date=d10) == [late, early]  # a date-only end is inclusive
    assert listed(start_date=d10) == [current, late]  # a lone start runs through now
    assert listed(end_date=d10) == [late]  # a lone end covers the 7 days before it
    # Datetimes without an offset are UTC; a datetime end is inclusive of that instant.
    assert listed(start_date=f"{d10}T22:00:00", end_date=f"{d10}T23:00:00") == [late]
    assert listed(start_date=f"{d10}T22:00:00", end_date=f"{d10}T22:59:59") == []
    assert listed(start_date=d30, end_date=now.date().isoformat()) == [current, late, early]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"start_date": "2026-11-20", "end_date": "2026-11-10"}, "date_window_too_long"),
        ({"start_date": "2030-01-01"}, "date_window_too_long"),
        ({"start_date": "yesterday"}, "invalid_request"),
        ({"end_date": "2026-13-01"}, "invalid_request"),
    ],
)
def test_bad_windows_are_a_400(
    client: TestClient, auth: dict[str, str], params: dict[str, str], code: str
) -> None:
    response = client.get("/v1/news/clusters", params=params, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == code


def test_featured_needs_five_unique_sources(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    five = make_cluster(runtime, "five", created_at=now - timedelta(hours=1), members=5, sources=5)
    four = make_cluster(runtime, "four", created_at=now - timedelta(hours=2), members=6, sources=4)
    body = client.get("/v1/news/clusters", headers=auth).json()
    status = {c["cluster_id"]: c["featured_status"] for c in body["clusters"]}
    assert status == {five: "featured", four: "standard"}


def test_limit_bounds_and_an_offset_past_the_end(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    made = [make_cluster(runtime, f"b{n}", created_at=now - timedelta(hours=n)) for n in range(3)]
    one = client.get("/v1/news/clusters", params={"limit": 1}, headers=auth).json()
    assert ids(one) == made[:1]
    assert (one["limit"], one["next_offset"], one["has_more"]) == (1, 1, True)
    last = client.get("/v1/news/clusters", params={"limit": 1, "offset": 2}, headers=auth).json()
    assert ids(last) == made[2:]
    assert (last["next_offset"], last["has_more"]) == (None, False)
    beyond = client.get("/v1/news/clusters", params={"offset": 50}, headers=auth).json()
    assert (beyond["clusters"], beyond["offset"], beyond["next_offset"]) == ([], 50, None)
    assert beyond["has_more"] is False


def test_equal_creation_times_are_ordered_by_cluster_id_descending(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    at = now - timedelta(hours=3)
    made = [make_cluster(runtime, f"tie{n}", created_at=at) for n in range(4)]
    newer = make_cluster(runtime, "newer", created_at=at + timedelta(seconds=1))
    body = client.get("/v1/news/clusters", headers=auth).json()
    assert ids(body) == [newer, *sorted(made, reverse=True)]
    # Paging through ties neither repeats nor skips a cluster.
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = client.get(
            "/v1/news/clusters", params={"limit": 2, "offset": offset}, headers=auth
        ).json()
        seen += ids(page)
        offset = page["next_offset"]
    assert seen == ids(body)


def test_window_edges_of_the_defaults(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    just_now = make_cluster(runtime, "just-now", created_at=now)
    make_cluster(runtime, "seven-days", created_at=now - timedelta(days=7))
    assert ids(client.get("/v1/news/clusters", headers=auth).json()) == [just_now]

    # A lone date-only end_date: the 7 days through the end of that day.
    end = (now - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)
    inside = make_cluster(runtime, "first-day", created_at=end - timedelta(days=6))
    make_cluster(runtime, "day-before", created_at=end - timedelta(days=6, seconds=1))
    last = make_cluster(runtime, "end-of-day", created_at=end + timedelta(hours=23, minutes=59))
    make_cluster(runtime, "next-day", created_at=end + timedelta(days=1))
    response = client.get(
        "/v1/news/clusters", params={"end_date": end.date().isoformat()}, headers=auth
    )
    assert ids(response.json()) == [last, inside]

    # A date-only start_date begins at 00:00:00Z of that day.
    response = client.get(
        "/v1/news/clusters",
        params={
            "start_date": (end - timedelta(days=6)).date().isoformat(),
            "end_date": end.date().isoformat(),
        },
        headers=auth,
    )
    assert ids(response.json()) == [last, inside]


def test_datetimes_with_an_offset_are_converted_to_utc(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    at = (now - timedelta(days=2)).replace(hour=8, minute=0, second=0, microsecond=0)
    cluster_id = make_cluster(runtime, "offset", created_at=at)
    day = at.date().isoformat()

    def listed(start: str, end: str) -> list[str]:
        params = {"start_date": start, "end_date": end}
        response = client.get("/v1/news/clusters", params=params, headers=auth)
        assert response.status_code == 200, response.json()
        return ids(response.json())

    assert listed(f"{day}T10:00:00+02:00", f"{day}T10:00:00+02:00") == [cluster_id]
    assert listed(f"{day}T08:00:00Z", f"{day}T08:00:00Z") == [cluster_id]
    assert listed(f"{day}T08:00:00+01:00", f"{day}T08:59:59+01:00") == []  # 07:00-07:59Z


def test_the_list_is_never_cut_to_a_maximum_window(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    old = make_cluster(runtime, "ancient", created_at=now - timedelta(days=400))
    response = client.get(
        "/v1/news/clusters",
        params={"start_date": (now - timedelta(days=500)).date().isoformat()},
        headers=auth,
    )
    assert response.status_code == 200
    assert ids(response.json()) == [old]
