"""The search port's contract, run against every implementation with the same cases.

``implementation`` is each entry of ``tests.search.implementations.IMPLEMENTATIONS`` (an adapter
and the database it runs on); ``get_search`` builds the adapter from the settings, as in
production. A new adapter adds itself there and passes these cases.
"""

from __future__ import annotations

import unicodedata
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import delete

from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.ingest.urls import host_of, registrable_domain
from herald.runtime import Runtime
from herald.search.request import build_content_search
from herald.search.service import SearchService, get_search
from herald.search.types import SearchHit, SearchRequest
from tests.enrich.models import embedder
from tests.search.implementations import Implementation, backend, implementation, settings
from tests.search.support import delete_item, put_item

__all__ = ["backend", "implementation", "settings"]  # every implementation runs these cases

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def day(n: int) -> datetime:
    return NOW - timedelta(days=n)


CORPUS: dict[str, dict[str, Any]] = {
    "ecb": {
        "title": "European Central Bank raises interest rates to fight inflation",
        "body": "The ECB lifted its key interest rate by a quarter point on Thursday as inflation "
        "in the euro area stayed well above target. Lagarde said further hikes were possible.",
        "summary": "The ECB raised rates by 25 basis points.",
        "key_points": ["Rates up a quarter point", "Inflation above target"],
        "published_at": day(1),
        "domain": "news.example.com",
        "entity_ids": ["ent_ecb"],
    },
    "fed": {
        "title": "Federal Reserve holds rates steady as job growth slows",
        "body": "The US Federal Reserve left interest rates unchanged, citing slower hiring and "
        "easing price pressures. Markets expect a cut early next year.",
        "published_at": day(3),
        "media_type": "wire",
        "domain": "wire.org",
        "entity_ids": ["ent_fed"],
    },
    "storm": {
        "title": "Storm floods coastal towns",
        "body": "Heavy rain and gale-force winds flooded streets along the coast; thousands of "
        "homes lost power and schools were closed.",
        "published_at": day(2),
        "domain": "weather.example.net",
    },
    "ev": {
        "title": "Electric car sales surge in Norway",
        "body": "Battery electric vehicles made up nine in ten new cars sold in Norway this year, "
        "helped by tax breaks and a dense charging network.",
        "published_at": day(5),
        "media_type": "podcast",
        "domain": "cars.example.com",
        "entity_ids": ["ent_tesla"],
    },
    "old": {
        "title": "Central bank raised interest rates decades ago",
        "body": "An archive story about interest rates and the central bank in the 1990s.",
        "published_at": day(90),
        "domain": "archive.example.org",
    },
}


@pytest.fixture
def corpus(search_runtime: Runtime) -> dict[str, str]:
    return {
        name: put_item(search_runtime, f"https://x/{name}", **fields)
        for name, fields in CORPUS.items()
    }


@pytest.fixture
def search(search_runtime: Runtime) -> SearchService:
    return get_search(search_runtime)


def run(runtime: Runtime, query: str, **options: object) -> list[SearchHit]:
    request = build_content_search(query=query, clock=runtime.clock, **options)  # type: ignore[arg-type]
    return run_request(runtime, request)


def run_request(runtime: Runtime, request: SearchRequest) -> list[SearchHit]:
    with runtime.sessions.read() as session:
        return get_search(runtime).search(session, request)


def ids(hits: list[SearchHit], corpus: dict[str, str]) -> list[str]:
    names = {cid: name for name, cid in corpus.items()}
    return [names.get(h.content_id, h.content_id) for h in hits]


def test_the_settings_choose_the_adapter(
    implementation: Implementation, search: SearchService
) -> None:
    assert search.backend == implementation.adapter


def test_relevant_item_first_scores_in_unit_interval_and_ordered(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    hits = run(search_runtime, "ECB interest rate hike")
    assert ids(hits, corpus)[0] == "ecb"
    scores = [h.score for h in hits]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_unrelated_query_is_omitted_by_the_threshold(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    assert run(search_runtime, "quantum chromodynamics lattice gluon") == []


def test_default_window_is_sixty_days(search_runtime: Runtime, corpus: dict[str, str]) -> None:
    found = ids(run(search_runtime, "central bank interest rates"), corpus)
    assert "old" not in found
    assert "ecb" in found
    explicit = run(
        search_runtime,
        "central bank interest rates",
        start_date=(NOW - timedelta(days=100)).date().isoformat(),
        end_date=(NOW - timedelta(days=60)).date().isoformat(),
    )
    assert ids(explicit, corpus) == ["old"]


def test_window_bounds_are_inclusive_start_exclusive_end(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    ecb_time = CORPUS["ecb"]["published_at"]
    assert isinstance(ecb_time, datetime)
    request = build_content_search(query="ECB interest rates", clock=search_runtime.clock)
    inside = SearchRequest(query=request.query, start=ecb_time, end=ecb_time + timedelta(seconds=1))
    outside = SearchRequest(query=request.query, start=ecb_time - timedelta(hours=1), end=ecb_time)
    assert ids(run_request(search_runtime, inside), corpus) == ["ecb"]
    assert run_request(search_runtime, outside) == []


def test_window_bounds_count_in_whole_seconds_alike_everywhere(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    # Published at 10:00:00.5: a bound inside that second counts as the whole second, on the
    # word side, the meaning side and within a set of items (a monitor's stored results).
    at = datetime(2026, 11, 24, 10, 0, 0, 500_000, tzinfo=UTC)
    corpus["frac"] = put_item(
        search_runtime,
        "https://x/frac",
        title="Lagarde speaks on interest rates",
        body="The ECB president spoke about interest rates.",
        published_at=at,
    )
    tick = timedelta(microseconds=300_000)
    hour = timedelta(hours=1)
    windows = {
        (at, at + hour): True,
        (at - tick, at + hour): True,
        (at + tick, at + hour): True,
        (at + timedelta(seconds=1), at + hour): False,
        (at - hour, at + tick): True,
        (at - hour, at - tick): True,
        (at - hour, at - timedelta(seconds=1)): False,
    }
    for (start, end), found in windows.items():
        for within in (None, frozenset({corpus["frac"]})):
            request = SearchRequest(
                query="Lagarde interest rates", start=start, end=end, within_content_ids=within
            )
            hits = ids(run_request(search_runtime, request), corpus)
            assert ("frac" in hits) is found, (start, end, within, hits)


def test_media_type_filter_applies_to_dense_candidates_too(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    hits = run(search_runtime, "interest rates", media_types=["wire"])
    assert ids(hits, corpus) == ["fed"]
    assert run(search_runtime, "electric cars", media_types=["news", "wire"]) == [] or all(
        n != "ev" for n in ids(run(search_runtime, "electric cars", media_types=["news"]), corpus)
    )


def test_domain_filters_include_subdomains(search_runtime: Runtime, corpus: dict[str, str]) -> None:
    included = ids(run(search_runtime, "interest rates", include_domains=["example.com"]), corpus)
    assert included == ["ecb"]
    excluded = ids(run(search_runtime, "interest rates", exclude_domains=["example.com"]), corpus)
    assert "ecb" not in excluded
    assert "fed" in excluded


def test_domain_filters_read_an_internationalised_name_as_stored(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    """Ingestion stores a source domain with non-ASCII letters in its ASCII form (``bücher.de``
    is ``xn--bcher-kva.de``); a filter naming it in letters means the same domain."""
    books = put_item(
        search_runtime,
        "https://news.xn--bcher-kva.de/rates",
        title="Bookshops raise prices as interest rates climb",
        body="Booksellers said higher interest rates and rents pushed their prices up.",
        published_at=day(1),
        domain="news.xn--bcher-kva.de",
    )
    corpus = corpus | {"books": books}
    for named in ["bücher.de", "BÜCHER.de", "https://www.bücher.de/", "xn--bcher-kva.de"]:
        included = run(search_runtime, "interest rates", include_domains=[named])
        assert ids(included, corpus) == ["books"], named
        excluded = run(search_runtime, "interest rates", exclude_domains=[named])
        assert "books" not in ids(excluded, corpus), named


def test_domain_filters_name_an_ipv6_host_however_written(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    """A feed at an IPv6 address gives its items that address as their domain, as the link
    writes it (here with zeros, ``2001:db8:0:0::1``); a filter naming it with brackets, a port,
    in capitals or compressed means the same host."""
    link = "http://[2001:DB8:0:0::1]/rates"
    lab = put_item(
        search_runtime,
        link,
        title="Laboratory feed reports interest rates rising",
        body="A feed served from an IPv6 address reports that interest rates rose again.",
        published_at=day(1),
        domain=registrable_domain(host_of(link)) or "",
    )
    corpus = corpus | {"lab": lab}
    for named in [
        "[2001:db8::1]",
        "2001:DB8::1",
        "http://[2001:db8:0::1]:8080/feed",
        "2001:db8:0:0::1",
    ]:
        included = run(search_runtime, "interest rates", include_domains=[named])
        assert ids(included, corpus) == ["lab"], named
        excluded = run(search_runtime, "interest rates", exclude_domains=[named])
        assert "lab" not in ids(excluded, corpus), named
        assert "ecb" in ids(excluded, corpus), named


def test_entity_filter_means_linked_to_any(search_runtime: Runtime, corpus: dict[str, str]) -> None:
    hits = ids(run(search_runtime, "rates", entity_ids=["ent_fed", "ent_nobody"]), corpus)
    assert hits == ["fed"]


def test_within_content_ids_restricts_candidates(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    base = build_content_search(query="interest rates", clock=search_runtime.clock)
    request = SearchRequest(
        query=base.query,
        start=base.start,
        end=base.end,
        within_content_ids=frozenset({corpus["fed"], corpus["storm"]}),
    )
    assert ids(run_request(search_runtime, request), corpus) == ["fed"]


def test_query_syntax_phrase_exclusion_and_or(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    assert ids(run(search_runtime, '"interest rates" -ECB'), corpus) == ["fed"]
    assert set(ids(run(search_runtime, '"electric car" OR "coastal towns"'), corpus)) == {
        "ev",
        "storm",
    }
    assert run(search_runtime, '"rates storm"') == []
    assert (
        ids(run(search_runtime, 'what did the "central bank" do with rates?'), corpus)[0] == "ecb"
    )


def test_a_phrase_never_spans_two_key_points(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    # "Rates up a quarter point", "Inflation above target": each key point is a text of its own.
    assert ids(run(search_runtime, '"quarter point"'), corpus) == ["ecb"]
    assert run(search_runtime, '"point inflation"') == []
    assert "ecb" in ids(run(search_runtime, 'rates -"point inflation"'), corpus)


def test_a_word_late_in_a_long_text_is_found_and_excluded(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    # A two-hour transcript runs past 16,383 words (the last position a tsvector holds).
    corpus["long"] = put_item(
        search_runtime,
        "https://x/long",
        title="Interest rates podcast",
        body="We talk about interest rates. " + "and so on " * 6000 + "Zanzibar cloves at the end.",
        published_at=day(1),
        media_type="podcast",
    )
    assert ids(run(search_runtime, '"zanzibar"'), corpus) == ["long"]
    assert "long" in ids(run(search_runtime, "interest rates podcast"), corpus)
    assert "long" not in ids(run(search_runtime, "interest rates podcast -zanzibar"), corpus)


def test_limit(search_runtime: Runtime, corpus: dict[str, str]) -> None:
    assert len(run(search_runtime, "rates inflation storm cars", limit=1)) == 1


def test_update_and_delete_are_visible_when_the_write_returns(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    assert ids(run(search_runtime, "storm floods"), corpus) == ["storm"]
    put_item(
        search_runtime,
        "https://x/storm",
        title="Heatwave breaks temperature records",
        body="Temperatures passed forty degrees across the region for a third day.",
        published_at=day(2),
        domain="weather.example.net",
    )
    assert run(search_runtime, "storm floods coastal towns") == []
    assert ids(run(search_runtime, "heatwave temperature records"), corpus) == ["storm"]
    delete_item(search_runtime, corpus["ecb"])
    assert "ecb" not in ids(run(search_runtime, "ECB interest rate hike"), corpus)


def test_a_row_deleted_outright_leaves_the_results(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    # Not a tombstone: the row itself is deleted (as a purge would), by plain SQL.
    assert ids(run(search_runtime, "storm floods"), corpus) == ["storm"]
    with search_runtime.sessions.write() as session:
        session.execute(delete(ContentItem).where(ContentItem.id == corpus["storm"]))
    assert run(search_runtime, "storm floods coastal towns") == []
    put_item(search_runtime, "https://x/storm", **CORPUS["storm"])  # the same id, ingested again
    assert ids(run(search_runtime, "storm floods coastal towns"), corpus) == ["storm"]


def test_rebuild_reproduces_the_index(
    search_runtime: Runtime, corpus: dict[str, str], search: SearchService
) -> None:
    before = run(search_runtime, "ECB interest rate hike")
    with search_runtime.sessions.read() as session:
        assert search.rebuild(session) == len(CORPUS)
    assert run(search_runtime, "ECB interest rate hike") == before


def test_rebuild_counts_the_items_it_indexed_not_the_deleted(
    search_runtime: Runtime, corpus: dict[str, str], search: SearchService
) -> None:
    # `herald index rebuild` and `content purge` report this number: items, not changes.
    with search_runtime.sessions.write() as session:
        session.execute(delete(ContentItem).where(ContentItem.id == corpus["storm"]))
    with search_runtime.sessions.read() as session:
        assert search.rebuild(session) == len(CORPUS) - 1


def test_a_new_process_state_finds_everything(
    search_runtime: Runtime, corpus: dict[str, str], clock: FrozenClock
) -> None:
    before = run(search_runtime, "ECB interest rate hike")
    search_runtime.close()  # saves the vector snapshot, as a stopping process does
    fresh = Runtime(search_runtime.settings, clock=clock)
    fresh.service("embedder", embedder)
    try:
        assert run(fresh, "ECB interest rate hike") == before
    finally:
        fresh.close()


def test_a_query_in_decomposed_unicode_reads_as_the_stored_text(
    search_runtime: Runtime, corpus: dict[str, str]
) -> None:
    """Text is stored composed (NFC); a query typed or sent decomposed (NFD: a letter, then its
    accent as a separate mark) means the same words, phrases and exclusions."""
    laser = put_item(
        search_runtime,
        "https://x/laser",
        title="Ångström-scale laser sets a record in Việt Nam",
        body="Physicists in Hà Nội timed the shortest laser pulse yet, a record for the region.",
        published_at=day(1),
        domain="science.example.com",
    )
    corpus = corpus | {"laser": laser}
    for query, expected in [
        ('"Việt Nam"', ["laser"]),
        ('"Hà Nội" pulse', ["laser"]),
        ('laser -"Việt Nam"', []),
    ]:
        assert ids(run(search_runtime, query), corpus) == expected, query
        decomposed = unicodedata.normalize("NFD", query)
        assert ids(run(search_runtime, decomposed), corpus) == expected, decomposed
