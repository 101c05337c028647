"""Enrichment against the database: read items, run the pipeline, store results and hand on.

Results of a batch are written in one transaction together with the completion of its jobs (see
``herald.enrich.tasks``), so a crash loses nothing and a re-run simply recomputes and overwrites:
every write here replaces what a previous run wrote for the same item. Each item's results are
stored with the hash of what enrichment read of it (:mod:`herald.enrich.inputs`), so
an update that changes none of that keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from herald.content.changes import mark_changed
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.enrich.embedder import get_embedder
from herald.enrich.embedding import vector_to_bytes
from herald.enrich.inputs import input_of_row, transcript_pieces
from herald.enrich.language import LanguageDetector
from herald.enrich.ner import EntityRecognizer, Recognizer
from herald.enrich.ner_model import TrainedRecognizer
from herald.enrich.pipeline import BatchResult, EnrichedItem, EnrichmentPipeline, ItemText
from herald.enrich.queueing import CLUSTER_KIND, SEARCH_SYNC_KIND, queue_follow_ups
from herald.enrich.segments import TranscriptPiece
from herald.entities import repository as entity_repository
from herald.entities import staging
from herald.entities.linking import EntityLinker, LinkingConfig, redirected_links
from herald.entities.service import get_entity_store
from herald.entities.staging import ConfirmRule

if TYPE_CHECKING:
    from herald.config import Settings
    from herald.core.clock import Clock
    from herald.runtime import Runtime

__all__ = ["CLUSTER_KIND", "SEARCH_SYNC_KIND", "compute", "get_pipeline", "load_items", "store"]


def _recognizer(settings: Settings) -> Recognizer:
    """The recogniser the settings choose (one per process, whatever the number of runtimes)."""
    if settings.ner_recognizer == "spacy":
        return _spacy_recognizer(
            settings.nlp_model, settings.enrich_batch_size, settings.ner_max_chars
        )
    return _trained_recognizer(settings.home / "models", settings.ner_max_chars)


@cache
def _spacy_recognizer(model: str, batch_size: int, max_chars: int) -> Recognizer:
    return EntityRecognizer(model, batch_size=batch_size, max_chars=max_chars)


@cache
def _trained_recognizer(cache_dir: Path, max_chars: int) -> Recognizer:
    return TrainedRecognizer(max_chars=max_chars, cache_dir=cache_dir)


@cache
def _language_detector() -> LanguageDetector:
    return LanguageDetector()


def get_pipeline(runtime: Runtime) -> EnrichmentPipeline:
    """The runtime's pipeline (models loaded once); its knowledge base is caught up per batch."""

    def build() -> EnrichmentPipeline:
        settings = runtime.settings
        store = get_entity_store(runtime)
        return EnrichmentPipeline(
            language=_language_detector(),
            recognizer=_recognizer(settings),
            linker=EntityLinker(
                store.knowledge_base(),
                LinkingConfig(
                    learned_kinds=settings.entity_kinds == "learned",
                    nationalities=settings.entity_nationalities == "link",
                    admission_threshold=settings.entity_admission,
                ),
            ),
            embedder=get_embedder(runtime),
        )

    pipeline = runtime.service("enrich_pipeline", build)
    get_entity_store(runtime).knowledge_base()  # catch up with entities written elsewhere
    return pipeline


def load_items(session: Session, content_ids: Sequence[str]) -> dict[str, tuple[ItemText, str]]:
    """Live items by id, with the hash of their enrichment input when read."""
    rows = session.scalars(
        select(ContentItem).where(
            ContentItem.id.in_(list(content_ids)), ContentItem.deleted_at.is_(None)
        )
    )
    out: dict[str, tuple[ItemText, str]] = {}
    for row in rows:
        pieces = tuple(
            TranscriptPiece(start=start, end=end, text=text, speaker=speaker)
            for start, end, text, speaker in transcript_pieces(row.transcript_segments)
        )
        out[row.id] = (
            ItemText(
                content_id=row.id,
                media_type=row.media_type,
                title=row.title,
                body=row.body or "",
                transcript_segments=pieces,
                # A detected language is detected again (the text may have changed since).
                language=row.language if row.language_provided else None,
                summary=row.summary if row.summary_provided else None,
            ),
            input_of_row(row),
        )
    return out


def compute(runtime: Runtime, content_ids: Sequence[str]) -> tuple[BatchResult, dict[str, str]]:
    """Run the pipeline over the live items among ``content_ids`` (outside any transaction)."""
    with runtime.sessions.read() as session:
        loaded = load_items(session, content_ids)
    pipeline = get_pipeline(runtime)
    items = [loaded[i][0] for i in content_ids if i in loaded]
    result = pipeline.run(items)
    return result, {i: loaded[i][1] for i in loaded}


def store(
    session: Session,
    result: BatchResult,
    hashes: dict[str, str],
    *,
    clock: Clock,
    confirm: ConfirmRule | None = None,
) -> list[str]:
    """Write a batch's results; returns the ids stored. ``hashes``: the enrichment input hash of
    each item when it was read.

    An item deleted since it was read, or whose enrichment input changed since (another text, a
    given language or summary), is skipped: ingestion queued another enrichment for it, which
    runs after this one. An update that changed nothing enrichment reads (a new ``audio_url``)
    does not stop the results being stored: they are the new version's too.

    The names linking discovered are stored as candidates; those the batch's links bring to
    ``confirm`` (default :class:`ConfirmRule`) become active, and the items naming them are
    queued for enrichment again (:mod:`herald.entities.staging`).
    """
    now = clock.now()
    result = _merged_entities_redirected(session, result)
    if result.new_entities:
        entity_repository.upsert_entities(
            session, [d.to_record() for d in result.new_entities], now=now, replace=False
        )
    # Locked (PostgreSQL; SQLite's writer holds the database): an update ingestion has not
    # committed yet is waited for and then seen here, so its item is skipped, not overwritten
    # with the old version's results (a language or summary it gives would be lost for good).
    rows = {
        row.id: row
        for row in session.scalars(
            select(ContentItem)
            .where(ContentItem.id.in_([i.content_id for i in result.items]))
            .order_by(ContentItem.id)
            .with_for_update(key_share=True)
        )
    }
    wanted = {e.entity_id for item in result.items for e in item.entities}
    known = entity_repository.existing_ids(session, wanted)
    kept = [
        (row, item)
        for item in result.items
        if (row := rows.get(item.content_id)) is not None
        and row.deleted_at is None
        and input_of_row(row) == hashes.get(row.id)
    ]
    stored = [row.id for row, _ in kept]
    if kept:
        _apply(session, kept, known, model=result.embedding_model, now=now)
        mark_changed(session, stored)
        queue_follow_ups(session, [(row.id, row.media_type) for row, _ in kept], clock=clock)
        staged = {d.id for d in result.new_entities}
        named = {e.entity_id for _, item in kept for e in item.entities if e.entity_id in staged}
        staging.confirm_reached(session, named, confirm or ConfirmRule(), clock=clock)
    return stored


def _merged_entities_redirected(session: Session, result: BatchResult) -> BatchResult:
    """The batch with the entities merged into others since its knowledge base was read
    replaced by those (a discovered entity is never written again once merged)."""
    entity_repository.hold_off_merges(session)  # first: a merge must not start after this read
    ids = {d.id for d in result.new_entities}
    ids |= {e.entity_id for item in result.items for e in item.entities}
    redirects = entity_repository.redirects_of(session, ids)
    if not redirects:
        return result
    return replace(
        result,
        new_entities=[d for d in result.new_entities if d.id not in redirects],
        items=[
            replace(item, entities=redirected_links(item.entities, redirects))
            for item in result.items
        ],
    )


def _apply(
    session: Session,
    kept: Sequence[tuple[ContentItem, EnrichedItem]],
    known: set[str],
    *,
    model: str,
    now: datetime,
) -> None:
    """Store the batch's results: each row's fields and names, then the entity links and the
    embeddings of all rows in a few statements (one delete and one insert of links, one read of
    the embeddings) instead of a round of statements and objects per item."""
    ids = [row.id for row, _ in kept]
    for row, item in kept:
        row.language = item.language  # given (normalised) or detected: the flag stays
        row.summary = item.summary
        row.summaries = item.summaries
        row.key_points = item.key_points
        row.segments = item.segments
        row.word_count = item.word_count
        row.enriched_at = now
        row.updated_at = now
        # What was read (store() checked it), a given language as now stored (normalised).
        row.enrichment_input = input_of_row(row)
    session.execute(delete(ContentEntity).where(ContentEntity.content_id.in_(ids)))
    for row, item in kept:
        staging.write_names(session, row.id, item.names)
    links = [
        {
            "content_id": row.id,
            "entity_id": linked.entity_id,
            "mention_count": linked.mention_count,
            "salience": linked.salience,
            "confidence": linked.confidence,
            "published_at": row.published_at,
            "media_type": row.media_type,
        }
        for row, item in kept
        for linked in item.entities
        if linked.entity_id in known
    ]
    if links:
        session.execute(insert(ContentEntity), links)
    embeddings = {
        e.content_id: e
        for e in session.scalars(
            select(ContentEmbedding).where(ContentEmbedding.content_id.in_(ids))
        )
    }
    for row, item in kept:
        vector = vector_to_bytes(item.embedding)
        dim = int(item.embedding.shape[0])
        embedding = embeddings.get(row.id)
        if embedding is None:
            session.add(
                ContentEmbedding(
                    content_id=row.id, model=model, dim=dim, vector=vector, updated_at=now
                )
            )
        else:
            embedding.model = model
            embedding.dim = dim
            embedding.vector = vector
            embedding.updated_at = now


def live_content_ids(session: Session) -> list[str]:
    return list(
        session.scalars(
            select(ContentItem.id)
            .where(ContentItem.deleted_at.is_(None))
            .order_by(ContentItem.published_at.desc(), ContentItem.id)
        )
    )
