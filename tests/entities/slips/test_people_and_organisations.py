"""The small recogniser's other slips: pieces of people's names, and what makes a name an
organisation's.

Each test gives the linker the mentions the recogniser produced for such a sentence (its cut
spans, wrong labels and glued names, as seen on the Wikipedia Current Events summaries of
September 2015), so each case is tested whatever a model version does with the sentence.
"""

from __future__ import annotations

import re

import pytest

from herald.enrich.ner import Mention
from herald.entities.cues import ORG, PERSON, PLACE, kind_cues
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import (
    EntityLinker,
)
from herald.entities.model import EntityRecord
from tests.entities.slips.support import by_name, every, linked, mentions

RIVA = (
    "The gunman shot two managers, Paul Riva and Alan Steinberg. He walked into Riva's "
    "office, and Riva was struck in the chest."
)
SINGH = (
    "Her neighbour Piara Singh had come over for tea, a relative said. Singh, who is 61, "
    "found her in the kitchen."
)


@pytest.mark.parametrize(
    ("body", "spans", "surname", "label", "person"),
    [
        # a surname after a full name starting with a known first name, whatever the labels
        (RIVA, [("Paul Riva", "ORG"), ("Alan Steinberg", "PERSON")], "Riva", "FAC", "Paul Riva"),
        # two one-word names one space apart, the second a known person's surname ("Singh")
        (SINGH, [("Piara", "GPE")], "Singh", "GPE", "Piara Singh"),
    ],
)
def test_pieces_of_a_persons_name_the_recogniser_called_things_are_one_person(
    kb: KnowledgeBase,
    body: str,
    spans: list[tuple[str, str]],
    surname: str,
    label: str,
    person: str,
) -> None:
    found = [*mentions(body, *spans)]
    taken = [(m.start, m.end) for m in found]
    found += [m for m in every(body, surname, label) if not any(a <= m.start < b for a, b in taken)]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities[person].entity_kind == "person"
    assert entities[person].mention_count == len(every(body, surname, label))
    assert {surname, person.split()[0]}.isdisjoint(entities)


def test_an_abbreviated_title_is_no_entity(kb: KnowledgeBase) -> None:
    body = (
        "CNA spoke with Msgr. Michael L. Farmer, Vicar General of the Archdiocese of Mobile. "
        "Msgr. Farmer said she was devout, and Msgr. Farmer praised her clinic."
    )
    found = [
        *every(body, "Msgr", "GPE"),
        *mentions(body, ("Michael L. Farmer", "PERSON")),
        *every(body, "Farmer", "PERSON")[1:],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Msgr" not in entities
    assert entities["Michael L. Farmer"].entity_kind == "person"


@pytest.mark.parametrize(
    ("sentence", "name", "kind"),
    [
        ("The shooting happened near Snyder Ave, police said.", "Snyder Ave", "place"),
        ("The climbers fell on the Mueller Glacier on Tuesday.", "Mueller Glacier", "place"),
        ("He was taken to Aria Health with a gunshot wound.", "Aria Health", "organization"),
        ("A crowd gathered outside the Rite Aid on the corner.", "Rite Aid", "organization"),
        ("According to Greek Sky TV, three people died.", "Sky TV", "organization"),
    ],
)
def test_a_new_name_ending_in_a_naming_word_is_no_person(
    kb: KnowledgeBase, sentence: str, name: str, kind: str
) -> None:
    body = f"{sentence} {sentence}"  # named twice, as a new name needs
    entities = by_name(EntityLinker(kb).link("", body, every(body, name, "PERSON")))
    assert entities[name].entity_kind == kind


@pytest.mark.parametrize(
    ("surface", "person"),
    [
        ("Clerk Janette Bower", "Janette Bower"),
        ("Lawyer Michael Marinaccio", "Michael Marinaccio"),
        ("Kicker Ryan Succop", "Ryan Succop"),
        ("GM Theo Epstein", "Theo Epstein"),
        ("Joe Louis 26-1", "Joe Louis"),
        ("John S. Pritchard 3rd", "John S. Pritchard"),
    ],
)
def test_a_role_before_and_a_record_after_a_persons_name_are_cut(
    kb: KnowledgeBase, surface: str, person: str
) -> None:
    body = f"On Monday {surface} spoke to reporters. Later {surface} left the building."
    entities = by_name(EntityLinker(kb).link("", body, every(body, surface, "PERSON")))
    assert entities[person].entity_kind == "person"
    assert surface not in entities


@pytest.mark.parametrize("surface", ["EYP MCF", "LIKELY FOE", "BEY 0843"])
def test_a_name_in_capitals_or_with_a_number_is_no_new_person(
    kb: KnowledgeBase, surface: str
) -> None:
    body = f"On Monday {surface} was in the news. Later {surface} was again in the news."
    entities = by_name(EntityLinker(kb).link("", body, every(body, surface, "PERSON")))
    assert surface not in entities


def test_new_before_a_known_product_is_no_part_of_its_name(kb: KnowledgeBase) -> None:
    body = (
        "New MacBook Air models were unveiled on Monday. The MacBook Air now has a faster chip, "
        "and New England buyers queued."
    )
    found = mentions(body, ("New MacBook Air", "ORG"), ("MacBook Air", "ORG"))
    found += mentions(body, ("New England", "GPE"))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["MacBook Air"].mention_count == 2
    assert "New MacBook Air" not in entities
    assert "England" not in entities  # a known place after "New" stays in the name


def test_a_company_named_short_in_an_earlier_story_is_still_the_short_form(
    kb: KnowledgeBase,
) -> None:
    first = (
        "A Kraft spokesman said on Friday that the plant would reopen. Kraft shares rose, and "
        "Kraft thanked the police."
    )
    result = EntityLinker(kb).link("", first, every(first, "Kraft", "ORG"))
    for draft in result.new_entities:
        kb.add(draft.to_record())
    assert by_name(result)["Kraft"].entity_kind == "organization"
    body = "Kraft Foods confirmed the shooting. Kraft said the factory would stay closed."
    found = [
        *mentions(body, ("Kraft Foods", "ORG")),
        Mention("Kraft", "ORG", body.index("Kraft said"), body.index("Kraft said") + 5),
    ]
    krafts = [e for e in EntityLinker(kb).link("", body, found).entities if "Kraft" in e.surfaces]
    assert len(krafts) == 1  # one entity, whichever name it goes by
    assert krafts[0].mention_count == 2
    # A plant, as a factory, is a place, whatever the recogniser called it.
    body = "Shots were fired at the Kraft Plant on Thursday. The Kraft Plant stayed closed."
    entities = by_name(EntityLinker(kb).link("", body, every(body, "Kraft Plant", "ORG")))
    assert entities["Kraft Plant"].entity_kind == "place"


def test_a_name_does_not_run_into_the_next_sentences_pronoun(kb: KnowledgeBase) -> None:
    body = (
        "He bribed the police force of Old Tappan, N. J. He was known as the Chin. Later the "
        "police of Old Tappan, N. J. He was watched."
    )
    found = [
        Mention("N. J. He", "PERSON", m.start(), m.start() + 8)
        for m in re.finditer(r"N\. J\. He", body)
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert not any("He" in name.split() for name in entities)


def test_a_school_named_once_after_at_is_still_a_name(kb: KnowledgeBase) -> None:
    """The word "at" makes a place of it, the label an organisation (a school is either): the
    word before "of" says a name is meant."""
    body = "She was in the second class at Morehouse School of Medicine, and became a doctor."
    found = linked(kb, body, ("Morehouse School of Medicine", "ORG"))
    assert found["Morehouse School of Medicine"].entity_kind in ("place", "organization")


def test_a_long_name_holding_a_possessive_is_two_names(kb: KnowledgeBase) -> None:
    name = "Union of Concerned Scientists' Scientific Integrity Program"
    body = f"Francesca Grifo, director of {name}, said the rule was lifted."
    assert name not in linked(kb, body, ("Francesca Grifo", "PERSON"), (name, "ORG"))


def test_a_person_named_in_full_twice_like_the_items_place_is_still_one(
    kb: KnowledgeBase,
) -> None:
    body = (
        "Sydney Sweeney flew to Sydney on Monday. She said the city was lovely, and "
        "Sydney Sweeney will stay a week."
    )
    found = every(body, "Sydney Sweeney", "PERSON")
    start = body.index("to Sydney") + 3
    found.append(Mention("Sydney", "GPE", start, start + 6))
    entities = by_name(EntityLinker(kb).link("", body, sorted(found, key=lambda m: m.start)))
    assert entities["Sydney Sweeney"].entity_kind == "person"
    assert entities["Sydney"].entity_kind == "place"


def test_a_name_before_the_premises_it_names_is_no_person(kb: KnowledgeBase) -> None:
    body = (
        "The old Matanuska Maid dairy building in Palmer burned down. The Matanuska Maid "
        "warehouse had stood since 1935, and the Matanuska Maid creamery building beside it."
    )
    found = [*every(body, "Matanuska Maid", "PERSON"), *mentions(body, ("Palmer", "GPE"))]
    entities = by_name(EntityLinker(kb).link("", body, sorted(found, key=lambda m: m.start)))
    assert entities["Matanuska Maid"].entity_kind == "organization"


def test_kind_cues_read_premises_after_a_name() -> None:
    text = "the Kraft plant in Philadelphia"
    assert kind_cues(text, 4, 9).get(PERSON) is None
    assert kind_cues(text, 4, 9)[ORG] > 0
    text = "flames spread through the Mat Maid complex on Tuesday"
    start = text.index("Mat Maid")
    assert kind_cues(text, start, start + len("Mat Maid"))[ORG] > 0


def test_a_surname_that_is_a_common_word_stays_a_persons_name(kb: KnowledgeBase) -> None:
    # a known first name: "white" written in lower case does not matter
    body = "Megan White wore a white coat. Megan White said the coat was old."
    entities = by_name(EntityLinker(kb).link("", body, every(body, "Megan White", "PERSON")))
    assert entities["Megan White"].entity_kind == "person"


def test_a_first_word_that_is_a_given_name_is_not_cut_as_a_team(kb: KnowledgeBase) -> None:
    body = "Chelsea Victoria Clinton spoke in New York. Chelsea Victoria Clinton said more."
    entities = by_name(
        EntityLinker(kb).link("", body, every(body, "Chelsea Victoria Clinton", "PERSON"))
    )
    assert entities["Chelsea Victoria Clinton"].entity_kind == "person"


def test_an_adverb_opening_a_sentence_is_no_part_of_a_name(kb: KnowledgeBase) -> None:
    body = (
        "Teixeira has said he wants to play near home. Naturally Scott Boras will try to draw "
        "this out. President Gurbanguly Berdimuhamedov was re-elected."
    )
    found = mentions(
        body,
        ("Teixeira", "PERSON"),
        ("Naturally Scott Boras", "PERSON"),
        ("Gurbanguly Berdimuhamedov", "PERSON"),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Scott Boras"].entity_kind == "person"
    assert "Naturally Scott Boras" not in entities
    # "-uly" is no adverb's ending: the name stays whole
    assert entities["Gurbanguly Berdimuhamedov"].entity_kind == "person"


def test_a_role_before_a_surname_makes_no_new_person(kb: KnowledgeBase) -> None:
    body = (
        "Steven Moffat named the new Doctor. Producer Moffat, who co-created Sherlock, said "
        "fans will agree."
    )
    found = mentions(body, ("Steven Moffat", "PERSON"), ("Producer Moffat", "PERSON"))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Producer Moffat" not in entities
    assert entities["Steven Moffat"].entity_kind == "person"


@pytest.mark.parametrize(
    ("body", "name"),
    [
        ("Troops raided the camp of hostages held by Abu Sayyaf militants.", "Abu Sayyaf"),
        ("Strauss-Kahn told the newspaper Le Parisien on Wednesday.", "Le Parisien"),
        # the preposition governs the store, not the name: no place
        (
            "Three men emptied the stock of gems from the Harry Winston jewellery store.",
            "Harry Winston",
        ),
        # what sort of body it is, one word between
        ("Aid came from the Red Crescent relief agency on Monday.", "Red Crescent"),
    ],
)
def test_words_that_say_what_an_organisation_is_make_it_one(
    kb: KnowledgeBase, body: str, name: str
) -> None:
    # a name opening with a first name ("Abu", "Le") is taken for a person the recogniser
    # called an organisation, unless the words around it agree with the recogniser
    kb.add(EntityRecord("ent_abu_talat", "Abu Talat", "person", origin="discovered"))
    found = [Mention(name, "ORG", body.index(name), body.index(name) + len(name))]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities[name].entity_kind == "organization"


def test_an_organisation_word_before_a_comma_is_no_cue() -> None:
    text = "a member of his Fidesz party, István Simicskó, was named"
    start = text.index("István")
    assert ORG not in kind_cues(text, start, start + len("István Simicskó"))
    assert ORG in kind_cues("newspaper Le Parisien", 10, 21)


def test_a_place_word_before_a_business_premises_is_no_place_cue() -> None:
    text = "gems from the Harry Winston jewellery store"
    start = text.index("Harry")
    cues = kind_cues(text, start, start + len("Harry Winston"))
    assert ORG in cues
    assert PLACE not in cues
    # a power plant is named after its place
    text = "workers at the Diablo Canyon power plant"
    start = text.index("Diablo")
    assert kind_cues(text, start, start + len("Diablo Canyon")).get(PLACE) == 1.0


def test_a_surname_some_company_is_also_called_by_is_still_a_persons_first_word(
    kb: KnowledgeBase,
) -> None:
    # the knowledge base knows "Brady" and "Dana" as companies' other names, not their names
    body = "Brady Quinn threw two interceptions. Dana Tamir, a director at Trusteer, said so."
    found = mentions(body, ("Brady Quinn", "PERSON"), ("Dana Tamir", "PERSON"))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Brady Quinn"].entity_kind == "person"
    assert entities["Dana Tamir"].entity_kind == "person"


def test_an_honour_a_person_holds_is_no_person(kb: KnowledgeBase) -> None:
    body = "Regina Benjamin, a MacArthur Foundation Fellow, was nominated. Regina Benjamin smiled."
    found = [
        *every(body, "Regina Benjamin", "PERSON"),
        *every(body, "MacArthur Foundation Fellow", "PERSON"),
    ]
    entities = by_name(EntityLinker(kb).link("", body, sorted(found, key=lambda m: m.start)))
    assert "MacArthur Foundation Fellow" not in entities
    assert entities["Regina Benjamin"].entity_kind == "person"


def test_a_person_called_a_place_where_the_words_say_person_outright_is_a_person(
    kb: KnowledgeBase,
) -> None:
    body = (
        "The office would be closed on Tuesday in memory of Madeline Kafoury. A daughter, "
        "Grace LaRue of Crystal Springs, Miss.; his brother, Ike, survive him."
    )
    found = mentions(
        body,
        ("Madeline Kafoury", "LOC"),
        ("Grace LaRue", "PERSON"),
        ("Crystal Springs", "GPE"),
        ("Miss.", "GPE"),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Madeline Kafoury"].entity_kind == "person"
    # a relative named after a place is not enough to make it a person
    assert entities["Crystal Springs"].entity_kind == "place"


def test_kind_cues_read_what_only_people_have_before_a_name_that_ends_the_phrase() -> None:
    text = "the shotgun slaying of Madeline Kafoury, a receptionist"
    start = text.index("Madeline")
    assert kind_cues(text, start, start + 16)[PERSON] >= 1.0
    text = "the murder of Los Angeles County Sheriff's Deputy Juan Abrego"
    start = text.index("Los")
    assert PERSON not in kind_cues(text, start, start + len("Los Angeles County"))
