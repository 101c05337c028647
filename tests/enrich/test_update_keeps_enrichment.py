"""An update that changes nothing enrichment reads keeps the item's enrichment (no model runs),
while search, entity timelines and stories follow the new version; an update that changes what
enrichment reads is enriched again. Real text through the real models, on both databases."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, select, update
from sqlalchemy.orm import Session

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.job import Job
from herald.enrich.pipeline import BatchResult, EnrichmentPipeline, ItemText
from herald.enrich.queueing import ENRICH_KIND
from herald.enrich.service import compute, store
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.content.blocking import Background, held_open, wait_until_blocked
from tests.enrich.transcripts import changelog_pieces

EPISODE = Path(__file__).parent / "fixtures" / "practical-ai-298.md"
ARTICLE_BODY = (
    "Apple Inc. opened a new research office in Paris on Monday, the company said. Tim Cook "
    "told staff in California that the Paris office would hire two hundred engineers. The "
    "office in France will work on maps and on machine learning, Apple Inc. said in a statement."
)


@dataclass(frozen=True)
class Api:
    runtime: Runtime  # with the session's real models
    client: TestClient
    auth: dict[str, str]
    admin_auth: dict[str, str]


@pytest.fixture
def api(
    enrich_runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    admin_auth: dict[str, str],
) -> Api:
    return Api(enrich_runtime, client, auth, admin_auth)


@pytest.fixture
def runs(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The ids of each batch the enrichment pipeline ran (the real pipeline runs them)."""
    batches: list[list[str]] = []
    real = EnrichmentPipeline.run

    def counted(self: EnrichmentPipeline, items: Sequence[ItemText]) -> BatchResult:
        batches.append([item.content_id for item in items])
        return real(self, items)

    monkeypatch.setattr(EnrichmentPipeline, "run", counted)
    return batches


def _episode(**changes: Any) -> dict[str, Any]:
    pieces = changelog_pieces(EPISODE)[:30]
    episode: dict[str, Any] = {
        "url": "https://practicalai.fm/298",
        "media_type": "podcast",
        "title": "Practical AI 298: agents in production",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Practical AI", "domain": "practicalai.fm"},
        "podcast": {"title": "Practical AI", "publisher": "Changelog Media"},
        "episode_id": "298",
        "audio_url": "https://cdn.example.com/practicalai/298.mp3?updated=1732600000",
        "duration_seconds": 2900,
        "authors": ["Chris Benson"],
        "transcript_segments": [
            {"start": p.start, "end": p.end, "speaker": p.speaker, "text": p.text} for p in pieces
        ],
    }
    return episode | changes


def _ingest(client: TestClient, admin_auth: dict[str, str], item: dict[str, Any]) -> str:
    response = client.post("/v1/admin/content", json=[item], headers=admin_auth)
    assert response.status_code == 200, response.text
    (content_id,) = response.json()["content_ids"]
    return str(content_id)


def _queued_enrichment(runtime: Runtime) -> list[str]:
    with runtime.sessions.read() as session:
        return [
            job.payload["content_id"]
            for job in session.scalars(
                select(Job).where(Job.kind == ENRICH_KIND, Job.status == "queued")
            )
        ]


def _item(client: TestClient, auth: dict[str, str], content_id: str) -> dict[str, Any]:
    response = client.get(f"/v1/content/{content_id}", headers=auth)
    assert response.status_code == 200, response.text
    item: dict[str, Any] = response.json()["content_item"]
    return item


def _search(client: TestClient, auth: dict[str, str], body: dict[str, Any]) -> list[dict[str, Any]]:
    response = client.post("/v1/content/search", json=body, headers=auth)
    assert response.status_code == 200, response.text
    return [r["content_item"] for r in response.json()["results"]]


def test_a_new_audio_url_keeps_the_episodes_enrichment_and_new_text_enriches_it_again(
    api: Api, clock: FrozenClock, runs: list[list[str]]
) -> None:
    runtime, client, auth, admin_auth = api.runtime, api.client, api.auth, api.admin_auth
    content_id = _ingest(client, admin_auth, _episode())
    run_jobs(runtime)
    assert runs == [[content_id]]
    before = _item(client, auth, content_id)
    assert before["enriched_at"] is not None
    assert before["segments"]
    assert before["key_points"]

    clock.advance(timedelta(hours=1))
    # The host re-inserted ads: a new query on the enclosure; the feed also names a co-host,
    # a new episode id and a second more of audio. Nothing enrichment reads.
    new_audio = "https://cdn.example.com/practicalai/298.mp3?updated=1732700000"
    updated = _episode(
        audio_url=new_audio,
        authors=["Chris Benson", "Daniel Whitenack"],
        episode_id="298-remastered",
        duration_seconds=2901,
    )
    _ingest(client, admin_auth, updated)
    assert _queued_enrichment(runtime) == []
    run_jobs(runtime)
    assert runs == [[content_id]]  # no model ran again
    after = _item(client, auth, content_id)
    assert after["audio_url"] == new_audio
    assert after["authors"] == ["Chris Benson", "Daniel Whitenack"]
    assert after["duration_seconds"] == 2901
    for field in ("enriched_at", "summary", "summaries", "key_points", "segments", "entities"):
        assert after[field] == before[field], field
    assert after["word_count"] == before["word_count"]  # enrichment's count, not ingestion's
    found = _search(client, auth, {"query": "agents in production", "media_types": ["podcast"]})
    assert [(r["id"], r["episode_id"]) for r in found] == [(content_id, "298-remastered")]

    clock.advance(timedelta(hours=1))
    changed = _episode(audio_url=new_audio)
    changed["transcript_segments"][0]["text"] = "Welcome to a zanzibarian edition of Practical AI."
    _ingest(client, admin_auth, changed)
    assert _queued_enrichment(runtime) == [content_id]
    run_jobs(runtime)
    assert runs == [[content_id], [content_id]]
    again = _item(client, auth, content_id)
    assert again["enriched_at"] > before["enriched_at"]
    assert [r["id"] for r in _search(client, auth, {"query": "zanzibarian"})] == [content_id]


def test_a_redated_article_keeps_its_enrichment_and_moves_its_links_and_story(
    api: Api, clock: FrozenClock, runs: list[list[str]]
) -> None:
    runtime, client, auth, admin_auth = api.runtime, api.client, api.auth, api.admin_auth
    article = {
        "url": "https://news.example.com/apple-paris-office",
        "media_type": "news",
        "title": "Apple opens a research office in Paris",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": "Example News", "domain": "news.example.com"},
        "authors": ["Ann Writer"],
        "body": ARTICLE_BODY,
    }
    content_id = _ingest(client, admin_auth, article)
    run_jobs(runtime)
    assert runs == [[content_id]]
    before = _item(client, auth, content_id)
    assert before["entities"]
    assert before["cluster_id"]

    clock.advance(timedelta(hours=1))
    moved = article | {"published_date": "2026-11-25T07:30:00Z", "authors": ["Ann Writer", "B"]}
    _ingest(client, admin_auth, moved)
    assert _queued_enrichment(runtime) == []
    run_jobs(runtime)
    assert runs == [[content_id]]
    after = _item(client, auth, content_id)
    assert after["published_date"] == "2026-11-25T07:30:00Z"
    assert after["enriched_at"] == before["enriched_at"]
    with runtime.sessions.read() as session:
        dates = set(
            session.scalars(
                select(ContentEntity.published_at).where(ContentEntity.content_id == content_id)
            )
        )
    assert [d.strftime("%Y-%m-%dT%H:%M") for d in dates] == ["2026-11-25T07:30"]
    window = {"start_date": "2026-11-25", "end_date": "2026-11-25"}
    found = _search(client, auth, {"query": "Apple Paris office"} | window)
    assert [r["id"] for r in found] == [content_id]
    old_day = {"start_date": "2026-11-24", "end_date": "2026-11-24"}
    assert _search(client, auth, {"query": "Apple Paris office"} | old_day) == []
    story = client.get(f"/v1/news/clusters/{after['cluster_id']}", headers=auth).json()
    assert story["cluster"]["first_published_at"] == "2026-11-25T07:30:00Z"
    assert [m["published_date"] for m in story["members"]] == ["2026-11-25T07:30:00Z"]


def test_results_read_before_a_metadata_update_are_stored_and_before_a_text_change_are_not(
    api: Api,
) -> None:
    runtime, client, admin_auth = api.runtime, api.client, api.admin_auth
    episode = _episode()
    content_id = _ingest(client, admin_auth, episode)
    result, hashes = compute(runtime, [content_id])
    _ingest(client, admin_auth, episode | {"audio_url": "https://cdn.example.com/298.mp3?v=2"})
    with runtime.sessions.write() as session:
        assert store(session, result, hashes, clock=runtime.clock) == [content_id]
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        assert row.enriched_at is not None
        assert row.enrichment_input

    result, hashes = compute(runtime, [content_id])
    changed = _episode(title="Practical AI 298: agents in production, revisited")
    _ingest(client, admin_auth, changed)
    with runtime.sessions.write() as session:
        assert store(session, result, hashes, clock=runtime.clock) == []


def test_an_update_that_overwrote_the_enrichment_is_enriched_even_when_the_text_returns(
    api: Api,
) -> None:
    """Version 2 gives a summary (enrichment queued); while its enrichment runs, version 3 takes
    the summary back. Version 3 reads as version 1 did, but version 2 overwrote version 1's
    summary: it is enriched, and gets a generated summary again."""
    runtime, client, auth, admin_auth = api.runtime, api.client, api.auth, api.admin_auth
    content_id = _ingest(client, admin_auth, _episode())
    run_jobs(runtime)
    _ingest(client, admin_auth, _episode(summary="The publisher's summary."))
    with runtime.sessions.write() as session:  # the worker claims version 2's enrichment
        session.execute(update(Job).where(Job.kind == ENRICH_KIND).values(status="running"))
    result, hashes = compute(runtime, [content_id])
    _ingest(client, admin_auth, _episode())
    assert _queued_enrichment(runtime) == [content_id]
    with runtime.sessions.write() as session:
        assert store(session, result, hashes, clock=runtime.clock) == []
        session.execute(delete(Job).where(Job.status == "running"))  # finished
    run_jobs(runtime)
    item = _item(client, auth, content_id)
    assert item["summary"]
    assert item["summary"] != "The publisher's summary."


def test_an_update_waiting_for_an_enrichment_being_stored_keeps_that_enrichment(
    api: Api,
) -> None:
    """On PostgreSQL the update reads the item before the enrichment commits, then waits for the
    row lock: what it compares is what the enrichment stored, read under that lock."""
    runtime, client, admin_auth = api.runtime, api.client, api.admin_auth
    episode = _episode()
    content_id = _ingest(client, admin_auth, episode)
    with runtime.sessions.write() as session:
        session.execute(delete(Job).where(Job.kind == ENRICH_KIND))  # the worker's, below
    result, hashes = compute(runtime, [content_id])
    new_audio = "https://cdn.example.com/practicalai/298.mp3?updated=2"
    update_body = [episode | {"audio_url": new_audio}]

    def enrichment(session: Session) -> list[str]:
        return store(session, result, hashes, clock=runtime.clock)

    def ingestion() -> Any:
        return client.post("/v1/admin/content", json=update_body, headers=admin_auth)

    with held_open(runtime, enrichment) as held:
        update = Background(ingestion)
        update.start()
        wait_until_blocked(runtime)
    assert held.result == [content_id]
    assert update.outcome().json()["updated"] == 1
    assert _queued_enrichment(runtime) == []
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        assert row.audio_url == new_audio
        assert row.enriched_at is not None
        assert row.enrichment_input == hashes[content_id]
