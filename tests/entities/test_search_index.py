"""Entity search scoring: exact and alias first, typo tolerance, kinds filter, [0, 1] scores."""

from __future__ import annotations

import pytest

from herald.entities.search import EntitySearchIndex
from tests.enrich.models import seed_records


@pytest.fixture(scope="module")
def index() -> EntitySearchIndex:
    return EntitySearchIndex(seed_records())


def names(index: EntitySearchIndex, query: str, **kw: object) -> list[str]:
    return [h.entity.display_name for h in index.search(query, **kw)]  # type: ignore[arg-type]


def test_exact_name_ranks_first_with_the_top_score(index: EntitySearchIndex) -> None:
    hits = index.search("United Kingdom")
    assert hits[0].entity.display_name == "United Kingdom"
    assert hits[0].score >= 0.9
    assert all(h.score < 0.9 for h in hits[1:])


def test_alias_and_identifier_matches_come_next(index: EntitySearchIndex) -> None:
    assert names(index, "Google")[0] == "Alphabet Inc."
    assert names(index, "UK")[0] == "United Kingdom"
    assert names(index, "AAPL")[0] == "Apple Inc."
    alias_hit = index.search("Google")[0]
    assert 0.8 <= alias_hit.score < 0.9


def test_typos_still_find_the_entity(index: EntitySearchIndex) -> None:
    assert names(index, "Micorsoft")[0] == "Microsoft"
    assert names(index, "Untied Kingdom")[0] == "United Kingdom"


def test_an_unfinished_last_word_matches_names(index: EntitySearchIndex) -> None:
    assert names(index, "deutsche tele")[0] == "Deutsche Telekom"


def test_description_words_find_entities(index: EntitySearchIndex) -> None:
    found = names(index, "iphone ipad", limit=5)
    assert "Apple Inc." in found


def test_entity_kinds_filter(index: EntitySearchIndex) -> None:
    hits = index.search("Paris", entity_kinds={"person"}, limit=20)
    assert all(h.entity.entity_kind == "person" for h in hits)
    places = index.search("Paris", entity_kinds={"place"})
    assert places[0].entity.first_tag("country") == "FR"  # the biggest Paris first


def test_scores_are_in_range_and_ordered(index: EntitySearchIndex) -> None:
    for query in ("apple", "new york", "bank", "xq", "telekom germany"):
        scores = [h.score for h in index.search(query, limit=100)]
        assert all(0.0 <= s <= 1.0 for s in scores)
        assert scores == sorted(scores, reverse=True)
        assert len(scores) <= 100


def test_limit_and_empty_query(index: EntitySearchIndex) -> None:
    assert len(index.search("san", limit=3)) == 3
    assert index.search("  ...  ") == []


def test_added_entities_are_searchable_and_replacements_drop_old_names() -> None:
    from herald.entities.model import EntityRecord

    index = EntitySearchIndex()
    index.add(EntityRecord(id="ent_a", display_name="Acme Rockets", entity_kind="company"))
    assert names(index, "acme rockets") == ["Acme Rockets"]
    index.add(EntityRecord(id="ent_a", display_name="Zenith Rockets", entity_kind="company"))
    assert names(index, "acme rockets") == []
    assert names(index, "zenith") == ["Zenith Rockets"]


def test_a_name_with_initials_is_found_however_the_initials_are_written(
    index: EntitySearchIndex,
) -> None:
    # the seed writes "D. R. Horton"; news and users write "D.R. Horton" or "DR Horton"
    for query in ("D.R. Horton", "DR Horton", "D. R. Horton"):
        hit = index.search(query)[0]
        assert hit.entity.display_name == "D. R. Horton"
        assert hit.score >= 0.9
