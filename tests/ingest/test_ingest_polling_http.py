"""Polls against feed servers' HTTP behaviours (redirects, Retry-After), on a real loopback
server."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.db.models.ingest import Source
from herald.ingest.fetch import FetchResult
from herald.ingest.polling import poll_source, schedule_due_polls
from herald.ingest.source_records import add_source, remove_source
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, article_page, ecbplus_docs, fixture_bytes

MOVED_FEED = """<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Moved News</title><link>http://new.test/news/</link>
<item><title>{title}</title><link>stories/one.html</link><guid isPermaLink="false">one</guid>
<pubDate>Mon, 30 Nov 2026 10:00:00 GMT</pubDate><description>{teaser}</description></item>
</channel></rss>"""


def test_a_moved_feed_resolves_relative_links_against_where_it_moved(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    doc = ecbplus_docs()["29_1ecbplus"]["text"].split("\n")
    feed = MOVED_FEED.format(title=doc[0], teaser=doc[2][:80])
    server.serve(
        "http://old.test/feed",
        b"",
        status=301,
        content_type=None,
        headers={"Location": server.url("new.test/news/feed.xml")},
    )
    server.serve("http://new.test/news/feed.xml", feed, content_type="application/rss+xml")
    server.serve(
        "http://new.test/news/stories/one.html", article_page(doc[0], doc[2:], site="Moved News")
    )
    with runtime.sessions.write() as session:
        source = add_source(
            session,
            url="http://old.test/feed",
            media_type="news",
            clock=runtime.clock,
            interval_seconds=900,
        )
    outcome = poll_source(runtime.sessions, source.id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored"
    assert outcome.report is not None
    assert outcome.report.accepted == 1
    with runtime.sessions.read() as session:
        [url] = session.scalars(select(ContentItem.url))
    # "stories/one.html" in the feed that now lives at http://new.test/news/feed.xml
    assert url == "http://new.test/news/stories/one.html"
    assert server.hits_for("http://new.test/news/stories/one.html")
    assert not server.hits_for("http://old.test/stories/one.html")


def _retry_after(form: str) -> str:
    if form == "seconds":
        return "7200"
    # the fetcher reads an HTTP date against its own clock (here the system's)
    return format_datetime(datetime.now(UTC) + timedelta(hours=2), usegmt=True)


@pytest.mark.parametrize("status", [429, 503])
@pytest.mark.parametrize("form", ["seconds", "http_date"])
def test_retry_after_on_429_or_503_pauses_the_source_that_long(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet, status: int, form: str
) -> None:
    server.serve(
        "http://busy.test/feed",
        "slow down",
        status=status,
        content_type="text/plain",
        headers={"Retry-After": _retry_after(form)},
    )
    with runtime.sessions.write() as session:
        source = add_source(
            session,
            url="http://busy.test/feed",
            media_type="news",
            clock=runtime.clock,
            interval_seconds=900,
        )
    assert isinstance(runtime.clock, FrozenClock)
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == [source.id]
    outcome = poll_source(runtime.sessions, source.id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "failed"
    with runtime.sessions.read() as session:
        stored = session.get(Source, source.id)
        assert stored is not None
        assert stored.last_error is not None
        assert stored.last_error.startswith(f"http_status: HTTP {status}")
        assert stored.consecutive_failures == 1
        pause = stored.next_poll_at - runtime.clock.now()
    assert abs(pause - timedelta(hours=2)) < timedelta(seconds=5)
    # not polled again at its interval, only once the pause is over
    runtime.clock.advance(timedelta(seconds=900))
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == []
    runtime.clock.advance(timedelta(hours=2))
    with runtime.sessions.write() as session:
        assert schedule_due_polls(session, clock=runtime.clock) == [source.id]
    assert len(server.hits_for("http://busy.test/feed")) == 1


def test_retry_after_is_capped_and_ignored_on_other_statuses(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    with runtime.sessions.write() as session:
        ids = [
            add_source(
                session, url=url, media_type="news", clock=runtime.clock, interval_seconds=900
            ).id
            for url in ("http://far.test/feed", "http://broken.test/feed")
        ]
    server.serve(
        "http://far.test/feed",
        "",
        status=429,
        content_type="text/plain",
        headers={"Retry-After": str(365 * 86400)},
    )
    server.serve(
        "http://broken.test/feed",
        "",
        status=500,
        content_type="text/plain",
        headers={"Retry-After": "7200"},
    )
    now = runtime.clock.now()
    for source_id in ids:
        assert (
            poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet).status
            == "failed"
        )
    with runtime.sessions.read() as session:
        far, broken = (session.get(Source, source_id) for source_id in ids)
        assert far is not None
        assert broken is not None
        assert far.next_poll_at == now + timedelta(days=1)
        assert broken.next_poll_at == now  # its schedule, as any failure


def test_a_source_removed_while_its_poll_runs_gets_no_items(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(
        "http://gone.test/feed",
        fixture_bytes("rss20_liftoff.xml"),
        content_type="application/rss+xml",
    )
    with runtime.sessions.write() as session:
        source = add_source(
            session,
            url="http://gone.test/feed",
            media_type="news",
            clock=runtime.clock,
            interval_seconds=900,
        )

    class RemovedMeanwhile:
        """The feed arrives; an operator removes the source before the poll stores it."""

        def fetch(self, url: str, **kwargs: object) -> FetchResult:
            result = internet.fetch(url, **kwargs)  # type: ignore[arg-type]
            if url == "http://gone.test/feed":
                with runtime.sessions.write() as session:
                    remove_source(session, source.id)
            return result

    outcome = poll_source(
        runtime.sessions, source.id, clock=runtime.clock, fetcher=RemovedMeanwhile()
    )
    assert outcome.status == "gone"
    with runtime.sessions.read() as session:
        assert list(session.scalars(select(ContentItem.id))) == []
        assert session.get(Source, source.id) is None


def test_an_entry_quoting_a_nul_is_reported_and_the_others_stored(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    # the rejected entry's id (its ref in the source's last_report) holds a NUL, which
    # PostgreSQL refused: the whole poll failed, every time, with no error on the source
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Nul News",
        "home_page_url": "http://nul.test/",
        "items": [
            {"id": "bad\u0000id"},
            {
                "id": "fine",
                "url": "http://nul.test/fine",
                "title": "A fine item",
                "content_text": "Text that is fine to store. " * 5,
                "date_published": "2026-11-30T10:00:00Z",
            },
        ],
    }
    server.serve(
        "http://nul.test/feed.json", json.dumps(feed), content_type="application/feed+json"
    )
    with runtime.sessions.write() as session:
        source = add_source(
            session,
            url="http://nul.test/feed.json",
            media_type="news",
            clock=runtime.clock,
            interval_seconds=900,
            format_name="jsonfeed",
        )
    outcome = poll_source(runtime.sessions, source.id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored"
    with runtime.sessions.read() as session:
        assert list(session.scalars(select(ContentItem.url))) == ["http://nul.test/fine"]
        stored = session.get(Source, source.id)
        assert stored is not None
        assert stored.last_report is not None
        [error] = stored.last_report["errors"]
        assert error["ref"] == "bad\\x00id"
        assert error["reason"] == "item has no content_text, content_html or summary"
