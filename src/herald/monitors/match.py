"""``match`` evidence for monitor items (``explain=true``): why each item matched the search.

Preview and store search pass the features their search computed; stored results are searched
again, restricted to the page's items, to get the features of the current index (an item that
no longer passes the threshold keeps its term and entity evidence, without score evidence).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.monitor import Monitor
from herald.entities import repository as entity_repository
from herald.monitors.ports import ResultSearch
from herald.monitors.queries import StoredResult
from herald.monitors.saved_search import SavedSearch
from herald.search.explain import explain_match
from herald.search.types import SearchRequest


def matches(
    session: Session,
    items: Sequence[ContentItem],
    *,
    query: str,
    entity_ids: Sequence[str],
    features: Mapping[str, tuple[float, ...] | None],
) -> dict[str, dict[str, Any]]:
    linked: dict[str, set[str]] = defaultdict(set)
    if entity_ids and items:
        # A saved id of an entity since merged into another matches through that one.
        redirects = entity_repository.redirects_of(session, entity_ids)
        asked: dict[str, list[str]] = defaultdict(list)
        for entity_id in entity_ids:
            asked[redirects.get(entity_id, entity_id)].append(entity_id)
        rows = session.execute(
            select(ContentEntity.content_id, ContentEntity.entity_id).where(
                ContentEntity.content_id.in_([i.id for i in items]),
                ContentEntity.entity_id.in_(list(asked)),
            )
        )
        for content_id, entity_id in rows:
            linked[content_id].update(asked[entity_id])
    return {
        item.id: explain_match(
            query,
            title=item.title,
            summary=item.summary,
            linked_entity_ids=linked[item.id],
            requested_entity_ids=entity_ids,
            features=features.get(item.id),
        )
        for item in items
    }


def stored_features(
    session: Session,
    port: ResultSearch,
    items: Sequence[ContentItem],
    *,
    query: str,
    entity_ids: Sequence[str],
) -> dict[str, tuple[float, ...] | None]:
    """The search's current features for stored items (one search over just these items)."""
    if not items:
        return {}
    request = SearchRequest(
        query=query,
        start=min(i.published_at for i in items),
        end=max(i.published_at for i in items) + timedelta(microseconds=1),
        limit=len(items),
        entity_ids=tuple(entity_ids),
        within_content_ids=frozenset(i.id for i in items),
    )
    return {hit.content_id: hit.features for hit in port.search(session, request)}


def explained_results(
    session: Session, port: ResultSearch, monitor: Monitor, results: Sequence[StoredResult]
) -> dict[str, dict[str, Any]]:
    """``match`` of each stored result of a page, against the monitor's saved search."""
    search = SavedSearch.from_json(monitor.search)
    items = [r.item for r in results]
    features = stored_features(
        session, port, items, query=search.query, entity_ids=search.entity_ids
    )
    return matches(
        session, items, query=search.query, entity_ids=search.entity_ids, features=features
    )
