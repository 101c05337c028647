"""Run-now and dated jobs end to end: queueing, the store, counts, ledger, runs, results."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.monitor import MonitorResult, MonitorRun
from herald.runtime import Runtime

MonitorFactory = Callable[..., dict[str, Any]]
Content = Callable[..., str]
Drain = Callable[[], int]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)  # type: ignore[misc]


def test_run_now_queues_today_and_the_trailing_three_days(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    monitor = make_monitor()
    response = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"task_id", "status", "queued", "skipped", "summary", "meta"}
    assert body["status"] == "queued"
    assert [q["published_date"] for q in body["queued"]] == [
        "2026-11-25",
        "2026-11-24",
        "2026-11-23",
        "2026-11-22",
    ]
    for job in body["queued"]:
        assert job["task_id"] == job["run_id"]
        assert job["already_complete"] is False
        assert job["latest_indexed_content"] is None
    assert body["summary"] == {
        "requested": 4,
        "queued": 4,
        "already_complete": 0,
        "already_running": 0,
        "failed": 0,
    }
    # the same dates again while those jobs are queued: nothing is queued twice
    again = client.post(f"/v1/monitors/{monitor['id']}/run", json={}, headers=auth).json()
    assert again["queued"] == []
    assert again["summary"]["already_running"] == 4
    assert again["status"] == "succeeded"  # nothing to wait for
    assert {s["reason"] for s in again["skipped"]} == {"already_running"}


def test_run_now_rejects_a_body_with_fields(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    monitor = make_monitor()
    response = client.post(f"/v1/monitors/{monitor['id']}/run", json={"x": 1}, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_dated_jobs_fill_the_store_once_and_count_new_results(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    first = content("Solar farm opens", utc(2026, 11, 25, 8), enriched_at=utc(2026, 11, 25, 8, 30))
    content("Solar tariffs", utc(2026, 11, 23, 23, 59, 59), enriched_at=utc(2026, 11, 24, 1))
    content("Wind farm opens", utc(2026, 11, 25, 9))  # does not match
    content("Solar eclipse", utc(2026, 11, 21, 9))  # outside the four days
    monitor = make_monitor("solar")
    mid = monitor["id"]
    task = client.post(f"/v1/monitors/{mid}/run", headers=auth).json()
    assert drain() == 1  # one durable job carries the four dated runs

    view = client.get(f"/v1/monitors/{mid}/backfills/{task['task_id']}", headers=auth).json()
    assert view["status"] == "succeeded"
    assert view["kind"] == "manual"
    assert view["summary"] == {
        "requested": 4,
        "queued": 0,
        "running": 0,
        "succeeded": 4,
        "failed": 0,
        "skipped": 0,
    }
    by_date = {t["published_date"]: t for t in view["tasks"]}
    assert by_date["2026-11-25"]["result_count"] == 1
    assert by_date["2026-11-25"]["latest_indexed_content"] == "2026-11-25T08:30:00Z"
    assert by_date["2026-11-23"]["result_count"] == 1  # 23:59:59 belongs to the 23rd
    assert by_date["2026-11-24"]["result_count"] == 0
    assert by_date["2026-11-24"]["latest_indexed_content"] is None

    # a later article for today, then run again: one new result, nothing duplicated
    clock.advance(timedelta(hours=1))
    second = content(
        "Solar storage record", utc(2026, 11, 25, 12, 30), enriched_at=utc(2026, 11, 25, 12, 40)
    )
    task2 = client.post(f"/v1/monitors/{mid}/run", headers=auth).json()
    drain()
    view2 = client.get(f"/v1/monitors/{mid}/backfills/{task2['task_id']}", headers=auth).json()
    today = next(t for t in view2["tasks"] if t["published_date"] == "2026-11-25")
    assert (today["result_count"], today["new_result_count"]) == (2, 1)
    assert today["latest_indexed_content"] == "2026-11-25T12:40:00Z"
    earlier = next(t for t in view2["tasks"] if t["published_date"] == "2026-11-23")
    assert (earlier["result_count"], earlier["new_result_count"]) == (1, 0)
    with runtime.sessions.read() as session:
        stored = session.scalars(
            select(MonitorResult.content_id).where(MonitorResult.monitor_id == mid)
        ).all()
        first_row = session.get(MonitorResult, (mid, first))
    assert sorted(stored) == sorted(set(stored))
    assert len(stored) == 3
    assert first_row is not None
    assert first_row.first_captured_at == utc(2026, 11, 25, 12)  # kept from the first capture

    results = client.get(f"/v1/monitors/{mid}/results", headers=auth).json()
    assert set(results) == {
        "monitor_id",
        "results",
        "limit",
        "offset",
        "next_offset",
        "has_more",
        "meta",
    }
    assert results["results"][0]["content_item"]["id"] == second  # newest first
    top = results["results"][0]
    assert set(top) == {"content_item", "published_date", "first_captured_at", "score"}
    assert top["published_date"] == "2026-11-25"
    assert top["first_captured_at"] == "2026-11-25T13:00:00Z"
    assert top["content_item"]["title"] == "Solar storage record"
    assert "body" not in top["content_item"]


def test_runs_list_parents_before_their_dated_jobs_newest_first(
    client: TestClient,
    auth: dict[str, str],
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    content("Solar one", utc(2026, 11, 25, 1))
    content("Solar two", utc(2026, 11, 24, 1))
    monitor = make_monitor()
    first = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth).json()
    drain()
    clock.advance(timedelta(minutes=5))
    second = client.post(
        f"/v1/monitors/{monitor['id']}/backfills", json={"dates": ["2026-10-01"]}, headers=auth
    ).json()
    body = client.get(f"/v1/monitors/{monitor['id']}/runs", headers=auth).json()
    assert set(body) == {"monitor_id", "runs", "limit", "offset", "next_offset", "has_more", "meta"}
    runs = body["runs"]
    assert len(runs) == 1 + 1 + 1 + 4
    assert [r["kind"] for r in runs] == ["backfill", "dated", "manual"] + ["dated"] * 4
    assert runs[0]["run_id"] == second["task_id"]
    assert runs[1]["parent_run_id"] == second["task_id"]
    assert runs[1]["status"] == "queued"
    assert runs[2]["run_id"] == first["task_id"]
    assert runs[2]["parent_run_id"] is None
    assert runs[2]["published_date"] is None
    assert (runs[2]["result_count"], runs[2]["new_result_count"]) == (2, 2)  # sums
    assert [r["published_date"] for r in runs[3:]] == [
        "2026-11-25",
        "2026-11-24",
        "2026-11-23",
        "2026-11-22",
    ]
    assert set(runs[3]) == {
        "run_id",
        "kind",
        "parent_run_id",
        "published_date",
        "status",
        "created_at",
        "started_at",
        "finished_at",
        "result_count",
        "new_result_count",
        "error_message",
    }
    page = client.get(f"/v1/monitors/{monitor['id']}/runs?limit=2&offset=2", headers=auth).json()
    assert [r["run_id"] for r in page["runs"]] == [r["run_id"] for r in runs[2:4]]
    assert (page["next_offset"], page["has_more"]) == (4, True)
    too_big = client.get(f"/v1/monitors/{monitor['id']}/runs?limit=101", headers=auth)
    assert too_big.status_code == 400


def test_results_date_bounds_are_inclusive_dates_or_datetimes(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    ids = {day: content(f"Solar day {day}", utc(2026, 11, day, 10)) for day in (22, 23, 24, 25)}
    monitor = make_monitor()
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    path = f"/v1/monitors/{monitor['id']}/results"

    def found(query: str) -> list[str]:
        response = client.get(f"{path}?{query}", headers=auth)
        assert response.status_code == 200, response.text
        return [r["content_item"]["id"] for r in response.json()["results"]]

    assert found("") == [ids[25], ids[24], ids[23], ids[22]]
    assert found("start_date=2026-11-23&end_date=2026-11-24") == [ids[24], ids[23]]
    assert found("end_date=2026-11-22") == [ids[22]]
    assert found("start_date=2026-11-24T10:00:00Z") == [ids[25], ids[24]]
    assert found("start_date=2026-11-24T10:00:01Z") == [ids[25]]
    assert found("end_date=2026-11-23T10:00:00") == [ids[23], ids[22]]  # no offset = UTC
    assert found("limit=1&offset=1") == [ids[24]]
    backwards = client.get(f"{path}?start_date=2026-11-24&end_date=2026-11-23", headers=auth)
    assert backwards.status_code == 400
    assert backwards.json()["error"] == "date_window_too_long"
    garbage = client.get(f"{path}?start_date=yesterday", headers=auth)
    assert garbage.status_code == 400
    assert garbage.json()["error"] == "invalid_request"


def test_search_within_the_store_only(
    client: TestClient,
    auth: dict[str, str],
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    captured = content("Solar grid deal", utc(2026, 11, 25, 6))
    monitor = make_monitor("solar")
    path = f"/v1/monitors/{monitor['id']}/search"
    empty = client.post(path, json={"query": "grid"}, headers=auth)
    assert empty.status_code == 200
    assert empty.json()["results"] == []
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    content("Grid failure downtown", utc(2026, 11, 25, 7))  # matches "grid" but not captured
    body = client.post(path, json={"query": "grid"}, headers=auth).json()
    assert set(body) == {"results", "meta"}
    assert [r["content_item"]["id"] for r in body["results"]] == [captured]
    assert 0 <= body["results"][0]["score"] <= 1
    window = {"query": "grid", "start_date": "2026-11-01", "end_date": "2026-11-20"}
    assert client.post(path, json=window, headers=auth).json()["results"] == []


def test_search_within_the_store_follows_the_content_search_rules(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    path = f"/v1/monitors/{make_monitor()['id']}/search"
    cases = [
        ({"query": "x", "start_date": "2026-11-01"}, "date_window_incomplete"),
        (
            {"query": "x", "start_date": "2026-01-01", "end_date": "2026-11-01"},
            "date_window_too_long",
        ),
        (
            {"query": "x", "start_date": "2026-11-02", "end_date": "2026-11-01"},
            "date_window_too_long",
        ),
        (
            {"query": "x", "include_domains": ["a.com"], "exclude_domains": ["b.com"]},
            "domain_filter_conflict",
        ),
        ({"query": "x", "exclude_domains": [f"d{i}.com" for i in range(11)]}, "too_many_domains"),
        ({"query": "x", "limit": 101}, "invalid_request"),
        ({"query": "x", "limit": "10"}, "invalid_request"),
        ({"query": "x", "colour": "red"}, "invalid_request"),
        ({}, "invalid_request"),
    ]
    for body, code in cases:
        response = client.post(path, json=body, headers=auth)
        assert response.status_code == 400, body
        assert response.json()["error"] == code, (body, response.json())
    at_limit = {"query": "x", "start_date": "2026-09-26", "end_date": "2026-11-25", "limit": 100}
    assert client.post(path, json=at_limit, headers=auth).status_code == 200


def test_deleted_content_leaves_the_results(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    from herald.db.models.content import ContentItem

    gone = content("Solar retraction", utc(2026, 11, 25, 3))
    kept = content("Solar keeps", utc(2026, 11, 25, 4))
    monitor = make_monitor()
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    with runtime.sessions.write() as session:
        item = session.get(ContentItem, gone)
        assert item is not None
        item.deleted_at = utc(2026, 11, 25, 12, 1)
    body = client.get(f"/v1/monitors/{monitor['id']}/results", headers=auth).json()
    assert [r["content_item"]["id"] for r in body["results"]] == [kept]


def test_each_dated_job_searches_one_utc_day_with_limit_1000(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    word_search: Any,
    drain: Drain,
) -> None:
    monitor = make_monitor(
        "rates", search={"query": "rates", "media_types": ["wire"], "include_domains": ["a.com"]}
    )
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    windows = sorted((c.start, c.end) for c in word_search.calls)
    assert windows == [(utc(2026, 11, d), utc(2026, 11, d + 1)) for d in (22, 23, 24, 25)]
    assert {c.limit for c in word_search.calls} == {1000}
    assert {c.media_types for c in word_search.calls} == {frozenset({"wire"})}
    assert {c.include_domains for c in word_search.calls} == {("a.com",)}
    assert {c.within_content_ids for c in word_search.calls} == {None}


def test_the_store_keeps_one_row_per_item_whatever_reruns(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    for hour in range(6):
        content(f"Solar update {hour}", utc(2026, 11, 24, hour))
    monitor = make_monitor()
    for _ in range(3):
        client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
        drain()
        clock.advance(timedelta(minutes=10))
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(func.count(), func.count(func.distinct(MonitorResult.content_id))).where(
                MonitorResult.monitor_id == monitor["id"]
            )
        ).one()
        dated = session.scalars(
            select(MonitorRun).where(
                MonitorRun.monitor_id == monitor["id"],
                MonitorRun.published_date == utc(2026, 11, 24).date(),
            )
        ).all()
    assert tuple(rows) == (6, 6)
    assert sorted((r.result_count, r.new_result_count) for r in dated) == [(6, 0), (6, 0), (6, 6)]
