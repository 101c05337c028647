"""Backfill requests: limits, date validation, already_running, skip_complete, the 72-hour rule
and the last dates of the calendar."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.monitor import MonitorRun
from herald.monitors import dated_jobs
from herald.runtime import Runtime
from tests.monitors.backfill_support import (
    Content,
    Drain,
    MonitorFactory,
    backfill,
    days_before,
    utc,
)
from tests.monitors.support import WordSearch


def test_one_hundred_dates_accepted_one_hundred_and_one_rejected(
    client: TestClient, auth: dict[str, str], runtime: Runtime, make_monitor: MonitorFactory
) -> None:
    monitor = make_monitor()
    hundred = days_before(date(2026, 11, 20), 100)
    response = backfill(client, auth, monitor["id"], hundred)
    assert response.status_code == 202
    body = response.json()
    assert body["summary"] == {
        "requested": 100,
        "queued": 100,
        "already_complete": 0,
        "already_running": 0,
        "failed": 0,
    }
    assert [q["published_date"] for q in body["queued"]] == hundred  # request order
    assert body["skipped"] == []

    too_many = backfill(client, auth, monitor["id"], days_before(date(2025, 1, 1), 101))
    assert too_many.status_code == 400
    assert too_many.json()["error"] == "too_many_dates"
    with runtime.sessions.read() as session:
        parents = session.scalar(
            select(func.count()).select_from(MonitorRun).where(MonitorRun.kind == "backfill")
        )
    assert parents == 1  # the rejected request queued nothing


@pytest.mark.parametrize(
    ("dates", "field"),
    [
        (["2026-02-30"], "dates.0"),
        (["2026-11-01", "2026-11-01"], "dates.1"),
        (["11/01/2026"], "dates.0"),
        (["2026-11-01T00:00:00Z"], "dates.0"),
        ([], "dates"),
        (["2026-11-01", "9999-12-31"], "dates.1"),  # no job can search the day after it
    ],
)
@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # validation only
def test_bad_dates(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    dates: list[str],
    field: str,
) -> None:
    response = backfill(client, auth, make_monitor()["id"], dates)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    assert field in [d["field"] for d in response.json()["details"]]


def test_backfill_body_types(
    client: TestClient, auth: dict[str, str], make_monitor: MonitorFactory
) -> None:
    path = f"/v1/monitors/{make_monitor()['id']}/backfills"
    for body in ({}, {"dates": "2026-11-01"}, {"dates": ["2026-11-01"], "skip_complete": "no"}):
        response = client.post(path, json=body, headers=auth)
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_request"


def test_a_date_with_a_queued_or_running_job_is_already_running(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    word_search: WordSearch,
) -> None:
    monitor = make_monitor()
    first = backfill(client, auth, monitor["id"], ["2026-11-01", "2026-11-02"]).json()
    second = backfill(client, auth, monitor["id"], ["2026-11-02", "2026-11-03"]).json()
    assert [q["published_date"] for q in second["queued"]] == ["2026-11-03"]
    assert second["skipped"] == [
        {
            "published_date": "2026-11-02",
            "already_complete": False,
            "latest_indexed_content": None,
            "reason": "already_running",
        }
    ]
    assert second["summary"]["already_running"] == 1
    # running (started, not finished) counts the same as queued
    run_id = first["queued"][0]["run_id"]
    with runtime.sessions.write() as session:
        [started] = dated_jobs.start_runs(session, [run_id], clock=clock)
    third = backfill(client, auth, monitor["id"], ["2026-11-01"]).json()
    assert third["summary"] == {
        "requested": 1,
        "queued": 0,
        "already_complete": 0,
        "already_running": 1,
        "failed": 0,
    }
    with runtime.sessions.write() as session:
        dated_jobs.complete_run(session, started, [], clock=clock)
    # finished (and complete, 72 h after its midnight): queued again only when asked
    fourth = backfill(client, auth, monitor["id"], ["2026-11-01"], skip_complete=False).json()
    assert fourth["summary"]["queued"] == 1
    assert fourth["queued"][0]["already_complete"] is True


def test_skip_complete_and_the_72_hour_rule(
    client: TestClient,
    auth: dict[str, str],
    clock: FrozenClock,
    make_monitor: MonitorFactory,
    content: Content,
    drain: Drain,
) -> None:
    clock.set(utc(2026, 11, 25, 0, 0, 0))  # exactly 72 h after 2026-11-22 00:00Z
    content("Solar news", utc(2026, 11, 22, 10), enriched_at=utc(2026, 11, 22, 11))
    monitor = make_monitor()
    mid = monitor["id"]
    backfill(client, auth, mid, ["2026-11-22", "2026-11-01"])
    drain()
    # the 22nd's job started exactly at 72 h: not complete; the 1st is long complete
    again = backfill(client, auth, mid, ["2026-11-22", "2026-11-01"]).json()
    assert [q["published_date"] for q in again["queued"]] == ["2026-11-22"]
    assert again["skipped"] == [
        {
            "published_date": "2026-11-01",
            "already_complete": True,
            "latest_indexed_content": None,
            "reason": "already_complete",
        }
    ]
    assert again["summary"]["already_complete"] == 1
    drain()  # this job started at 00:00:00 too: still not complete
    clock.advance(timedelta(seconds=1))
    backfill(client, auth, mid, ["2026-11-22"])
    drain()  # started 72 h + 1 s after midnight: complete now
    skipped = backfill(client, auth, mid, ["2026-11-22"]).json()
    assert skipped["queued"] == []
    assert skipped["skipped"][0]["already_complete"] is True
    assert skipped["skipped"][0]["latest_indexed_content"] == "2026-11-22T11:00:00Z"
    assert skipped["status"] == "succeeded"
    # skip_complete false queues complete dates again and says they were complete
    forced = backfill(client, auth, mid, ["2026-11-22", "2026-11-23"], skip_complete=False).json()
    assert [(q["published_date"], q["already_complete"]) for q in forced["queued"]] == [
        ("2026-11-22", True),
        ("2026-11-23", False),
    ]
    assert forced["queued"][0]["latest_indexed_content"] == "2026-11-22T11:00:00Z"
    assert forced["summary"]["queued"] == 2
    # run-now reports complete dates as already_complete (the 22nd is the trailing third day)
    drain()
    run = client.post(f"/v1/monitors/{mid}/run", headers=auth).json()
    assert [q["published_date"] for q in run["queued"]] == [
        "2026-11-25",
        "2026-11-24",
        "2026-11-23",
    ]
    assert run["summary"]["already_complete"] == 1
    assert run["skipped"][0]["published_date"] == "2026-11-22"


def test_the_last_dates_of_the_calendar_are_searched_or_refused_at_the_request(
    client: TestClient,
    auth: dict[str, str],
    make_monitor: MonitorFactory,
    drain: Drain,
) -> None:
    """A date a dated job can search is accepted and succeeds; a later one is a 400 up front."""
    monitor = make_monitor()
    refused = backfill(client, auth, monitor["id"], ["9999-12-31"])
    assert refused.status_code == 400
    assert refused.json()["details"][0]["field"] == "dates.0"
    task = backfill(client, auth, monitor["id"], ["0001-01-01", "9999-12-29", "9999-12-30"])
    assert task.status_code == 202, task.text
    drain()
    view = client.get(
        f"/v1/monitors/{monitor['id']}/backfills/{task.json()['task_id']}", headers=auth
    ).json()
    assert view["status"] == "succeeded", view
    assert {t["status"] for t in view["tasks"]} == {"succeeded"}
    ledger = client.get(f"/v1/monitors/{monitor['id']}/backfills", headers=auth).json()
    assert [e["date"] for e in ledger["backfills"]] == ["9999-12-30", "9999-12-29", "0001-01-01"]
