"""Shapes real feeds send, each reduced to a minimal feed written for the test: plain-text
titles that mention tags, named time zones, charsets given only in the HTTP header."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.ingest.model import IncomingItem, ItemWarning, ParseOutcome
from herald.ingest.normalize import ItemRejected, item_from_mapping
from herald.ingest.polling import poll_source
from herald.ingest.source_records import add_source
from herald.ingest.sources import Document, FeedAdapter, JsonFeedAdapter
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
LONG = " ".join(["Enough words to be a full text rather than a teaser."] * 20)


def _parse(feed: str | bytes, content_type: str | None = None) -> list[ParseOutcome]:
    content = feed.encode("utf-8") if isinstance(feed, str) else feed
    document = Document(
        content=content, origin="https://feeds.test/f.xml", content_type=content_type
    )
    return list(FeedAdapter(clock=FrozenClock(NOW)).parse(document))


def _items(outcomes: list[ParseOutcome]) -> list[IncomingItem]:
    return [o for o in outcomes if isinstance(o, IncomingItem)]


def test_plain_text_titles_and_content_keep_what_looks_like_a_tag() -> None:
    # Atom type="text" (the default) is text, not markup: a post about the <dialog> element
    # (as web-platform blogs title them) lost the element's name; an RSS title without markup
    # (feedparser types it text/plain) lost everything after a "<".
    atom = f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Web</title><id>urn:feed</id>
<link href="https://web.example.com/"/><updated>2024-01-01T00:00:00Z</updated>
<entry><title type="text">Using the &lt;dialog&gt; element</title><id>urn:1</id>
<link href="https://web.example.com/dialog"/><updated>2024-01-01T10:00:00Z</updated>
<content type="text">Open a &lt;dialog&gt; with showModal(). {LONG}</content></entry>
<entry><title type="html">Styling &lt;em&gt;emphasis&lt;/em&gt;</title><id>urn:2</id>
<link href="https://web.example.com/em"/><updated>2024-01-01T10:00:00Z</updated>
<content type="html">&lt;p&gt;Use &lt;code&gt;em&lt;/code&gt;. {LONG}&lt;/p&gt;</content></entry>
</feed>"""
    dialog, em = _items(_parse(atom))
    assert dialog.title == "Using the <dialog> element"
    assert dialog.body is not None
    assert dialog.body.startswith("Open a <dialog> with showModal().")
    assert em.title == "Styling emphasis"
    assert em.body is not None
    assert em.body.startswith("Use em.")

    rss = f"""<rss version="2.0"><channel><title>Maths</title><link>https://m.example.com/</link>
<item><title>Why x &lt; y when y &gt; 2</title><link>https://m.example.com/1</link>
<pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate><description>{LONG}</description></item>
</channel></rss>"""
    (item,) = _items(_parse(rss))
    assert item.title == "Why x < y when y > 2"


def test_named_time_zones_are_read_as_their_offsets_or_refused() -> None:
    # European and Australian feeds write their own zone names (RFC 822 knows only the North
    # American ones); "CEST" was read as UTC, two hours off. "IST" names three zones.
    rss = f"""<rss version="2.0"><channel><title>Zeit</title><link>https://z.example.de/</link>
<item><title>Berlin</title><link>https://z.example.de/1</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 CEST</pubDate><description>{LONG}</description></item>
<item><title>Sydney</title><link>https://z.example.de/2</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 AEST</pubDate><description>{LONG}</description></item>
<item><title>New York</title><link>https://z.example.de/3</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 EDT</pubDate><description>{LONG}</description></item>
<item><title>PHP</title><link>https://z.example.de/5</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 +02:00</pubDate><description>{LONG}</description></item>
<item><title>JavaScript</title><link>https://z.example.de/6</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 GMT+0200</pubDate><description>{LONG}</description></item>
<item><title>Somewhere</title><link>https://z.example.de/4</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 IST</pubDate><description>{LONG}</description></item>
</channel></rss>"""
    outcomes = _parse(rss)
    dates = {item.title: item.published_date for item in _items(outcomes)}
    assert dates["Berlin"] == datetime(2003, 6, 11, 2, 0, tzinfo=UTC)
    assert dates["Sydney"] == datetime(2003, 6, 10, 18, 0, tzinfo=UTC)
    assert dates["New York"] == datetime(2003, 6, 11, 8, 0, tzinfo=UTC)
    # Offsets Python's RFC 2822 reader leaves unread (PHP's "P" format, JavaScript's "GMT+").
    assert dates["PHP"] == datetime(2003, 6, 11, 2, 0, tzinfo=UTC)
    assert dates["JavaScript"] == datetime(2003, 6, 11, 2, 0, tzinfo=UTC)
    assert dates["Somewhere"] == NOW  # refused, so the time it was first seen
    (warning,) = [o for o in outcomes if isinstance(o, ItemWarning)]
    assert warning.location == "entry 6"
    assert "unknown or ambiguous time zone" in warning.reason


def test_json_lines_dates_with_named_zones() -> None:
    line = {
        "url": "https://z.example.de/1",
        "media_type": "news",
        "title": "Berlin",
        "body": LONG,
        "source": {"name": "Zeit", "domain": "z.example.de"},
        "published_date": "Wed, 11 Jun 2003 04:00:00 MESZ",
    }
    assert item_from_mapping(line).published_date == datetime(2003, 6, 11, 2, 0, tzinfo=UTC)
    with pytest.raises(ItemRejected, match="unknown or ambiguous time zone"):
        item_from_mapping({**line, "published_date": "Wed, 11 Jun 2003 04:00:00 IST"})


def _stored_titles(runtime: Runtime) -> set[str]:
    with runtime.sessions.read() as session:
        return set(session.scalars(select(ContentItem.title)))


def test_a_charset_only_the_server_states_decodes_the_feed(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    # Russian and other regional sites serve windows-1251 (koi8-r, shift_jis...) feeds whose
    # XML declaration names no encoding; only the HTTP header does. They were read as
    # windows-1252: "Привет" stored as "Ïðèâåò".
    feed = f"""<?xml version="1.0"?>
<rss version="2.0"><channel><title>Новости</title><link>https://ru.example.com/</link>
<item><title>Привет, мир</title><link>https://ru.example.com/1</link>
<pubDate>Wed, 11 Jun 2003 04:00:00 +0300</pubDate><description>{LONG}</description></item>
</channel></rss>"""
    server.serve(
        "http://ru.example.com/rss",
        feed.encode("cp1251"),
        content_type="application/rss+xml; charset=windows-1251",
    )
    # A UTF-8 feed its server mislabels stays UTF-8.
    server.serve(
        "http://mislabelled.example.com/rss",
        feed.replace("ru.example.com", "mislabelled.example.com").replace("Привет", "Здравствуй"),
        content_type="text/xml; charset=ISO-8859-1",
    )
    for url in ("http://ru.example.com/rss", "http://mislabelled.example.com/rss"):
        with runtime.sessions.write() as session:
            view = add_source(
                session, url=url, media_type="news", clock=runtime.clock, interval_seconds=900
            )
        outcome = poll_source(runtime.sessions, view.id, clock=runtime.clock, fetcher=internet)
        assert outcome.status == "stored"
        assert outcome.report is not None
        assert outcome.report.accepted == 1
    assert _stored_titles(runtime) == {"Привет, мир", "Здравствуй, мир"}


def test_plain_text_that_is_html_after_all_is_read_as_html() -> None:
    # Atom producers that leave out type="html" (so the type is text) but escape HTML anyway.
    atom = f"""<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><id>urn:f</id>
<link href="https://t.example.com/"/><updated>2024-01-01T00:00:00Z</updated>
<entry><title>Tom &amp;amp; Jerry</title><id>urn:1</id><link href="https://t.example.com/1"/>
<updated>2024-01-01T10:00:00Z</updated>
<content>&lt;p&gt;First.&lt;/p&gt;&lt;p&gt;{LONG}&lt;/p&gt;</content></entry></feed>"""
    (item,) = _items(_parse(atom))
    assert item.title == "Tom & Jerry"
    assert item.body is not None
    assert item.body.startswith("First.\n\nEnough words")


def test_json_feed_titles_and_names_with_character_references() -> None:
    # Blog engines' JSON Feeds carry the HTML character references of their titles
    # ("it&#8217;s", "&amp;") in fields JSON Feed defines as plain text; they were stored as
    # written, and "Jane &amp; John" became the authors Jane, amp and John.
    feed = {
        "version": "https://jsonfeed.org/version/1",
        "title": "Tom &amp; Jerry&#8217;s Blog",
        "home_page_url": "https://wp.example.com/",
        "items": [
            {
                "id": "https://wp.example.com/?p=12",
                "url": "https://wp.example.com/hello/",
                "title": "Hello &#8211; it&#8217;s here",
                "summary": "It&#8217;s a summary",
                "content_html": f"<p>{LONG}</p>",
                "date_published": "2024-01-01T10:00:00+01:00",
                "author": {"name": "Jane &amp; John Roe"},
            },
            {
                "id": "13",
                "url": "https://wp.example.com/x/",
                "title": "Why x < y & more",
                "content_text": LONG,
                "date_published": "2024-01-01T10:00:00Z",
            },
        ],
    }
    document = Document(content=orjson.dumps(feed), origin="https://wp.example.com/feed/json")
    first, second = _items(list(JsonFeedAdapter(clock=FrozenClock(NOW)).parse(document)))
    assert first.title == "Hello \u2013 it\u2019s here"
    assert first.summary == "It\u2019s a summary"
    assert first.authors == ("Jane", "John Roe")
    assert first.source.name == "Tom & Jerry\u2019s Blog"
    assert second.title == "Why x < y & more"
