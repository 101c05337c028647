"""Takedowns hold: an item an operator deleted is not stored again when its feed still lists it
or a file holding it is imported again; retention deletions leave no tombstone; `herald content
allow` lifts one. Both databases; feeds served by a real loopback HTTP server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, func, select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.content.deletion import ContentSelector, delete_content
from herald.content.retention import apply_retention
from herald.core.clock import SystemClock
from herald.db.models.content import ContentItem, ContentTombstone
from herald.db.models.job import Job
from herald.ingest import stored_identity
from herald.ingest.fetch import FetchPolicy, HttpFetcher
from herald.ingest.polling import poll_source
from herald.ingest.service import IngestReport
from herald.ingest.source_records import add_source
from herald.runtime import Runtime
from tests.content.blocking import Background
from tests.content.conftest import PHRASE, files_holding
from tests.content.test_purge import env_for
from tests.ingest.conftest import LoopbackInternet, LoopbackServer, article_page

runner = CliRunner()

FEED_URL = "http://feeds.test/takedown.xml"
TAKEN_DOWN = "https://news.example.com/2026/11/24/harbour-report"
KEPT = "https://news.example.com/2026/11/24/weather-report"
FILLER = " ".join(["The harbour authority published its annual figures on Tuesday."] * 25)
TAKEN_DOWN_BODY = f"{FILLER} A spokesperson called it the {PHRASE} of the decade. {FILLER}"
KEPT_BODY = " ".join(["Rain is expected across the region on Wednesday afternoon."] * 25)


@pytest.fixture
def feeds() -> Iterator[tuple[LoopbackServer, LoopbackInternet]]:
    """A loopback HTTP server and a fetcher whose internet it is."""
    srv = LoopbackServer()
    try:
        with HttpFetcher(
            clock=SystemClock(), policy=FetchPolicy(host_interval_seconds=0)
        ) as fetcher:
            yield srv, LoopbackInternet(srv, fetcher)
    finally:
        srv.close()


def _rss(teaser: bool = False) -> str:
    def item(guid: str, link: str, title: str, body: str) -> str:
        return (
            f"<item><guid isPermaLink='false'>{guid}</guid><link>{link}</link>"
            f"<title>{title}</title><pubDate>Tue, 24 Nov 2026 09:00:00 GMT</pubDate>"
            f"<description>{body}</description></item>"
        )

    return (
        "<?xml version='1.0'?><rss version='2.0'><channel><title>Example News</title>"
        "<link>https://news.example.com/</link><description>News</description>"
        + item(
            "harbour-1",
            TAKEN_DOWN,
            "Harbour report",
            "Harbour figures out." if teaser else TAKEN_DOWN_BODY,
        )
        + item("weather-1", KEPT, "Weather report", KEPT_BODY)
        + "</channel></rss>"
    )


def _jsonl_item(url: str, body: str, published: str = "2026-11-24T09:00:00Z") -> dict[str, object]:
    return {
        "url": url,
        "media_type": "news",
        "title": "Harbour report",
        "published_date": published,
        "source": {"name": "Example News", "domain": "news.example.com"},
        "body": body,
    }


def _count(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return int(session.scalar(select(func.count()).select_from(ContentItem)) or 0)


def _jobs(runtime: Runtime) -> int:
    with runtime.sessions.read() as session:
        return int(session.scalar(select(func.count()).select_from(Job)) or 0)


def _poll(runtime: Runtime, source_id: str, internet: LoopbackInternet) -> IngestReport:
    outcome = poll_source(runtime.sessions, source_id, clock=runtime.clock, fetcher=internet)
    assert outcome.status == "stored", outcome
    assert outcome.report is not None
    return outcome.report


def test_a_deleted_item_stays_deleted_through_polls_and_imports_until_allowed(
    runtime: Runtime,
    feeds: tuple[LoopbackServer, LoopbackInternet],
    client: TestClient,
    admin_auth: dict[str, str],
    tmp_path: Path,
) -> None:
    env = env_for(runtime)
    server, internet = feeds
    server.serve(FEED_URL, _rss(), content_type="application/rss+xml", etag='"v1"')
    with runtime.sessions.write() as session:
        source_id = add_source(
            session, url=FEED_URL, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id
    first = _poll(runtime, source_id, internet)
    assert (first.accepted, first.tombstoned) == (2, 0)

    if runtime.settings.is_sqlite:
        assert files_holding(runtime.settings.home, [PHRASE]), "the check below would find nothing"
    deleted = runner.invoke(
        app, ["content", "delete", "--url", TAKEN_DOWN, "--yes", "--json"], env=env
    )
    assert deleted.exit_code == 0, deleted.output
    deletion_id = json.loads(deleted.stdout)["deletion_id"]
    assert _count(runtime) == 1

    # The tombstone: hashes of the identities (the canonical URL, the feed's guid), no content.
    with runtime.sessions.read() as session:
        (tombstone,) = session.scalars(select(ContentTombstone)).all()
        assert tombstone.deletion_id == deletion_id
        assert len(tombstone.url_hash or "") == 64
        assert len(tombstone.external_hash or "") == 64
    if runtime.settings.is_sqlite:
        # The delete compacted the files: the body's phrase is nowhere, tombstone included.
        assert files_holding(runtime.settings.home, [PHRASE, "Harbour report"]) == []

    # The feed still lists it: the next poll skips it, queues nothing for it, and says so.
    jobs = _jobs(runtime)
    server.serve(FEED_URL, _rss(), content_type="application/rss+xml", etag='"v2"')
    again = _poll(runtime, source_id, internet)
    assert (again.accepted, again.duplicates, again.tombstoned) == (0, 1, 1)
    assert _count(runtime) == 1
    assert _jobs(runtime) == jobs
    with runtime.sessions.read() as session:
        stored = session.scalars(select(ContentItem.url)).all()
    assert stored == [KEPT]

    # A JSON Lines import of the same URL (not identified by the guid): skipped too.
    path = tmp_path / "items.jsonl"
    path.write_bytes(orjson.dumps(_jsonl_item(TAKEN_DOWN + "?utm_source=x", TAKEN_DOWN_BODY)))
    imported = runner.invoke(app, ["ingest", str(path), "--json"], env=env)
    assert imported.exit_code == 0, imported.output
    summary = json.loads(imported.stdout)
    assert (summary["accepted"], summary["tombstoned"]) == (0, 1)
    posted = client.post(
        "/v1/admin/content", json=[_jsonl_item(TAKEN_DOWN, "A new text.")], headers=admin_auth
    )
    assert posted.status_code == 200, posted.text
    assert (posted.json()["accepted"], posted.json()["tombstoned"]) == (0, 1)
    assert _count(runtime) == 1

    # Lifting the tombstone: a dry run first, then the next poll stores the item again.
    dry = runner.invoke(app, ["content", "allow", "--url", TAKEN_DOWN, "--json"], env=env)
    assert dry.exit_code == 0, dry.output
    assert json.loads(dry.stdout)["matching"] == 1
    allowed = runner.invoke(
        app, ["content", "allow", "--url", TAKEN_DOWN, "--yes", "--json"], env=env
    )
    assert json.loads(allowed.stdout)["allowed"] == 1
    server.serve(FEED_URL, _rss(), content_type="application/rss+xml", etag='"v3"')
    back = _poll(runtime, source_id, internet)
    assert (back.accepted, back.tombstoned) == (1, 0)
    assert _count(runtime) == 2


def test_the_admin_endpoint_tombstones_and_allow_by_deletion_lifts_it(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    env = env_for(runtime)
    item = _jsonl_item(TAKEN_DOWN, TAKEN_DOWN_BODY)
    content_id = client.post("/v1/admin/content", json=[item], headers=admin_auth).json()[
        "content_ids"
    ][0]
    deleted = client.delete(f"/v1/admin/content/{content_id}", headers=admin_auth)
    assert deleted.status_code == 200, deleted.text
    deletion_id = deleted.json()["deletion_id"]
    with runtime.sessions.read() as session:
        (tombstone,) = session.scalars(select(ContentTombstone)).all()
        assert tombstone.external_hash is None  # identified by its URL only
    again = client.post("/v1/admin/content", json=[item], headers=admin_auth).json()
    assert (again["accepted"], again["tombstoned"], again["content_ids"]) == (0, 1, [])

    allowed = runner.invoke(
        app, ["content", "allow", "--deletion", deletion_id, "--yes", "--json"], env=env
    )
    assert allowed.exit_code == 0, allowed.output
    assert json.loads(allowed.stdout)["allowed"] == 1
    back = client.post("/v1/admin/content", json=[item], headers=admin_auth).json()
    assert (back["accepted"], back["tombstoned"]) == (1, 0)


def test_retention_leaves_no_tombstone(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    item = _jsonl_item(TAKEN_DOWN, TAKEN_DOWN_BODY, published="2026-01-05T09:00:00Z")
    assert client.post("/v1/admin/content", json=[item], headers=admin_auth).status_code == 200
    outcomes = apply_retention(runtime.sessions, default_days=30, clock=runtime.clock)
    assert sum(o.deleted for o in outcomes) == 1
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(ContentTombstone)) == 0
    back = client.post("/v1/admin/content", json=[item], headers=admin_auth).json()
    assert (back["accepted"], back["tombstoned"]) == (1, 0)


def test_the_check_is_one_query_per_batch(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    items = [
        _jsonl_item(f"https://news.example.com/2026/11/24/item-{n}", f"Text number {n}.")
        for n in range(40)
    ]
    content_id = client.post("/v1/admin/content", json=items[:1], headers=admin_auth).json()[
        "content_ids"
    ][0]
    assert client.delete(f"/v1/admin/content/{content_id}", headers=admin_auth).status_code == 200
    lookups: list[str] = []

    def seen(conn: object, cursor: object, statement: str, *args: object) -> None:
        if "content_tombstones" in statement:
            lookups.append(statement)

    engine = runtime.sessions.engine
    event.listen(engine, "before_cursor_execute", seen)
    try:
        posted = client.post("/v1/admin/content", json=items, headers=admin_auth).json()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert (posted["accepted"], posted["tombstoned"]) == (39, 1)
    assert len(lookups) == 1, lookups


def test_a_deleted_teaser_entry_is_not_fetched_again(
    runtime: Runtime, feeds: tuple[LoopbackServer, LoopbackInternet]
) -> None:
    """A feed entry that only has a teaser is stored with its article page; once deleted, the
    page is not fetched again at each poll (and the entry is counted as tombstoned)."""
    server, internet = feeds
    server.serve(FEED_URL, _rss(teaser=True), content_type="application/rss+xml", etag='"v1"')
    server.serve(TAKEN_DOWN, article_page("Harbour report", [TAKEN_DOWN_BODY], site="Example"))
    with runtime.sessions.write() as session:
        source_id = add_source(
            session, url=FEED_URL, media_type="news", clock=runtime.clock, interval_seconds=900
        ).id
    assert _poll(runtime, source_id, internet).accepted == 2
    assert len(server.hits_for(TAKEN_DOWN)) == 1
    deleted = runner.invoke(
        app,
        ["content", "delete", "--url", TAKEN_DOWN, "--yes", "--no-purge"],
        env=env_for(runtime),
    )
    assert deleted.exit_code == 0, deleted.output

    server.serve(FEED_URL, _rss(teaser=True), content_type="application/rss+xml", etag='"v2"')
    again = _poll(runtime, source_id, internet)
    assert (again.accepted, again.duplicates, again.tombstoned) == (0, 1, 1)
    assert len(server.hits_for(TAKEN_DOWN)) == 1
    assert _count(runtime) == 1


def test_a_deletion_committing_while_a_batch_is_stored_is_not_undone(
    runtime: Runtime,
    client: TestClient,
    admin_auth: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """PostgreSQL: the deletion commits after the batch looked for tombstones and found none;
    the batch finds the row gone when it locks it, reads the batch again and sees the tombstone.
    (SQLite's single writer leaves no such window.)"""
    if runtime.settings.is_sqlite:
        pytest.skip("one writer at a time: a deletion cannot commit inside a batch")
    item = _jsonl_item(TAKEN_DOWN, TAKEN_DOWN_BODY)
    content_id = client.post("/v1/admin/content", json=[item], headers=admin_auth).json()[
        "content_ids"
    ][0]
    real = stored_identity.tombstoned_hashes
    calls: list[int] = []

    def then_delete(*args: object, **kwargs: object) -> set[str]:
        found = real(*args, **kwargs)  # type: ignore[arg-type]
        calls.append(len(found))
        if len(calls) == 1:
            deletion = Background(
                lambda: delete_content(
                    runtime.sessions,
                    ContentSelector(content_id=content_id),
                    actor="test",
                    clock=runtime.clock,
                )
            )
            deletion.start()
            assert deletion.outcome().deleted == 1
        return found

    monkeypatch.setattr(stored_identity, "tombstoned_hashes", then_delete)
    edited = _jsonl_item(TAKEN_DOWN, TAKEN_DOWN_BODY + " Corrected.")
    posted = client.post("/v1/admin/content", json=[edited], headers=admin_auth)
    assert posted.status_code == 200, posted.text
    assert (posted.json()["updated"], posted.json()["tombstoned"]) == (0, 1)
    assert calls == [0, 1]  # read again after the race, and the tombstone found
    assert _count(runtime) == 0


def test_a_deletion_by_source_domain_tombstones_every_item(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str]
) -> None:
    items = [_jsonl_item(TAKEN_DOWN, TAKEN_DOWN_BODY), _jsonl_item(KEPT, KEPT_BODY)]
    assert client.post("/v1/admin/content", json=items, headers=admin_auth).status_code == 200
    deleted = runner.invoke(
        app,
        ["content", "delete", "--source-domain", "news.example.com", "--yes", "--no-purge"],
        env=env_for(runtime),
    )
    assert deleted.exit_code == 0, deleted.output
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(ContentTombstone)) == 2
    again = client.post("/v1/admin/content", json=items, headers=admin_auth).json()
    assert (again["accepted"], again["tombstoned"]) == (0, 2)
