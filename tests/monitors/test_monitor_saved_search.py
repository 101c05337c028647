"""The saved search of a monitor: creation rules and the search of one published date."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from herald.errors import (
    DomainFilterConflict,
    FieldNotAllowed,
    HeraldError,
    InvalidRequest,
    TooManyDomains,
)
from herald.monitors.saved_search import SavedSearch, parse_saved_search


@pytest.mark.parametrize("name", ["start_date", "end_date", "limit"])
def test_window_and_limit_are_field_not_allowed(name: str) -> None:
    with pytest.raises(FieldNotAllowed) as err:
        parse_saved_search({"query": "ai chips", name: "2026-01-01" if "date" in name else 5})
    assert err.value.code == "field_not_allowed"
    assert [d.field for d in err.value.details] == [f"search.{name}"]


def test_every_forbidden_field_is_named() -> None:
    with pytest.raises(FieldNotAllowed) as err:
        parse_saved_search({"query": "x", "limit": 5, "start_date": "2026-01-01", "end_date": "x"})
    assert {d.field for d in err.value.details} == {
        "search.start_date",
        "search.end_date",
        "search.limit",
    }


@pytest.mark.parametrize(
    ("raw", "error", "field"),
    [
        ({}, InvalidRequest, "search.query"),
        ({"query": "   "}, InvalidRequest, "search.query"),
        ({"query": 5}, InvalidRequest, "search.query"),
        ({"query": "x" * 2001}, InvalidRequest, "search.query"),
        ({"query": "x", "sort": "new"}, InvalidRequest, "search.sort"),
        ({"query": "x", "media_types": ["video"]}, InvalidRequest, "search.media_types.0"),
        ({"query": "x", "media_types": "news"}, InvalidRequest, "search.media_types"),
        ({"query": "x", "entity_ids": [1]}, InvalidRequest, "search.entity_ids.0"),
        ({"query": "x", "entity_ids": ["ent_x", ""]}, InvalidRequest, "search.entity_ids.1"),
        (
            {"query": "x", "exclude_domains": ["*.example.com"]},
            InvalidRequest,
            "search.exclude_domains.0",
        ),
        (
            {"query": "x", "include_domains": ["a.com"], "exclude_domains": ["b.com"]},
            DomainFilterConflict,
            "search.exclude_domains",
        ),
        (
            {"query": "x", "include_domains": [f"s{i}.com" for i in range(11)]},
            TooManyDomains,
            "search.include_domains",
        ),
        (
            {"query": "x", "exclude_domains": [f"s{i}.com" for i in range(11)]},
            TooManyDomains,
            "search.exclude_domains",
        ),
    ],
)
def test_invalid_searches(raw: dict[str, object], error: type[HeraldError], field: str) -> None:
    with pytest.raises(error) as err:
        parse_saved_search(raw)
    assert type(err.value) is error
    assert err.value.details[0].field == field


def test_not_an_object() -> None:
    with pytest.raises(InvalidRequest):
        parse_saved_search(["query"])


def test_ten_domains_are_accepted_and_normalised() -> None:
    search = parse_saved_search(
        {"query": " chips ", "include_domains": [f"S{i}.Example.com." for i in range(10)]}
    )
    assert search.query == "chips"
    assert search.include_domains[0] == "s0.example.com"
    assert len(search.include_domains) == 10


def test_empty_filters_do_not_conflict_and_are_not_echoed() -> None:
    search = parse_saved_search({"query": "x", "include_domains": [], "exclude_domains": ["b.com"]})
    assert search.to_json() == {"query": "x", "exclude_domains": ["b.com"]}


def test_round_trip_through_json() -> None:
    raw = {
        "query": "central bank rates",
        "media_types": ["news", "wire"],
        "include_domains": ["reuters.com"],
        "entity_ids": ["ent_abc"],
    }
    search = parse_saved_search(raw)
    assert search.to_json() == raw
    assert SavedSearch.from_json(search.to_json()) == search


def test_dated_request_searches_one_utc_day_with_limit_1000() -> None:
    search = parse_saved_search({"query": "rates", "media_types": ["podcast"]})
    request = search.dated_request(date(2026, 3, 8))
    assert request.start == datetime(2026, 3, 8, tzinfo=UTC)
    assert request.end == datetime(2026, 3, 9, tzinfo=UTC)
    assert request.limit == 1000
    assert request.media_types == frozenset({"podcast"})
    assert request.query == "rates"
    assert parse_saved_search({"query": "x"}).dated_request(date(2026, 3, 8)).media_types is None
