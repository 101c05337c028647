"""Records that accumulate with time, not with content, are bounded by the history job too:
retention's deletion records (a pass runs every hour and records one per policy that matched) and
webhook replay requests. An operator's deletion record stays: its tombstones name it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.config import Settings
from herald.content import deletion
from herald.content.deletion import ContentSelector, delete_content
from herald.content.tasks import schedule_retention
from herald.core.clock import FrozenClock, isoformat_z
from herald.db.models.content import ContentDeletion, ContentTombstone
from herald.db.models.webhook_ops import WebhookReplay
from herald.db.models.workspace import Team
from herald.jobs.history import schedule_prune
from herald.runtime import Runtime
from tests.client.conftest import SMALL_SEED, run_jobs
from tests.conftest import START

RETENTION_DAYS = 30
HOURS = 6


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The retention limit; the items are enriched with the model-free embedder and the small
    entity seed (what enrichment finds does not matter here, and the bundled seed takes most of a
    minute to load into a new database)."""
    return settings.model_copy(
        update={
            "retention_days": RETENTION_DAYS,
            "embedding_model": "herald-hashing",
            "entity_seed": str(SMALL_SEED),
        }
    )


def _item(hour: int) -> dict[str, Any]:
    """An item that passes the retention limit ``hour`` hours after START (plus a minute)."""
    published = START - timedelta(days=RETENTION_DAYS) + timedelta(hours=hour, minutes=-1)
    return {
        "url": f"https://port{hour}.example.com/story",
        "media_type": "news",
        "title": f"Harbour report {hour}",
        "published_date": isoformat_z(published),
        "source": {"name": f"port{hour}", "domain": f"port{hour}.example.com"},
        "body": f"The harbour authority reported cargo number {hour} on the morning tide.",
    }


def _retention_record(id_: str, started: datetime, *, finished: bool = False) -> ContentDeletion:
    """A record of a retention pass started at ``started``: finished then, or still running."""
    return ContentDeletion(
        id=id_,
        actor="retention",
        reason="retention",
        selector={"published_before": isoformat_z(started)},
        deleted_count=1 if finished else 0,
        status="done" if finished else "running",
        started_at=started,
        finished_at=started if finished else None,
    )


def _records(runtime: Runtime) -> list[tuple[str, str]]:
    with runtime.sessions.read() as session:
        rows = session.scalars(select(ContentDeletion).order_by(ContentDeletion.started_at))
        return [(row.reason, row.status) for row in rows]


def test_retention_records_and_replays_leave_after_the_history_days(
    runtime: Runtime, clock: FrozenClock, client: TestClient, admin_auth: dict[str, str]
) -> None:
    items = [_item(hour) for hour in range(1, HOURS + 2)]  # the last one is taken down
    response = client.post("/v1/admin/content", json=items, headers=admin_auth)
    assert response.status_code == 200, response.text
    takedown = response.json()["content_ids"][-1]
    run_jobs(runtime)
    # An operator's takedown: its record is the deletion its tombstone names.
    report = delete_content(
        runtime.sessions, ContentSelector(content_id=takedown), actor="cli:ops", clock=clock
    )
    assert report.deleted == 1

    # The schedulers look every hour; a finished job leaves the queue, so each look runs a pass,
    # and each pass that finds an item past the limit records a deletion.
    for _ in range(HOURS):
        clock.advance(timedelta(hours=1))
        assert schedule_retention(runtime) is True
        run_jobs(runtime)
    assert _records(runtime) == [("request", "done")] + [("retention", "done")] * HOURS

    with runtime.sessions.write() as session:
        team = Team(id="team_replays", name="replays", created_at=clock.now())
        session.add(team)
        session.flush()
        session.add(
            WebhookReplay(
                team_id=team.id,
                scope="delivery",
                window_start=None,
                window_end=None,
                delivery_count=1,
                requested_at=clock.now(),
            )
        )

    # A year on, the history job runs: a day's records made just inside the window stay.
    clock.advance(timedelta(days=runtime.settings.history_days) - timedelta(hours=3))
    last_pass_at = clock.now()
    with runtime.sessions.write() as session:
        session.add(_retention_record("del_recent", last_pass_at, finished=True))
        session.add(
            WebhookReplay(
                team_id="team_replays",
                scope="window",
                window_start=last_pass_at - timedelta(days=1),
                window_end=last_pass_at,
                delivery_count=0,
                requested_at=last_pass_at,
            )
        )
    clock.advance(timedelta(hours=3, minutes=1))
    assert schedule_prune(runtime) is True
    run_jobs(runtime)

    with runtime.sessions.read() as session:
        kept = [(r.id, r.reason) for r in session.scalars(select(ContentDeletion))]
        replays = [r.scope for r in session.scalars(select(WebhookReplay))]
        tombstones = list(session.scalars(select(ContentTombstone.deletion_id)))
    assert sorted(kept) == sorted([(report.deletion_id, "request"), ("del_recent", "retention")])
    assert tombstones == [report.deletion_id]
    assert replays == ["window"]


def test_a_deletion_left_running_by_a_crash_is_marked_abandoned_then_pruned(
    runtime: Runtime,
    clock: FrozenClock,
    client: TestClient,
    admin_auth: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    items = [_item(hour) for hour in (1, 2, 3)]
    response = client.post("/v1/admin/content", json=items, headers=admin_auth)
    assert response.status_code == 200, response.text
    run_jobs(runtime)

    # A retention pass dies after its first batch committed: its record stays `running`.
    real = deletion.delete_items
    calls: list[int] = []

    def crash_on_the_second_batch(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("the worker was killed")
        return real(*args, **kwargs)

    monkeypatch.setattr(deletion, "delete_items", crash_on_the_second_batch)
    with pytest.raises(RuntimeError, match="killed"):
        delete_content(
            runtime.sessions,
            ContentSelector(published_before=clock.now()),
            actor="retention",
            reason="retention",
            clock=clock,
            batch_size=1,
        )
    monkeypatch.setattr(deletion, "delete_items", real)
    assert _records(runtime) == [("retention", "running")]

    # Six days on, another pass is running (started an hour ago): both stay `running`.
    clock.advance(timedelta(days=6))
    with runtime.sessions.write() as session:
        session.add(_retention_record("del_live", clock.now() - timedelta(hours=1)))
    assert schedule_prune(runtime) is True
    run_jobs(runtime)
    assert _records(runtime) == [("retention", "running"), ("retention", "running")]

    # A week and a day after the crash: abandoned, with what its committed batch deleted.
    clock.advance(timedelta(days=2))
    assert schedule_prune(runtime) is True
    run_jobs(runtime)
    with runtime.sessions.read() as session:
        crashed = session.scalars(
            select(ContentDeletion).where(ContentDeletion.id != "del_live")
        ).one()
    assert (crashed.status, crashed.deleted_count) == ("abandoned", 1)
    assert crashed.finished_at is not None
    assert _records(runtime) == [("retention", "abandoned"), ("retention", "running")]

    # Past the history days: the crashed record goes. The other pass, abandoned in its turn,
    # stays until its start is past the cut-off too.
    clock.advance(timedelta(days=runtime.settings.history_days - 7))
    assert schedule_prune(runtime) is True
    run_jobs(runtime)
    assert _records(runtime) == [("retention", "abandoned")]
