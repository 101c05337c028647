"""A podcast episode with neither guid nor link is identified by its audio file: a new query
string on the enclosure (``?updated=...``) is the same episode, not a new one."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from sqlalchemy import select

from herald.content.deletion import ContentSelector, delete_content
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.ingest.model import IncomingItem
from herald.ingest.service import store_items
from herald.ingest.sources import Document, FeedAdapter
from herald.ingest.sources.enclosures import enclosure_identities, media_file_url
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PLAIN = "Host: Welcome back to the show.\n\nGuest: Thanks for having me."


def _feed(*episodes: tuple[str, str]) -> bytes:
    items = "".join(
        f"""<item><title>{title}</title><pubDate>Mon, 23 Nov 2026 08:00:00 GMT</pubDate>
        <enclosure url="{audio}" type="audio/mpeg" length="1000"/>
        <podcast:transcript url="https://example.com/t/{n}.txt" type="text/plain"/></item>"""
        for n, (title, audio) in enumerate(episodes)
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>Harbour Notes</title><link>https://harbour.example/</link>
<itunes:author>Harbour Media</itunes:author>{items}</channel></rss>""".encode()


def _episodes(
    server: LoopbackServer, internet: LoopbackInternet, *episodes: tuple[str, str]
) -> list[IncomingItem]:
    for n in range(len(episodes)):
        server.serve(f"https://example.com/t/{n}.txt", PLAIN, content_type="text/plain")
    adapter = FeedAdapter(clock=FrozenClock(NOW), fetcher=internet)
    document = Document(content=_feed(*episodes), origin="https://harbour.example/feed.xml")
    return [o for o in adapter.parse(document) if isinstance(o, IncomingItem)]


FIRST = "https://cdn.harbour.example/shows/e12.mp3?updated=1732500000"
AGAIN = "https://cdn.harbour.example/shows/e12.mp3?updated=1732900000&source=rss"


def test_a_media_file_is_known_without_its_query() -> None:
    assert media_file_url(FIRST) == media_file_url(AGAIN)
    assert media_file_url(FIRST) == "https://cdn.harbour.example/shows/e12.mp3"
    # A path that names no media file: the query may be what tells episodes apart.
    assert media_file_url("https://host.example/download?id=12") != media_file_url(
        "https://host.example/download?id=13"
    )


def test_two_episodes_of_one_feed_never_share_an_identity() -> None:
    first, second, other = enclosure_identities(
        [
            "https://host.example/play.mp3?episode=1",
            "https://host.example/play.mp3?episode=2",
            "https://host.example/e3.mp3?t=1",
        ]
    )
    assert first is not None
    assert second is not None
    assert other is not None
    assert first.external_id != second.external_id
    assert first.external_id == "https://host.example/play.mp3?episode=1"
    assert other.external_id == "https://host.example/e3.mp3"
    assert other.legacy == ("https://host.example/e3.mp3?t=1",)
    assert first.legacy == ()
    assert enclosure_identities([None, "not a url"]) == [None, None]


def test_a_new_query_on_the_enclosure_is_the_same_episode(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    (first,) = _episodes(server, internet, ("Episode 12", FIRST))
    (again,) = _episodes(server, internet, ("Episode 12", AGAIN))
    assert first.content_id == again.content_id
    assert (first.audio_url, again.audio_url) == (FIRST, AGAIN)  # still the URLs to play
    assert first.legacy_external_ids == (FIRST,)


def _rows(runtime: Runtime) -> list[ContentItem]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(ContentItem).order_by(ContentItem.id)))


def test_episodes_stored_under_their_whole_url_keep_their_rows(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    (episode,) = _episodes(server, internet, ("Episode 12", FIRST))
    # Stored by a release that knew the episode by its enclosure URL as written.
    before = replace(episode, external_id=FIRST, legacy_external_ids=())
    assert before.content_id != episode.content_id
    with runtime.sessions.write() as session:
        store_items(session, [before], clock=runtime.clock)

    with runtime.sessions.write() as session:
        report = store_items(session, [episode], clock=runtime.clock)
    # The same row, now holding the id the episode is known by.
    assert (report.accepted, report.updated) == (0, 1)
    (row,) = _rows(runtime)
    assert (row.id, row.external_id) == (
        before.content_id,
        "https://cdn.harbour.example/shows/e12.mp3",
    )
    with runtime.sessions.write() as session:
        report = store_items(session, [episode], clock=runtime.clock)
    assert (report.accepted, report.duplicates) == (0, 1)


def test_an_episode_is_stored_once_whatever_its_query(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    for audio in (FIRST, AGAIN, FIRST + "&listener=42"):
        (episode,) = _episodes(server, internet, ("Episode 12", audio))
        with runtime.sessions.write() as session:
            store_items(session, [episode], clock=runtime.clock)
    (row,) = _rows(runtime)
    assert row.audio_url == FIRST + "&listener=42"  # the latest URL to play


@pytest.mark.parametrize("stored_as_before", [False, True])
def test_a_deleted_episode_stays_deleted_under_any_query(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet, stored_as_before: bool
) -> None:
    (episode,) = _episodes(server, internet, ("Episode 12", FIRST))
    stored = (
        replace(episode, external_id=FIRST, legacy_external_ids=()) if stored_as_before else episode
    )
    with runtime.sessions.write() as session:
        store_items(session, [stored], clock=runtime.clock)
    delete_content(
        runtime.sessions,
        ContentSelector(content_id=stored.content_id),
        actor="test",
        clock=runtime.clock,
    )
    for audio in (FIRST, AGAIN) if not stored_as_before else (FIRST,):
        (again,) = _episodes(server, internet, ("Episode 12", audio))
        with runtime.sessions.write() as session:
            report = store_items(session, [again], clock=runtime.clock)
        assert report.tombstoned == 1
    assert _rows(runtime) == []


def test_an_episode_keeps_its_row_when_the_episode_sharing_its_file_leaves_the_feed(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    # Tracking parameters are no part of the identity: the canonical URL drops them.
    one = ("Episode 1", "https://host.example/play.mp3?utm_source=rss&amp;episode=1")
    two = ("Episode 2", "https://host.example/play.mp3?utm_source=rss&amp;episode=2")
    both = _episodes(server, internet, two, one)
    with runtime.sessions.write() as session:
        assert store_items(session, both, clock=runtime.clock).accepted == 2
    stored = {row.title: row.id for row in _rows(runtime)}
    (alone,) = _episodes(server, internet, two)  # episode 1 fell off the end of the feed
    with runtime.sessions.write() as session:
        report = store_items(session, [alone], clock=runtime.clock)
    assert report.accepted == 0
    assert {row.title: row.id for row in _rows(runtime)} == stored
