"""Retention: HERALD_RETENTION_DAYS and a source's own retention_days, applied by the daily job
and by `herald content retention`, exactly as a deletion; backfills do not resurrect old dates."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.content.tasks import RETENTION_JOB, schedule_retention
from herald.db.models.content import ContentDeletion, ContentItem
from herald.db.models.job import Job
from herald.db.models.monitor import MonitorResult
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.content.conftest import files_holding
from tests.content.test_purge import env_for

RETENTION_DAYS = 30  # the frozen clock's now is 2026-11-25 12:00 UTC: cut-off 2026-10-26 12:00

runner = CliRunner()


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """The content tests' settings, with a retention limit."""
    return settings.model_copy(update={"retention_days": RETENTION_DAYS})


def _item(key: str, published: str, text: str) -> dict[str, Any]:
    return {
        "url": f"https://{key}.example.com/story",
        "media_type": "news",
        "title": f"Harbour report {key}",
        "published_date": published,
        "source": {"name": key, "domain": f"{key}.example.com"},
        "body": f"The harbour authority reported {text} at the port on the morning tide.",
    }


def _ingest(client: TestClient, admin: dict[str, str], items: list[dict[str, Any]]) -> list[str]:
    response = client.post("/v1/admin/content", json=items, headers=admin)
    assert response.status_code == 200, response.text
    return list(response.json()["content_ids"])


def _add_source(client: TestClient, admin: dict[str, str], name: str, retention: int | None) -> str:
    body: dict[str, Any] = {"url": f"https://{name}.example.com/feed.xml", "media_type": "news"}
    if retention is not None:
        body["retention_days"] = retention
    response = client.post("/v1/admin/sources", json=body, headers=admin)
    assert response.status_code == 201, response.text
    assert response.json()["source"]["retention_days"] == retention
    return str(response.json()["source"]["id"])


def _live(runtime: Runtime) -> set[str]:
    with runtime.sessions.read() as session:
        return set(session.scalars(select(ContentItem.id)))


def test_the_daily_job_applies_global_and_source_limits(
    runtime: Runtime,
    client: TestClient,
    admin_auth: dict[str, str],
    auth: dict[str, str],
) -> None:
    kept_forever, old, recent_short, recent = _ingest(
        client,
        admin_auth,
        [
            _item("keeper", "2026-10-01T08:00:00Z", "a keeper cargo of grain"),
            _item("old", "2026-10-01T09:00:00Z", "an old cargo of grain"),
            _item("short", "2026-11-20T09:00:00Z", "a short cargo of grain"),
            _item("recent", "2026-11-24T09:00:00Z", "a recent cargo of grain"),
        ],
    )
    forever = _add_source(client, admin_auth, "keeper", 0)
    short = _add_source(client, admin_auth, "short", None)
    patched = client.patch(
        f"/v1/admin/sources/{short}", json={"retention_days": 3}, headers=admin_auth
    )
    assert patched.status_code == 200, patched.text
    assert patched.json()["source"]["retention_days"] == 3
    bad = client.patch(
        f"/v1/admin/sources/{short}", json={"retention_days": -1}, headers=admin_auth
    )
    assert bad.status_code == 400, bad.text
    assert bad.json()["error"] == "invalid_request"
    assert (
        client.patch(
            f"/v1/admin/sources/{short}", json={"retention_days": 3}, headers=auth
        ).status_code
        == 404
    )  # member keys: no operator endpoints
    with runtime.sessions.write() as session:  # as polling these sources would have stored them
        session.execute(
            update(ContentItem).where(ContentItem.id == kept_forever).values(source_id=forever)
        )
        session.execute(
            update(ContentItem).where(ContentItem.id == recent_short).values(source_id=short)
        )
    run_jobs(runtime)

    created = client.post(
        "/v1/monitors",
        json={"name": "Grain", "search": {"query": "harbour cargo of grain"}},
        headers=auth,
    )
    monitor_id = created.json()["id"]
    with runtime.sessions.write() as session:  # results captured back when 1 October was kept
        for content_id in (kept_forever, old):
            session.add(
                MonitorResult(
                    monitor_id=monitor_id,
                    content_id=content_id,
                    published_date=date(2026, 10, 1),
                    published_at=datetime(2026, 10, 1, 8, tzinfo=UTC),
                    score=0.9,
                    enriched_at=None,
                    first_captured_at=datetime(2026, 10, 1, 12, tzinfo=UTC),
                    first_run_id="run",
                )
            )

    assert schedule_retention(runtime) is True
    assert schedule_retention(runtime) is False  # one job per day, however many schedulers look
    run_jobs(runtime)

    assert _live(runtime) == {kept_forever, recent}
    with runtime.sessions.read() as session:
        results = set(session.scalars(select(MonitorResult.content_id)))
        records = list(session.scalars(select(ContentDeletion).order_by(ContentDeletion.id)))
    assert results == {kept_forever}
    assert sorted((r.reason, r.actor, r.deleted_count, r.status) for r in records) == [
        ("retention", "retention", 1, "done"),
        ("retention", "retention", 1, "done"),
    ]
    assert {json.dumps(r.selector, sort_keys=True) for r in records} == {
        json.dumps(
            {"source_ids": [short], "published_before": "2026-11-22T12:00:00Z"}, sort_keys=True
        ),
        json.dumps(
            {"published_before": "2026-10-26T12:00:00Z", "exclude_source_ids": [forever, short]},
            sort_keys=True,
        ),
    }

    # A backfill of a date past retention queues nothing, and the ledger says why.
    backfill = client.post(
        f"/v1/monitors/{monitor_id}/backfills",
        json={"dates": ["2026-10-01", "2026-11-24"]},
        headers=auth,
    )
    assert backfill.status_code in (200, 201, 202), backfill.text
    body = backfill.json()
    assert [q["published_date"] for q in body["queued"]] == ["2026-11-24"]
    assert [s["published_date"] for s in body["skipped"]] == ["2026-10-01"]
    run_jobs(runtime)
    ledger = client.get(f"/v1/monitors/{monitor_id}/backfills", headers=auth)
    assert ledger.status_code == 200, ledger.text
    entries = {e["date"]: e for e in ledger.json()["backfills"]}
    assert entries["2026-10-01"]["status"] == "skipped"
    assert "past retention" in entries["2026-10-01"]["error_message"]
    assert entries["2026-11-24"]["status"] == "succeeded"
    with runtime.sessions.read() as session:
        results = set(session.scalars(select(MonitorResult.content_id)))
    assert kept_forever in results  # the stored result of a kept item is not touched
    assert old not in results


def test_content_retention_applies_the_policy_now(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    _ancient, recent = _ingest(
        client,
        admin_auth,
        [
            _item("ancient", "2009-06-01T09:00:00Z", "a phosphorescent zeppelin of marmalade"),
            _item("recent", "2026-11-24T09:00:00Z", "a recent cargo of grain"),
        ],
    )
    run_jobs(runtime)
    # The real clock's today, whatever it is: the cut-off lands in 2010.
    days = (datetime.now(UTC).date() - date(2010, 1, 1)).days
    env = {**env_for(runtime), "HERALD_RETENTION_DAYS": str(days)}

    result = runner.invoke(app, ["content", "retention", "--json"], env=env)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["deleted"] == 1
    assert [(s["source_id"], s["days"], s["deleted"]) for s in report["scopes"]] == [
        (None, days, 1)
    ]
    assert report["purge"]["checkpoint_complete"] is True
    assert _live(runtime) == {recent}
    assert files_holding(runtime.settings.home, ["phosphorescent zeppelin"]) == []

    again = runner.invoke(app, ["content", "retention"], env=env)
    assert again.exit_code == 0, again.output
    assert "0 item(s) published before" in again.stdout

    off = runner.invoke(app, ["content", "retention"], env={**env, "HERALD_RETENTION_DAYS": "0"})
    assert "no retention policy" in off.stdout


def test_no_retention_job_is_queued_while_no_policy_limits_anything(runtime: Runtime) -> None:
    unlimited = Runtime(
        runtime.settings.model_copy(update={"retention_days": 0}), clock=runtime.clock
    )
    try:
        assert schedule_retention(unlimited) is False
        with unlimited.sessions.read() as session:
            assert session.scalars(select(Job).where(Job.kind == RETENTION_JOB)).all() == []
    finally:
        unlimited.close()
