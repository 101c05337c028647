"""Polling a source now (`herald sources poll`, POST /v1/admin/sources/{id}/poll): the job the
schedule queues, queued at once and only once while a poll of the source waits or runs (both
databases, the feed on a real loopback server)."""

from __future__ import annotations

import json
import threading
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.db.models.job import Job
from herald.errors import NotFound
from herald.ingest.polling import POLL_JOB, request_poll, schedule_due_polls
from herald.ingest.source_records import add_source
from herald.jobs.worker import Worker
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes, stored_source

FEED = "http://feeds.example.test/news.xml"


def _add(runtime: Runtime) -> str:
    with runtime.sessions.write() as session:
        return add_source(
            session, url=FEED, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id


def _poll_jobs(runtime: Runtime) -> list[tuple[str, dict[str, object], str | None]]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(Job.status, Job.payload, Job.unique_key).where(Job.kind == POLL_JOB)
        )
        return [(status, payload, key) for status, payload, key in rows]


def _ask(runtime: Runtime, id_or_url: str) -> str:
    with runtime.sessions.write() as session:
        return request_poll(session, id_or_url, clock=runtime.clock).poll


def _mark_running(runtime: Runtime) -> None:
    with runtime.sessions.write() as session:
        session.execute(update(Job).where(Job.kind == POLL_JOB).values(status="running"))


def test_a_poll_asked_for_is_the_schedules_job_queued_once(runtime: Runtime) -> None:
    source_id = _add(runtime)
    with runtime.sessions.write() as session:  # the first scheduled poll, as a worker would
        assert schedule_due_polls(session, clock=runtime.clock) == [source_id]
    scheduled = _poll_jobs(runtime)
    with runtime.sessions.write() as session:
        session.execute(Job.__table__.delete())
    assert _ask(runtime, source_id) == "queued"
    assert _poll_jobs(runtime) == scheduled  # the same kind, payload and unique key
    assert _ask(runtime, FEED) == "already_queued"  # by its feed URL too
    _mark_running(runtime)
    assert _ask(runtime, source_id) == "already_running"
    assert len(_poll_jobs(runtime)) == 1
    # The schedule's next slot is an interval after the poll asked for, as when it queues one.
    assert stored_source(runtime, source_id).next_poll_at == runtime.clock.now() + timedelta(
        seconds=900
    )
    with pytest.raises(NotFound):
        _ask(runtime, "src_nosuchsource")


def test_the_queued_poll_fetches_the_feed(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(FEED, fixture_bytes("rss20_liftoff.xml"), content_type="application/rss+xml")
    source_id = _add(runtime)
    with runtime.sessions.write() as session:  # polled once; the next slot is 15 minutes away
        schedule_due_polls(session, clock=runtime.clock)
    runtime.service("ingest.fetcher", lambda: internet)
    assert Worker(runtime).run_once() == 1
    assert len(server.hits_for(FEED)) == 1
    with runtime.sessions.write() as session:  # the enrichment it queued: models, slow
        session.execute(Job.__table__.delete().where(Job.kind != POLL_JOB))
    assert _ask(runtime, source_id) == "queued"
    assert Worker(runtime).run_once() == 1
    assert len(server.hits_for(FEED)) == 2
    assert stored_source(runtime, source_id).last_report is not None
    assert _poll_jobs(runtime) == []


def test_the_api_queues_a_poll_for_admin_keys_only(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str], auth: dict[str, str]
) -> None:
    source_id = _add(runtime)
    answer = client.post(f"/v1/admin/sources/{source_id}/poll", headers=admin_auth)
    assert answer.status_code == 202, answer.text
    body = answer.json()
    assert (body["poll"], body["source"]["id"]) == ("queued", source_id)
    assert body["meta"]["request_id"]
    again = client.post(f"/v1/admin/sources/{source_id}/poll", headers=admin_auth)
    assert (again.status_code, again.json()["poll"]) == (202, "already_queued")
    member = client.post(f"/v1/admin/sources/{source_id}/poll", headers=auth)
    assert (member.status_code, member.json()["error"]) == (404, "not_found")
    unknown = client.post("/v1/admin/sources/src_nosuchsource/poll", headers=admin_auth)
    assert unknown.status_code == 404
    assert set(unknown.json()) == {"error", "message", "meta"}
    assert len(_poll_jobs(runtime)) == 1


def test_the_cli_queues_a_poll(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    source_id = _add(runtime)
    runner = CliRunner()
    first = runner.invoke(app, ["sources", "poll", source_id])
    assert first.exit_code == 0, first.output
    assert f"poll of source {source_id} queued" in first.stderr
    second = runner.invoke(app, ["sources", "poll", FEED, "--json"])
    assert second.exit_code == 0, second.output
    shown = json.loads(second.stdout)
    assert (shown["poll"], shown["source"]["id"]) == ("already_queued", source_id)
    missing = runner.invoke(app, ["sources", "poll", "src_nosuchsource"])
    assert missing.exit_code == 1
    assert "not_found" in missing.stderr


def _worker_until(runtime: Runtime, stop: threading.Event) -> None:
    """A worker running polls only (the enrichment a poll queues needs the models: slow)."""
    while not stop.is_set():
        with runtime.sessions.write() as session:
            session.execute(Job.__table__.delete().where(Job.kind != POLL_JOB))
        if not Worker(runtime).run_once():
            stop.wait(0.05)


def test_the_cli_waits_for_the_poll_and_says_how_it_went(
    runtime: Runtime,
    settings: Settings,
    server: LoopbackServer,
    internet: LoopbackInternet,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    source_id = _add(runtime)
    runner = CliRunner()
    # No worker: the wait ends at the timeout, with the poll still queued.
    alone = runner.invoke(app, ["sources", "poll", source_id, "--wait", "--timeout", "1"])
    assert alone.exit_code == 1, alone.output
    assert f"the poll of source {source_id} is still queued after 1 s" in alone.stderr

    # A worker on the real clock, as the command's jobs are queued by it.
    working = Runtime(settings)
    working.service("ingest.fetcher", lambda: internet)
    stop = threading.Event()
    worker = threading.Thread(target=_worker_until, args=(working, stop))
    worker.start()
    try:
        # The feed is not there yet: the poll fails, and says why.
        failed = runner.invoke(app, ["sources", "poll", source_id, "--wait", "--timeout", "30"])
        assert failed.exit_code == 1, failed.output
        assert f"poll of source {source_id} failed: " in failed.stderr
        assert "404" in failed.stderr
        server.serve(FEED, fixture_bytes("rss20_liftoff.xml"), content_type="application/rss+xml")
        stored = runner.invoke(app, ["sources", "poll", FEED, "--wait", "--timeout", "30"])
    finally:
        stop.set()
        worker.join(30)
        working.close()
    assert stored.exit_code == 0, stored.output
    report = stored_source(runtime, source_id).last_report
    assert report is not None
    assert report["accepted"] > 0
    assert f"poll of source {source_id}: {report['accepted']} accepted, 0 updated" in stored.stderr
