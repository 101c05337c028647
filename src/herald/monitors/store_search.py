"""Search within a monitor's result store: the content search request and rules, restricted.

Same request shape, date behaviour (both dates or neither; at most 60 days; default the last 60
days) and limit (default 10, at most 100) as POST /v1/content/search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from herald.content.repository import get_items
from herald.core.clock import Clock
from herald.core.dates import parse_date_input, resolve_window
from herald.db.models.content import ContentItem
from herald.errors import FieldIssue, HeraldError, InvalidRequest
from herald.monitors.ports import ResultSearch
from herald.monitors.queries import store_content_ids
from herald.monitors.saved_search import parse_saved_search
from herald.search.types import SearchRequest

MAX_LIMIT = 100
DEFAULT_LIMIT = 10


@dataclass(frozen=True, slots=True)
class StoreHit:
    score: float
    item: ContentItem
    features: tuple[float, ...] | None = None  # the search's evidence, for ``explain``


def build_store_request(
    *,
    query: str,
    start_date: str | None,
    end_date: str | None,
    media_types: Sequence[str] | None,
    include_domains: Sequence[str] | None,
    exclude_domains: Sequence[str] | None,
    entity_ids: Sequence[str] | None,
    limit: int,
    clock: Clock,
    within: frozenset[str],
) -> SearchRequest:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(
            f"limit must be between 1 and {MAX_LIMIT}",
            details=[FieldIssue("limit", f"must be between 1 and {MAX_LIMIT}")],
        )
    # The filters follow the saved-search rules (domains, media types, entity ids).
    filters: dict[str, object] = {"query": query}
    for name, value in (
        ("media_types", media_types),
        ("include_domains", include_domains),
        ("exclude_domains", exclude_domains),
        ("entity_ids", entity_ids),
    ):
        if value is not None:
            filters[name] = list(value)
    try:
        saved = parse_saved_search(filters)
    except HeraldError as exc:
        # the saved-search rules name fields "search.x"; here they are top level
        raise type(exc)(
            exc.message.replace("search.", ""),
            details=[FieldIssue(d.field.removeprefix("search."), d.message) for d in exc.details],
        ) from None
    start = parse_date_input(start_date, field="start_date") if start_date is not None else None
    end = parse_date_input(end_date, field="end_date") if end_date is not None else None
    window = resolve_window(start, end, today=clock.now().date())
    return SearchRequest(
        query=saved.query,
        start=window.start,
        end=window.end,
        limit=limit,
        media_types=frozenset(saved.media_types) if saved.media_types else None,
        include_domains=saved.include_domains,
        exclude_domains=saved.exclude_domains,
        entity_ids=saved.entity_ids,
        within_content_ids=within,
    )


def search_store(
    session: Session, search: ResultSearch, *, monitor_id: str, request: SearchRequest
) -> list[StoreHit]:
    """Run the search restricted to the store; an empty store finds nothing."""
    if not request.within_content_ids:
        return []
    hits = search.search(session, request)
    items = get_items(session, [hit.content_id for hit in hits])
    return [
        StoreHit(hit.score, items[hit.content_id], hit.features)
        for hit in hits
        if hit.content_id in items and hit.content_id in request.within_content_ids
    ][: request.limit]


def store_ids(session: Session, *, monitor_id: str) -> frozenset[str]:
    return store_content_ids(session, monitor_id=monitor_id)
