"""Writing content as ingestion and enrichment do (row, entities, embedding, change sequence).

The search tests need items with known text, dates, domains and entities, and need to update and
delete them: these helpers write exactly the rows the pipeline writes, in one transaction with
``mark_changed``, using the session's real embedding model.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import cache

from sqlalchemy import delete
from sqlalchemy.orm import Session

from herald.content.changes import mark_changed
from herald.core.ids import stable_id
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.db.models.entity import Entity
from herald.enrich.embedding import embedding_text, vector_to_bytes
from herald.runtime import Runtime
from tests.enrich.models import embedder


@cache
def _vector(text: str) -> bytes:
    # The same texts come back in every test: embed each once per session.
    return vector_to_bytes(embedder().embed([text])[0])


def put_item(
    runtime: Runtime,
    key: str,
    *,
    title: str,
    body: str = "",
    published_at: datetime,
    summary: str = "",
    key_points: Sequence[str] = (),
    media_type: str = "news",
    domain: str = "example.com",
    entity_ids: Sequence[str] = (),
) -> str:
    """Insert or replace one enriched item; returns its content id."""
    content_id = stable_id("cnt", key)
    now = runtime.clock.now()
    model = embedder()
    vector = _vector(embedding_text(title, body))
    with runtime.sessions.write() as session:
        row = session.get(ContentItem, content_id)
        if row is None:
            row = ContentItem(
                id=content_id,
                canonical_key=key,
                url=key,
                created_at=now,
                content_hash=content_id,
                source_name=domain,
            )
            session.add(row)
        row.media_type = media_type
        row.source_domain = domain
        row.title = title
        row.body = body
        row.summary = summary
        row.key_points = list(key_points)
        row.language = "en"
        row.published_at = published_at
        row.enriched_at = now
        row.updated_at = now
        row.deleted_at = None
        if media_type == "podcast":
            row.podcast_id = "pod_1"
            row.episode_id = key
        else:
            row.article_id = stable_id("art", key)
        session.flush()
        _link_entities(session, content_id, entity_ids, published_at, media_type, now)
        session.merge(
            ContentEmbedding(
                content_id=content_id,
                model=model.model_name,
                dim=model.dimension,
                vector=vector,
                updated_at=now,
            )
        )
        mark_changed(session, [content_id])
    return content_id


def _link_entities(
    session: Session,
    content_id: str,
    entity_ids: Sequence[str],
    published_at: datetime,
    media_type: str,
    now: datetime,
) -> None:
    session.execute(delete(ContentEntity).where(ContentEntity.content_id == content_id))
    for entity_id in entity_ids:
        if session.get(Entity, entity_id) is None:
            session.add(
                Entity(
                    id=entity_id,
                    display_name=entity_id,
                    entity_kind="company",
                    origin="import",
                    created_at=now,
                    updated_at=now,
                )
            )
            session.flush()
        session.add(
            ContentEntity(
                content_id=content_id,
                entity_id=entity_id,
                mention_count=1,
                salience=0.5,
                confidence=0.9,
                published_at=published_at,
                media_type=media_type,
            )
        )


def delete_item(runtime: Runtime, content_id: str) -> None:
    """Tombstone an item as ingestion does."""
    with runtime.sessions.write() as session:
        row = session.get(ContentItem, content_id)
        assert row is not None
        row.deleted_at = runtime.clock.now()
        mark_changed(session, [content_id])


# Three stories the database-copy tests store and look for, a day before NOW.
NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
VOLCANO = "Volcano erupts near Reykjavik"
GLACIER = "Glacier retreat speeds up in Greenland"
HARBOUR = "Harbour strike halts container traffic"


def put_story(runtime: Runtime, key: str, title: str) -> str:
    """A news item titled ``title`` at https://example.com/``key``, published a day before NOW."""
    return put_item(
        runtime,
        f"https://example.com/{key}",
        title=title,
        body=f"{title}. Reporters followed the events through the afternoon.",
        published_at=NOW - timedelta(days=1),
    )
