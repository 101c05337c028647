"""The enrichment pipeline as durable jobs, on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.db.models.entity import Entity, EntityAlias
from herald.db.models.job import Job
from herald.enrich.queueing import ENRICH_KIND, queue_enrichment
from herald.enrich.text import split_sentences
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.enrich.checks import joined_from
from tests.enrich.factories import make_item
from tests.enrich.models import embedder
from tests.enrich.transcripts import changelog_pieces

ARTICLES = {
    a["name"]: a
    for a in json.loads(
        (Path(__file__).parents[1] / "entities" / "fixtures" / "articles.json").read_text()
    )
}
EPISODE = Path(__file__).parent / "fixtures" / "practical-ai-298.md"


def add_articles(runtime: Runtime, *names: str) -> list[str]:
    now = runtime.clock.now()
    ids = []
    with runtime.sessions.write() as session:
        for offset, name in enumerate(names):
            article = ARTICLES[name]
            item = make_item(
                session,
                title=article["title"],
                body=article["body"],
                published_at=now - timedelta(hours=offset + 1),
                now=now,
            )
            ids.append(item.id)
        queue_enrichment(session, ids, clock=runtime.clock)
    return ids


def sentences(text: str) -> set[str]:
    return {s.text for s in split_sentences(text)}


def pending(session: Session) -> list[Job]:
    return list(session.scalars(select(Job).where(Job.kind == ENRICH_KIND)))


def entity_named(runtime: Runtime, name: str) -> Entity:
    with runtime.sessions.read() as session:
        return session.scalars(select(Entity).where(Entity.display_name == name)).one()


def links(runtime: Runtime, content_id: str) -> dict[str, ContentEntity]:
    with runtime.sessions.read() as session:
        rows = session.scalars(select(ContentEntity).where(ContentEntity.content_id == content_id))
        return {row.entity_id: row for row in rows}


def test_an_enrich_job_stores_every_result(enrich_runtime: Runtime, clock: FrozenClock) -> None:
    runtime = enrich_runtime
    (apple_story, heist) = add_articles(runtime, "apple_company_macworld", "paris_city_heist")
    clock.advance(timedelta(minutes=5))
    assert Worker(runtime).drain() >= 2
    with runtime.sessions.read() as session:
        item = session.get(ContentItem, apple_story)
        assert item is not None
        assert item.language == "en"
        assert item.enriched_at == clock.now()
        assert item.summary
        assert joined_from(item.summary, sentences(item.body))
        assert [s["style"] for s in item.summaries] == ["brief", "detailed"]
        assert 3 <= len(item.key_points) <= 5
        assert all(point in item.body for point in item.key_points)
        assert item.word_count > 500
        assert item.change_seq > 0
        embedding = session.get(ContentEmbedding, apple_story)
        assert embedding is not None
        assert embedding.dim == 384
        assert embedding.model == embedder().model_name
        vector = np.frombuffer(embedding.vector, dtype="<f4")
        assert vector.shape == (384,)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
        assert pending(session) == []  # succeeded jobs are gone
    apple = entity_named(runtime, "Apple Inc.")
    with runtime.sessions.read() as session:
        (paris,) = [
            e
            for e in session.scalars(select(Entity).where(Entity.display_name == "Paris"))
            if {"key": "country", "value": "FR"} in e.tags
        ]
    story_links = links(runtime, apple_story)
    assert story_links[apple.id].mention_count >= 10
    assert 0 < story_links[apple.id].salience <= 1
    assert 0 < story_links[apple.id].confidence <= 1
    heist_links = links(runtime, heist)
    assert heist_links[paris.id].published_at == clock.now() - timedelta(minutes=5, hours=2)
    assert heist_links[paris.id].media_type == "news"


def test_enriching_again_is_idempotent(enrich_runtime: Runtime, clock: FrozenClock) -> None:
    runtime = enrich_runtime
    (story,) = add_articles(runtime, "hp_united_kingdom")
    Worker(runtime).drain()
    first = {k: (v.mention_count, v.salience) for k, v in links(runtime, story).items()}
    with runtime.sessions.read() as session:
        before = session.get(ContentItem, story)
        assert before is not None
        summary, seq = before.summary, before.change_seq
    clock.advance(timedelta(hours=1))
    with runtime.sessions.write() as session:
        assert queue_enrichment(session, [story], clock=runtime.clock) == 1
    Worker(runtime).drain()
    again = {k: (v.mention_count, v.salience) for k, v in links(runtime, story).items()}
    assert again == first
    with runtime.sessions.read() as session:
        after = session.get(ContentItem, story)
        assert after is not None
        assert after.summary == summary
        assert after.enriched_at == clock.now()
        assert after.change_seq > seq
        assert session.scalars(select(ContentEmbedding)).all().__len__() == 1


def test_a_batch_enriched_again_keeps_each_items_own_results(
    enrich_runtime: Runtime, clock: FrozenClock
) -> None:
    # A batch's links and embeddings are written for all its items at once: each item must
    # keep exactly its own, and a second run replaces them without leaving the first's.
    runtime = enrich_runtime
    ids = add_articles(runtime, "apple_company_macworld", "paris_city_heist", "hp_united_kingdom")
    Worker(runtime).drain()

    def stored() -> dict[str, tuple[dict[str, tuple[int, float]], bytes]]:
        with runtime.sessions.read() as session:
            vectors = {e.content_id: e.vector for e in session.scalars(select(ContentEmbedding))}
        found = {i: links(runtime, i) for i in ids}
        return {
            i: ({k: (v.mention_count, v.salience) for k, v in found[i].items()}, vectors[i])
            for i in ids
        }

    first = stored()
    assert all(entities for entities, _ in first.values())
    assert len({vector for _, vector in first.values()}) == len(ids)
    clock.advance(timedelta(hours=1))
    with runtime.sessions.write() as session:
        assert queue_enrichment(session, ids, clock=runtime.clock) == len(ids)
    Worker(runtime).drain()
    assert stored() == first
    with runtime.sessions.read() as session:
        assert len(session.scalars(select(ContentEmbedding)).all()) == len(ids)


class FlakyEmbedder:
    """The real embedder, failing its first call as a crash in the middle of a batch would."""

    def __init__(self) -> None:
        self.calls = 0
        self.model_name = embedder().model_name
        self.dimension = embedder().dimension

    def embed(self, texts: Any) -> Any:
        self.calls += 1
        if self.calls == 1:
            raise RuntimeError("model process died")
        return embedder().embed(texts)


def test_a_failed_batch_is_retried_job_by_job_and_completes(
    runtime: Runtime, clock: FrozenClock
) -> None:
    flaky = FlakyEmbedder()
    runtime.service("embedder", lambda: flaky)
    ids = add_articles(runtime, "uk_essex", "google_hp_consolidation")
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        items = [session.get(ContentItem, i) for i in ids]
        # The batch failed; its jobs were then retried one by one at once, with the model back.
        assert all(item is not None and item.enriched_at is not None for item in items)
    clock.advance(timedelta(minutes=30))
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        for content_id in ids:
            item = session.get(ContentItem, content_id)
            assert item is not None
            assert item.enriched_at is not None
            assert session.get(ContentEmbedding, content_id) is not None
        assert pending(session) == []
    assert flaky.calls >= 2


def test_a_failed_batch_leaves_no_partial_results_and_its_retry_stores_all(
    runtime: Runtime, clock: FrozenClock
) -> None:
    class Switchable:
        model_name = embedder().model_name
        dimension = 384
        broken = True

        def embed(self, texts: Any) -> Any:
            if self.broken:
                raise RuntimeError("out of memory")
            return embedder().embed(texts)

    model = Switchable()
    runtime.service("embedder", lambda: model)
    (story,) = add_articles(runtime, "paris_hilton_mention")
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        item = session.get(ContentItem, story)
        assert item is not None
        assert item.enriched_at is None
        assert item.summary is None
        assert item.key_points == []
        assert session.scalars(select(ContentEntity)).all() == []
        assert session.scalars(select(Entity).where(Entity.origin == "discovered")).all() == []
        (job,) = pending(session)
        assert job.status == "queued"
        assert job.attempts == 1
    model.broken = False
    clock.advance(timedelta(seconds=10))
    Worker(runtime).drain()
    # "Tara Reid" was discovered in memory by the failed attempt; the retry still stores it.
    reid = entity_named(runtime, "Tara Reid")
    assert reid.id in links(runtime, story)
    with runtime.sessions.read() as session:
        assert pending(session) == []


def test_new_entities_are_stored_with_their_aliases(enrich_runtime: Runtime) -> None:
    runtime = enrich_runtime
    (story,) = add_articles(runtime, "paris_hilton_mention")
    Worker(runtime).drain()
    reid = entity_named(runtime, "Tara Reid")
    assert reid.entity_kind == "person"
    assert reid.origin == "discovered"
    assert reid.id in links(runtime, story)
    with runtime.sessions.read() as session:
        keys = set(
            session.scalars(select(EntityAlias.alias_norm).where(EntityAlias.entity_id == reid.id))
        )
    assert keys == {"tara reid"}


def test_podcast_items_get_segments(enrich_runtime: Runtime) -> None:
    runtime = enrich_runtime
    pieces = changelog_pieces(EPISODE)[:40]
    transcript = [
        {"start": p.start, "end": p.end, "speaker": p.speaker, "text": p.text} for p in pieces
    ]
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        item = make_item(
            session,
            title="Practical AI 298",
            published_at=now - timedelta(days=1),
            now=now,
            media_type="podcast",
            transcript=transcript,
            summary="Given by the publisher.",
        )
        queue_enrichment(session, [item.id], clock=runtime.clock)
        content_id = item.id
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        stored = session.get(ContentItem, content_id)
        assert stored is not None
        assert stored.summary == "Given by the publisher."  # kept when given (pinned)
        assert len(stored.segments) >= 2
        first = stored.segments[0]
        assert set(first) == {
            "index",
            "start_seconds",
            "end_seconds",
            "speaker",
            "title",
            "summary",
            "key_points",
        }
        assert first["start_seconds"] == pytest.approx(pieces[0].start)
        assert stored.key_points
        assert stored.enriched_at is not None


def test_deleted_items_are_skipped(enrich_runtime: Runtime, clock: FrozenClock) -> None:
    runtime = enrich_runtime
    (story,) = add_articles(runtime, "uk_hp_offices")
    with runtime.sessions.write() as session:
        item = session.get(ContentItem, story)
        assert item is not None
        item.deleted_at = clock.now()
    Worker(runtime).drain()
    with runtime.sessions.read() as session:
        item = session.get(ContentItem, story)
        assert item is not None
        assert item.enriched_at is None
        assert pending(session) == []


def test_enrichment_hands_on_to_search_indexing_and_clustering(
    enrich_runtime: Runtime,
) -> None:
    from herald.enrich.service import CLUSTER_KIND, SEARCH_SYNC_KIND, compute, store
    from herald.jobs.registry import JobKind, get_kind, register, unregister

    runtime = enrich_runtime
    added = []
    for kind in (SEARCH_SYNC_KIND, CLUSTER_KIND):
        try:
            get_kind(kind)
        except LookupError:  # that area is not built yet: stand in for it
            register(JobKind(name=kind, handler=lambda ctx, jobs: None))
            added.append(kind)
    try:
        news = add_articles(runtime, "uk_essex")
        now = runtime.clock.now()
        with runtime.sessions.write() as session:
            podcast = make_item(
                session,
                title="An episode",
                published_at=now,
                now=now,
                media_type="podcast",
                transcript=[{"start": 0.0, "end": 30.0, "text": "Hello and welcome."}],
            ).id
        result, hashes = compute(runtime, [*news, podcast])
        with runtime.sessions.write() as session:
            stored = store(session, result, hashes, clock=runtime.clock)
        assert set(stored) == {*news, podcast}
        with runtime.sessions.read() as session:
            jobs = session.scalars(
                select(Job).where(Job.kind.in_([SEARCH_SYNC_KIND, CLUSTER_KIND]))
            )
            queued = sorted((j.kind, json.dumps(j.payload)) for j in jobs)
        assert queued == [
            (CLUSTER_KIND, json.dumps({"content_id": news[0]})),  # news only, not the podcast
            (SEARCH_SYNC_KIND, "{}"),
        ]
    finally:
        for kind in added:
            unregister(kind)
