"""A feed teaser whose article page could not be fetched: later polls fetch it again, a bounded
number of times, and a page that comes back updates the item. Both databases; the feed and the
page served by a real loopback HTTP server, only the clock faked."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import delete, select

from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.db.models.job import Job
from herald.ingest.fetch import FetchError
from herald.ingest.page_retries import PAGE_FETCH_TRIES, PAGE_RETRY_WINDOW, failure_of
from herald.ingest.polling import poll_source
from herald.ingest.service import ENRICH_JOB, IngestReport
from herald.ingest.source_records import add_source
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, article_page, ecbplus_docs

FEED_URL = "http://feeds.test/teasers.xml"
PAGE_URL = "https://news.example.com/2026/11/30/quake"
TEASER = "A strong earthquake struck the region on Monday."


def _feed() -> str:
    # No validators: every poll gets the whole feed, as from a server that sends none.
    return (
        "<?xml version='1.0'?><rss version='2.0'><channel><title>Example News</title>"
        "<link>https://news.example.com/</link><description>News</description>"
        f"<item><guid isPermaLink='false'>quake-1</guid><link>{PAGE_URL}</link>"
        "<title>Earthquake strikes</title><pubDate>Mon, 30 Nov 2026 08:00:00 GMT</pubDate>"
        f"<description>{TEASER}</description></item></channel></rss>"
    )


def _page() -> tuple[str, str]:
    """An article page and the main text it holds (more words than the teaser)."""
    doc = ecbplus_docs()["29_1ecbplus"]["text"].split("\n")
    return article_page(doc[0], doc[2:], site="Example News"), doc[2]


def _setup(runtime: Runtime, server: LoopbackServer, page_status: int) -> str:
    server.serve(FEED_URL, _feed(), content_type="application/rss+xml")
    _serve_page(server, page_status)
    with runtime.sessions.write() as session:
        return add_source(
            session, url=FEED_URL, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id


def _serve_page(server: LoopbackServer, status: int) -> None:
    if status == 200:
        server.serve(PAGE_URL, _page()[0])
    else:
        server.serve(PAGE_URL, "unavailable", status=status, content_type="text/plain")


def _poll(runtime: Runtime, source_id: str, internet: LoopbackInternet) -> IngestReport:
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(timedelta(minutes=15))  # the next scheduled poll
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored", outcome
    assert outcome.report is not None
    return outcome.report


def _item(runtime: Runtime) -> ContentItem:
    with runtime.sessions.read() as session:
        (item,) = session.scalars(select(ContentItem)).all()
        session.expunge(item)
        return item


def _enrich_jobs(runtime: Runtime) -> list[str]:
    with runtime.sessions.read() as session:
        jobs = session.scalars(select(Job).where(Job.kind == ENRICH_JOB)).all()
        return [job.payload["content_id"] for job in jobs]


def _enrichment_done(runtime: Runtime) -> None:
    with runtime.sessions.write() as session:  # a succeeded job is deleted
        session.execute(delete(Job).where(Job.kind == ENRICH_JOB))


def _poll_with_the_page_back(
    runtime: Runtime, source_id: str, server: LoopbackServer, internet: LoopbackInternet
) -> IngestReport:
    """The next poll, with the article page served again: it is not fetched (the one request
    is the first poll's) and the item keeps its teaser."""
    _serve_page(server, 200)
    report = _poll(runtime, source_id, internet)
    assert len(server.hits_for(PAGE_URL)) == 1
    assert _item(runtime).body == TEASER
    return report


def test_a_page_that_failed_once_is_fetched_again_and_updates_the_item(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 503)
    first = _poll(runtime, source_id, internet)
    assert first.accepted == 1
    assert "article page not fetched (HTTP 503" in str(first.warnings)
    item = _item(runtime)
    assert (item.body, item.summary, item.version) == (TEASER, None, 1)
    assert item.page_fetch_failures == 1
    _enrichment_done(runtime)

    _serve_page(server, 200)
    second = _poll(runtime, source_id, internet)
    assert (second.accepted, second.updated, second.duplicates) == (0, 1, 0)
    assert second.warnings == []
    item = _item(runtime)
    assert _page()[1] in item.body
    assert item.summary == TEASER  # the teaser becomes the summary, as on a first fetch
    assert (item.version, item.page_fetch_failures) == (2, 0)
    assert _enrich_jobs(runtime) == [item.id]
    assert len(server.hits_for(PAGE_URL)) == 2

    # Fetched now: later polls never fetch it again (as for any page fetched at once).
    third = _poll(runtime, source_id, internet)
    assert (third.updated, third.duplicates) == (0, 1)
    assert len(server.hits_for(PAGE_URL)) == 2
    assert _item(runtime).version == 2


def test_a_page_fetched_at_once_is_never_fetched_again(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 200)
    _poll(runtime, source_id, internet)
    item = _item(runtime)
    assert (item.summary, item.page_fetch_failures) == (TEASER, 0)
    _serve_page(server, 503)  # would count as a failure, were it fetched
    for _ in range(3):
        assert _poll(runtime, source_id, internet).duplicates == 1
    assert len(server.hits_for(PAGE_URL)) == 1
    assert (_item(runtime).version, _item(runtime).page_fetch_failures) == (1, 0)


def test_a_page_that_keeps_failing_is_tried_at_most_the_bound(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 503)
    _poll(runtime, source_id, internet)
    _enrichment_done(runtime)
    for tried in range(2, PAGE_FETCH_TRIES + 1):
        report = _poll(runtime, source_id, internet)
        assert (report.updated, report.duplicates) == (0, 1)  # the same teaser: no new version
        assert "article page not fetched (HTTP 503" in str(report.warnings)
        assert len(server.hits_for(PAGE_URL)) == tried
        assert _item(runtime).page_fetch_failures == tried
    for _ in range(3):
        report = _poll(runtime, source_id, internet)
        assert (report.duplicates, report.warnings) == (1, [])
    assert len(server.hits_for(PAGE_URL)) == PAGE_FETCH_TRIES == 4
    item = _item(runtime)
    assert (item.body, item.version, item.page_fetch_failures) == (TEASER, 1, PAGE_FETCH_TRIES)
    assert _enrich_jobs(runtime) == []  # nothing changed: nothing to enrich again


@pytest.mark.parametrize("status", [404, 410])
def test_a_page_that_is_not_there_is_not_tried_again(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet, status: int
) -> None:
    source_id = _setup(runtime, server, status)
    _poll(runtime, source_id, internet)
    assert _item(runtime).page_fetch_failures == PAGE_FETCH_TRIES  # every try used at once
    assert _poll_with_the_page_back(runtime, source_id, server, internet).duplicates == 1


def test_a_page_without_main_text_is_not_tried_again(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 200)
    app_shell = "<html><head><title>Quake</title></head><body><script>app()</script></body></html>"
    server.serve(PAGE_URL, app_shell)  # its text is drawn by a script: none to extract
    first = _poll(runtime, source_id, internet)
    assert "no main text found on the article page" in str(first.warnings)
    assert _item(runtime).page_fetch_failures == PAGE_FETCH_TRIES  # every try used at once
    _poll_with_the_page_back(runtime, source_id, server, internet)


def test_a_failed_page_is_not_tried_after_the_window(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 503)
    _poll(runtime, source_id, internet)
    assert _item(runtime).page_fetch_failures == 1  # would be tried again on the next poll
    assert isinstance(runtime.clock, FrozenClock)
    runtime.clock.advance(PAGE_RETRY_WINDOW)  # first stored this long ago: left as a teaser
    assert _poll_with_the_page_back(runtime, source_id, server, internet).duplicates == 1


def test_a_deleted_teaser_is_not_fetched_again(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    source_id = _setup(runtime, server, 503)
    _poll(runtime, source_id, internet)
    assert _item(runtime).page_fetch_failures == 1  # would be tried again on the next poll
    deleted = delete_content(
        runtime.sessions,
        ContentSelector(content_id=_item(runtime).id),
        actor="test",
        clock=runtime.clock,
    )
    assert deleted.deletion_id is not None
    _serve_page(server, 200)
    report = _poll(runtime, source_id, internet)
    assert (report.tombstoned, report.accepted, report.updated) == (1, 0, 0)
    assert len(server.hits_for(PAGE_URL)) == 1


@pytest.mark.parametrize(
    ("error", "kind"),
    [
        (FetchError("timeout", "timed out"), "transient"),
        (FetchError("network", "connection refused"), "transient"),
        (FetchError("http_status", "HTTP 502", http_status=502), "transient"),
        (FetchError("http_status", "HTTP 408", http_status=408), "transient"),
        (FetchError("http_status", "HTTP 429", http_status=429), "transient"),
        (FetchError("http_status", "HTTP 403", http_status=403), "permanent"),
        (FetchError("too_large", "too large"), "permanent"),
        (FetchError("content_type", "not HTML"), "permanent"),
        (FetchError("forbidden_address", "a private address"), "permanent"),
    ],
)
def test_which_failures_another_try_could_fix(error: FetchError, kind: str) -> None:
    assert failure_of(error) == kind
