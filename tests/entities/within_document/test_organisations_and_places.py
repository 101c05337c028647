"""Organisations and places resolved within one document: an acronym, the last word of the
name or its short form after a place is the same entity as the full name, and the full name is
looked up first.

The tests give the linker the recogniser's mentions directly, so each variant is tested whatever
the model version does with the sentence.
"""

from __future__ import annotations

from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from herald.entities.model import EntityRecord
from tests.enrich.models import fresh_knowledge_base
from tests.entities.within_document.support import by_name, mentions


def test_an_acronym_after_the_full_organisation_name_is_the_same_entity(
    kb: KnowledgeBase,
) -> None:
    body = (
        "The Northern Fisheries Protection Council said on Monday that catches fell. "
        "The NFPC blamed warmer water, and NFPC inspectors will visit every port."
    )
    found = mentions(
        body,
        ("Northern Fisheries Protection Council", "ORG", 0),
        ("NFPC", "ORG", 0),
        ("NFPC", "ORG", 1),
    )
    result = EntityLinker(kb).link("", body, found)
    entities = by_name(result)
    assert set(entities) == {"Northern Fisheries Protection Council"}
    council = entities["Northern Fisheries Protection Council"]
    assert council.entity_kind == "organization"
    assert council.mention_count == 3
    assert [d.display_name for d in result.new_entities] == [
        "Northern Fisheries Protection Council"
    ]


def test_the_last_word_of_an_organisation_or_place_is_the_same_entity() -> None:
    """ "the Post" after "the Washington Post", "the Sox" after "the Red Sox", "Angeles" after
    "Los Angeles": one entity, also where another item had made the short form an entity of its
    own; a lower-case word ("a navy spokesman") and an acronym are not short forms."""
    kb = fresh_knowledge_base()
    body = (
        "Mark Felt died on Thursday, the Washington Post reported. Felt was the source for the "
        "Post's reporting on Watergate. In Boston the Red Sox made an offer. When the Sox want "
        "something, they get it. Los Angeles made an offer too, and Angeles fans were glad."
    )
    found = mentions(
        body,
        ("Mark Felt", "PERSON", 0),
        ("Washington Post", "ORG", 0),
        ("Post", "ORG", 1),
        ("Red Sox", "ORG", 0),
        ("Sox", "ORG", 1),
        ("Los Angeles", "GPE", 0),
        ("Angeles", "GPE", 1),
    )
    # An earlier item made "Post" an entity of its own: it is not what this item means.
    kb.add(
        EntityRecord(
            id="ent_post", display_name="Post", entity_kind="organization", origin="discovered"
        )
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Post" not in entities
    assert "Sox" not in entities
    assert "Angeles" not in entities
    assert entities["The Washington Post"].mention_count == 2
    assert entities["Boston Red Sox"].mention_count == 2
    assert "Angeles" in entities["Los Angeles"].surfaces

    body = "The Indian Navy caught 23 pirates. A navy spokesman said the IN patrol saw them."
    found = mentions(body, ("Indian Navy", "ORG", 0), ("navy", "ORG", 0), ("IN", "ORG", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "navy" not in entities["Indian Navy"].surfaces


def test_an_organisations_name_after_a_place_or_nationality_has_its_short_form() -> None:
    """ "Iran's Red Crescent relief agency" and "the Iranian Red Crescent" are one organisation
    whichever comes first (the small model calls each an organisation; "Red" being a first
    name had made a person of the short form); a name after a film's first words is no short
    form of the film ("Bettie Page" beside "The Notorious Bettie Page"); and a short form the
    knowledge base knows ("Supreme Court") does not join a longer name it does not know."""
    kb = fresh_knowledge_base()
    body = (
        "Iran's Red Crescent relief agency said the four hardest-hit villages were Tonban and "
        "Gavarzin. Shahram Alamdari, head of the rescue unit for the Iranian Red Crescent, said "
        "two helicopters were evacuating injured."
    )
    found = mentions(
        body,
        ("Red Crescent", "ORG", 0),
        ("Shahram Alamdari", "PERSON", 0),
        ("Iranian Red Crescent", "ORG", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Red Crescent" not in entities
    society = entities["Iranian Red Crescent Society"]
    assert society.entity_kind == "organization"
    assert society.mention_count == 2

    body = (
        "Pin-up icon Bettie Page died yesterday in Los Angeles. Gretchen Mol played her in The "
        "Notorious Bettie Page."
    )
    found = mentions(
        body,
        ("Bettie Page", "ORG", 0),
        ("Gretchen Mol", "PERSON", 0),
        ("The Notorious Bettie Page", "ORG", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Bettie Page"].entity_kind == "person"

    body = (
        "The Nevada Supreme Court heard the appeal on Monday. The Supreme Court will rule in "
        "the spring, a clerk said."
    )
    found = mentions(body, ("Nevada Supreme Court", "ORG", 0), ("Supreme Court", "ORG", 1))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Nevada Supreme Court"].mention_count == 2
    # Once an earlier item has made "Supreme Court" an entity, the short form keeps to it:
    # joined, it would lend that entity to the unknown longer name.
    kb.add(EntityRecord("ent_supreme_court", "Supreme Court", "organization", origin="discovered"))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Nevada Supreme Court"].mention_count == 1


def test_a_full_name_is_looked_up_before_its_short_form() -> None:
    """A short form joined to its full name does not bring in what it names alone: "Navy" after
    "the Indian Navy" leaves the Indian Navy the only candidate, though another item had made
    "Navy" an entity."""
    kb = fresh_knowledge_base()
    for name in ("Indian Navy", "Navy"):
        kb.add(
            EntityRecord(
                id=f"ent_{name}", display_name=name, entity_kind="organization", origin="discovered"
            )
        )
    body = "MUST SEE: Navy pins down pirates. Two boats gave the Indian Navy a slip on Thursday."
    found = mentions(body, ("Navy", "ORG", 0), ("Indian Navy", "ORG", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert set(entities) == {"Indian Navy"}
    assert entities["Indian Navy"].mention_count == 2
