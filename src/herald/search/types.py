"""The search port's request and hit: the contract between search, monitors and the API.

Owned by the search area; other areas (monitors, API routes, CLI) build on exactly these types.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

MEDIA_TYPES: frozenset[str] = frozenset({"news", "wire", "podcast"})


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """A fully validated search: the window is already resolved to UTC instants.

    ``start`` is inclusive and ``end`` exclusive (a date-only end_date of D becomes D+1 00:00Z).
    ``within_content_ids`` restricts candidates (a monitor's result store); None: no restriction.
    ``limit`` is at most 100 for API calls and 1000 for a monitor's dated job.
    ``exhaustive``: score every item that passes the filters, not only the retrieval candidates
    (the best 100 lexical and 100 dense matches). Each item gets the score a content search of the
    same window gives it as a candidate, so no match above the threshold is missed however many
    there are; the cost grows with the items in the window (a monitor's dated job: one day; a
    search within a result store: the store).
    """

    query: str
    start: datetime
    end: datetime
    limit: int = 10
    media_types: frozenset[str] | None = None
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()
    within_content_ids: frozenset[str] | None = None
    exhaustive: bool = False


@dataclass(frozen=True, slots=True)
class SearchHit:
    content_id: str
    # The rerank score in [0, 1] that orders results; hits under the threshold are dropped.
    score: float
    # The relevance features the score was computed from (``features.FEATURE_NAMES`` order), for
    # explaining a match without computing them again; None from searches that have none.
    features: tuple[float, ...] | None = None
