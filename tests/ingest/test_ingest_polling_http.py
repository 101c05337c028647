"""Polls against feed servers' HTTP behaviours (redirects), on a real loopback server."""

from __future__ import annotations

from sqlalchemy import select

from herald.db.models.content import ContentItem
from herald.ingest.polling import poll_source
from herald.ingest.source_records import add_source
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, article_page, ecbplus_docs

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
