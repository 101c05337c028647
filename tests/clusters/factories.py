"""Plain factories for the clusters tests: story items for the pure core, and enriched content
rows (item, embedding, linked entities) written straight to the database for the service."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime

import numpy as np
from sqlalchemy.orm import Session

from herald.clusters.features import story_item
from herald.clusters.item import StoryItem
from herald.core.ids import stable_id
from herald.db.models.content import ContentEmbedding, ContentEntity, ContentItem
from herald.db.models.entity import Entity
from herald.enrich.embedding import HashingEmbedder, embedding_text, vector_to_bytes

EMBEDDER = HashingEmbedder(384)

# Three stories of two kinds: two storms told apart by their names, places and figures, and a
# trial. Each story has several differently worded reports.
STORIES: dict[str, list[tuple[str, str]]] = {
    "storm-a": [
        (
            "Hurricane Ana makes landfall near Corpus Christi",
            "Hurricane Ana came ashore near Corpus Christi, Texas, on Tuesday with winds of 120 "
            "mph. Governor Greg Abbott ordered the evacuation of 40,000 residents of Nueces "
            "County.",
        ),
        (
            "Ana batters Texas coast, 40,000 evacuated",
            "Hurricane Ana battered the Texas coast near Corpus Christi. Greg Abbott said 40,000 "
            "people in Nueces County left their homes before the 120 mph winds arrived.",
        ),
        (
            "Corpus Christi counts damage after Hurricane Ana",
            "Residents of Corpus Christi returned to flooded streets after Hurricane Ana. Nueces "
            "County officials said the 120 mph storm damaged 3,000 homes; Greg Abbott toured "
            "the area.",
        ),
    ],
    "storm-b": [
        (
            "Typhoon Mawar strikes Guam with 150 mph winds",
            "Typhoon Mawar struck Guam on Wednesday, knocking out power across Tamuning and "
            "Dededo. Governor Lou Leon Guerrero said 51,000 customers lost electricity.",
        ),
        (
            "Guam without power after Typhoon Mawar",
            "Typhoon Mawar left 51,000 Guam customers without power. Lou Leon Guerrero asked "
            "residents of Dededo and Tamuning to stay indoors as 150 mph gusts hit the island.",
        ),
    ],
    "trial": [
        (
            "Jury convicts Harlan Voss of fraud in Denver",
            "A federal jury in Denver convicted investment manager Harlan Voss of wire fraud on "
            "Friday. Prosecutors said Voss took $18 million from 300 retirees.",
        ),
        (
            "Harlan Voss found guilty of $18 million fraud",
            "Harlan Voss was found guilty in Denver of defrauding 300 retirees of $18 million. "
            "Judge Marcia Krieger set sentencing for March.",
        ),
    ],
}


def embed(title: str, body: str) -> np.ndarray:
    return EMBEDDER.embed([embedding_text(title, body)])[0]


def make_story_item(
    key: str,
    title: str,
    body: str,
    *,
    published_at: datetime,
    source: str = "example.com",
    article_id: str | None = None,
    entities: Sequence[tuple[str, str, float]] = (),
) -> StoryItem:
    return story_item(
        content_id=stable_id("cnt", key),
        article_id=article_id or stable_id("art", key),
        source_key=source,
        published_at=published_at,
        title=title,
        body=body,
        summary=None,
        embedding=embed(title, body),
        entities=entities,
    )


def make_entity(session: Session, name: str, *, now: datetime, kind: str = "person") -> str:
    entity_id = stable_id("ent", f"test:{name}")
    if session.get(Entity, entity_id) is None:
        session.add(
            Entity(
                id=entity_id,
                display_name=name,
                entity_kind=kind,
                description="",
                aliases=[],
                tags=[],
                origin="seed",
                created_at=now,
                updated_at=now,
            )
        )
        session.flush()
    return entity_id


def make_enriched_item(
    session: Session,
    *,
    title: str,
    body: str,
    published_at: datetime,
    now: datetime,
    domain: str = "example.com",
    media_type: str = "news",
    article_id: str | None = None,
    entities: Sequence[tuple[str, float]] = (),
    key: str | None = None,
) -> ContentItem:
    """A news item as ingestion and enrichment leave it: row, embedding, linked entities."""
    key = key or f"https://{domain}/{hashlib.sha1(title.encode()).hexdigest()[:12]}"
    content_id = stable_id("cnt", key)
    item = ContentItem(
        id=content_id,
        canonical_key=key,
        media_type=media_type,
        url=key,
        source_name=domain,
        source_domain=domain,
        title=title,
        authors=[],
        language="en",
        published_at=published_at,
        body=body,
        summary=body.split(". ")[0] + ".",
        summary_provided=False,
        summaries=[],
        key_points=[],
        segments=[],
        word_count=len(body.split()),
        content_hash=hashlib.sha256(body.encode()).hexdigest(),
        article_id=article_id or stable_id("art", key),
        enriched_at=now,
        change_seq=0,
        version=1,
        created_at=now,
        updated_at=now,
    )
    session.add(item)
    session.flush()
    session.add(
        ContentEmbedding(
            content_id=content_id,
            model=EMBEDDER.model_name,
            dim=EMBEDDER.dimension,
            vector=vector_to_bytes(embed(title, body)),
            updated_at=now,
        )
    )
    for name, salience in entities:
        session.add(
            ContentEntity(
                content_id=content_id,
                entity_id=make_entity(session, name, now=now),
                mention_count=1,
                salience=salience,
                confidence=0.9,
                published_at=published_at,
                media_type=media_type,
            )
        )
    session.flush()
    return item
