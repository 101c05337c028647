"""Reads several tools and resources share: scored items with their URLs, a story with its
newest articles, and the URL lookups behind both (search forms carry no URL)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import anyio
import herald_client

from herald.mcp import results

# Content lookups run at once when a list needs its items' URLs (search forms carry none).
URL_LOOKUPS_AT_ONCE = 8
STORY_MEMBERS_DEFAULT = 20


async def scored_items(
    client: herald_client.AsyncClient, found: Sequence[herald_client.models.SearchResult]
) -> dict[str, Any]:
    urls = await lookup_urls(client, [r.content_item.id for r in found])
    return {
        "results": [
            results.listed_item(r.content_item, urls.get(r.content_item.id), r.score) for r in found
        ]
    }


async def story_detail(
    client: herald_client.AsyncClient, story_id: str, member_limit: int
) -> dict[str, Any]:
    detail = await client.clusters.get(story_id)
    members = detail.members[:member_limit]
    urls = await lookup_urls(client, [m.content_id for m in members])
    return {
        "story": results.story(detail.cluster),
        "members": [results.story_member(m, urls.get(m.content_id)) for m in members],
    }


async def lookup_urls(
    client: herald_client.AsyncClient, ids: Iterable[str]
) -> dict[str, str | None]:
    """The URL of each item, fetched by id (lists show the search form, which has none). An item
    that cannot be fetched just has no URL: its id is still there to cite."""
    found: dict[str, str | None] = {}
    limiter = anyio.CapacityLimiter(URL_LOOKUPS_AT_ONCE)

    async def one(content_id: str) -> None:
        async with limiter:
            try:
                found[content_id] = (await client.content.get(content_id)).url
            except herald_client.HeraldError:
                found[content_id] = None

    async with anyio.create_task_group() as group:
        for content_id in dict.fromkeys(ids):
            group.start_soon(one, content_id)
    return found
