"""Iterators over every item of a list endpoint, fetching pages as they are needed.

Offset lists follow ``next_offset`` (null on the last page); webhook attempts follow ``page``
while ``has_more``. Iterating twice fetches the pages again.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Generic, TypeVar

from herald_client._exceptions import HeraldError

__all__ = ["AsyncPager", "Pager"]

PageT = TypeVar("PageT")
ItemT = TypeVar("ItemT")


def _check_advance(cursor: int, following: int | None) -> int | None:
    # A server bug that repeats a page must not turn a for-loop into an endless one.
    if following is not None and following <= cursor:
        raise HeraldError(f"pagination did not advance (cursor {cursor} -> {following})")
    return following


class Pager(Generic[PageT, ItemT]):
    """``for item in pager`` walks every item; ``pager.pages()`` yields the page objects."""

    def __init__(
        self,
        fetch: Callable[[int], PageT],
        items: Callable[[PageT], list[ItemT]],
        following: Callable[[PageT], int | None],
        start: int,
    ) -> None:
        self._fetch = fetch
        self._items = items
        self._following = following
        self._start = start

    def pages(self) -> Iterator[PageT]:
        cursor: int | None = self._start
        while cursor is not None:
            page = self._fetch(cursor)
            yield page
            cursor = _check_advance(cursor, self._following(page))

    def __iter__(self) -> Iterator[ItemT]:
        for page in self.pages():
            yield from self._items(page)


class AsyncPager(Generic[PageT, ItemT]):
    """``async for item in pager`` walks every item; ``pager.pages()`` yields the pages."""

    def __init__(
        self,
        fetch: Callable[[int], Awaitable[PageT]],
        items: Callable[[PageT], list[ItemT]],
        following: Callable[[PageT], int | None],
        start: int,
    ) -> None:
        self._fetch = fetch
        self._items = items
        self._following = following
        self._start = start

    async def pages(self) -> AsyncIterator[PageT]:
        cursor: int | None = self._start
        while cursor is not None:
            page = await self._fetch(cursor)
            yield page
            cursor = _check_advance(cursor, self._following(page))

    async def __aiter__(self) -> AsyncIterator[ItemT]:
        async for page in self.pages():
            for item in self._items(page):
                yield item
