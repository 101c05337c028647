"""``client.entities``: entity search and an entity's timeline."""

from __future__ import annotations

from collections.abc import Sequence

from herald_client._endpoints import ENTITIES_SEARCH, ENTITIES_TIMELINE
from herald_client._pagination import AsyncPager, Pager
from herald_client._resources._base import (
    AsyncResource,
    EntityKind,
    MediaType,
    SyncResource,
    checked,
    next_offset,
)
from herald_client.models import (
    EntitySearchRequest,
    EntitySearchResponse,
    EntityTimeline,
    TimelineItem,
    TimelineQuery,
)
from herald_client.models._base import DateInput

__all__ = ["AsyncEntities", "Entities"]


def _search_body(
    query: str, entity_kinds: Sequence[EntityKind] | None, limit: int | None
) -> EntitySearchRequest:
    return checked(
        EntitySearchRequest, {"query": query, "entity_kinds": entity_kinds, "limit": limit}
    )


def _timeline_query(
    start_date: DateInput | None,
    end_date: DateInput | None,
    media_types: Sequence[MediaType] | None,
    limit: int | None,
    offset: int | None,
) -> TimelineQuery:
    return checked(
        TimelineQuery,
        {
            "start_date": start_date,
            "end_date": end_date,
            "media_types": media_types,
            "limit": limit,
            "offset": offset,
        },
    )


def _timeline_items(page: EntityTimeline) -> list[TimelineItem]:
    return page.timeline


class Entities(SyncResource):
    def search(
        self,
        *,
        query: str,
        entity_kinds: Sequence[EntityKind] | None = None,
        limit: int | None = None,
    ) -> EntitySearchResponse:
        """Entities by name, alias and description (``limit`` default 10, at most 100)."""
        return self._client._request(ENTITIES_SEARCH, body=_search_body(query, entity_kinds, limit))

    def timeline(
        self,
        entity_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> EntityTimeline:
        """One page of the content mentioning the entity, newest first (default: 60 days)."""
        query = _timeline_query(start_date, end_date, media_types, limit, offset)
        return self._client._request(
            ENTITIES_TIMELINE, path_params={"entity_id": entity_id}, query=query
        )

    def timeline_all(
        self,
        entity_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        page_size: int | None = None,
    ) -> Pager[EntityTimeline, TimelineItem]:
        """Every timeline item, fetching pages of ``page_size`` as the loop needs them."""

        def fetch(offset: int) -> EntityTimeline:
            return self.timeline(
                entity_id,
                start_date=start_date,
                end_date=end_date,
                media_types=media_types,
                limit=page_size,
                offset=offset,
            )

        return Pager(fetch, _timeline_items, next_offset, 0)


class AsyncEntities(AsyncResource):
    async def search(
        self,
        *,
        query: str,
        entity_kinds: Sequence[EntityKind] | None = None,
        limit: int | None = None,
    ) -> EntitySearchResponse:
        """See ``Entities.search``."""
        return await self._client._request(
            ENTITIES_SEARCH, body=_search_body(query, entity_kinds, limit)
        )

    async def timeline(
        self,
        entity_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        limit: int | None = None,
        offset: int | None = None,
    ) -> EntityTimeline:
        """See ``Entities.timeline``."""
        query = _timeline_query(start_date, end_date, media_types, limit, offset)
        return await self._client._request(
            ENTITIES_TIMELINE, path_params={"entity_id": entity_id}, query=query
        )

    def timeline_all(
        self,
        entity_id: str,
        *,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        page_size: int | None = None,
    ) -> AsyncPager[EntityTimeline, TimelineItem]:
        """See ``Entities.timeline_all`` (``async for``)."""

        async def fetch(offset: int) -> EntityTimeline:
            return await self.timeline(
                entity_id,
                start_date=start_date,
                end_date=end_date,
                media_types=media_types,
                limit=page_size,
                offset=offset,
            )

        return AsyncPager(fetch, _timeline_items, next_offset, 0)
