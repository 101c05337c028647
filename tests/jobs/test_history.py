"""The daily history job: finished monitor runs, webhook deliveries (with attempts and events)
and failed jobs older than HERALD_HISTORY_DAYS are deleted; what is recent or unfinished stays."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.job import Job
from herald.db.models.monitor import Monitor, MonitorRun
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEvent
from herald.db.models.workspace import Team
from herald.jobs import history
from herald.jobs.history import HISTORY_JOB, prune_history, schedule_prune
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.conftest import START

OLD = START - timedelta(days=120)  # before the default 90 days
RECENT = START - timedelta(days=10)


def _run(
    run_id: str, *, kind: str, status: str, at: datetime, parent: str | None = None
) -> MonitorRun:
    return MonitorRun(
        id=run_id,
        monitor_id="mon_1",
        team_id="team_1",
        kind=kind,
        parent_run_id=parent,
        published_date=at.date() if kind == "dated" else None,
        slot_at=at if kind == "scheduled" else None,
        status=status,
        created_at=at,
    )


def _delivery(
    event_id: str, status: str, at: datetime, last: datetime | None = None
) -> dict[str, Any]:
    return {
        "event": WebhookEvent(
            id=event_id,
            team_id="team_1",
            event_type="monitor.results.added",
            body="{}",
            created_at=at,
        ),
        "delivery": WebhookDelivery(
            team_id="team_1",
            event_id=event_id,
            event_type="monitor.results.added",
            is_test=False,
            status=status,
            attempt_count=1,
            created_at=at,
            last_attempt_at=last or at,
            next_attempt_at=None if status in ("succeeded", "failed") else START,
        ),
    }


def _failed_job(kind: str, at: datetime, status: str = "failed") -> Job:
    return Job(
        kind=kind,
        lane="default",
        payload={},
        status=status,
        run_at=at,
        attempts=1,
        max_attempts=1,
        created_at=at,
        updated_at=at,
        finished_at=at if status == "failed" else None,
    )


def _fill(runtime: Runtime) -> None:
    with runtime.sessions.write() as session:
        session.add(Team(id="team_1", name="acme", created_at=OLD))
        session.flush()
        session.add(
            Monitor(
                id="mon_1",
                team_id="team_1",
                name="ports",
                status="active",
                search={"query": "port"},
                frequency="hourly",
                timezone="UTC",
                minute=7,
                created_at=OLD,
                updated_at=OLD,
            )
        )
        session.flush()
        session.add_all(
            [
                _run("old_done", kind="scheduled", status="succeeded", at=OLD),
                _run("old_backfill", kind="backfill", status="failed", at=OLD),
                _run("old_busy", kind="backfill", status="running", at=OLD),
                _run("recent_done", kind="scheduled", status="succeeded", at=RECENT),
            ]
        )
        session.flush()
        session.add_all(
            [
                _run("old_done_d1", kind="dated", status="succeeded", at=OLD, parent="old_done"),
                _run("old_done_d2", kind="dated", status="skipped", at=OLD, parent="old_done"),
                _run("old_busy_d1", kind="dated", status="queued", at=OLD, parent="old_busy"),
                _run(
                    "recent_d1", kind="dated", status="succeeded", at=RECENT, parent="recent_done"
                ),
            ]
        )
        rows = [
            _delivery("evt_old_ok", "succeeded", OLD),
            _delivery("evt_old_failed", "failed", OLD),
            _delivery("evt_old_retrying", "retrying", OLD),
            _delivery("evt_old_replayed", "failed", OLD, last=RECENT),
            _delivery("evt_recent", "succeeded", RECENT),
        ]
        session.add_all([row["event"] for row in rows])
        session.flush()
        session.add_all([row["delivery"] for row in rows])
        session.flush()
        session.add_all(
            WebhookAttempt(
                team_id="team_1",
                delivery_id=row["delivery"].id,
                event_id=row["event"].id,
                event_type="monitor.results.added",
                attempt_number=1,
                delivery_status=row["delivery"].status,
                duration_ms=5,
                attempted_at=row["delivery"].created_at,
            )
            for row in rows
        )
        session.add_all(
            [
                _failed_job("test.old", OLD),
                _failed_job("test.recent", RECENT),
                _failed_job("test.waiting", OLD, status="queued"),
            ]
        )


def _state(runtime: Runtime) -> dict[str, Any]:
    with runtime.sessions.read() as session:
        return {
            "runs": set(session.scalars(select(MonitorRun.id))),
            "events": set(session.scalars(select(WebhookEvent.id))),
            "delivered": set(session.scalars(select(WebhookDelivery.event_id))),
            "attempts": set(session.scalars(select(WebhookAttempt.event_id))),
            "jobs": set(session.scalars(select(Job.kind).where(Job.kind.like("test.%")))),
        }


KEPT_EVENTS = {"evt_old_retrying", "evt_old_replayed", "evt_recent"}


def test_the_daily_job_deletes_old_finished_history_and_keeps_the_rest(runtime: Runtime) -> None:
    _fill(runtime)
    assert runtime.settings.history_days == 90
    assert schedule_prune(runtime) is True
    assert schedule_prune(runtime) is False  # today's job is queued already
    run_jobs(runtime)

    state = _state(runtime)
    assert state["runs"] == {"old_busy", "old_busy_d1", "recent_done", "recent_d1"}
    assert state["events"] == KEPT_EVENTS
    assert state["delivered"] == KEPT_EVENTS
    assert state["attempts"] == KEPT_EVENTS
    assert state["jobs"] == {"test.recent", "test.waiting"}
    with runtime.sessions.read() as session:
        left = select(func.count()).select_from(Job).where(Job.kind == HISTORY_JOB)
        assert session.scalar(left) == 0  # the job succeeded and left the queue


def test_batches_run_until_every_old_row_is_gone(
    runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(history, "BATCH", 1)  # one row per transaction: the loops must go on
    _fill(runtime)
    pruned = prune_history(runtime.sessions, before=START - timedelta(days=90), now=START)
    assert (pruned.monitor_runs, pruned.webhook_deliveries, pruned.jobs) == (2, 2, 1)
    assert pruned.webhook_events == 2
    state = _state(runtime)
    assert state["events"] == KEPT_EVENTS
    assert state["jobs"] == {"test.recent", "test.waiting"}


def test_zero_keeps_history_forever(settings: Settings, clock: FrozenClock) -> None:
    forever = Runtime(settings.model_copy(update={"history_days": 0}), clock=clock)
    try:
        _fill(forever)
        assert schedule_prune(forever) is False
        state = _state(forever)
    finally:
        forever.close()
    assert len(state["runs"]) == 8
    assert len(state["events"]) == 5
    assert len(state["jobs"]) == 3
