"""People's names resolved within one document: a full name and its later short forms, with or
without initials, are one person.

The first test runs the real recogniser; the others give the linker the recogniser's known slips
directly (a surname called a place, a person's full name called an organisation), so each
variant is tested whatever the model version does with the sentence.
"""

from __future__ import annotations

import pytest

from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, document_text
from herald.entities.names import without_initials
from tests.enrich.models import fresh_knowledge_base, recognizer
from tests.entities.within_document.support import by_name, mentions

LAGARDE_TITLE = "ECB keeps rates on hold"
LAGARDE_BODY = (
    "Christine Lagarde, president of the European Central Bank, said in Frankfurt on Thursday "
    "that rates would stay where they are. Lagarde spoke after a meeting with Olaf Scholz in "
    "Berlin. The ECB expects inflation to ease next year, Lagarde added."
)


def test_the_lagarde_pattern_with_the_real_recogniser(kb: KnowledgeBase) -> None:
    text = document_text(LAGARDE_TITLE, LAGARDE_BODY)
    found = recognizer().recognize([text])[0]
    result = EntityLinker(kb).link(LAGARDE_TITLE, LAGARDE_BODY, found)
    entities = by_name(result)
    kinds = {name: e.entity_kind for name, e in entities.items()}
    assert kinds["Christine Lagarde"] == "person"
    assert kinds["Olaf Scholz"] == "person"
    assert kinds["European Central Bank"] == "organization"
    assert kinds["Berlin"] == "place"
    assert any(name.startswith("Frankfurt") and kind == "place" for name, kind in kinds.items())
    assert "Lagarde" not in entities  # the surname is her, not a place of its own
    lagarde = entities["Christine Lagarde"]
    assert lagarde.mention_count == 3  # "Christine Lagarde", "Lagarde" twice
    # "ECB" in the title and the body count for the bank named in full once.
    assert entities["European Central Bank"].mention_count == 3
    # Salience reflects the mentions: named three times, she outranks Berlin (named once).
    assert lagarde.salience > entities["Berlin"].salience


@pytest.mark.parametrize(
    ("full_label", "short_label"),
    [("PERSON", "GPE"), ("ORG", "PERSON"), ("GPE", "PERSON"), ("PERSON", "ORG")],
)
def test_one_mistagged_mention_does_not_flip_or_drop_the_person(
    kb: KnowledgeBase, full_label: str, short_label: str
) -> None:
    body = (
        "Christine Lagarde, president of the European Central Bank, said rates would stay high. "
        "Lagarde spoke in Berlin."
    )
    found = mentions(
        body,
        ("Christine Lagarde", full_label, 0),
        ("European Central Bank", "ORG", 0),
        ("Lagarde", short_label, 1),
        ("Berlin", "GPE", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Christine Lagarde"].entity_kind == "person"
    assert entities["Christine Lagarde"].mention_count == 2
    assert "Lagarde" not in entities


def test_the_surname_first_then_mistagged_still_joins_the_full_name(kb: KnowledgeBase) -> None:
    # The title uses the surname alone (called a place); the body names her in full.
    title = "Lagarde warns on inflation"
    body = "Christine Lagarde, the central bank's president, said prices would keep rising."
    text = document_text(title, body)
    found = mentions(text, ("Lagarde", "GPE", 0), ("Christine Lagarde", "PERSON", 0))
    entities = by_name(EntityLinker(kb).link(title, body, found))
    assert set(entities) == {"Christine Lagarde"}
    assert entities["Christine Lagarde"].entity_kind == "person"
    assert entities["Christine Lagarde"].mention_count == 2


def test_a_surname_the_recogniser_did_not_tag_still_counts_for_the_person(
    kb: KnowledgeBase,
) -> None:
    """The small model often misses a surname opening a sentence ("Manning threw"): each time
    the item writes the surname of one person it names in full, alone, it is a mention of that
    person, so the item's subject is its most salient entity; not inside another name ("Eli
    Manning", "Manning Field"), after "the" ("the Manning family") or as two people's surname."""
    title = "Manning picks apart Jaguars"
    body = (
        "Peyton Manning was nearly perfect against the Jacksonville Jaguars.\n"
        "Manning completed his first 17 passes. Manning threw for 364 yards, and coach Tony "
        "Dungy said Manning's timing was back. The Jaguars had no answer. Eli Manning watched "
        "from Manning Field with the Manning family."
    )
    text = document_text(title, body)
    found = mentions(
        text,
        ("Peyton Manning", "PERSON", 0),
        ("Jacksonville Jaguars", "ORG", 0),
        ("Tony Dungy", "PERSON", 0),
        ("Jaguars", "ORG", 2),
    )
    entities = by_name(EntityLinker(kb).link(title, body, found))
    manning = entities["Peyton Manning"]
    # "Peyton Manning", the title's "Manning", "Manning completed", "Manning threw",
    # "Manning's timing"; not "Eli Manning", "Manning Field", "the Manning family"
    assert manning.mention_count == 5
    assert "Manning" in manning.surfaces
    assert manning.salience == max(e.salience for e in entities.values())
    assert entities["Tony Dungy"].mention_count == 1
    # Two people of one surname: "Bush" alone is neither's.
    body = (
        "George W. Bush and Laura Bush arrived in Dallas. Bush said the library would open in "
        "the spring."
    )
    found = mentions(
        body,
        ("George W. Bush", "PERSON", 0),
        ("Laura Bush", "PERSON", 0),
        ("Dallas", "GPE", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["George W. Bush"].mention_count == 1
    assert entities["Laura Bush"].mention_count == 1


def test_a_persons_name_with_and_without_initials_is_one_person() -> None:
    kb = fresh_knowledge_base()
    body = (
        "Obama nominated Regina M. Benjamin on Monday. Regina Benjamin runs a clinic. Services "
        "M. Benjamin, MD, is its founder. Dr. Benjamin holds a degree in chemistry. W. Mark Felt "
        "died; Mark Felt was the source, his son Mark said."
    )
    found = mentions(
        body,
        ("Regina M. Benjamin", "PERSON", 0),
        ("Regina Benjamin", "PERSON", 0),
        ("M. Benjamin", "PERSON", 1),
        ("Benjamin", "PERSON", 3),
        ("W. Mark Felt", "PERSON", 0),
        ("Mark Felt", "PERSON", 1),
        ("Mark", "PERSON", 2),
    )
    result = EntityLinker(kb).link("", body, found)
    people = {e.display_name for e in result.entities if e.entity_kind == "person"}
    assert len(people) == 2
    (benjamin,) = [e for e in result.entities if "Benjamin" in e.display_name]
    assert set(benjamin.surfaces) == {
        "Regina M. Benjamin",
        "Regina Benjamin",
        "M. Benjamin",
        "Benjamin",
    }
    (felt,) = [e for e in result.entities if "Felt" in e.display_name]
    assert "Mark" in felt.surfaces
    for draft in result.new_entities:
        kb.add(draft.to_record())
    # The next item writes the name the other way: the same person.
    body = "Dr. Regina Benjamin spoke in Mobile, where Regina M. Benjamin had trained."
    for name in ("Regina Benjamin", "Regina M. Benjamin"):
        again = by_name(EntityLinker(kb).link("", body, mentions(body, (name, "PERSON", 0))))
        assert [e.entity_id for e in again.values() if e.entity_kind == "person"] == [
            benjamin.entity_id
        ]


def test_two_people_of_one_name_but_their_initials_stay_two() -> None:
    """ "George Bush" beside "George W. Bush" and "George H. W. Bush" is neither; a number is no
    initial ("Layer 3")."""
    kb = fresh_knowledge_base()
    body = "George H. W. Bush and his son George W. Bush met. George Bush, the elder, spoke first."
    found = mentions(
        body,
        ("George H. W. Bush", "PERSON", 0),
        ("George W. Bush", "PERSON", 0),
        ("George Bush", "PERSON", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "George H. W. Bush" in entities
    assert "George W. Bush" in entities
    assert entities["George H. W. Bush"].entity_id != entities["George W. Bush"].entity_id
    assert without_initials("w mark felt") == "mark felt"
    assert without_initials("layer 3 switch") == "layer 3 switch"


def test_an_unknown_first_name_alone_joins_the_one_person_it_starts() -> None:
    """ "Kathina" after "Kathina Thomas", called a place each time, is her; a word that starts
    a "person" the recogniser made of other words ("Creighton Returns") is not joined to it."""
    kb = fresh_knowledge_base()
    body = (
        "A stray bullet killed 10-year-old Kathina Thomas in Albany. The teenager was down the "
        "street from Kathina's home, and Kathina's mother heard the shot."
    )
    found = mentions(
        body,
        ("Kathina Thomas", "PERSON", 0),
        ("Kathina", "GPE", 1),
        ("Kathina", "GPE", 2),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Kathina Thomas"].mention_count == 3
    assert "Kathina" not in entities
    body = "Creighton Returns to the semis. Creighton beat Drake, and Creighton fans cheered."
    found = mentions(
        body,
        ("Creighton Returns", "PERSON", 0),
        ("Creighton", "GPE", 1),
        ("Creighton", "GPE", 2),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Creighton"].mention_count == 2
    assert entities["Creighton Returns"].surfaces == ("Creighton Returns",)


def test_a_person_named_like_a_town_is_not_the_town(kb: KnowledgeBase) -> None:
    assert any(r.entity_kind == "place" for r in kb.lookup("washington"))
    body = (
        "Denzel Washington arrived at the premiere with his wife. Washington told reporters the "
        "film had taken four years, and Washington thanked the crew."
    )
    found = mentions(
        body,
        ("Denzel Washington", "PERSON", 0),
        ("Washington", "GPE", 1),
        ("Washington", "GPE", 2),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert set(entities) == {"Denzel Washington"}
    assert entities["Denzel Washington"].entity_kind == "person"
    assert entities["Denzel Washington"].mention_count == 3


def test_a_given_name_makes_an_unknown_two_word_organisation_a_person(
    kb: KnowledgeBase,
) -> None:
    body = "The minister met Olaf Scholz in Berlin on Tuesday to discuss the budget."
    found = mentions(body, ("Olaf Scholz", "ORG", 0), ("Berlin", "GPE", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Olaf Scholz"].entity_kind == "person"
    # ...but not a name that ends like an organisation's.
    body = "Doctors at the Olaf Hospital in Berlin said on Tuesday that the unit would close."
    found = mentions(body, ("Olaf Hospital", "ORG", 0), ("Berlin", "GPE", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities.get("Olaf Hospital") is None or entities["Olaf Hospital"].entity_kind != (
        "person"
    )


def test_a_title_the_recogniser_kept_is_not_part_of_a_new_persons_name(
    kb: KnowledgeBase,
) -> None:
    body = (
        "Coroner Gary Hargrove said the driver died at the scene at 10:40 GMT. "
        "Hargrove said a report would follow at 14:00 GMT."
    )
    found = mentions(
        body,
        ("Coroner Gary Hargrove", "PERSON", 0),
        ("GMT", "ORG", 0),
        ("Hargrove", "PERSON", 1),
        ("GMT", "ORG", 1),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert set(entities) == {"Gary Hargrove"}  # and a time zone is no organisation
    assert entities["Gary Hargrove"].mention_count == 2
