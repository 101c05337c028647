"""The small recogniser's other slips: the recogniser's spans cut, joined or glued, and what a
name's form and last word say.

Each test gives the linker the mentions the recogniser produced for such a sentence (its cut
spans, wrong labels and glued names, as seen on the Wikipedia Current Events summaries of
September 2015), so each case is tested whatever a model version does with the sentence.
"""

from __future__ import annotations

import pytest

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import (
    EntityLinker,
    document_text,
)
from herald.entities.model import EntityRecord, Tag
from tests.entities.slips.support import NATIONALITIES, by_name, every, linked, mentions


def test_a_known_name_longer_than_the_recognisers_spans_replaces_them(kb: KnowledgeBase) -> None:
    body = (
        "The United Nations confirms the Islamic State of Iraq and the Levant has destroyed "
        "the Temple of Bel in Palmyra, Syria."
    )
    found = mentions(
        body,
        ("The United Nations", "ORG"),
        ("the Islamic State of Iraq", "ORG"),
        ("Levant", "GPE"),
        ("Syria", "GPE"),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Islamic State"].entity_kind == "organization"
    assert entities["Islamic State"].surfaces == ("Islamic State of Iraq and the Levant",)
    assert "Islamic State of Iraq" not in entities  # the cut span is not an entity of its own
    assert "Levant" not in entities
    assert {"United Nations", "Syria"} <= set(entities)


def test_a_country_labelled_a_nationality_and_a_capital_labelled_an_organisation(
    kb: KnowledgeBase,
) -> None:
    body = "Clashes in and around Tajikistan's capital Dushanbe kill at least 17 people."
    entities = linked(kb, body, ("Tajikistan", "NORP"), ("Dushanbe", "ORG"))
    assert entities["Tajikistan"].entity_kind == "place"
    assert entities["Dushanbe"].entity_kind == "place"


def test_a_nationality_the_recogniser_split_in_two_is_one(kb: KnowledgeBase) -> None:
    body = (
        "Dangi died in an American Samoan hospital; a Liberian nurse and Guyanese doctors "
        "cared for him."
    )
    entities = linked(
        kb,
        body,
        ("American", "NORP"),
        ("Samoan", "NORP"),
        ("Liberian", "NORP"),
        ("Guyanese", "NORP"),
        config=NATIONALITIES,
    )
    assert {"American Samoa", "Liberia", "Guyana"} <= set(entities)
    # neither the United States of "American" nor the Samoa of "Samoan"
    assert "United States" not in entities
    assert "Samoa" not in entities


def test_an_organisation_named_once_in_full_becomes_an_entity(kb: KnowledgeBase) -> None:
    body = "Delegates elect Vitaly Mutko to be the President of the Russian Football Union."
    found = mentions(body, ("Vitaly Mutko", "PERSON"), ("the Russian Football Union", "ORG"))
    result = EntityLinker(kb).link("", body, found)
    entities = by_name(result)
    assert entities["Russian Football Union"].entity_kind == "organization"
    assert "Russian Football Union" in {d.display_name for d in result.new_entities}


@pytest.mark.parametrize(
    ("body", "surface"),
    [
        ("Police said Lopez and Carrasquillo were arrested on Friday.", "Lopez and Carrasquillo"),
        ("He was named the National Player of the Year on Monday.", "National Player of"),
    ],
)
def test_two_names_joined_or_a_name_cut_short_are_not_entities(
    kb: KnowledgeBase, body: str, surface: str
) -> None:
    result = EntityLinker(kb).link("", body, mentions(body, (surface, "ORG")))
    assert result.entities == []


@pytest.mark.parametrize(
    ("body", "surface", "expected"),
    [
        # A name the knowledge base knows whole, with a possessive's apostrophe left in it (in
        # a text tokenised as some sources deliver it).
        (
            "The Angels are going after San Diego Padres ' ace Jake Peavy.",
            "San Diego Padres '",
            "San Diego Padres",
        ),
        # "Diego" is a first name, but the place goes on: "San Diego", not "San".
        ("He told the San Diego Union-Tribune on Sunday.", "the San Diego Union-Tribune", None),
    ],
)
def test_a_name_is_not_split_where_it_does_not_end(
    kb: KnowledgeBase, body: str, surface: str, expected: str | None
) -> None:
    entities = linked(kb, body, (surface, "ORG"))
    assert "San" not in entities  # the town in Mali
    assert not any(e.entity_kind == "person" for e in entities.values())
    if expected is not None:
        assert entities[expected].entity_kind == "organization"


def test_a_name_cut_at_its_and_is_joined_again(kb: KnowledgeBase) -> None:
    body = (
        "Agencies must consult scientists at the Fish and Wildlife Service. Surrey Police and "
        "Surrey Fire and Rescue are at the scene."
    )
    entities = linked(
        kb,
        body,
        ("Wildlife Service", "ORG"),
        ("Surrey Police", "ORG"),
        ("Surrey Fire", "PERSON"),
        ("Rescue", "ORG"),
    )
    assert entities["Fish and Wildlife Service"].entity_kind == "organization"
    assert entities["Surrey Fire and Rescue"].entity_kind == "organization"
    assert {"Wildlife Service", "Surrey Fire", "Rescue"}.isdisjoint(entities)


def test_two_names_either_side_of_an_and_stay_two(kb: KnowledgeBase) -> None:
    body = "Creighton will play the winner between Evansville and Indiana State on Saturday."
    entities = linked(kb, body, ("Evansville", "GPE"), ("Indiana State", "ORG"))
    assert "Evansville and Indiana State" not in entities
    assert "Indiana State" in entities


def test_a_first_name_alone_is_the_person_whatever_the_labels(kb: KnowledgeBase) -> None:
    # A picture caption's colon inside a span: the recogniser's "Bettie Page: Life" (with
    # "Bettie Page" a second full name to choose from, the first name alone was left alone).
    body = (
        "Bettie Page, the 1950s pin-up queen, died on Thursday in Los Angeles. Fans of Bettie "
        "remembered her as a rebel, and Bettie herself said she never thought of fame.\n\n"
        "Photos: Bettie Page: Life of a pin-up queen"
    )
    found = [
        *every(body, "Bettie Page", "ORG"),
        *[m for m in every(body, "Bettie", "ORG") if not body.startswith("Bettie Page", m.start)],
        *mentions(body, ("Los Angeles", "GPE")),
    ]
    found[1] = Mention("Bettie Page: Life", "ORG", found[1].start, found[1].start + 17)
    entities = by_name(EntityLinker(kb).link("", body, found))
    page = entities["Bettie Page"]
    assert page.entity_kind == "person"
    assert page.mention_count == 4
    assert set(entities) == {"Bettie Page", "Los Angeles"}


def test_a_natural_features_head_word_is_the_feature(kb: KnowledgeBase) -> None:
    body = (
        "Pirates threatened a merchant vessel in the Gulf of Aden. They came from Somalia and "
        "Yemen, two countries on the coast of the Gulf."
    )
    found = mentions(body, ("Gulf of Aden", "LOC"), ("Somalia", "GPE"), ("Yemen", "GPE"))
    start = body.rindex("Gulf")
    found.append(Mention("Gulf", "LOC", start, start + 4))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Gulf" not in entities  # not Gulf Province of Papua New Guinea
    assert entities["Gulf of Aden"].entity_kind == "place"
    assert entities["Gulf of Aden"].surfaces == ("Gulf", "Gulf of Aden")
    assert {"Somalia", "Yemen"} <= set(entities)


def test_an_agency_named_with_its_countrys_abbreviation_gets_its_full_names(
    kb: KnowledgeBase,
) -> None:
    body = "The strollers failed the tests of the U.S. Consumer Product Safety Commission."
    found = mentions(body, ("the U.S. Consumer Product Safety Commission", "ORG"))
    result = EntityLinker(kb).link("", body, found)
    (draft,) = result.new_entities
    assert draft.display_name == "U.S. Consumer Product Safety Commission"
    assert draft.aliases == [
        "United States Consumer Product Safety Commission",
        "Consumer Product Safety Commission",
    ]
    # A later text naming it in full links to it.
    kb.add(draft.to_record())
    later = "The maker was fined by the United States Consumer Product Safety Commission."
    found = mentions(later, ("the United States Consumer Product Safety Commission", "ORG"))
    assert [e.entity_id for e in EntityLinker(kb).link("", later, found).entities] == [draft.id]
    # An agency the seed knows is linked under any of its names.
    body = "Diesel cars cheated the emission tests of the U.S. Environmental Protection Agency."
    found = mentions(body, ("the U.S. Environmental Protection Agency", "ORG"))
    result = EntityLinker(kb).link("", body, found)
    assert [e.display_name for e in result.entities] == ["Environmental Protection Agency"]
    assert result.new_entities == []


def test_a_storm_is_an_event_whatever_the_recogniser_called_it(kb: KnowledgeBase) -> None:
    body = "Tropical Storm Etau brings record rainfall to eastern Japan."
    entities = linked(kb, body, ("Tropical Storm Etau", "ORG"), ("Japan", "GPE"))
    assert entities["Tropical Storm Etau"].entity_kind == "event"
    # The recogniser may leave out a sentence's first word: "Storm Fred's" called a person.
    body = "Tropical Storm Fred's predicted track will turn northeast toward the Azores."
    entities = linked(kb, body, ("Storm Fred's", "PERSON"))
    assert entities["Tropical Storm Fred"].entity_kind == "event"
    # A person whose first name is Storm stays one.
    body = "The actress Storm Reid starred in the film, and Reid was praised."
    assert linked(kb, body, ("Storm Reid", "PERSON"))["Storm Reid"].entity_kind == "person"


def test_a_religious_title_is_not_part_of_a_new_persons_name(kb: KnowledgeBase) -> None:
    body = "The pope was greeted by Archbishop Carlo Maria Viganò at the airport."
    entities = linked(kb, body, ("Archbishop Carlo Maria Viganò", "PERSON"))
    assert set(entities) == {"Carlo Maria Viganò"}
    # Nor is the office an organisation.
    body = "He asked Archbishop Carlo Maria Viganò, the Apostolic Nuncio, to look into it."
    entities = linked(
        kb, body, ("Archbishop Carlo Maria Viganò", "PERSON"), ("Apostolic Nuncio", "ORG")
    )
    assert set(entities) == {"Carlo Maria Viganò"}


def test_a_small_place_the_text_locates_is_found_with_its_region(kb: KnowledgeBase) -> None:
    body = "Harriman, Tennessee police arrest a 41-year-old actress on Friday."
    found = mentions(body, ("Harriman", "GPE"), ("Tennessee", "GPE"))
    result = EntityLinker(kb).link("", body, found)
    (draft,) = result.new_entities
    assert (draft.display_name, draft.entity_kind) == ("Harriman", "place")
    assert Tag("region", "Tennessee") in draft.tags
    assert Tag("country", "US") in draft.tags
    assert draft.to_record().tags == draft.tags  # stored with the entity
    # Without the region it is another place, one the text does not locate.
    body = "The storm flooded the streets of Harriman on Friday."
    (other,) = EntityLinker(kb).link("", body, mentions(body, ("Harriman", "GPE"))).new_entities
    assert other.entity_kind == "place"
    assert other.tags == ()
    assert other.id != draft.id


def test_a_place_located_elsewhere_is_not_the_known_place_of_that_name() -> None:
    def region(name: str, code: str) -> EntityRecord:
        return EntityRecord(
            f"ent_{code}", name, "place", tags=(Tag("place_type", "region"), Tag("country", "US"))
        )

    springfield = EntityRecord(
        "ent_springfield_il",
        "Springfield",
        "place",
        "City in Illinois, United States",
        tags=(
            Tag("place_type", "city"),
            Tag("country", "US"),
            Tag("region", "Illinois"),
            Tag("population", "114000"),
        ),
    )
    kb = KnowledgeBase([springfield, region("Illinois", "il"), region("Missouri", "mo")])
    body = "A tornado hit Springfield, Missouri on Sunday night."
    entities = linked(kb, body, ("Springfield", "GPE"), ("Missouri", "GPE"))
    assert entities["Springfield"].entity_id != "ent_springfield_il"
    assert entities["Missouri"].entity_id == "ent_mo"
    body = "A tornado hit Springfield, Illinois on Sunday night."
    entities = linked(kb, body, ("Springfield", "GPE"), ("Illinois", "GPE"))
    assert entities["Springfield"].entity_id == "ent_springfield_il"


def test_a_place_located_by_a_news_style_state_abbreviation(kb: KnowledgeBase) -> None:
    body = "A tornado damaged homes in Huntsville, Ala., and in Athens, Ga., on Sunday."
    entities = linked(kb, body, ("Huntsville", "GPE"), ("Athens", "GPE"))
    huntsville = kb.get(entities["Huntsville"].entity_id)
    athens = kb.get(entities["Athens"].entity_id)
    assert huntsville is not None
    assert huntsville.first_tag("region") == "Alabama"
    # "Ga." is the US state, not the country Georgia: not the Greek capital either.
    assert athens is not None
    assert athens.first_tag("country") == "US"


def test_capitals_in_a_sentence_case_title_are_names(kb: KnowledgeBase) -> None:
    """A title written as a sentence ("... in Mannheim, Germany") proves its capitals are names,
    as a sentence of the body does; a title-cased one ("Aid Worker ... Freed") proves nothing."""
    body = "The champion retained his titles on Saturday night."
    for title, expected in [
        ("Aid worker Jan Kowalski freed after talks in Germany", {"Jan Kowalski", "Germany"}),
        ("Aid Worker Jan Kowalski Freed After Talks In Germany", set()),
    ]:
        text = document_text(title, body)
        found = mentions(text, ("Jan Kowalski", "PERSON"), ("Germany", "GPE"))
        assert set(by_name(EntityLinker(kb).link(title, body, found))) == expected, title


def test_a_surname_the_recogniser_calls_a_nationality_is_the_persons(kb: KnowledgeBase) -> None:
    body = (
        "Klitschko, 58-3, floored the American challenger in the fifth round. "
        "Wladimir Klitschko keeps his titles."
    )
    spans = (("Klitschko", "NORP"), ("American", "NORP"), ("Wladimir Klitschko", "PERSON"))
    entities = linked(kb, body, *spans, config=NATIONALITIES)
    assert entities["Wladimir Klitschko"].mention_count == 2
    assert entities["Wladimir Klitschko"].entity_kind == "person"
    assert "United States" in entities  # a nationality is still its country, when asked
    by_default = linked(kb, body, *spans)
    assert by_default["Wladimir Klitschko"].mention_count == 2
    assert "United States" not in by_default  # a nationality names a people, not a place


def test_the_last_word_of_a_venue_or_institution_decides_its_kind(kb: KnowledgeBase) -> None:
    """Named once, with the recogniser's label and the sentence pulling the other way."""
    body = (
        "Protesters marched from Syntagma Square to the parliament, and the Hellenic Medical "
        "Association called at Preston Crown Court for calm."
    )
    entities = linked(
        kb,
        body,
        ("Syntagma Square", "ORG"),
        ("Hellenic Medical Association", "GPE"),
        ("Preston Crown Court", "ORG"),
    )
    assert entities["Syntagma Square"].entity_kind == "place"
    assert entities["Hellenic Medical Association"].entity_kind == "organization"
    # A court is a building and an institution: found, as whichever the text suggests.
    assert entities["Preston Crown Court"].entity_kind in ("place", "organization")


@pytest.mark.parametrize(
    ("surface", "label", "kind"),
    [
        ("Fulton Courthouse", "ORG", "place"),
        ("Matanuska Maid Building", "PERSON", "place"),
        ("Palmer Fire and Rescue", "PERSON", "organization"),
        # a firm: no person's name ends so
        ("Gordon Advisors", "PERSON", "company"),
        ("Hanley Wood Partners", "PERSON", "company"),
        # a firm's word inside a regulator's name makes no company
        ("Tasman Communications Authority", "ORG", "organization"),
        # the word before "of" says what is named, in a name of up to eight words
        ("Department of Health and Human Services", "PERSON", "organization"),
        ("Medical Association of the State of Alabama", "ORG", "organization"),
        # a name ending as events' names do
        ("San Gennaro Street Festival", "ORG", "event"),
        ("Evian Championship", "ORG", "event"),
        ("Berlin Marathon", "FAC", "event"),
        ("Pan Arab Games", "ORG", "event"),
        ("Victory Day Parade", "PERSON", "event"),
        ("Syrian Civil War", "GPE", "event"),
        ("Winter Meetings", "GPE", "event"),
        ("San Diego Comic-Con", "GPE", "event"),
        ("Santa Rosa Press", "PERSON", "organization"),
        ("Cricket Wireless", "PERSON", "company"),
    ],
)
def test_the_last_word_of_a_new_name_says_what_it_names(
    kb: KnowledgeBase, surface: str, label: str, kind: str
) -> None:
    body = f"Crews were called to {surface} on Tuesday, officials said."
    entities = linked(kb, body, (surface, label))
    assert entities[surface].entity_kind == kind
