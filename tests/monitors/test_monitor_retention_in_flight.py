"""A date that passes the retention limit while its dated job is still in flight (waiting to
retry): a later backfill of it queues nothing, and the date's ledger entry keeps following the
job in flight until it ends, as it does for every date (the latest dated job, never a task)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from fastapi.testclient import TestClient

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.monitors.support import WordSearch, use_word_search

# The frozen clock's now is 2026-11-25 12:00 UTC: with 3 days the first kept date is 2026-11-22,
# and a day later 2026-11-23.
RETENTION_DAYS = 3
DAY = date(2026, 11, 22)


@pytest.fixture
def settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"retention_days": RETENTION_DAYS})


def test_the_ledger_follows_a_job_in_flight_past_the_retention_limit(
    client: TestClient, auth: dict[str, str], runtime: Runtime, clock: FrozenClock
) -> None:
    search = use_word_search(runtime, WordSearch(fail_dates=frozenset({DAY})))
    created = client.post(
        "/v1/monitors", json={"name": "watch", "search": {"query": "solar"}}, headers=auth
    )
    path = f"/v1/monitors/{created.json()['id']}/backfills"
    first = client.post(path, json={"dates": [DAY.isoformat()]}, headers=auth).json()
    [queued] = first["queued"]
    worker = Worker(runtime)
    worker.drain()  # the search fails: the job waits to retry

    clock.advance(timedelta(days=1))  # the date is now past retention
    again = client.post(path, json={"dates": [DAY.isoformat()]}, headers=auth)
    assert again.status_code == 202, again.text
    assert again.json()["queued"] == []
    [entry] = client.get(path, headers=auth).json()["backfills"]
    assert (entry["run_id"], entry["status"]) == (queued["run_id"], "running"), entry

    search.fail_dates = frozenset()  # the search answers again: the retry succeeds
    worker.drain()
    [entry] = client.get(path, headers=auth).json()["backfills"]
    assert (entry["run_id"], entry["status"]) == (queued["run_id"], "succeeded"), entry
    task = client.get(f"{path}/{first['task_id']}", headers=auth).json()
    assert task["status"] == "succeeded"
