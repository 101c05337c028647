"""Sources over years of operation: feeds that fail for a long time, die (410) or move
(permanent redirects), on a real loopback server and both databases."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.db.models.job import Job
from herald.ingest.polling import POLL_JOB, poll_source, schedule_due_polls
from herald.ingest.source_records import add_source, failure_backoff
from herald.jobs.worker import Worker
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes, stored_source

FEED = "http://dying.test/feed.xml"
RSS = "application/rss+xml"


def _add(runtime: Runtime, url: str, *, media_type: str = "news", interval: int = 900) -> str:
    with runtime.sessions.write() as session:
        return add_source(
            session, url=url, media_type=media_type, clock=runtime.clock, interval_seconds=interval
        ).id


def _frozen(runtime: Runtime) -> FrozenClock:
    assert isinstance(runtime.clock, FrozenClock)
    return runtime.clock


def _run_due(runtime: Runtime, source_id: str, internet: LoopbackInternet) -> str:
    """Move the clock to the source's next poll, schedule it and run it (as the worker does)."""
    clock = _frozen(runtime)
    clock.set(max(clock.now(), stored_source(runtime, source_id).next_poll_at))
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=clock) == [source_id]
    return poll_source(runtime.sessions, source_id, clock=clock, fetcher=internet).status


def _serve_liftoff(server: LoopbackServer, url: str = FEED) -> None:
    # A feed whose entries carry their whole text in the feed (no page fetches needed).
    server.serve(url, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)


def test_failure_backoff_doubles_from_the_interval_to_a_day() -> None:
    assert [failure_backoff(900, n) / timedelta(minutes=15) for n in range(1, 10)] == [
        1,
        2,
        4,
        8,
        16,
        32,
        64,
        96,  # one day
        96,
    ]
    assert failure_backoff(900, 100_000) == timedelta(days=1)  # years of failures
    # a source polled less often than daily is never polled more often for failing
    assert failure_backoff(3 * 86400, 5) == timedelta(days=3)


def test_a_dead_feed_backs_off_to_daily_and_the_first_success_resets_it(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(FEED, "down", status=500, content_type="text/plain")
    source_id = _add(runtime, FEED)
    clock = _frozen(runtime)
    started = clock.now()
    gaps = []
    last = None
    while clock.now() - started < timedelta(days=30):
        assert _run_due(runtime, source_id, internet) == "failed"
        if last is not None:
            gaps.append(clock.now() - last)
        last = clock.now()
    polls = len(server.hits_for(FEED))
    # the interval twice (the first failure keeps the schedule), then doubling, then daily
    assert [gap / timedelta(minutes=15) for gap in gaps[:9]] == [1, 2, 4, 8, 16, 32, 64, 96, 96]
    assert polls == len(gaps) + 1
    assert polls <= 30 + 8  # a month of a dead feed: about a poll a day, not 2,880
    source = stored_source(runtime, source_id)
    assert source.consecutive_failures == polls
    assert source.next_poll_at == clock.now() + timedelta(days=1)
    assert (source.last_error or "").startswith("http_status: HTTP 500")

    _serve_liftoff(server)  # it comes back
    assert _run_due(runtime, source_id, internet) == "stored"
    source = stored_source(runtime, source_id)
    assert source.consecutive_failures == 0
    assert source.last_error is None
    assert source.next_poll_at == clock.now() + timedelta(seconds=900)  # its interval again


@pytest.mark.parametrize(
    ("retry_after", "failures_before", "expected"),
    [
        ("7200", 2, timedelta(hours=2)),  # Retry-After longer than the backoff (30 min): it wins
        ("60", 5, timedelta(hours=8)),  # the 6th failure backs off 32 x 15 min: that wins
    ],
)
def test_retry_after_wins_when_longer_than_the_backoff(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    retry_after: str,
    failures_before: int,
    expected: timedelta,
) -> None:
    server.serve(FEED, "down", status=500, content_type="text/plain")
    source_id = _add(runtime, FEED)
    for _ in range(failures_before):
        assert _run_due(runtime, source_id, internet) == "failed"
    server.serve(
        FEED, "busy", status=503, content_type="text/plain", headers={"Retry-After": retry_after}
    )
    assert _run_due(runtime, source_id, internet) == "failed"
    source = stored_source(runtime, source_id)
    assert source.consecutive_failures == failures_before + 1
    assert source.next_poll_at == runtime.clock.now() + expected


def test_a_gone_feed_says_so_and_backs_off_like_any_failure(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    client: TestClient,
    admin_auth: dict[str, str],
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime, FEED)
    assert _run_due(runtime, source_id, internet) == "stored"
    server.serve(FEED, "gone", status=410, content_type="text/plain")
    for failures in (1, 2, 3):
        assert _run_due(runtime, source_id, internet) == "failed"
        source = stored_source(runtime, source_id)
        assert source.consecutive_failures == failures
        assert source.enabled  # the operator decides
        assert source.next_poll_at == runtime.clock.now() + failure_backoff(900, failures)
    error = source.last_error or ""
    assert error.startswith("http_status: HTTP 410")
    assert "gone for good" in error
    shown = client.get(f"/v1/admin/sources/{source_id}", headers=admin_auth).json()["source"]
    assert shown["last_error"] == error
    assert shown["consecutive_failures"] == 3
    assert shown["next_poll_at"].startswith(source.next_poll_at.strftime("%Y-%m-%dT%H:%M:%S"))
    with runtime.sessions.read() as session:  # its items stay
        assert session.execute(select(func.count()).select_from(ContentItem)).scalar_one() == 4


# A storage failure nobody planned for: the database refuses every new content row.
_REFUSE = {
    "sqlite": [
        "CREATE TRIGGER test_refuse_items BEFORE INSERT ON content_items "
        "BEGIN SELECT RAISE(ABORT, 'secret internal detail'); END"
    ],
    "postgresql": [
        "CREATE FUNCTION test_refuse_items() RETURNS trigger AS $$ BEGIN "
        "RAISE EXCEPTION 'secret internal detail'; END; $$ LANGUAGE plpgsql",
        "CREATE TRIGGER test_refuse_items BEFORE INSERT ON content_items "
        "FOR EACH ROW EXECUTE FUNCTION test_refuse_items()",
    ],
}
_ALLOW = {
    "sqlite": ["DROP TRIGGER IF EXISTS test_refuse_items"],
    "postgresql": [
        "DROP TRIGGER IF EXISTS test_refuse_items ON content_items",
        "DROP FUNCTION IF EXISTS test_refuse_items()",
    ],
}


def _storage(runtime: Runtime, statements: dict[str, list[str]]) -> None:
    with runtime.engine.begin() as connection:
        for statement in statements[connection.dialect.name]:
            connection.exec_driver_sql(statement)


def test_an_error_storing_a_polls_items_shows_on_the_source_and_the_job_is_retried(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _serve_liftoff(server)
    source_id = _add(runtime, FEED)
    runtime.service("ingest.fetcher", lambda: internet)  # the worker's fetcher: loopback only
    clock = _frozen(runtime)
    _storage(runtime, _REFUSE)
    try:
        with runtime.sessions.write() as session:
            assert schedule_due_polls(session, clock=clock) == [source_id]
        assert Worker(runtime).run_once() == 1  # the poll job ran, and failed
        source = stored_source(runtime, source_id)
        # a short message naming the kind of error (the driver's: IntegrityError on SQLite)
        assert re.fullmatch(
            r"store: storing this poll's items failed \(\w+Error\); retried",
            source.last_error or "",
        )
        assert "secret" not in (source.last_error or "")
        assert source.last_error_at == clock.now()
        assert source.consecutive_failures == 1
        with runtime.sessions.read() as session:
            [job] = session.scalars(select(Job).where(Job.kind == POLL_JOB))
            assert (job.status, job.attempts) == ("queued", 1)  # the queue tries it again
            assert session.execute(select(func.count()).select_from(ContentItem)).scalar_one() == 0
    finally:
        _storage(runtime, _ALLOW)
    clock.set(job.run_at)
    assert Worker(runtime).run_once() == 1  # the retry stores the items
    source = stored_source(runtime, source_id)
    assert source.last_error is None
    assert source.consecutive_failures == 0
    with runtime.sessions.read() as session:
        assert session.execute(select(func.count()).select_from(ContentItem)).scalar_one() == 4
        assert list(session.scalars(select(Job.id).where(Job.kind == POLL_JOB))) == []
