"""A dated run whose search failed is queued again with the priority its origin gave it: a
scheduled run's retry still goes before bulk backfills, a run-now's before the schedule."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.jobs.worker import Worker
from herald.monitors.queueing import DATED_JOB_KIND
from herald.monitors.tasks import schedule_monitors
from herald.runtime import Runtime
from tests.monitors.support import WordSearch, use_word_search

FAILING = date(2026, 11, 24)


def queued_dated_jobs(runtime: Runtime) -> list[tuple[list[str], int, datetime]]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(Job.payload, Job.priority, Job.run_at).where(
                Job.kind == DATED_JOB_KIND, Job.status == "queued"
            )
        ).all()
    return [(list(r.payload["run_ids"]), r.priority, r.run_at) for r in rows]


def queue(
    origin: str, client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock
) -> None:
    body: dict[str, Any] = {"name": "watch", "search": {"query": "solar"}}
    if origin == "scheduled":
        body["schedule"] = {"minute": 15}
    monitor = client.post("/v1/monitors", json=body, headers=auth).json()
    path = f"/v1/monitors/{monitor['id']}"
    if origin == "scheduled":
        clock.set(datetime(2026, 11, 25, 12, 15, 2, tzinfo=UTC))
        assert schedule_monitors(runtime) == 1
    elif origin == "manual":
        assert client.post(f"{path}/run", headers=auth).status_code == 202
    else:
        dates = ["2026-11-23", FAILING.isoformat()]
        assert (
            client.post(f"{path}/backfills", json={"dates": dates}, headers=auth).status_code == 202
        )


@pytest.mark.parametrize("origin", ["scheduled", "manual", "backfill"])
def test_a_retried_dated_run_keeps_its_priority(
    origin: str,
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    clock: FrozenClock,
) -> None:
    use_word_search(runtime, WordSearch(fail_dates=frozenset({FAILING})))
    queue(origin, client, auth, runtime, clock)
    first = queued_dated_jobs(runtime)
    assert len(first) == 1, first  # one job carries the task's dates
    [(_, priority, _)] = first
    worker = Worker(runtime)
    worker.drain()
    # The failed date's run is queued again, later, and as urgent as before.
    [(run_ids, retried, run_at)] = queued_dated_jobs(runtime)
    assert len(run_ids) == 1
    assert run_at > clock.now()
    assert retried == priority, (origin, retried, priority)
    # And so is its next retry.
    clock.advance(timedelta(hours=1))
    worker.drain()
    [(_, again, _)] = queued_dated_jobs(runtime)
    assert again == priority
