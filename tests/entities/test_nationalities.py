"""A nationality names a people, not a place: by default it links no country
(``HERALD_ENTITY_NATIONALITIES=skip``); ``link`` links it to its country, less surely than a name.

Real text through Herald's own recogniser and the bundled knowledge base."""

from __future__ import annotations

from herald.entities.linking import LinkingConfig
from tests.enrich.models import linked_by_name

TEXT = (
    "French officials said on Tuesday that talks with German and Italian ministers would resume"
    " in Brussels next week."
)
NAMED = "Talks resumed in Paris, France, where German ministers met their hosts on Tuesday."


entities = linked_by_name


def test_a_nationality_links_no_country_by_default() -> None:
    found = entities(TEXT)
    assert "Brussels" in found
    assert not {"France", "Germany", "Italy"} & set(found)


def test_a_named_country_is_linked_and_a_nationality_beside_it_is_not() -> None:
    found = entities(NAMED)
    assert found["France"].entity_kind == "place"
    assert "Germany" not in found


def test_nationalities_link_their_countries_when_asked() -> None:
    found = entities(TEXT, LinkingConfig(nationalities=True))
    assert {"France", "Germany", "Italy"} <= set(found)
    assert all(found[c].entity_kind == "place" for c in ("France", "Germany", "Italy"))
    named = entities(TEXT)["Brussels"].confidence
    assert all(found[c].confidence < named for c in ("France", "Germany", "Italy"))
