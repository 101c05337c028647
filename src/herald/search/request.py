"""Content search requests: every rule of POST /v1/content/search, shared by the API and the CLI.

The query and filter rules (:func:`validate_filters`) are also those of a monitor's saved search
and of a search within a monitor's result store: one validator for every search request.

- ``query``: required, not blank, at most 2000 characters (any text parses: see query_syntax);
- dates: both or neither (``date_window_incomplete``), at most 60 days apart and start not after
  end (``date_window_too_long``); neither means the last 60 days through today (UTC);
- ``media_types``: any of news, wire, podcast (an empty list is no filter);
- ``include_domains`` / ``exclude_domains``: at most 10 each (``too_many_domains``), not both
  (``domain_filter_conflict``); a domain also matches its subdomains;
- ``entity_ids``: items linked to at least one of them; at most 100; none blank;
- ``limit``: 1 to 100, default 10 (out of range is ``invalid_request``, never clamped).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from herald.core.clock import Clock
from herald.core.dates import Window, parse_optional_date_input, resolve_window
from herald.errors import (
    DomainFilterConflict,
    FieldIssue,
    InvalidRequest,
    TooManyDomains,
    field_path,
)
from herald.search.domains import filter_domain
from herald.search.types import MEDIA_TYPES, SearchRequest

MAX_QUERY_CHARS = 2000
MAX_DOMAINS = 10
MAX_LIMIT = 100
DEFAULT_LIMIT = 10
MAX_ENTITY_IDS = 100


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """The query and filters of any search request, validated and normalised."""

    query: str
    media_types: tuple[str, ...] = ()
    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()

    def request(
        self,
        start: datetime,
        end: datetime,
        *,
        limit: int,
        within_content_ids: frozenset[str] | None = None,
        exhaustive: bool = False,
    ) -> SearchRequest:
        """The search of ``[start, end)`` with these filters."""
        return SearchRequest(
            query=self.query,
            start=start,
            end=end,
            media_types=frozenset(self.media_types) if self.media_types else None,
            include_domains=self.include_domains,
            exclude_domains=self.exclude_domains,
            entity_ids=self.entity_ids,
            limit=limit,
            within_content_ids=within_content_ids,
            exhaustive=exhaustive,
        )


def validate_filters(
    *,
    query: str,
    media_types: Sequence[str] | None = None,
    include_domains: Sequence[str] | None = None,
    exclude_domains: Sequence[str] | None = None,
    entity_ids: Sequence[str] | None = None,
    within: str | None = None,
) -> SearchFilters:
    """The rules every search request shares (content search, a monitor's saved search, a
    search within a result store); ``within`` is the object holding the fields (``search`` in
    a monitor), so the fields are named by their path (``search.media_types.0``). Duplicates
    are dropped; domains are normalised (``www.``, scheme, path, case)."""
    name = field_path(within, "query")
    if not query.strip():
        raise InvalidRequest(
            f"{name} is required", details=[FieldIssue(name, "required: non-empty text")]
        )
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidRequest(
            f"{name} is longer than {MAX_QUERY_CHARS} characters",
            details=[FieldIssue(name, f"at most {MAX_QUERY_CHARS} characters")],
        )
    name = field_path(within, "media_types")
    unknown = [(i, m) for i, m in enumerate(media_types or ()) if m not in MEDIA_TYPES]
    if unknown:
        raise InvalidRequest(
            f"{name} has unknown values",
            details=[
                FieldIssue(field_path(name, i), f"unknown media type {m!r}") for i, m in unknown
            ],
        )
    include = _domains(include_domains, field_path(within, "include_domains"))
    exclude = _domains(exclude_domains, field_path(within, "exclude_domains"))
    if include and exclude:
        raise DomainFilterConflict(
            "include_domains and exclude_domains cannot be combined",
            details=[
                FieldIssue(
                    field_path(within, "exclude_domains"), "not combinable with include_domains"
                )
            ],
        )
    name = field_path(within, "entity_ids")
    blank = [i for i, e in enumerate(entity_ids or ()) if not e.strip()]
    if blank:
        raise InvalidRequest(
            f"{name} has a blank id",
            details=[FieldIssue(field_path(name, i), "ids are non-empty text") for i in blank],
        )
    entities = tuple(dict.fromkeys(e.strip() for e in entity_ids or ()))
    if len(entities) > MAX_ENTITY_IDS:
        raise InvalidRequest(
            f"{name} has more than {MAX_ENTITY_IDS} ids",
            details=[FieldIssue(name, f"at most {MAX_ENTITY_IDS} ids")],
        )
    return SearchFilters(
        query=query.strip(),
        media_types=tuple(dict.fromkeys(media_types or ())),
        include_domains=include,
        exclude_domains=exclude,
        entity_ids=entities,
    )


def _domains(values: Sequence[str] | None, field: str) -> tuple[str, ...]:
    if not values:
        return ()
    if len(values) > MAX_DOMAINS:
        raise TooManyDomains(
            f"{field} has more than {MAX_DOMAINS} domains",
            details=[FieldIssue(field, f"at most {MAX_DOMAINS} domains")],
        )
    domains = [filter_domain(value) for value in values]
    bad = [
        FieldIssue(field_path(field, i), f"not a domain: {value!r}")
        for i, (value, domain) in enumerate(zip(values, domains, strict=True))
        if domain is None
    ]
    if bad:
        raise InvalidRequest(f"{field} has an invalid domain", details=bad)
    return tuple(dict.fromkeys(d for d in domains if d is not None))


def build_content_search(
    *,
    query: str,
    start_date: str | None = None,
    end_date: str | None = None,
    media_types: Sequence[str] | None = None,
    include_domains: Sequence[str] | None = None,
    exclude_domains: Sequence[str] | None = None,
    entity_ids: Sequence[str] | None = None,
    limit: int = DEFAULT_LIMIT,
    clock: Clock,
) -> SearchRequest:
    filters = validate_filters(
        query=query,
        media_types=media_types,
        include_domains=include_domains,
        exclude_domains=exclude_domains,
        entity_ids=entity_ids,
    )
    check_limit(limit)
    window = parse_window(start_date, end_date, clock)
    return filters.request(window.start, window.end, limit=limit)


def check_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidRequest(
            f"limit must be between 1 and {MAX_LIMIT}",
            details=[FieldIssue("limit", f"must be between 1 and {MAX_LIMIT}")],
        )


def parse_window(start_date: str | None, end_date: str | None, clock: Clock) -> Window:
    """The window of a search: both dates or neither (then the last 60 days through today)."""
    start = parse_optional_date_input(start_date, field="start_date")
    end = parse_optional_date_input(end_date, field="end_date")
    return resolve_window(start, end, today=clock.now().date())
