"""A feed that moved for good (301/308) and then fails at its new address while its configured
address works again: after every few failures one poll asks the configured address, and a feed
there makes it the address fetched from again (real loopback HTTP, both databases)."""

from __future__ import annotations

from herald.ingest.polling import poll_source
from herald.ingest.source_records import MOVED_FAILURES_BEFORE_HOME, add_source
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes, stored_source

RSS = "application/rss+xml"
OLD = "http://old-home.test/feed.xml"
NEW = "http://new-home.test/rss/feed.xml"
NEWER = "http://newer-home.test/feed.xml"


def _redirect(server: LoopbackServer, url: str, status: int, to: str) -> None:
    target = server.url(to.split("://", 1)[1])
    server.serve(url, b"", status=status, content_type=None, headers={"Location": target})


def _moved_then_broken(runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet) -> str:
    """A source of OLD that moved to NEW for good, whose NEW now fails (a 500)."""
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    with runtime.sessions.write() as session:
        source_id = add_source(
            session, url=OLD, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id
    assert _poll(runtime, internet, source_id) == "stored"
    assert stored_source(runtime, source_id).fetch_url == NEW
    server.serve(NEW, "down", status=500, content_type="text/plain")
    return source_id


def _poll(runtime: Runtime, internet: LoopbackInternet, source_id: str) -> str:
    return poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet).status


def test_a_moved_feed_failing_where_it_moved_goes_back_to_its_working_configured_url(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _moved_then_broken(runtime, server, internet)
    server.serve(OLD, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)  # back at home
    internet.requested.clear()
    for _ in range(MOVED_FAILURES_BEFORE_HOME):
        assert _poll(runtime, internet, source_id) == "failed"
    assert internet.requested == [NEW] * MOVED_FAILURES_BEFORE_HOME
    assert stored_source(runtime, source_id).consecutive_failures == MOVED_FAILURES_BEFORE_HOME

    internet.requested.clear()
    assert _poll(runtime, internet, source_id) == "stored"
    assert internet.requested == [OLD]
    source = stored_source(runtime, source_id)
    assert (source.fetch_url, source.consecutive_failures, source.last_error) == (None, 0, None)
    internet.requested.clear()
    assert _poll(runtime, internet, source_id) == "stored"
    assert internet.requested == [OLD]  # fetched from its configured address from now on


def test_the_configured_url_redirecting_for_good_elsewhere_is_followed_there(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _moved_then_broken(runtime, server, internet)
    _redirect(server, OLD, 308, NEWER)
    server.serve(NEWER, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    for _ in range(MOVED_FAILURES_BEFORE_HOME):
        assert _poll(runtime, internet, source_id) == "failed"
    assert _poll(runtime, internet, source_id) == "stored"
    assert stored_source(runtime, source_id).fetch_url == NEWER


def test_a_configured_url_failing_too_keeps_where_the_feed_moved(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _moved_then_broken(runtime, server, internet)
    server.serve(OLD, "not here", status=404, content_type="text/plain")
    internet.requested.clear()
    for _ in range(MOVED_FAILURES_BEFORE_HOME + 1):
        assert _poll(runtime, internet, source_id) == "failed"
    assert internet.requested == [NEW] * MOVED_FAILURES_BEFORE_HOME + [OLD]
    source = stored_source(runtime, source_id)
    assert source.fetch_url == NEW
    assert source.last_error is not None
    assert source.last_error.startswith(f"at the configured {OLD} (tried again after failures")
    assert "404" in source.last_error
    internet.requested.clear()
    assert _poll(runtime, internet, source_id) == "failed"
    assert internet.requested == [NEW]  # where it moved, until the next few failures


def test_a_configured_url_that_is_not_a_feed_is_not_taken_back(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _moved_then_broken(runtime, server, internet)
    server.serve(OLD, "<html><body>We moved!</body></html>", content_type="text/html")
    for _ in range(MOVED_FAILURES_BEFORE_HOME + 1):
        assert _poll(runtime, internet, source_id) == "failed"
    assert stored_source(runtime, source_id).fetch_url == NEW
