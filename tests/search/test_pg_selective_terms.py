"""Which query terms the PostgreSQL adapter ranks matches of (its lexical top-k)."""

from __future__ import annotations

from herald.search.pg_lexical import selective_terms


def test_rare_terms_are_kept_and_common_ones_dropped() -> None:
    # 5,000 documents: 5% is 250.
    terms = ["vitamin", "the", "fracture", "risk"]
    assert selective_terms(terms, [120, 4900, 30, 400], 5000) == ["fracture", "vitamin"]


def test_the_rarest_term_is_kept_even_when_every_term_is_common() -> None:
    assert selective_terms(["study", "the"], [3000, 4900], 5000) == ["study"]


def test_the_match_budget_stops_adding_terms_on_a_large_collection() -> None:
    terms = ["storm", "coast", "rain", "flood"]
    dfs = [30_000, 20_000, 45_000, 5_000]  # all under 5% of 1,000,000
    assert selective_terms(terms, dfs, 1_000_000, budget=50_000) == ["flood", "coast"]
    assert selective_terms(terms, dfs, 1_000_000, budget=1_000_000) == [
        "flood",
        "coast",
        "storm",
        "rain",
    ]
