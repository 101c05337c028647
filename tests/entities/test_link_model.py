"""The link model: a known entity ranked first is linked only when the learned model finds the
item names a thing of its kind; otherwise the name goes on to the new-entity stages.

Real text through Herald's own recogniser and the bundled link model."""

from __future__ import annotations

import pytest

from herald.entities import disambiguation
from herald.entities.linking import EntityLinker, LinkingConfig
from tests.enrich.models import fresh_knowledge_base, linked_by_name, trained_recognizer

# A standings table names each club by its city: clubs, not the cities.
STANDINGS = (
    "BASEBALL - LEAGUE STANDINGS AFTER SUNDAY'S GAMES\n\nNEW YORK 1997-06-09\n\nStandings after"
    " games played on Sunday (tabulate under won, lost, winning percentage and games behind):"
    "\n\nEASTERN DIVISION\n\nW L PCT GB\n\nPITTSBURGH 38 22 .633 -\nATLANTA 35 26 .574 3 1/2\n"
    "DENVER 31 29 .517 7\nPHOENIX 28 33 .459 10 1/2\nPORTLAND 24 37 .393 14 1/2"
)
CITIES = ("Denver", "Phoenix")
NEWS = (
    "Wildfire smoke closes schools\n\nSchools in Denver and Phoenix stayed closed on Monday as"
    " smoke from wildfires in the west drifted over both cities, officials said."
)


def by_folded_name(found: dict[str, object]) -> dict[str, object]:
    return {name.casefold(): link for name, link in found.items()}


def test_a_standings_table_names_clubs_not_the_cities() -> None:
    found = by_folded_name(linked_by_name(STANDINGS))
    for city in CITIES:
        assert found[city.casefold()].entity_kind == "organization"  # type: ignore[attr-defined]
    # the dateline is the city
    assert found["new york city"].entity_kind == "place"  # type: ignore[attr-defined]


def test_without_the_model_the_hand_set_confidence_links_the_cities() -> None:
    found = by_folded_name(linked_by_name(STANDINGS, LinkingConfig(link_threshold=0.0)))
    for city in CITIES:
        assert found[city.casefold()].entity_kind == "place"  # type: ignore[attr-defined]


def test_in_general_news_the_cities_are_places() -> None:
    found = linked_by_name(NEWS)
    for city in CITIES:
        assert found[city].entity_kind == "place"


RESULT = (
    "NFL AMERICAN FOOTBALL - CHIEFS BEAT RAIDERS\n\nKANSAS CITY 1996-12-01\n\nElvis Grbac threw"
    " two touchdown passes as the Chiefs won 20-13 over Oakland on Sunday, and Denver lost to"
    " Green Bay. Kansas City have now won five games in a row, coach Marty Schottenheimer said."
)


def test_the_model_is_trained_on_the_groups_it_decides(monkeypatch: pytest.MonkeyPatch) -> None:
    """The training rows (``EntityLinker.ranked_first``) are the groups whose first candidate
    the model decides on at run time: none settled before it (a team in a sports report, a
    nationality), none left out."""
    decided: list[tuple[float, ...]] = []
    probability = disambiguation.link_model.probability

    def recorded(signals: tuple[float, ...]) -> float:
        decided.append(signals)
        return probability(signals)

    monkeypatch.setattr(disambiguation.link_model, "probability", recorded)
    recognizer = trained_recognizer()
    for text in (STANDINGS, NEWS, RESULT):
        decided.clear()
        mentions = recognizer.recognize([text])[0]
        EntityLinker(fresh_knowledge_base()).link("", text, mentions)
        rows = EntityLinker(fresh_knowledge_base()).ranked_first("", text, mentions)
        assert decided, text
        assert sorted(decided) == sorted(first.signals for _, first in rows), text
