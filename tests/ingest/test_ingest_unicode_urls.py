"""URLs that differ only in how their letters are composed (Unicode NFC or NFD, written as they
are or as UTF-8 percent-escapes) are one item; an item, tombstone or source stored under the
canonical form of before (the text as given) is found under it, updated, never stored again.
Both databases; feeds served by a real loopback HTTP server."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import orjson
import pytest
from sqlalchemy import func, select, update

from herald.content.deletion import ContentSelector, delete_content
from herald.core.ids import stable_id
from herald.db.models.content import ContentItem, ContentTombstone
from herald.db.models.ingest import Source
from herald.errors import InvalidRequest
from herald.ingest.model import IncomingItem, SourceRef, content_id_for_key, content_ids_of
from herald.ingest.pipeline import ingest_outcomes, parse_document
from herald.ingest.polling import poll_source
from herald.ingest.service import IngestReport, store_items
from herald.ingest.source_records import add_source, find_source
from herald.ingest.sources import Document
from herald.ingest.sources.podcast import _derived_podcast_id
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer

NFC = "https://news.example.com/2026/11/caf%C3%A9-culture?tag=cr%C3%A8me"
NFD = "https://news.example.com/2026/11/cafe%CC%81-culture?tag=cre%CC%80me"
NFD_TEXT = "https://news.example.com/2026/11/cafe\u0301-culture?tag=cre\u0300me"
CANONICAL = NFC
# What earlier releases made of NFD and NFD_TEXT (frozen here: the text as given).
EARLIER = "https://news.example.com/2026/11/cafe%CC%81-culture?tag=cre%CC%80me"
FEED_URL = "http://feeds.test/cafe.xml"
BODY = " ".join(["The café on the corner reopened on Monday with a new menu."] * 20)
PUBLISHED = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


@pytest.fixture
def feeds(
    server: LoopbackServer, internet: LoopbackInternet
) -> tuple[LoopbackServer, LoopbackInternet]:
    """The loopback server and the internet it serves (the ingest tests' own fixtures)."""
    return server, internet


def _rss(link: str, title: str, guid: str | None = None, body: str = BODY) -> str:
    guid_tag = f"<guid isPermaLink='false'>{guid}</guid>" if guid else ""
    return (
        "<?xml version='1.0' encoding='utf-8'?><rss version='2.0'><channel>"
        "<title>Example News</title><link>https://news.example.com/</link>"
        f"<description>News</description><item>{guid_tag}<link>{link}</link>"
        f"<title>{title}</title><pubDate>Tue, 24 Nov 2026 09:00:00 GMT</pubDate>"
        f"<description>{body}</description></item></channel></rss>"
    )


def _poll(
    runtime: Runtime, source_id: str, feeds: tuple[LoopbackServer, LoopbackInternet], feed: str
) -> IngestReport:
    server, internet = feeds
    server.serve(FEED_URL, feed, content_type="application/rss+xml")
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored", outcome
    assert outcome.report is not None
    return outcome.report


def _add_feed(runtime: Runtime) -> str:
    with runtime.sessions.write() as session:
        return add_source(
            session, url=FEED_URL, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id


def _import(runtime: Runtime, url: str, title: str = "Café culture") -> IngestReport:
    line = {
        "url": url,
        "media_type": "news",
        "title": title,
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Example News", "domain": "news.example.com"},
        "body": BODY,
    }
    document = Document(content=orjson.dumps(line), origin="items.jsonl")
    outcomes = parse_document(document, format_name="jsonl", clock=runtime.clock)
    return ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)


def _rows(runtime: Runtime) -> list[ContentItem]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(ContentItem)))


def _store_as_before(runtime: Runtime, external_id: str | None = None) -> str:
    """An item stored by an earlier release: keyed by the canonical form of then."""
    item = IncomingItem(
        media_type="news",
        title="Café culture",
        published_date=PUBLISHED,
        source=SourceRef("Example News", "news.example.com"),
        url=NFD,
        external_id=external_id,
        body=BODY,
    ).rekeyed(f"url:{EARLIER}")
    with runtime.sessions.write() as session:
        assert store_items(session, [item], clock=runtime.clock).accepted == 1
    return item.content_id


def test_composed_and_decomposed_spellings_of_a_url_are_one_item(runtime: Runtime) -> None:
    assert _import(runtime, NFC).accepted == 1
    for url in (NFD, NFD_TEXT):
        report = _import(runtime, url)
        assert (report.accepted, report.updated + report.duplicates) == (0, 1)
    (row,) = _rows(runtime)
    assert row.canonical_key == f"url:{CANONICAL}"
    assert row.id == content_id_for_key(f"url:{CANONICAL}")


@pytest.mark.parametrize("guid", [None, "cafe-1"])
def test_an_item_stored_under_the_earlier_form_is_updated_not_stored_again(
    runtime: Runtime, feeds: tuple[LoopbackServer, LoopbackInternet], guid: str | None
) -> None:
    # guid: an entry stored before own ids took precedence, and before text was normalised.
    stored_id = _store_as_before(runtime, external_id=guid)
    assert stored_id != content_id_for_key(f"url:{CANONICAL}")
    source_id = _add_feed(runtime)
    report = _poll(runtime, source_id, feeds, _rss(NFD, "Café culture, updated", guid))
    assert (report.accepted, report.updated) == (0, 1)
    (row,) = _rows(runtime)
    assert (row.id, row.title, row.version) == (stored_id, "Café culture, updated", 2)
    assert row.canonical_key == f"url:{EARLIER}"  # the row keeps its key and its id
    # The feed now spells the link composed: still the same item.
    report = _poll(runtime, source_id, feeds, _rss(NFC, "Café culture, again", guid))
    assert (report.accepted, report.updated) == (0, 1)
    (row,) = _rows(runtime)
    assert (row.id, row.title, row.version) == (stored_id, "Café culture, again", 3)
    # A JSON Lines import of either spelling lands on it too.
    for url in (NFC, NFD_TEXT):
        assert _import(runtime, url, title="Café culture, imported").accepted == 0
    assert [row.id for row in _rows(runtime)] == [stored_id]


def test_a_stored_teaser_under_the_earlier_form_is_not_fetched_again(
    runtime: Runtime, feeds: tuple[LoopbackServer, LoopbackInternet]
) -> None:
    stored_id = _store_as_before(runtime)
    assert stored_id in content_ids_of(NFD, "news.example.com", None)
    server, _ = feeds
    server.serve(NFC, "<html><body><p>The page.</p></body></html>")
    source_id = _add_feed(runtime)
    report = _poll(runtime, source_id, feeds, _rss(NFD, "Café culture", body="Café reopens."))
    assert (report.accepted, report.duplicates) == (0, 1)
    assert [hit.path for hit in server.hits] == ["feeds.test/cafe.xml"]  # no page fetched
    assert [row.id for row in _rows(runtime)] == [stored_id]


def test_tombstones_of_either_form_hold_for_every_spelling(runtime: Runtime) -> None:
    # Left by an earlier release: the hash of the canonical form of then.
    earlier_hash = hashlib.sha256(f"url:{EARLIER}".encode()).hexdigest()
    with runtime.sessions.write() as session:
        session.add(
            ContentTombstone(
                content_id=content_id_for_key(f"url:{EARLIER}"),
                url_hash=earlier_hash,
                deletion_id="del_earlier",
                created_at=PUBLISHED,
            )
        )
    for url in (NFD, NFD_TEXT, NFC):
        assert _import(runtime, url).tombstoned == 1
    assert _rows(runtime) == []

    # A row stored under the earlier form and deleted now: its tombstone holds the canonical
    # form of today, so every spelling is skipped.
    with runtime.sessions.write() as session:
        session.execute(ContentTombstone.__table__.delete())
    stored_id = _store_as_before(runtime)
    delete_content(
        runtime.sessions,
        ContentSelector(content_id=stored_id),
        actor="test",
        clock=runtime.clock,
    )
    for url in (NFC, NFD, NFD_TEXT):
        assert _import(runtime, url).tombstoned == 1
    assert _rows(runtime) == []


def test_a_feed_added_under_the_earlier_form_is_found_and_not_added_again(
    runtime: Runtime,
) -> None:
    feed = "https://feeds.example.com/cafe%CC%81/rss.xml"
    earlier = "https://feeds.example.com/cafe%CC%81/rss.xml"  # the text as given
    with runtime.sessions.write() as session:
        source_id = add_source(
            session, url=feed, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id
        session.execute(update(Source).values(canonical_url=earlier))
    for url in (feed, "https://feeds.example.com/caf%C3%A9/rss.xml"):
        with runtime.sessions.write() as session:
            with pytest.raises(InvalidRequest, match="already a source"):
                add_source(
                    session, url=url, media_type="news", clock=runtime.clock, interval_seconds=900
                )
            assert find_source(session, url).id == source_id
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(Source)) == 1


def test_a_shows_derived_id_stays_what_it_was() -> None:
    feed = "https://feeds.example.com/podcasts/cafe%CC%81.xml"
    earlier = "https://feeds.example.com/podcasts/cafe%CC%81.xml"
    assert _derived_podcast_id(feed, "", "Café") == stable_id("pod", earlier)
