"""Plain factory functions for search tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from herald.search.documents import IndexedItem

DAY0 = datetime(2026, 11, 1, tzinfo=UTC)


def item(
    content_id: str,
    title: str,
    body: str = "",
    *,
    day: int = 0,
    media_type: str = "news",
    domain: str = "example.com",
    summary: str = "",
    key_points: tuple[str, ...] = (),
    language: str | None = "en",
    entity_ids: tuple[str, ...] = (),
) -> IndexedItem:
    return IndexedItem(
        content_id=content_id,
        title=title,
        body=body,
        summary=summary,
        key_points=key_points,
        published=DAY0 + timedelta(days=day),
        media_type=media_type,
        domain=domain,
        language=language,
        entity_ids=entity_ids,
    )
