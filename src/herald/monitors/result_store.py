"""The monitors' result store as dated jobs write it: the hits' best scores, the live items they
name, which (monitor, item) pairs are stored already, the upsert, and each date's high-water mark.

Set-based and chunked for batches of thousands of dated jobs; the preview
(:mod:`herald.monitors.preview`) reads hits the same way, so it shows what a job would store.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Table, and_, func, or_, select
from sqlalchemy.orm import Session

from herald.core.dates import day_window
from herald.db.dialect import insert_for
from herald.db.models.content import ContentItem
from herald.db.models.monitor import MonitorResult
from herald.monitors.events import CapturedItem
from herald.search.types import SearchHit

_CHUNK = 900  # stay under SQLite's bound-parameter limit
RESULTS = cast(Table, MonitorResult.__table__)


def chunks(values: Sequence[Any]) -> list[Sequence[Any]]:
    return [values[i : i + _CHUNK] for i in range(0, len(values), _CHUNK)]


def best_scores(hits: Sequence[SearchHit]) -> dict[str, float]:
    scores: dict[str, float] = {}
    for hit in hits:
        scores[hit.content_id] = max(hit.score, scores.get(hit.content_id, hit.score))
    return scores


def live_items(ids: set[str], session: Session) -> dict[str, CapturedItem]:
    items: dict[str, CapturedItem] = {}
    for chunk in chunks(sorted(ids)):
        rows = session.execute(
            select(
                ContentItem.id,
                ContentItem.title,
                ContentItem.url,
                ContentItem.published_at,
                ContentItem.source_name,
                ContentItem.source_domain,
                ContentItem.enriched_at,
            ).where(ContentItem.id.in_(chunk), ContentItem.deleted_at.is_(None))
        )
        items.update({row.id: CapturedItem(*row) for row in rows})
    return items


def already_stored(session: Session, pairs: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (monitor, content) pairs already in the stores: one primary-key lookup per chunk
    of the batch's monitors and items (a superset, narrowed here), not one per monitor."""
    monitor_ids = sorted({monitor_id for monitor_id, _ in pairs})
    content_ids = sorted({content_id for _, content_id in pairs})
    found: set[tuple[str, str]] = set()
    for monitors in [monitor_ids[i : i + 100] for i in range(0, len(monitor_ids), 100)]:
        for chunk in [content_ids[i : i + 800] for i in range(0, len(content_ids), 800)]:
            rows = session.execute(
                select(RESULTS.c.monitor_id, RESULTS.c.content_id).where(
                    RESULTS.c.monitor_id.in_(monitors), RESULTS.c.content_id.in_(chunk)
                )
            )
            found.update((m, c) for m, c in rows if (m, c) in pairs)
    return found


def upsert_results(session: Session, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    statement = insert_for(session, RESULTS)
    new = statement.excluded
    statement = statement.on_conflict_do_update(
        index_elements=["monitor_id", "content_id"],
        set_={
            "published_date": new.published_date,
            "published_at": new.published_at,
            "score": new.score,
            "enriched_at": new.enriched_at,
        },
        # A repeat capture of an unchanged item writes nothing (most captures, hour after hour);
        # the score is refreshed with the item, not with every drift of corpus statistics.
        where=or_(
            RESULTS.c.published_at != new.published_at,
            RESULTS.c.enriched_at.is_distinct_from(new.enriched_at),
        ),
    )
    for start in range(0, len(rows), 500):
        session.execute(statement, rows[start : start + 500])


def latest_enriched(
    session: Session, pairs: list[tuple[str, date]]
) -> dict[tuple[str, date], datetime | None]:
    """The high-water mark per (monitor, date): the largest ``enriched_at`` in the store.

    Each date is a ``published_at`` range on the (monitor_id, published_at) index, OR-ed: SQLite
    answers that from the index, where a row-value IN would scan the whole store.
    """
    latest: dict[tuple[str, date], datetime | None] = {}
    unique = sorted(set(pairs))
    for start in range(0, len(unique), 200):
        chunk = unique[start : start + 200]
        rows = session.execute(
            select(RESULTS.c.monitor_id, RESULTS.c.published_date, func.max(RESULTS.c.enriched_at))
            .where(
                or_(
                    *(
                        and_(
                            RESULTS.c.monitor_id == monitor_id,
                            RESULTS.c.published_at >= day_window(day).start,
                            RESULTS.c.published_at < day_window(day).end,
                        )
                        for monitor_id, day in chunk
                    )
                )
            )
            .group_by(RESULTS.c.monitor_id, RESULTS.c.published_date)
        )
        latest.update({(monitor_id, day): high for monitor_id, day, high in rows})
    return latest
