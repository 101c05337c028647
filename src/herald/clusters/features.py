"""Building a :class:`StoryItem` from what ingestion and enrichment stored for a content item.

Used by the clustering step and by the benchmarks, so both see exactly the same features.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime

import numpy as np

from herald.clusters.item import (
    Embedding,
    StoryItem,
    candidate_phrases,
    story_names,
    story_numbers,
    story_terms,
)

MAX_KEY_LENGTH = 100  # longer "words" are noise (URLs, run-together text); the database keeps 200
ABSTRACT_FALLBACK_WORDS = 60


def story_item(
    *,
    content_id: str,
    article_id: str | None,
    source_key: str,
    published_at: datetime,
    title: str,
    body: str,
    summary: str | None,
    embedding: Embedding,
    entities: Iterable[tuple[str, str, float]],  # (entity id, display name, salience)
) -> StoryItem:
    linked = [(eid, name, salience) for eid, name, salience in entities if salience > 0]
    return StoryItem(
        content_id=content_id,
        article_id=article_id or content_id,
        source_key=source_key,
        published_at=published_at,
        title=title.strip(),
        abstract=abstract_for(summary, body),
        embedding=np.asarray(embedding, dtype=np.float32),
        terms=_short_keys(story_terms(title, body)),
        names=_short_keys(story_names(title, body)),
        numbers=_short_keys(story_numbers(title, body)),
        entities={eid: float(salience) for eid, _, salience in linked},
        entity_names={eid: name for eid, name, _ in linked},
        phrases=tuple(candidate_phrases(title, body)),
    )


def _short_keys(counts: Mapping[str, int]) -> dict[str, float]:
    return {key: float(n) for key, n in counts.items() if len(key) <= MAX_KEY_LENGTH}


def abstract_for(summary: str | None, body: str) -> str:
    """A member's abstract: its summary, else the lead of its text."""
    return (summary or "").strip() or _lead(body)


def _lead(body: str) -> str:
    words = body.split()
    text = " ".join(words[:ABSTRACT_FALLBACK_WORDS])
    return text + (" …" if len(words) > ABSTRACT_FALLBACK_WORDS else "")
