"""Preview a saved search: what its dated jobs would capture for past days, saving nothing.

Each day runs exactly the dated job's search (:meth:`SavedSearch.dated_request` through the
monitor search port, so the same threshold and the same internal limit of 1000) and keeps the
same hits the job would store (best score per item, items still live). Nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.db.models.content import ContentItem
from herald.errors import FieldIssue, InvalidRequest
from herald.monitors.ports import ResultSearch
from herald.monitors.result_store import best_scores, live_items
from herald.monitors.saved_search import SavedSearch

DEFAULT_PREVIEW_DAYS = 7
MAX_PREVIEW_DAYS = 30
TOP_PER_DAY = 10


@dataclass(frozen=True, slots=True)
class PreviewDay:
    published_date: date
    count: int  # what the dated job would store for the day
    top: list[tuple[ContentItem, float]]  # best first, at most TOP_PER_DAY
    features: dict[str, tuple[float, ...] | None]  # the search's evidence per top item


def check_days(days: object) -> int:
    if days is None:
        return DEFAULT_PREVIEW_DAYS
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_PREVIEW_DAYS:
        raise InvalidRequest(
            f"days must be a whole number from 1 to {MAX_PREVIEW_DAYS}",
            details=[FieldIssue("days", f"an integer from 1 to {MAX_PREVIEW_DAYS}")],
        )
    return days


def preview_dates(now: datetime, days: int) -> list[date]:
    """Today (UTC) and the ``days - 1`` days before it, newest first."""
    today = now.date()
    return [today - timedelta(days=i) for i in range(days)]


def preview(
    session: Session, port: ResultSearch, search: SavedSearch, dates: list[date]
) -> list[PreviewDay]:
    out: list[PreviewDay] = []
    for day in dates:
        hits = port.search(session, search.dated_request(day))
        scores = best_scores(hits)
        live = live_items(set(scores), session)
        ranked = sorted(live, key=lambda cid: (-scores[cid], cid))
        top_ids = ranked[:TOP_PER_DAY]
        rows = {
            item.id: item
            for item in session.scalars(select(ContentItem).where(ContentItem.id.in_(top_ids)))
        }
        top = [(rows[cid], scores[cid]) for cid in top_ids if cid in rows]
        evidence = {h.content_id: h.features for h in hits if h.content_id in rows}
        out.append(PreviewDay(day, len(live), top, evidence))
    return out
