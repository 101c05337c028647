"""Feeds that move: permanent redirects are remembered as the URL to fetch, temporary ones are
not, and the source keeps its identity (on a real loopback server and both databases)."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.core.clock import isoformat_z
from herald.db.models.content import ContentItem
from herald.errors import NotFound
from herald.ingest.polling import poll_source
from herald.ingest.source_records import add_source, find_source, remove_source
from herald.ingest.urls import canonical_url
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes, stored_source

RSS = "application/rss+xml"
OLD = "http://old-home.test/feed.xml"
NEW = "http://new-home.test/rss/feed.xml"


def _add(runtime: Runtime, url: str, media_type: str = "news") -> str:
    with runtime.sessions.write() as session:
        return add_source(
            session, url=url, media_type=media_type, clock=runtime.clock, interval_seconds=900
        ).id


def _redirect(server: LoopbackServer, url: str, status: int, to: str) -> None:
    target = server.url(to.split("://", 1)[1])  # the loopback address standing for ``to``
    server.serve(url, b"", status=status, content_type=None, headers={"Location": target})


def _moved_source(runtime: Runtime, server: LoopbackServer, chain: tuple[int, ...]) -> str:
    """A source of OLD, which redirects with the statuses of ``chain`` (through further hops)
    to the feed at NEW."""
    hops = [OLD, *[f"http://hop{n}.test/feed" for n in range(1, len(chain))], NEW]
    for status, here, there in zip(chain, hops, hops[1:], strict=False):
        _redirect(server, here, status, there)
    server.serve(NEW, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    return _add(runtime, OLD)


@pytest.fixture
def cli(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """`herald` commands in the test use its database, on a terminal wide enough for one line
    per source (no cell wrapped); the test may set ``COLUMNS`` narrower."""
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    monkeypatch.setenv("COLUMNS", "300")
    return monkeypatch


@pytest.mark.parametrize("chain", [(301,), (308,), (301, 308)])
def test_a_feed_moved_for_good_is_fetched_where_it_moved(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    client: TestClient,
    admin_auth: dict[str, str],
    chain: tuple[int, ...],
) -> None:
    source_id = _moved_source(runtime, server, chain)
    first = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert first.status == "stored"
    source = stored_source(runtime, source_id)
    assert source.fetch_url == NEW
    # its identity is what was configured
    assert (source.id, source.url, source.canonical_url) == (source_id, OLD, canonical_url(OLD))
    shown = client.get(f"/v1/admin/sources/{source_id}", headers=admin_auth).json()["source"]
    assert (shown["url"], shown["fetch_url"]) == (OLD, NEW)

    internet.requested.clear()
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored"
    assert outcome.report is not None
    assert (outcome.report.accepted, outcome.report.duplicates) == (0, 4)
    assert internet.requested[0] == NEW  # the old address is not asked any more
    assert len(server.hits_for(OLD)) == 1


@pytest.mark.parametrize("chain", [(302,), (307,), (301, 302), (302, 301)])
def test_a_temporary_hop_keeps_the_configured_url(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet, chain: tuple[int, ...]
) -> None:
    source_id = _moved_source(runtime, server, chain)
    for _ in range(2):
        assert (
            poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet).status
            == "stored"
        )
    assert stored_source(runtime, source_id).fetch_url is None
    assert len(server.hits_for(OLD)) == 2


def test_a_failed_fetch_through_a_permanent_redirect_remembers_nothing(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, "down", status=500, content_type="text/plain")
    source_id = _add(runtime, OLD)
    assert (
        poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet).status
        == "failed"
    )
    assert stored_source(runtime, source_id).fetch_url is None


def test_a_moved_feed_that_moves_back_fetches_its_configured_url_again(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    source_id = _add(runtime, OLD)
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert stored_source(runtime, source_id).fetch_url == NEW
    server.serve(OLD, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    _redirect(server, NEW, 308, OLD)
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert stored_source(runtime, source_id).fetch_url is None


SHOW = """<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd"
     xmlns:podcast="https://podcastindex.org/namespace/1.0">
<channel><title>Harbour Talk</title><itunes:author>Harbour Radio</itunes:author>
{items}
</channel></rss>"""
EPISODE = """<item><title>Harbour talk episode {n}</title>
<guid isPermaLink="false">harbour-episode-{n}</guid>
<pubDate>Mon, 2{n} Nov 2026 10:00:00 GMT</pubDate>
<enclosure url="http://media.test/harbour/{n}.mp3" type="audio/mpeg" length="1000"/>
<podcast:transcript url="http://media.test/harbour/{n}.vtt" type="text/vtt"/></item>"""


def test_a_moved_podcast_keeps_its_show_and_stores_no_episode_twice(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    # No podcast:guid and no site link: the show's id and its episodes' source domain come from
    # the feed URL, so they must keep coming from the configured one after the move.
    old, new = "http://feeds.old-radio.test/harbour.xml", "http://cdn.new-host.test/harbour.rss"
    feed = SHOW.format(items="\n".join(EPISODE.format(n=n) for n in (1, 2)))
    for n in (1, 2):
        server.serve(
            f"http://media.test/harbour/{n}.vtt",
            fixture_bytes("transcript_example.vtt"),
            content_type="text/vtt",
        )
    _redirect(server, old, 301, new)
    server.serve(new, feed, content_type=RSS)
    source_id = _add(runtime, old, media_type="podcast")
    first = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert first.report is not None
    assert first.report.accepted == 2
    assert stored_source(runtime, source_id).fetch_url == new

    def stored() -> list[tuple[str, str, str | None]]:
        with runtime.sessions.read() as session:
            rows = session.execute(
                select(ContentItem.id, ContentItem.source_domain, ContentItem.podcast_id).order_by(
                    ContentItem.id
                )
            )
            return [tuple(row) for row in rows]  # type: ignore[misc]

    before = stored()
    assert {domain for _, domain, _ in before} == {"old-radio.test"}
    second = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert second.report is not None
    assert second.report.accepted == 0
    assert stored() == before
    assert len(server.hits_for(old)) == 1


def test_sources_list_shows_where_a_feed_is_fetched_and_its_failures(
    cli: pytest.MonkeyPatch,
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
) -> None:
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    source_id = _add(runtime, OLD)
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    server.serve(NEW, "down", status=500, content_type="text/plain")
    for _ in range(2):
        poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    source = stored_source(runtime, source_id)
    runner = CliRunner()
    [listed] = json.loads(runner.invoke(app, ["sources", "list", "--json"]).stdout)
    assert (listed["url"], listed["fetch_url"]) == (OLD, NEW)
    assert listed["consecutive_failures"] == 2
    assert listed["next_poll_at"] == isoformat_z(source.next_poll_at)
    table = runner.invoke(app, ["sources", "list"]).stdout
    assert f"(moved to {NEW})" in table
    assert "2 failed in a row: http_status: HTTP 500" in table
    assert isoformat_z(source.next_poll_at) in table


def test_a_not_modified_answer_at_the_end_of_a_permanent_move_is_remembered_too(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    feed = fixture_bytes("rss20_liftoff.xml")
    server.serve(OLD, feed, content_type=RSS, etag='"v1"')
    source_id = _add(runtime, OLD)
    assert (
        poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet).status
        == "stored"
    )
    # the publisher moves the unchanged feed: the conditional GET ends in a 304 at NEW
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, feed, content_type=RSS, etag='"v1"')
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "not_modified"
    assert stored_source(runtime, source_id).fetch_url == NEW
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert len(server.hits_for(OLD)) == 2
    assert len(server.hits_for(NEW)) == 2


def test_the_address_a_source_moved_to_is_refused_as_a_new_source(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    client: TestClient,
    admin_auth: dict[str, str],
) -> None:
    # a second source of the same feed would poll it twice (and a podcast identified by its
    # feed URL would get its episodes again under another show id)
    source_id = _moved_source(runtime, server, (301,))
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    refused = client.post(
        "/v1/admin/sources",
        headers=admin_auth,
        json={"url": "HTTP://NEW-HOME.test/rss/feed.xml", "media_type": "news"},
    )
    assert refused.status_code == 400
    body = refused.json()
    assert body["error"] == "invalid_request"
    assert body["details"] == [
        {"field": "url", "message": f"source {source_id} is fetched from {NEW}"}
    ]
    other = client.post(
        "/v1/admin/sources",
        headers=admin_auth,
        json={"url": "http://new-home.test/rss/other.xml", "media_type": "news"},
    )
    assert other.status_code == 201


def test_sources_list_on_a_narrow_terminal_cuts_nothing(
    cli: pytest.MonkeyPatch,
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
) -> None:
    """At 80 columns the table would cut addresses and errors to `http:…`: each source is
    printed as lines of its own instead, with every value whole."""
    cli.setenv("COLUMNS", "80")
    _redirect(server, OLD, 301, NEW)
    server.serve(NEW, fixture_bytes("rss20_liftoff.xml"), content_type=RSS)
    moved_id = _add(runtime, OLD)
    poll_source(runtime.sessions, moved_id, clock=runtime.clock, fetcher=internet)
    gone = "http://gone-home.test/feed.xml"
    server.serve(gone, "gone", status=410, content_type="text/plain")
    gone_id = _add(runtime, gone)
    poll_source(runtime.sessions, gone_id, clock=runtime.clock, fetcher=internet)
    error = stored_source(runtime, gone_id).last_error
    assert error is not None
    assert "gone for good" in error
    listed = CliRunner().invoke(app, ["sources", "list"])
    assert listed.exit_code == 0, listed.output
    assert "…" not in listed.stdout
    for value in (moved_id, gone_id, OLD, f"(moved to {NEW})", gone):
        assert value in listed.stdout
    assert f"1 failed in a row: {error}" in listed.stdout
    next_poll = isoformat_z(stored_source(runtime, moved_id).next_poll_at)
    assert f"next poll:    {next_poll}" in listed.stdout


def test_sources_add_of_where_a_feed_moved_names_the_source_that_fetches_it(
    cli: pytest.MonkeyPatch,
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
) -> None:
    source_id = _moved_source(runtime, server, (301,))
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    refused = CliRunner().invoke(app, ["sources", "add", NEW, "--media-type", "news"])
    assert refused.exit_code == 1
    said = " ".join(refused.output.split())  # as read, whatever the width it was wrapped to
    assert "invalid_request: this feed is already a source" in said
    assert f"url: source {source_id} is fetched from {NEW}" in said


def test_a_moved_feed_is_found_by_the_address_it_is_fetched_from(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    """`herald sources remove|retention` take the feed's URL: the one `sources list` shows it
    moved to names the source too (adding that address is refused for naming it)."""
    source_id = _moved_source(runtime, server, (301,))
    unmoved = _add(runtime, "http://still-home.test/feed.xml")
    with runtime.sessions.read() as session, pytest.raises(NotFound):
        find_source(session, NEW)  # not moved yet: no source is fetched from there
    poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    with runtime.sessions.read() as session:
        assert find_source(session, NEW).id == source_id
        assert find_source(session, NEW.replace("new-home", "NEW-HOME")).id == source_id
        assert find_source(session, OLD).id == source_id
    with runtime.sessions.write() as session:
        assert remove_source(session, NEW).id == source_id
    with runtime.sessions.read() as session:
        with pytest.raises(NotFound):
            find_source(session, NEW)
        assert find_source(session, "http://still-home.test/feed.xml").id == unmoved
