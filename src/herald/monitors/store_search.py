"""Search within a monitor's result store: the content search request and rules, restricted.

Same request shape, rules (one validator: query, media types, domains, entity ids), date
behaviour (both dates or neither; at most 60 days; default the last 60 days) and limit (default
10, at most 100) as POST /v1/content/search.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from herald.content.repository import get_items
from herald.core.clock import Clock
from herald.db.models.content import ContentItem
from herald.monitors.ports import ResultSearch
from herald.monitors.queries import store_content_ids
from herald.search.request import check_limit, parse_window, validate_filters
from herald.search.types import SearchRequest


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
    filters = validate_filters(
        query=query,
        media_types=media_types,
        include_domains=include_domains,
        exclude_domains=exclude_domains,
        entity_ids=entity_ids,
    )
    check_limit(limit)
    window = parse_window(start_date, end_date, clock)
    # Every stored item is scored (exhaustive): a store holds up to 1000 items a day, and its
    # best matches need not be among the retrieval candidates (100 lexical + 100 dense).
    return filters.request(
        window.start, window.end, limit=limit, within_content_ids=within, exhaustive=True
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
