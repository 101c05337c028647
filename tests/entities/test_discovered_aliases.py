"""A new organisation is known by the acronyms and short forms an item calls it by: found again
by them, and searchable by them. Real text through Herald's own recogniser."""

from __future__ import annotations

from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from herald.entities.model import EntityDraft
from herald.entities.names import alias_key
from tests.enrich.models import fresh_knowledge_base, trained_recognizer

UNION = (
    "The Northern Timber Workers Union called a strike at three sawmills on Monday. NTWU leaders"
    " said the strike would last a week, and the NTWU asked other unions for support."
)


def new_entities(text: str, kb: KnowledgeBase | None = None) -> list[EntityDraft]:
    """The new entities Herald's recogniser and linker find in ``text``."""
    mentions = trained_recognizer().recognize([text])[0]
    return EntityLinker(kb or fresh_knowledge_base()).link("", text, mentions).new_entities


def test_a_new_organisation_keeps_the_acronym_the_item_names_it_by() -> None:
    kb = fresh_knowledge_base()
    (union,) = [d for d in new_entities(UNION, kb) if d.display_name.endswith("Workers Union")]
    assert "NTWU" in union.aliases
    kb.add(union.to_record())
    assert union.id in {r.id for r in kb.lookup(alias_key("NTWU"))}


def test_a_word_in_capitals_that_abbreviates_nothing_is_no_alias() -> None:
    text = UNION.replace("NTWU", "UNICEF")
    assert all("UNICEF" not in d.aliases for d in new_entities(text))


FIRM = (
    "Harwick Tooling Corp said on Monday it would close two plants in Ohio. Harwick shares fell"
    " 3 percent after the announcement, and Harwick said 400 jobs would go."
)


def test_a_new_organisation_keeps_the_short_form_the_item_names_it_by() -> None:
    kb = fresh_knowledge_base()
    (firm,) = [d for d in new_entities(FIRM, kb) if d.display_name.startswith("Harwick")]
    assert firm.display_name == "Harwick Tooling Corp"
    assert "Harwick" in firm.aliases
    kb.add(firm.to_record())
    assert firm.id in {r.id for r in kb.lookup(alias_key("Harwick"))}


def test_a_shorter_name_that_is_not_the_names_beginning_is_no_alias() -> None:
    text = FIRM.replace("Harwick shares", "Tooling shares").replace("and Harwick", "and Tooling")
    assert all("Tooling" not in d.aliases for d in new_entities(text))


AGENCY = (
    "The U.S. Fisheries Department said on Tuesday that cod catches fell again. The Fisheries"
    " Department will publish its survey next month."
)


def test_a_new_organisation_keeps_its_name_without_the_country_the_item_uses() -> None:
    (agency,) = [d for d in new_entities(AGENCY) if d.display_name.endswith("Fisheries Department")]
    assert "Fisheries Department" in agency.aliases
    assert "United States Fisheries Department" in agency.aliases


def test_the_name_without_the_country_is_no_alias_when_the_item_never_uses_it() -> None:
    text = AGENCY.replace("The Fisheries Department will", "It will")
    (agency,) = [d for d in new_entities(text) if d.display_name.endswith("Fisheries Department")]
    assert "Fisheries Department" not in agency.aliases
