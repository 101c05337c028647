"""A new organisation is known by the acronyms an item calls it by: found again by them, and
searchable by them. Real text through Herald's own recogniser."""

from __future__ import annotations

from herald.entities.linking import EntityLinker
from herald.entities.names import alias_key
from tests.enrich.models import fresh_knowledge_base, trained_recognizer

UNION = (
    "The Northern Timber Workers Union called a strike at three sawmills on Monday. NTWU leaders"
    " said the strike would last a week, and the NTWU asked other unions for support."
)


def test_a_new_organisation_keeps_the_acronym_the_item_names_it_by() -> None:
    kb = fresh_knowledge_base()
    mentions = trained_recognizer().recognize([UNION])[0]
    result = EntityLinker(kb).link("", UNION, mentions)
    (union,) = [d for d in result.new_entities if d.display_name.endswith("Workers Union")]
    assert "NTWU" in union.aliases
    kb.add(union.to_record())
    assert union.id in {r.id for r in kb.lookup(alias_key("NTWU"))}


def test_a_word_in_capitals_that_abbreviates_nothing_is_no_alias() -> None:
    text = UNION.replace("NTWU", "UNICEF")
    mentions = trained_recognizer().recognize([text])[0]
    result = EntityLinker(fresh_knowledge_base()).link("", text, mentions)
    assert all("UNICEF" not in d.aliases for d in result.new_entities)
