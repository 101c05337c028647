"""The link model: a known entity ranked first is linked only when the learned model finds the
item names a thing of its kind; otherwise the name goes on to the new-entity stages.

Real text through Herald's own recogniser and the bundled link model."""

from __future__ import annotations

from herald.entities.linking import LinkingConfig
from tests.enrich.models import linked_by_name

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
