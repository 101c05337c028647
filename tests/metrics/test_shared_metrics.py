"""/metrics is this process's own work (sums across processes); the state every process shares
(queue, deliveries, database size) is at /metrics/shared only, read from the database."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from herald import __version__
from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.jobs import queue
from herald.runtime import Runtime
from tests.metrics.scrape import names, total, value

SHARED = {
    "herald_queue_jobs",
    "herald_queue_oldest_due_seconds",
    "herald_webhook_deliveries",
    "herald_sources",
    "herald_sources_longest_failing_seconds",
    "herald_database_size_bytes",
    "herald_database_wal_bytes",
}


def test_queue_age_and_depth_are_read_from_the_database(
    client: TestClient, runtime: Runtime, clock: FrozenClock
) -> None:
    with runtime.sessions.write() as session:
        queue.enqueue(session, "enrich.item", {"content_id": "a"}, clock=clock)
        clock.advance(timedelta(minutes=10))
        queue.enqueue(session, "enrich.item", {"content_id": "b"}, clock=clock)
        later = clock.now() + timedelta(hours=1)
        queue.enqueue(session, "clusters.assign", {"x": 1}, clock=clock, run_at=later)
    clock.advance(timedelta(minutes=5))

    text = client.get("/metrics/shared").text
    assert value(text, "herald_queue_jobs", kind="enrich.item", status="queued") == 2
    assert value(text, "herald_queue_jobs", kind="clusters.assign", status="queued") == 1
    # The oldest due job waited 15 minutes; a job due later is not waiting yet.
    assert value(text, "herald_queue_oldest_due_seconds", kind="enrich.item") == 900
    assert value(text, "herald_queue_oldest_due_seconds", kind="clusters.assign") is None
    assert value(text, "herald_webhook_deliveries", status="retrying") == 0
    assert value(text, "herald_webhook_deliveries", status="failed") == 0
    assert (value(text, "herald_database_size_bytes") or 0) > 0


def test_per_process_metrics_hold_no_shared_gauge(client: TestClient) -> None:
    """Summing /metrics over processes is right: nothing in it is the same for every process."""
    client.get("/healthz")
    text = client.get("/metrics").text
    assert not names(text) & SHARED
    assert value(text, "herald_build_info", version=__version__) == 1
    assert (value(text, "herald_home_filesystem_avail_bytes") or 0) > 0
    assert (value(text, "herald_home_filesystem_size_bytes") or 0) > 0
    assert total(text, "herald_http_requests_total", route="/healthz") >= 1
    assert "process_resident_memory_bytes" in names(text)


@pytest.fixture
def token_client(home: Path, database_url: str, clock: FrozenClock) -> Iterator[TestClient]:
    settings = Settings(home=home, database_url=database_url, metrics_token="s3cret")
    runtime = Runtime(settings, clock=clock)
    try:
        with TestClient(create_app(runtime)) as client:
            yield client
    finally:
        runtime.close()


def test_the_metrics_token_guards_the_shared_gauges_too(token_client: TestClient) -> None:
    assert token_client.get("/metrics/shared").status_code == 401
    allowed = token_client.get("/metrics/shared", headers={"authorization": "Bearer s3cret"})
    assert allowed.status_code == 200
    assert "herald_queue_jobs" in allowed.text or "herald_database_size_bytes" in allowed.text


def test_the_write_ahead_log_size_is_reported_on_sqlite(
    client: TestClient, runtime: Runtime, clock: FrozenClock
) -> None:
    with runtime.sessions.write() as session:
        queue.enqueue(session, "enrich.item", {"content_id": "a"}, clock=clock)
    text = client.get("/metrics/shared").text
    wal = value(text, "herald_database_wal_bytes")
    if runtime.engine.dialect.name != "sqlite":
        assert wal is None  # PostgreSQL's server manages its own
        return
    assert wal is not None
    assert wal > 0  # the enqueue's pages are in it
    database = Path(runtime.engine.url.database or "")
    assert wal <= database.with_name(database.name + "-wal").stat().st_size  # it only grows here
