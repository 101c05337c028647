"""A monitor's saved search: validation at creation, and the search of one published date (pure).

A monitor search is a content search without a window or a limit: ``start_date``, ``end_date`` and
``limit`` are ``field_not_allowed`` (pinned), because each dated job computes its own window
(one UTC day) and uses the internal limit of 1000.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from herald.core.dates import day_window
from herald.errors import (
    DomainFilterConflict,
    FieldIssue,
    FieldNotAllowed,
    InvalidRequest,
    TooManyDomains,
)
from herald.monitors.rules import DATED_JOB_LIMIT
from herald.search.types import MEDIA_TYPES, SearchRequest

MAX_DOMAINS = 10
ALLOWED_FIELDS = frozenset(
    {"query", "media_types", "include_domains", "exclude_domains", "entity_ids"}
)
WINDOW_FIELDS = ("start_date", "end_date", "limit")
MAX_QUERY_CHARS = 2000


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
        """Rebuild a stored search (already validated when the monitor was created)."""
        return parse_saved_search(data)

    def dated_request(self, published_date: date, *, limit: int = DATED_JOB_LIMIT) -> SearchRequest:
        """The search of a dated job: content published in ``[D 00:00Z, D+1 00:00Z)``, every
        item of the day scored (exhaustive), so the job keeps up to ``limit`` matches however
        many there are, not only those among the retrieval candidates."""
        window = day_window(published_date)
        return SearchRequest(
            query=self.query,
            start=window.start,
            end=window.end,
            limit=limit,
            media_types=frozenset(self.media_types) if self.media_types else None,
            include_domains=self.include_domains,
            exclude_domains=self.exclude_domains,
            entity_ids=self.entity_ids,
            exhaustive=True,
        )


def parse_saved_search(raw: object) -> SavedSearch:
    """Validate a monitor ``search`` object from a request."""
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
                FieldIssue(f"search.{name}", "not allowed in a monitor search") for name in window
            ],
        )
    unknown = sorted(set(data) - ALLOWED_FIELDS)
    if unknown:
        raise InvalidRequest(
            "search has unknown fields",
            details=[FieldIssue(f"search.{name}", "unknown field") for name in unknown],
        )
    query = data.get("query")
    if not isinstance(query, str) or not query.strip():
        raise InvalidRequest(
            "search.query is required",
            details=[FieldIssue("search.query", "required: a non-empty string")],
        )
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidRequest(
            f"search.query is longer than {MAX_QUERY_CHARS} characters",
            details=[FieldIssue("search.query", f"at most {MAX_QUERY_CHARS} characters")],
        )
    media_types = _strings(data, "media_types")
    bad = [m for m in media_types if m not in MEDIA_TYPES]
    if bad:
        raise InvalidRequest(
            "search.media_types has unknown values",
            details=[FieldIssue("search.media_types", f"unknown media type {m!r}") for m in bad],
        )
    include = _domains(data, "include_domains")
    exclude = _domains(data, "exclude_domains")
    if include and exclude:
        raise DomainFilterConflict(
            "include_domains and exclude_domains cannot be combined",
            details=[FieldIssue("search.exclude_domains", "not combinable with include_domains")],
        )
    return SavedSearch(
        query=query.strip(),
        media_types=tuple(dict.fromkeys(media_types)),
        include_domains=include,
        exclude_domains=exclude,
        entity_ids=tuple(dict.fromkeys(_strings(data, "entity_ids"))),
    )


def _strings(data: Mapping[str, object], name: str) -> list[str]:
    value = data.get(name, [])
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidRequest(
            f"search.{name} must be an array of strings",
            details=[FieldIssue(f"search.{name}", "must be an array of non-empty strings")],
        )
    return list(value)


def _domains(data: Mapping[str, object], name: str) -> tuple[str, ...]:
    given = _strings(data, name)
    if len(given) > MAX_DOMAINS:
        raise TooManyDomains(
            f"search.{name} has more than {MAX_DOMAINS} domains",
            details=[FieldIssue(f"search.{name}", f"at most {MAX_DOMAINS} domains")],
        )
    return tuple(dict.fromkeys(d.strip().lower().rstrip(".") for d in given))
