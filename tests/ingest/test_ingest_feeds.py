"""RSS 0.9x/1.0/2.0 and Atom feeds, with article pages served from a loopback HTTP server."""

from __future__ import annotations

from datetime import UTC, datetime

from herald.core.clock import FrozenClock
from herald.ingest.model import IncomingItem, ItemError, ItemWarning, ParseOutcome, SourceRef
from herald.ingest.sources import Document, FeedAdapter
from herald.ingest.syndication import SyndicationIndex, fingerprint

from .conftest import LoopbackInternet, LoopbackServer, article_page, ecbplus_docs, fixture_bytes

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def _run(adapter: FeedAdapter, name: str, **doc: object) -> list[ParseOutcome]:
    return list(
        adapter.parse(
            Document(content=fixture_bytes(name), origin=f"https://feeds.test/{name}", **doc)
        )
    )  # type: ignore[arg-type]


def _split(
    outcomes: list[ParseOutcome],
) -> tuple[list[IncomingItem], list[ItemError], list[ItemWarning]]:
    return (
        [o for o in outcomes if isinstance(o, IncomingItem)],
        [o for o in outcomes if isinstance(o, ItemError)],
        [o for o in outcomes if isinstance(o, ItemWarning)],
    )


def test_rss20_sample_without_network_keeps_teasers_and_titles_the_untitled_entry() -> None:
    items, errors, warnings = _split(_run(FeedAdapter(clock=FrozenClock(NOW)), "rss20_liftoff.xml"))
    eclipse = (
        "Sky watchers in Europe, Asia, and parts of Alaska and Canada will experience a partial "
        "eclipse of the Sun on Saturday…"
    )
    assert [i.title for i in items] == [
        "Star City",
        eclipse,
        "The Engine That Does More",
        "Astronauts' Dirty Laundry",
    ]
    assert [i.title_derived for i in items] == [False, True, False, False]
    assert errors == []
    # No fetcher: teasers are kept as they are; only the made-up title is reported.
    assert [(w.location, w.reason) for w in warnings] == [
        ("entry 2", "entry has no title; titled from its first sentence")
    ]
    assert items[1].external_id == "http://liftoff.msfc.nasa.gov/2003/05/30.html#item572"
    star = items[0]
    assert star.published_date == datetime(2003, 6, 3, 9, 39, 21, tzinfo=UTC)
    assert star.source == SourceRef("Liftoff News", "nasa.gov")
    assert star.url == "http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp"
    assert star.external_id == "http://liftoff.msfc.nasa.gov/2003/06/03.html#item573"
    assert star.language == "en"  # <language>en-us</language>: the language, not the region
    assert star.body
    assert star.body.startswith("How do Americans get ready")
    assert "<a" not in star.body
    assert star.media_type == "news"


def test_teasers_are_replaced_by_the_article_page(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    docs = ecbplus_docs()
    # Serve real article text (ECB+) as the Star City page; the feed only has one sentence.
    text = docs["29_1ecbplus"]["text"].split("\n")
    server.serve(
        "http://liftoff.msfc.nasa.gov/news/2003/news-starcity.asp",
        article_page(text[0], text[2:], site="Liftoff News", author="Jane Roe"),
    )
    server.serve(
        "http://liftoff.msfc.nasa.gov/news/2003/news-VASIMR.asp",
        "gone",
        status=404,
        content_type="text/plain",
    )
    server.serve(
        "http://liftoff.msfc.nasa.gov/news/2003/news-laundry.asp",
        b"%PDF-1.4",
        content_type="application/pdf",
    )
    items, errors, warnings = _split(
        _run(FeedAdapter(clock=FrozenClock(NOW), fetcher=internet), "rss20_liftoff.xml")
    )
    assert len(items) == 4
    assert errors == []
    star, eclipse, engine, laundry = items
    assert eclipse.title_derived
    assert star.body
    assert "The expectations placed upon Andrew Luck" in star.body
    assert "Most read" not in star.body
    assert "Sign in" not in star.body
    assert "All rights reserved" not in star.body
    assert star.summary
    assert star.summary.startswith("How do Americans get ready")
    assert star.authors == ("Jane Roe",)
    # Pages that fail keep the feed's teaser and say why.
    assert engine.body
    assert engine.body.startswith("Before man travels to Mars")
    warnings = [w for w in warnings if w.location != "entry 2"]  # its page is not served
    assert {w.location: w.reason for w in warnings} == {
        "entry 3": warnings[0].reason,
        "entry 4": warnings[1].reason,
    }
    assert "HTTP 404" in warnings[0].reason
    assert "kept the feed's text" in warnings[0].reason
    assert "unexpected content type application/pdf" in warnings[1].reason
    assert laundry.body
    assert laundry.body.startswith("Compared to earlier spacecraft")


def test_rss10_without_dates_uses_first_seen_time(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    items, errors, warnings = _split(
        _run(FeedAdapter(clock=FrozenClock(NOW), fetcher=None), "rss10_xmlcom.rdf")
    )
    assert errors == []
    assert [i.title for i in items] == ["Processing Inclusions with XSLT", "Putting RDF to Work"]
    assert all(i.published_date == NOW for i in items)
    assert [w.reason for w in warnings] == [
        "entry has no date; using the time it was first seen"
    ] * 2
    assert items[1].source == SourceRef("XML.com", "xml.com")
    assert items[1].body
    assert "Edd Dumbill takes a look at RDFDB" in items[1].body


def test_atom_entry_with_short_content_fetches_the_page(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    doc = ecbplus_docs()["24_5ecbplus"]
    lines = doc["text"].split("\n")
    server.serve(
        "http://example.org/2005/04/02/atom",
        article_page(lines[0], lines[3:], site="dive into mark", published="2003-12-13T12:29:29Z"),
    )
    items, errors, _ = _split(
        _run(FeedAdapter(clock=FrozenClock(NOW), fetcher=internet), "atom_rfc4287.xml")
    )
    assert errors == []
    (entry,) = items
    assert entry.title == "Atom draft-07 snapshot"
    assert entry.published_date == datetime(2003, 12, 13, 12, 29, 29, tzinfo=UTC)
    assert entry.authors == ("Mark Pilgrim",)
    assert entry.external_id == "tag:example.org,2003:3.2397"
    assert entry.source.domain == "example.org"
    assert entry.body
    assert "Place Vendôme" in entry.body
    assert entry.summary == "[Update: The Atom draft is finished.]"
    assert entry.media_type == "news"  # an enclosure alone does not make a blog a podcast
    assert internet.requested == ["http://example.org/2005/04/02/atom"]


def test_configured_source_and_media_type_override_the_feed() -> None:
    outcomes = _run(
        FeedAdapter(clock=FrozenClock(NOW)),
        "rss20_liftoff.xml",
        source=SourceRef("NASA Wire", "nasa.gov"),
        media_type="wire",
    )
    items, _, _ = _split(outcomes)
    assert {(i.source.name, i.media_type) for i in items} == {("NASA Wire", "wire")}


def test_syndicated_pages_behind_a_teaser_feed_share_one_article(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    docs = ecbplus_docs()
    for doc_id in ("29_1ecbplus", "29_5ecbplus", "29_9ecbplus", "24_5ecbplus"):
        doc = docs[doc_id]
        lines = doc["text"].split("\n")
        server.serve(
            doc["source_url"], article_page(lines[0], lines[1:], site=doc["source_domain"])
        )
    items, errors, warnings = _split(
        _run(FeedAdapter(clock=FrozenClock(NOW), fetcher=internet), "rss20_ecbplus_teasers.xml")
    )
    assert errors == []
    assert warnings == []
    assert len({i.content_id for i in items}) == 4  # every outlet keeps its own item
    assert len({i.source.domain for i in items}) == 4
    # tracking parameters never reach the canonical URL
    assert all("utm_" not in (i.canonical_url or "") for i in items)
    index = SyndicationIndex()
    articles = []
    for item in items:
        fp = fingerprint(item.text)
        assert fp is not None
        article = index.find(fp) or item.content_id
        index.add(article, fp)
        articles.append(article)
    assert articles[0] == articles[1] == articles[2]  # one AP story, three outlets
    assert articles[3] != articles[0]  # a different story


def test_garbage_is_one_document_error() -> None:
    adapter = FeedAdapter(clock=FrozenClock(NOW))
    outcomes = list(adapter.parse(Document(content=b"<html><body>Hello</body>", origin="x")))
    assert outcomes == [] or all(isinstance(o, ItemError) for o in outcomes)
    outcomes = list(adapter.parse(Document(content=b"\x00\x01 not xml at all", origin="x")))
    assert len(outcomes) == 1
    assert isinstance(outcomes[0], ItemError)
    assert outcomes[0].location == "document"
    assert "not an RSS or Atom feed" in outcomes[0].reason


def test_a_truncated_feed_still_yields_its_complete_entries() -> None:
    data = fixture_bytes("rss20_liftoff.xml")
    cut = data[: data.index(b"<title>Astronauts'")]
    outcomes = list(
        FeedAdapter(clock=FrozenClock(NOW)).parse(
            Document(content=cut, origin="https://feeds.test/x")
        )
    )
    items, _, _ = _split(outcomes)
    titles = [i.title for i in items]
    assert titles[0] == "Star City"
    assert titles[2] == "The Engine That Does More"
