"""``/metrics/shared`` counts the polled sources that work and fail, and how long the one failing
longest has failed, from real polls of a loopback server, on both databases."""

from __future__ import annotations

from datetime import timedelta

from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.ingest.polling import poll_source, schedule_due_polls
from herald.ingest.source_records import add_source
from herald.runtime import Runtime
from tests.metrics.scrape import value

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes, stored_source

WORKS = "http://works.test/feed.xml"
DIES = "http://dies.test/feed.xml"
NEVER = "http://never.test/feed.xml"
RSS = "application/rss+xml"
INTERVAL = 3600


def _add(runtime: Runtime, url: str) -> str:
    with runtime.sessions.write() as session:
        return add_source(
            session, url=url, media_type="news", clock=runtime.clock, interval_seconds=INTERVAL
        ).id


def _poll_due(runtime: Runtime, clock: FrozenClock, internet: LoopbackInternet) -> None:
    with runtime.sessions.write() as session:
        due = schedule_due_polls(session, clock=clock)
    for source_id in due:
        poll_source(runtime.sessions, source_id, clock=clock, fetcher=internet)


def _run_for(
    runtime: Runtime, clock: FrozenClock, internet: LoopbackInternet, span: timedelta
) -> None:
    """Poll every source when due, as the scheduler does, for ``span`` of time."""
    end = clock.now() + span
    while clock.now() < end:
        _poll_due(runtime, clock, internet)
        clock.advance(timedelta(seconds=INTERVAL))


def _sources(client: TestClient) -> tuple[float | None, float | None, float | None]:
    text = client.get("/metrics/shared").text
    return (
        value(text, "herald_sources", state="ok"),
        value(text, "herald_sources", state="failing"),
        value(text, "herald_sources_longest_failing_seconds"),
    )


def test_failing_sources_and_how_long_the_longest_has_failed(
    client: TestClient,
    runtime: Runtime,
    clock: FrozenClock,
    server: LoopbackServer,
    internet: LoopbackInternet,
) -> None:
    assert _sources(client) == (0, 0, 0)
    feed = fixture_bytes("rss20_liftoff.xml")
    server.serve(WORKS, feed, content_type=RSS)
    server.serve(DIES, feed, content_type=RSS)
    works, dies = _add(runtime, WORKS), _add(runtime, DIES)
    _poll_due(runtime, clock, internet)
    assert _sources(client) == (2, 0, 0)

    server.serve(DIES, "down", status=500, content_type="text/plain")
    clock.advance(timedelta(hours=6))
    never = _add(runtime, NEVER)
    server.serve(NEVER, "no such feed", status=404, content_type="text/plain")
    _run_for(runtime, clock, internet, timedelta(days=2))
    assert stored_source(runtime, works).consecutive_failures == 0
    died = stored_source(runtime, dies)
    assert died.consecutive_failures > 1
    assert died.last_success_at is not None
    # The dead feed fails since the poll after its last success was due, hours before the
    # never-working source was added.
    since = died.last_success_at + timedelta(seconds=INTERVAL)
    longest = (clock.now() - since).total_seconds()
    assert longest > 86400  # what the example alert rule fires on
    assert _sources(client) == (1, 2, longest)

    server.serve(DIES, feed, content_type=RSS)  # back, at its next (backed-off) poll
    _run_for(runtime, clock, internet, timedelta(days=1, seconds=INTERVAL))
    assert stored_source(runtime, dies).consecutive_failures == 0
    added = stored_source(runtime, never).created_at
    assert _sources(client) == (2, 1, (clock.now() - added).total_seconds())
