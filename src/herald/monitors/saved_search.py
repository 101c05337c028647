"""A monitor's saved search: validation at creation, and the search of one published date (pure).

A monitor search is a content search without a window or a limit: ``start_date``, ``end_date`` and
``limit`` are ``field_not_allowed``, because each dated job computes its own window (one UTC
day) and uses the internal limit of 1000. The query and filters follow the rules of every search
request (:func:`herald.search.request.validate_filters`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from herald.core.dates import day_window
from herald.errors import FieldIssue, FieldNotAllowed, InvalidRequest, field_path
from herald.monitors.rules import DATED_JOB_LIMIT
from herald.search.request import SearchFilters, validate_filters
from herald.search.types import SearchRequest

ALLOWED_FIELDS = frozenset(
    {"query", "media_types", "include_domains", "exclude_domains", "entity_ids"}
)
WINDOW_FIELDS = ("start_date", "end_date", "limit")


@dataclass(frozen=True, slots=True)
class SavedSearch:
    query: str
    media_types: tuple[str, ...] = ()
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        """The monitor's ``search`` object: the query and the filters that were given."""
        out: dict[str, object] = {"query": self.query}
        for name in ("media_types", "include_domains", "exclude_domains", "entity_ids"):
            values = getattr(self, name)
            if values:
                out[name] = list(values)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> SavedSearch:
        """Rebuild a stored search as it was accepted, without validating it again: a monitor
        created before a rule was tightened (say, with more than 100 entity ids) keeps running
        with its filters as stored, and its workspace keeps listing it."""

        def values(name: str) -> tuple[str, ...]:
            raw = data.get(name)
            return tuple(str(v) for v in raw) if isinstance(raw, list) else ()

        return cls(
            query=str(data.get("query") or ""),
            media_types=values("media_types"),
            include_domains=values("include_domains"),
            exclude_domains=values("exclude_domains"),
            entity_ids=values("entity_ids"),
        )

    def dated_request(self, published_date: date, *, limit: int = DATED_JOB_LIMIT) -> SearchRequest:
        """The search of a dated job: content published in ``[D 00:00Z, D+1 00:00Z)``, every
        item of the day scored (exhaustive), so the job keeps up to ``limit`` matches however
        many there are, not only those among the retrieval candidates."""
        window = day_window(published_date)
        filters = SearchFilters(
            self.query,
            self.media_types,
            self.include_domains,
            self.exclude_domains,
            self.entity_ids,
        )
        return filters.request(window.start, window.end, limit=limit, exhaustive=True)


def parse_saved_search(raw: object) -> SavedSearch:
    """Validate a monitor ``search`` object from a request: its shape here, its query and
    filters by the rules of every search request (fields named ``search.*``)."""
    if not isinstance(raw, Mapping):
        raise InvalidRequest(
            "search must be an object", details=[FieldIssue("search", "must be an object")]
        )
    data = {k: v for k, v in raw.items() if v is not None}
    window = [name for name in WINDOW_FIELDS if name in data]
    if window:
        raise FieldNotAllowed(
            "a monitor search takes no start_date, end_date or limit: each dated job searches "
            "one UTC day with an internal limit of 1000",
            details=[
                FieldIssue(field_path("search", name), "not allowed in a monitor search")
                for name in window
            ],
        )
    unknown = sorted(set(data) - ALLOWED_FIELDS)
    if unknown:
        raise InvalidRequest(
            "search has unknown fields",
            details=[FieldIssue(field_path("search", name), "unknown field") for name in unknown],
        )
    query = data.get("query")
    if not isinstance(query, str):
        raise InvalidRequest(
            "search.query is required",
            details=[FieldIssue("search.query", "required: a non-empty string")],
        )
    filters = validate_filters(
        query=query,
        media_types=_strings(data, "media_types"),
        include_domains=_strings(data, "include_domains"),
        exclude_domains=_strings(data, "exclude_domains"),
        entity_ids=_strings(data, "entity_ids"),
        within="search",
    )
    return SavedSearch(
        query=filters.query,
        media_types=filters.media_types,
        include_domains=filters.include_domains,
        exclude_domains=filters.exclude_domains,
        entity_ids=filters.entity_ids,
    )


def _strings(data: Mapping[str, object], name: str) -> list[str]:
    field = field_path("search", name)
    value = data.get(name, [])
    if not isinstance(value, list):
        raise InvalidRequest(
            f"{field} must be an array of strings",
            details=[FieldIssue(field, "must be an array of non-empty strings")],
        )
    bad = [i for i, v in enumerate(value) if not (isinstance(v, str) and v)]
    if bad:
        raise InvalidRequest(
            f"{field} must be an array of strings",
            details=[FieldIssue(field_path(field, i), "must be a non-empty string") for i in bad],
        )
    return list(value)
