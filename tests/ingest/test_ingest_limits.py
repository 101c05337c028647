"""Every bounded string column that content ingestion writes has its limit checked per entry, on
SQLite (which would store anything) and PostgreSQL (which would fail the whole batch): an entry
over a limit is that entry's error and the others are stored. The list of columns comes from the
SQLAlchemy models, so a new bounded column fails this file until its rule is written down."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import String, select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.config import Settings
from herald.db.models.content import ContentItem
from herald.db.models.ingest import Source
from herald.ingest.model import IncomingItem, SourceRef
from herald.ingest.polling import PollOutcome, poll_source
from herald.ingest.service import store_items
from herald.ingest.source_records import add_source
from herald.runtime import Runtime

from .conftest import LoopbackInternet, LoopbackServer

# Tables content ingestion writes from its input (items, and the sources polled for them).
TABLES = (ContentItem, Source)
# Bounded columns filled by Herald itself (ids, hashes) or from a closed list (media types).
NOT_FROM_INPUT = {
    "content_items.id",
    "content_items.source_id",
    "content_items.content_hash",
    "content_items.enrichment_input",  # a hash Herald computes
    "content_items.article_id",
    "content_items.cluster_id",
    "content_items.media_type",
    "ingest_sources.id",
    "ingest_sources.media_type",
    "ingest_sources.format",
}


def limit_of(column_key: str) -> int:
    table, name = column_key.split(".")
    [model] = [m for m in TABLES if m.__tablename__ == table]
    length = model.__table__.c[name].type.length
    assert isinstance(length, int)
    return length


def bounded_columns() -> list[str]:
    return sorted(
        f"{model.__tablename__}.{column.name}"
        for model in TABLES
        for column in model.__table__.columns
        if isinstance(column.type, String) and column.type.length is not None
    )


def news(n: int, **fields: Any) -> dict[str, Any]:
    return {
        "url": f"https://example.com/story-{n}",
        "media_type": "news",
        "title": f"Story {n}",
        "published_date": "2026-11-20T10:00:00Z",
        "source": {"name": "Example", "domain": "example.com"},
        "body": f"The body of story {n}.",
    } | fields


def episode(n: int, **fields: Any) -> dict[str, Any]:
    return {
        "url": f"https://example.com/episode-{n}",
        "media_type": "podcast",
        "title": f"Episode {n}",
        "published_date": "2026-11-20T10:00:00Z",
        "source": {"name": "Example", "domain": "example.com"},
        "podcast": {"title": "Show", "podcast_id": "show"},
        "transcript": f"Words of episode {n}.",
    } | fields


def language_of(length: int) -> str:
    """A well-formed language tag of exactly ``length`` (9 to 16) characters."""
    return "en-abcd-" + "e" * (length - 8)


def domain_of(length: int) -> str:
    labels = []
    while sum(len(x) + 1 for x in labels) + 63 + 4 < length:
        labels.append("a" * 63)
    head = ".".join(labels)
    last = length - len(head) - (1 if head else 0) - 4
    return (head + "." if head else "") + "b" * last + ".com"


# For each column fed by input: (an entry whose value has the given length, how the stored row
# shows it, whether an over-long value is cut instead of refused).
ItemFactory = Callable[[int, int], dict[str, Any]]
ITEM_COLUMNS: dict[str, tuple[ItemFactory, str, bool]] = {
    "content_items.external_id": (
        lambda n, size: news(n, url=None, external_id=str(n) + "x" * (size - len(str(n)))),
        "external_id",
        False,
    ),
    "content_items.episode_id": (
        lambda n, size: episode(n, episode_id=str(n) + "e" * (size - len(str(n)))),
        "episode_id",
        False,
    ),
    "content_items.podcast_id": (
        lambda n, size: episode(n, podcast={"title": "Show", "podcast_id": "p" * size}),
        "podcast_id",
        False,
    ),
    "content_items.language": (
        lambda n, size: news(n, language=language_of(size)),
        "language",
        True,  # a tag is stored as its language code alone (en-abcd-eeee -> en)
    ),
    "content_items.source_domain": (
        lambda n, size: news(n, source={"name": "Example", "domain": domain_of(size)}),
        "source_domain",
        False,
    ),
    "content_items.source_name": (
        lambda n, size: news(n, source={"name": "N" * size, "domain": "example.com"}),
        "source_name",
        True,  # a display name is cut to the column (docs/ingestion.md)
    ),
}
SOURCE_COLUMNS = {
    "ingest_sources.name": lambda size: {"name": "n" * size},
    "ingest_sources.canonical_url": lambda size: {
        "url": "https://example.com/" + "f" * (size - len("https://example.com/"))
    },
    "ingest_sources.domain": lambda size: {"domain": domain_of(size)},
}


def test_every_bounded_column_has_a_rule_and_a_test() -> None:
    covered = set(ITEM_COLUMNS) | set(SOURCE_COLUMNS) | NOT_FROM_INPUT
    assert bounded_columns() == sorted(covered)


def admin_post(client: TestClient, auth: dict[str, str], items: list[dict[str, Any]]) -> Any:
    body = "\n".join(json.dumps(item) for item in items)
    response = client.post(
        "/v1/admin/content",
        content=body,
        headers=auth | {"content-type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def stored(runtime: Runtime, attribute: str) -> list[Any]:
    with runtime.sessions.read() as session:
        return sorted(
            session.scalars(select(getattr(ContentItem, attribute)).order_by(ContentItem.id)),
            key=lambda v: (v is None, str(v)),
        )


@pytest.mark.parametrize("column", sorted(ITEM_COLUMNS))
def test_an_over_long_value_is_that_lines_error_and_the_rest_is_stored(
    column: str, client: TestClient, admin_auth: dict[str, str], runtime: Runtime
) -> None:
    make, attribute, cut = ITEM_COLUMNS[column]
    limit = limit_of(column)
    summary = admin_post(client, admin_auth, [news(1), make(2, limit + 1), make(3, limit), news(4)])
    values = stored(runtime, attribute)
    if column == "content_items.language":
        assert (summary["accepted"], summary["rejected"]) == (4, 0)
        assert {v for v in values if v is not None} == {"en"}
        return
    if cut:
        assert (summary["accepted"], summary["rejected"]) == (4, 0)
        assert max(len(v) for v in values) == limit
        return
    assert (summary["accepted"], summary["rejected"]) == (3, 1), summary
    [error] = summary["errors"]
    assert error["line"] == 2
    values = [v for v in values if v is not None]
    if column != "content_items.source_domain":  # stored as the registrable domain (shorter)
        assert limit in {len(v) for v in values}  # a value at the limit is stored whole


def test_herald_ingest_stores_the_good_lines(
    settings: Settings,
    runtime: Runtime,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HERALD_HOME", str(settings.home))
    monkeypatch.setenv("HERALD_DATABASE_URL", settings.resolved_database_url)
    lines = [
        news(1),
        news(2, url=None, external_id="x" * 513),
        episode(3, episode_id="e" * 201),
        news(4, url=None, external_id="nul\u0000inside"),
        news(5),
    ]
    path = tmp_path / "items.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = CliRunner().invoke(app, ["ingest", str(path), "--no-wait", "--json"])
    summary = json.loads(result.stdout)
    assert (summary["accepted"], summary["rejected"]) == (2, 3), result.output
    assert [e["line"] for e in summary["errors"]] == [2, 3, 4]
    assert "external_id longer than 512 characters" in summary["errors"][0]["reason"]
    assert "NUL" in summary["errors"][2]["reason"]
    assert len(stored(runtime, "id")) == 2


def test_admin_content_refuses_unstorable_text_per_line(
    client: TestClient, admin_auth: dict[str, str], runtime: Runtime
) -> None:
    body = "\n".join(
        [
            json.dumps(news(1)),
            json.dumps(news(2, url=None, external_id="a\u0000b")),
            json.dumps(episode(3, episode_id="ep\u0000")),
            '{"url": "https://example.com/s", "media_type": "news", "title": "\\ud800",'
            ' "published_date": "2026-11-20", "source": {"name": "E", "domain": "example.com"},'
            ' "body": "b"}',
            json.dumps(news(5)),
        ]
    )
    response = client.post(
        "/v1/admin/content",
        content=body,
        headers=admin_auth | {"content-type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    summary = response.json()
    assert (summary["accepted"], summary["rejected"]) == (2, 3)
    assert [e["line"] for e in summary["errors"]] == [2, 3, 4]
    assert (
        client.get(f"/v1/content/{summary['content_ids'][0]}", headers=admin_auth).status_code
        == 200
    )


def test_items_of_other_adapters_are_checked_before_the_batch_is_written(
    runtime: Runtime,
) -> None:
    # What a feed poll hands over: items built by an adapter, one with an over-long guid.
    def item(n: int, external_id: str) -> IncomingItem:
        return IncomingItem(
            media_type="news",
            title=f"Entry {n}",
            published_date=datetime(2026, 11, 20, tzinfo=UTC),
            source=SourceRef("Feed", "example.com"),
            external_id=external_id,
            body="text",
        )

    items = [item(1, "guid-1"), item(2, "g" * 513), item(3, "nul\u0000"), item(4, "guid-4")]
    with runtime.sessions.write() as session:
        report = store_items(session, items, clock=runtime.clock)
    assert report.accepted == 2
    assert [e.reason for e in report.rejected] == [
        "external_id longer than 512 characters",
        "external_id must not contain NUL (U+0000) characters",
    ]
    assert stored(runtime, "external_id") == ["guid-1", "guid-4"]


@pytest.mark.parametrize("column", sorted(SOURCE_COLUMNS))
def test_admin_sources_refuse_over_long_values(
    column: str, client: TestClient, admin_auth: dict[str, str]
) -> None:
    limit = limit_of(column)
    base = {"url": "https://example.com/feed.xml", "media_type": "news"}
    over = client.post(
        "/v1/admin/sources", json=base | SOURCE_COLUMNS[column](limit + 1), headers=admin_auth
    )
    assert over.status_code == 400, over.text
    assert over.json()["error"] == "invalid_request"
    field = column.split(".")[1].replace("canonical_url", "url")
    assert [d["field"] for d in over.json()["details"]] == [field]
    at_limit = client.post(
        "/v1/admin/sources", json=base | SOURCE_COLUMNS[column](limit), headers=admin_auth
    )
    assert at_limit.status_code == 201, at_limit.text


def test_a_feed_poll_stores_the_entries_around_an_over_long_guid(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    words = " ".join(f"word{i}" for i in range(200))  # long enough: no article page fetched

    def entry(n: int, guid: str) -> str:
        return (
            f"<item><title>Entry {n}</title><link>https://example.com/e{n}</link>"
            f"<guid isPermaLink='false'>{guid}</guid>"
            f"<pubDate>Fri, 20 Nov 2026 10:00:00 GMT</pubDate>"
            f"<description>{words}</description></item>"
        )

    feed = (
        "<?xml version='1.0'?><rss version='2.0'><channel><title>Feed</title>"
        "<link>https://example.com/</link>"
        + entry(1, "guid-1")
        + entry(2, "g" * 600)
        + entry(3, "guid-3")
        + "</channel></rss>"
    )
    outcome = polled(runtime, server, internet, "http://feeds.test/long.xml", feed, "news")
    assert outcome.report is not None
    assert outcome.report.accepted == 2
    [error] = outcome.report.rejected
    assert error.reason == "external_id longer than 512 characters"
    assert stored(runtime, "external_id") == ["guid-1", "guid-3"]


def polled(
    runtime: Runtime,
    server: LoopbackServer,
    internet: LoopbackInternet,
    url: str,
    feed: str,
    media_type: str,
) -> PollOutcome:
    """``feed`` served at ``url``, added as a source and polled once."""
    server.serve(url, feed.encode(), content_type="application/rss+xml")
    with runtime.sessions.write() as session:
        source_id = add_source(
            session, url=url, media_type=media_type, clock=runtime.clock, interval_seconds=900
        ).id
    return poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)


def test_a_duration_over_its_column_is_that_lines_error(
    client: TestClient, admin_auth: dict[str, str], runtime: Runtime
) -> None:
    # The column holds a 32-bit integer: PostgreSQL failed the whole batch over a larger one,
    # SQLite over one past 64 bits (a 500 either way).
    most = 2**31 - 1
    durations = [most, most + 1, 1e300, 2**64, 12.5]
    summary = admin_post(
        client, admin_auth, [episode(n, duration_seconds=d) for n, d in enumerate(durations)]
    )
    assert (summary["accepted"], summary["rejected"]) == (2, 3), summary
    assert [e["line"] for e in summary["errors"]] == [2, 3, 4]
    assert {e["reason"] for e in summary["errors"]} == {f"duration_seconds over {most} seconds"}
    assert stored(runtime, "duration_seconds") == [12, most]


def test_a_feed_episode_with_an_impossible_duration_is_stored_without_it(
    runtime: Runtime, server: LoopbackServer, internet: LoopbackInternet
) -> None:
    def entry(n: int, duration: str) -> str:
        return (
            f"<item><title>Episode {n}</title><link>https://pod.example.com/{n}</link>"
            f"<guid>ep-{n}</guid><pubDate>Fri, 20 Nov 2026 10:00:00 GMT</pubDate>"
            f"<enclosure url='https://pod.example.com/{n}.mp3' type='audio/mpeg' length='1'/>"
            f"<itunes:duration>{duration}</itunes:duration>"
            f"<podcast:transcript url='https://pod.example.com/{n}.txt' type='text/plain'/>"
            "</item>"
        )

    feed = (
        "<?xml version='1.0'?><rss version='2.0'"
        " xmlns:itunes='http://www.itunes.com/dtds/podcast-1.0.dtd'"
        " xmlns:podcast='https://podcastindex.org/namespace/1.0'><channel><title>Show</title>"
        "<link>https://pod.example.com/</link>"
        + entry(1, "1:00")
        + entry(2, "99999999999")
        + entry(3, "9" * 400)  # read as infinity
        + entry(4, "PT99999999H")
        + "</channel></rss>"
    )
    for n in range(1, 5):
        server.serve(
            f"https://pod.example.com/{n}.txt",
            f"Host: Words of episode {n}.".encode(),
            content_type="text/plain",
        )
    outcome = polled(runtime, server, internet, "http://feeds.test/show.xml", feed, "podcast")
    assert outcome.status == "stored"
    assert outcome.report is not None
    assert (outcome.report.accepted, outcome.report.rejected) == (4, [])
    assert stored(runtime, "duration_seconds") == [60, None, None, None]
