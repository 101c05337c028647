"""`herald workspaces delete`: a workspace goes with every row it owns; nothing else changes.

Two workspaces each get a row in every table a workspace has rows in; deleting one leaves the
database exactly as it was before that workspace was created (the other's rows, the shared
content). A new table with a ``team_id`` that the deletion forgets fails the first test.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any, NamedTuple

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.db.base import Base
from herald.db.models.job import Job, JobTurn, RateBucket
from herald.db.models.monitor import Monitor, MonitorLedgerEntry, MonitorResult, MonitorRun
from herald.db.models.monitor_feeds import MonitorFeed
from herald.db.models.webhook_ops import WebhookReplay, WebhookTargetAudit
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEvent
from herald.db.models.workspace import ApiKey, Team
from herald.errors import Unauthorized
from herald.jobs import queue
from herald.jobs.history import prune_history
from herald.jobs.queue import ClaimedJob, LeaseLost, enqueue
from herald.jobs.worker import Worker
from herald.monitors.queueing import DATED_JOB_KIND
from herald.runtime import Runtime
from herald.webhooks.service import save_target
from herald.workspaces import deletion
from herald.workspaces.service import authenticate, create_key
from tests.clusters.factories import make_enriched_item

runner = CliRunner()
T = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
LATER = datetime(2027, 11, 30, tzinfo=UTC)


def test_every_table_with_a_workspace_column_is_deleted() -> None:
    owned: set[str] = set()
    for table in Base.metadata.sorted_tables:
        names = {column.name for column in table.columns}
        refers = {fk.column.table.name for fk in table.foreign_keys}
        if names & {"team_id", "team_key"} or refers & {"teams", "monitors", "monitor_runs"}:
            owned.add(table.name)
    assert owned | {"teams", "rate_buckets"} == set(deletion.WORKSPACE_TABLES)


def _fill(runtime: Runtime, name: str, content_id: str) -> tuple[str, str]:
    """A workspace with a row in every table it can have rows in: (team id, API key)."""
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        key = create_key(session, workspace=name, role="member", clock=runtime.clock)
        team = key.team_id
        save_target(
            session, team, url="https://127.0.0.1:9/hook", enabled=True, clock=runtime.clock
        )
        monitor = Monitor(
            id=f"mon_{name}", team_id=team, name="m", description=None, status="active",
            search={"q": "x"}, frequency="daily", timezone="UTC", minute=None, run_time="06:00",
            next_run_at=now, created_at=now, updated_at=now, disabled_at=None,
        )  # fmt: skip
        session.add(monitor)
        session.flush()
        run: dict[str, Any] = {"monitor_id": monitor.id, "team_id": team, "created_at": now}
        session.add(MonitorRun(id=f"run_{name}", kind="manual", status="succeeded", **run))
        session.flush()
        session.add(
            MonitorRun(
                id=f"dated_{name}", kind="dated", status="succeeded", parent_run_id=f"run_{name}",
                published_date=date(2026, 11, 29), **run,
            )
        )  # fmt: skip
        session.add(
            MonitorResult(
                monitor_id=monitor.id, content_id=content_id, published_date=date(2026, 11, 29),
                published_at=now, score=1.0, enriched_at=now, first_captured_at=now,
                first_run_id=f"dated_{name}",
            )
        )  # fmt: skip
        session.add(
            MonitorLedgerEntry(
                monitor_id=monitor.id, published_date=date(2026, 11, 29), status="succeeded",
                run_id=f"dated_{name}", run_origin="manual", run_at=now, result_count=1,
                updated_at=now,
            )
        )  # fmt: skip
        session.add(
            MonitorFeed(monitor_id=monitor.id, team_id=team, token_hash=name * 8, created_at=now)
        )
        session.add(
            WebhookEvent(id=f"evt_{name}", team_id=team, event_type="t", body="{}", created_at=now)
        )
        session.flush()
        delivery = WebhookDelivery(
            team_id=team, event_id=f"evt_{name}", event_type="t", is_test=False,
            status="succeeded", attempt_count=1, created_at=now,
        )  # fmt: skip
        session.add(delivery)
        session.flush()
        session.add(
            WebhookAttempt(
                team_id=team, delivery_id=delivery.id, event_id=f"evt_{name}", event_type="t",
                attempt_number=1, delivery_status="succeeded", http_status=200, duration_ms=3,
                attempted_at=now,
            )
        )  # fmt: skip
        session.add(
            WebhookReplay(team_id=team, scope="delivery", delivery_count=1, requested_at=now)
        )
        session.add(WebhookTargetAudit(team_id=team, action="re_enabled", reason="r", at=now))
        session.add(JobTurn(lane="default", team_key=team, served=1))
        session.add(
            RateBucket(
                bucket=f"key:{key.key_id}", tokens=3.0, updated_at=now.timestamp(), allowed=True
            )
        )
        for n in range(3):  # queued work of the workspace, due next year
            enqueue(
                session, DATED_JOB_KIND, {"run_id": f"dated_{name}", "n": n},
                clock=runtime.clock, team_id=team, run_at=LATER,
            )  # fmt: skip
    return team, key.api_key


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _everything(runtime: Runtime) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (but the queue's turn for system jobs, which a worker running
    the deletion job moves)."""
    with runtime.sessions.read() as session:
        found = {
            table.name: sorted(tuple(map(repr, row)) for row in session.execute(select(table)))
            for table in Base.metadata.sorted_tables
        }
    found["job_turns"] = [row for row in found["job_turns"] if row[1] != "''"]
    return found


class _Two(NamedTuple):
    before: dict[str, list[tuple[Any, ...]]]  # every row before "gone" was made
    team: str  # of "gone"
    api_key: str  # of "gone"
    keep_key: str
    content_id: str  # shared


def _two_workspaces(runtime: Runtime) -> _Two:
    """Workspaces "keep" and "gone" with a row in every workspace table, sharing an item."""
    with runtime.sessions.write() as session:
        content_id = make_enriched_item(
            session, title="Shared story", body="Shared body text.", published_at=T, now=T
        ).id
    _, keep_key = _fill(runtime, "keep", content_id)
    before = _everything(runtime)
    team, api_key = _fill(runtime, "gone", content_id)
    return _Two(before, team, api_key, keep_key, content_id)


@pytest.mark.parametrize("by", ["name", "id"])
def test_delete_removes_the_workspace_and_leaves_the_other_as_it_was(
    runtime: Runtime, settings: Settings, client: TestClient, by: str
) -> None:
    before, team, api_key, keep_key, content_id = _two_workspaces(runtime)
    with runtime.sessions.read() as session:
        counts = deletion.count_rows(session, team)
    # a row in every table a workspace can have rows in
    assert set(counts) == set(deletion.WORKSPACE_TABLES)
    env = {"HERALD_HOME": str(settings.home), "HERALD_DATABASE_URL": settings.resolved_database_url}
    ref = "gone" if by == "name" else team
    refused = runner.invoke(app, ["workspaces", "delete", ref], input="n\n", env=env)
    assert refused.exit_code == 1
    assert "monitor_results: 1" in refused.stderr
    assert "jobs: 3" in refused.stderr
    assert _everything(runtime)["teams"] != before["teams"]  # nothing deleted
    result = runner.invoke(app, ["workspaces", "delete", ref, "--yes", "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["team_id"] == team
    assert report["deleted"] == counts
    assert report["rows_deleted"] >= sum(counts.values())
    assert _everything(runtime) == before
    with runtime.sessions.read() as session, pytest.raises(Unauthorized):
        authenticate(session, api_key)
    assert client.get("/v1/monitors/mon_gone", headers=_bearer(api_key)).status_code == 401
    # The other workspace still works: its monitor, its results, the shared content.
    kept = _bearer(keep_key)
    assert client.get("/v1/monitors/mon_keep", headers=kept).json()["id"] == "mon_keep"
    results = client.get("/v1/monitors/mon_keep/results", headers=kept)
    assert [r["content_item"]["id"] for r in results.json()["results"]] == [content_id]
    # Deleting it again: no such workspace.
    again = runner.invoke(app, ["workspaces", "delete", team, "--yes"], env=env)
    assert again.exit_code == 1
    assert "no workspace" in again.stderr


def test_an_interrupted_deletion_is_finished_by_the_job(runtime: Runtime) -> None:
    before, team, api_key, _, _ = _two_workspaces(runtime)
    with runtime.sessions.write() as session:
        found = deletion.find_workspace(session, "gone")
        job_id = deletion.start_deletion(session, found, clock=runtime.clock)
    assert job_id is not None
    # The command's transaction: keys revoked, monitors disabled, target paused, name freed.
    with runtime.sessions.read() as session:
        with pytest.raises(Unauthorized):
            authenticate(session, api_key)
        assert session.scalar(select(Monitor.status).where(Monitor.team_id == team)) == "disabled"
        assert session.scalar(select(Team.name).where(Team.id == team)) == f"deleting {team}"
        assert deletion.find_workspace(session, team).deleting
        assert session.scalar(select(ApiKey.revoked_at).where(ApiKey.team_id == team)) is not None
    # A job of the workspace a worker is running: it loses its lease with the workspace.
    with runtime.sessions.write() as session:
        running = session.scalars(select(Job).where(Job.team_id == team).limit(1)).one()
        running.status, running.worker_id, running.attempts = "running", "w-test", 1
        claimed = ClaimedJob(
            id=running.id, kind=running.kind, payload=running.payload, attempts=1,
            max_attempts=running.max_attempts, team_id=team, unique_key=None,
            worker_id="w-test", created_at=running.created_at,
        )  # fmt: skip
    # A crash after two batches: what they deleted stays deleted.
    for _ in range(2):
        with runtime.sessions.write() as session:
            assert deletion.delete_batch(session, team, batch_size=1) == 1
    assert Worker(runtime).drain("default") >= 1
    assert _diff(_everything(runtime), before) == {}
    with runtime.sessions.read() as session:
        assert session.scalar(select(Job.id).where(Job.id == job_id)) is None
    with runtime.sessions.write() as session, pytest.raises(LeaseLost):
        queue.finish(session, [claimed])  # its work is rolled back, never committed
    # Running it again is a no-op.
    assert deletion.delete_workspace(runtime.sessions, team) == 0


def _diff(
    a: dict[str, list[tuple[Any, ...]]], b: dict[str, list[tuple[Any, ...]]]
) -> dict[str, Any]:
    return {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}


def test_what_a_job_of_a_deleted_workspace_queues_later_goes_with_the_history_job(
    runtime: Runtime,
) -> None:
    before, team, _, _, _ = _two_workspaces(runtime)
    with runtime.sessions.write() as session:
        deletion.start_deletion(
            session, deletion.find_workspace(session, team), clock=runtime.clock
        )
    deletion.delete_workspace(runtime.sessions, team)
    # A job of the workspace that was running queues a follow-up after the final batch, and a
    # worker claims it (its workspace's queue turn comes back); another one failed for good.
    with runtime.sessions.write() as session:
        follow_up = enqueue(session, DATED_JOB_KIND, {}, clock=runtime.clock, team_id=team)
        failed = enqueue(session, DATED_JOB_KIND, {"n": 2}, clock=runtime.clock, team_id=team)
        session.get_one(Job, failed).status = "failed"
        session.add(JobTurn(lane="default", team_key=team, served=7))
    assert follow_up is not None
    assert _diff(_everything(runtime), before) != {}
    # Whatever its age: the cut-off is long before, so nothing else is history yet.
    long_ago = datetime(2000, 1, 1, tzinfo=UTC)
    pruned = prune_history(runtime.sessions, before=long_ago, now=T)
    assert (pruned.deleted_workspaces, pruned.total) == (3, 3)
    assert _diff(_everything(runtime), before) == {}
    assert prune_history(runtime.sessions, before=long_ago, now=T).total == 0
