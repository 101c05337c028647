"""The filters of one search, as every index adapter applies them (inside the index query)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from herald.search.domains import normalize_domain
from herald.search.types import SearchRequest


@dataclass(frozen=True, slots=True)
class IndexFilter:
    """``start`` inclusive, ``end`` exclusive; an empty tuple or ``None`` means no restriction.

    The window counts in whole seconds, ``[start rounded down, end rounded up)``: the embedded
    indexes hold publication times to the second, so every adapter compares at that precision
    and a bound inside a second takes in the whole second (a search over stored items that
    starts at the first one's exact publication time finds it on every adapter)."""

    start: datetime | None = None
    end: datetime | None = None
    media_types: frozenset[str] | None = None
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()
    within_content_ids: frozenset[str] | None = None

    def __post_init__(self) -> None:
        if not self.matches_nothing:  # an empty window stays empty
            if self.start is not None:
                object.__setattr__(self, "start", self.start.replace(microsecond=0))
            if self.end is not None:
                object.__setattr__(self, "end", _second_up(self.end))
        # Domains are compared in their normalised form (what the index stores).
        for name in ("include_domains", "exclude_domains"):
            normalised = tuple(sorted({normalize_domain(d) for d in getattr(self, name)} - {""}))
            object.__setattr__(self, name, normalised)

    @classmethod
    def from_request(cls, request: SearchRequest) -> IndexFilter:
        return cls(
            start=request.start,
            end=request.end,
            media_types=request.media_types,
            include_domains=request.include_domains,
            exclude_domains=request.exclude_domains,
            entity_ids=tuple(sorted(set(request.entity_ids))),
            within_content_ids=request.within_content_ids,
        )

    @property
    def window_and_media_only(self) -> bool:
        """Whether the date window and media types are the only filters."""
        return (
            self.start is not None
            and self.end is not None
            and not self.include_domains
            and not self.exclude_domains
            and not self.entity_ids
            and self.within_content_ids is None
        )

    @property
    def matches_nothing(self) -> bool:
        return (
            (self.media_types is not None and not self.media_types)
            or (self.within_content_ids is not None and not self.within_content_ids)
            or (self.start is not None and self.end is not None and self.start >= self.end)
        )


def _second_up(instant: datetime) -> datetime:
    if not instant.microsecond:
        return instant
    try:
        return instant.replace(microsecond=0) + timedelta(seconds=1)
    except OverflowError:  # the last second there is: nothing is published after it
        return instant
