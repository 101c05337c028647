"""A run-now and the scheduled run of the same monitor queued at once (SQLite and PostgreSQL):
each date runs once, the ledger points at the run that ran it, every result is stored once and
announced in one event."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.monitor import MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.db.models.webhooks import WebhookEvent
from herald.monitors import requests
from herald.monitors.scheduling import claim_due_monitors
from herald.runtime import Runtime
from herald.workspaces.service import CreatedKey
from tests.content.blocking import Background, held_open, wait_until_blocked
from tests.monitors.test_monitor_events import enable_webhooks


def test_run_now_and_the_scheduled_run_queued_at_once_run_each_date_once(
    runtime: Runtime,
    clock: FrozenClock,
    member_key: CreatedKey,
    make_monitor: Callable[..., dict[str, Any]],
    content: Callable[..., str],
    drain: Callable[[], int],
) -> None:
    enable_webhooks(runtime, member_key.team_id)
    ids = [
        content(f"Solar story {n}", datetime(2026, 11, 22 + n % 4, 1, n, tzinfo=UTC))
        for n in range(12)
    ]
    monitor = make_monitor()
    clock.advance(timedelta(hours=1))  # the monitor's first slot is due

    def scheduled(session: Any) -> Any:
        return claim_due_monitors(session, clock=clock)

    def manual() -> Any:
        with runtime.sessions.write() as session:
            return requests.run_now(
                session, team_id=member_key.team_id, monitor_id=monitor["id"], clock=clock
            )

    # The scheduler claims first (a run-now that held the monitor first would only make the
    # scheduler pass it over until its next look: it skips locked monitors).
    with held_open(runtime, scheduled) as scheduler:
        run_now = Background(manual)
        run_now.start()
        wait_until_blocked(runtime)
    [task] = scheduler.result.runs
    assert task.summary.queued == 4
    summary = run_now.outcome().summary
    assert (summary.queued, summary.already_running) == (0, 4)
    drain()

    with runtime.sessions.read() as session:
        dated = list(session.scalars(select(MonitorRun).where(MonitorRun.kind == "dated")))
        ledger = list(session.scalars(select(MonitorLedgerEntry)))
        stored = list(session.scalars(select(MonitorResult.content_id)))
        bodies = list(session.scalars(select(WebhookEvent.body)))
    assert sorted(run.published_date.isoformat() for run in dated) == [
        "2026-11-22",
        "2026-11-23",
        "2026-11-24",
        "2026-11-25",
    ]
    assert {run.status for run in dated} == {"succeeded"}
    assert {(e.run_id, e.status) for e in ledger} == {(run.id, "succeeded") for run in dated}
    assert sorted(stored) == sorted(ids)
    announced = Counter(
        item["id"]
        for body in bodies
        if json.loads(body)["type"] == "monitor.results.added"
        for item in json.loads(body)["data"]["items"]
    )
    assert announced == Counter(ids)
