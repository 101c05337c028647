"""``client.content``: search content and fetch one item."""

from __future__ import annotations

from collections.abc import Sequence

from herald_client._endpoints import CONTENT_GET, CONTENT_SEARCH
from herald_client._resources._base import AsyncResource, MediaType, SyncResource, checked, unwrap
from herald_client.models import ContentItem, ContentSearchRequest, ContentSearchResponse
from herald_client.models._base import DateInput

__all__ = ["AsyncContent", "Content"]


def search_request(
    query: str,
    start_date: DateInput | None,
    end_date: DateInput | None,
    media_types: Sequence[MediaType] | None,
    include_domains: Sequence[str] | None,
    exclude_domains: Sequence[str] | None,
    entity_ids: Sequence[str] | None,
    limit: int | None,
) -> ContentSearchRequest:
    return checked(
        ContentSearchRequest,
        {
            "query": query,
            "start_date": start_date,
            "end_date": end_date,
            "media_types": media_types,
            "include_domains": include_domains,
            "exclude_domains": exclude_domains,
            "entity_ids": entity_ids,
            "limit": limit,
        },
    )


class Content(SyncResource):
    def search(
        self,
        *,
        query: str,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        entity_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> ContentSearchResponse:
        """One ranked page (``limit`` default 10, at most 100) in the given window (both dates
        or neither: the default is the 60 days before today through today)."""
        body = search_request(
            query,
            start_date,
            end_date,
            media_types,
            include_domains,
            exclude_domains,
            entity_ids,
            limit,
        )
        return self._client._request(CONTENT_SEARCH, body=body)

    def get(self, content_id: str) -> ContentItem:
        """The full item: summaries, key points, linked entities, media-specific fields."""
        wrapper = self._client._request(CONTENT_GET, path_params={"content_id": content_id})
        return unwrap(wrapper.content_item, wrapper.request_id)


class AsyncContent(AsyncResource):
    async def search(
        self,
        *,
        query: str,
        start_date: DateInput | None = None,
        end_date: DateInput | None = None,
        media_types: Sequence[MediaType] | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        entity_ids: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> ContentSearchResponse:
        """See ``Content.search``."""
        body = search_request(
            query,
            start_date,
            end_date,
            media_types,
            include_domains,
            exclude_domains,
            entity_ids,
            limit,
        )
        return await self._client._request(CONTENT_SEARCH, body=body)

    async def get(self, content_id: str) -> ContentItem:
        """See ``Content.get``."""
        wrapper = await self._client._request(CONTENT_GET, path_params={"content_id": content_id})
        return unwrap(wrapper.content_item, wrapper.request_id)
