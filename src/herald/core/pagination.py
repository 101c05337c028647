"""List pagination shared by every list endpoint: limit/offset in, next_offset/has_more out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from herald.errors import FieldIssue, InvalidRequest

T = TypeVar("T")

MAX_OFFSET = 1_000_000


@dataclass(frozen=True, slots=True)
class PageRequest:
    limit: int
    offset: int = 0

    @classmethod
    def checked(cls, limit: int, offset: int, *, max_limit: int) -> PageRequest:
        """Validate bounds: out-of-range values are a 400, never silently clamped."""
        if not 1 <= limit <= max_limit:
            raise InvalidRequest(
                f"limit must be between 1 and {max_limit}",
                details=[FieldIssue("limit", f"must be between 1 and {max_limit}")],
            )
        if not 0 <= offset <= MAX_OFFSET:
            raise InvalidRequest(
                f"offset must be between 0 and {MAX_OFFSET}",
                details=[FieldIssue("offset", f"must be between 0 and {MAX_OFFSET}")],
            )
        return cls(limit=limit, offset=offset)

    @property
    def fetch_limit(self) -> int:
        """Fetch one row more than asked to learn whether another page follows."""
        return self.limit + 1


@dataclass(frozen=True, slots=True)
class Page(Generic[T]):
    items: list[T]
    limit: int
    offset: int
    next_offset: int | None
    has_more: bool

    @classmethod
    def from_overfetch(cls, rows: Sequence[T], page: PageRequest) -> Page[T]:
        """Build a page from up to ``page.fetch_limit`` rows read at ``page.offset``."""
        has_more = len(rows) > page.limit
        items = list(rows[: page.limit])
        return cls(
            items=items,
            limit=page.limit,
            offset=page.offset,
            next_offset=page.offset + len(items) if has_more else None,
            has_more=has_more,
        )
