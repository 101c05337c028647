"""The small recogniser's other slips: people named by a surname or a role, events, editions,
awards and works' titles.

Each test gives the linker the mentions the recogniser produced for such a sentence (its cut
spans, wrong labels and glued names, as seen on the Wikipedia Current Events summaries of
September 2015), so each case is tested whatever a model version does with the sentence.
"""

from __future__ import annotations

import pytest

from herald.enrich.ner import Mention
from herald.entities.cues import PERSON, PLACE, kind_cues
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import (
    EntityLinker,
)
from herald.entities.model import EntityRecord, Tag
from tests.entities.slips.support import NATIONALITIES, by_name, every, linked, mentions


def test_a_pages_time_stamps_are_not_names(kb: KnowledgeBase) -> None:
    body = (
        "First Posted: 10/25/11 06:44 PM ET. A fire destroyed the warehouse. Story Created: "
        "Aug 7, 2012 at 9:56 AM. First Posted again on the wire."
    )
    found = [*every(body, "First Posted", "ORG"), *every(body, "Story Created", "PERSON")]
    assert by_name(EntityLinker(kb).link("", body, found)) == {}


def test_a_surname_alone_is_the_famous_one_of_its_people_when_the_text_agrees() -> None:
    kb = KnowledgeBase()  # of these people only (the seed knows Richard Nixon too)

    def person(entity_id: str, name: str, description: str, wikis: int) -> EntityRecord:
        return EntityRecord(
            entity_id, name, "person", description, tags=(Tag("sitelinks", str(wikis)),)
        )

    kb.add(person("ent_rn", "Richard Nixon", "37th president of the United States", 200))
    kb.add(person("ent_cn", "Cynthia Nixon", "American actress", 60))
    body = "Fred LaRue, a Nixon administration aide, served the president in the White House."
    spans = [("Fred LaRue", "PERSON"), ("Nixon", "PERSON")]
    assert linked(kb, body, *spans)["Richard Nixon"].surfaces == ("Nixon",)
    # The text about an actress points to the less famous one: too little to pick either.
    body = "Fred LaRue said Nixon was the finest stage actress he had seen."
    assert {"Richard Nixon", "Cynthia Nixon"}.isdisjoint(linked(kb, body, *spans))
    # Two people about as widely described, and words that favour neither: nobody.
    kb.add(person("ent_pn", "Pat Nixon", "First Lady of the United States", 180))
    body = "Fred LaRue, an old friend of Nixon, died on Saturday at his home."
    assert {"Richard Nixon", "Pat Nixon"}.isdisjoint(linked(kb, body, *spans))


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Sarah Palin worshipped in her hometown of Wasilla on Sunday.", "Wasilla"),
        ("The pitcher, a native of Albany, signed on Friday.", "Albany"),
        ("Luann Johnson, 66, of Burnsville was hit in the crosswalk.", "Burnsville"),
    ],
)
def test_words_saying_where_someone_lives_vote_place(text: str, name: str) -> None:
    start = text.index(name)
    votes = kind_cues(text, start, start + len(name))
    assert votes.get(PLACE, 0.0) >= 1.0
    assert votes.get(PERSON, 0.0) < votes[PLACE]


def test_letters_after_a_name_and_a_players_position_are_not_part_of_it(
    kb: KnowledgeBase,
) -> None:
    body = (
        "Judge Anthony Russell QC asked for reports. New Orleans signed RB Joique Bell off "
        "the Eagles' practice squad, and Bell will play on Sunday."
    )
    found = mentions(
        body,
        ("Judge Anthony Russell QC", "PERSON"),
        ("RB Joique Bell", "PERSON"),
        ("Bell", "PERSON"),
    )
    found[-1] = every(body, "Bell", "PERSON")[1]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Anthony Russell"].entity_kind == "person"
    assert entities["Joique Bell"].entity_kind == "person"
    assert entities["Joique Bell"].mention_count == 2
    assert not [name for name in entities if "QC" in name or name.startswith("RB")]


def test_a_full_name_ending_in_a_name_the_item_calls_a_person_is_a_person(
    kb: KnowledgeBase,
) -> None:
    body = (
        "The 76ers fired Mo Cheeks on Saturday. Cheeks had a 9-14 record this season, and "
        "Cheeks said he was surprised. Mo Cheeks will be paid for the rest of his contract."
    )
    found = [
        *every(body, "Mo Cheeks", "FAC"),
        *[m for m in every(body, "Cheeks", "PERSON") if body[m.start - 3 : m.start] != "Mo "],
    ]
    found[1] = Mention("Mo Cheeks", "GPE", found[1].start, found[1].end)
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Mo Cheeks"].entity_kind == "person"
    assert "Cheeks" not in entities  # the surname joins the full name


def test_a_new_name_opening_with_a_year_is_an_event(kb: KnowledgeBase) -> None:
    body = "Ellen DeGeneres will host the 2013 Academy Awards, the academy said on Friday."
    entities = linked(kb, body, ("2013 Academy Awards", "ORG"))
    assert entities["2013 Academy Awards"].entity_kind == "event"
    body = "Shares of 2020 Bulkers Ltd rose after the 2020 Bulkers Ltd results."
    entities = linked(kb, body, ("2020 Bulkers Ltd", "ORG"))
    assert entities["2020 Bulkers Ltd"].entity_kind == "company"


def test_an_office_named_by_where_it_serves_is_not_a_new_entity(kb: KnowledgeBase) -> None:
    body = (
        "The Fire Marshal is investigating. The L.A. County Sheriff said the U.S. Marshal had "
        "the suspect."
    )
    found = mentions(
        body, ("Fire Marshal", "ORG"), ("L.A. County Sheriff", "PERSON"), ("U.S. Marshal", "ORG")
    )
    assert by_name(EntityLinker(kb).link("", body, found)) == {}


def test_a_name_after_a_comma_that_owns_something_does_not_locate_the_name(
    kb: KnowledgeBase,
) -> None:
    # "X, North Carolina's ..." is an apposition: "North" is not the region X lies in.
    body = (
        "Tyler Hansbrough scored 20 points on Thursday. Hansbrough, North Carolina's new "
        "career scoring leader, thanked the fans. Hansbrough said the record mattered."
    )
    found = [
        *every(body, "Tyler Hansbrough", "PERSON"),
        *[m for m in every(body, "Hansbrough", "PERSON") if m.start > 20],
        *mentions(body, ("North Carolina's", "GPE")),
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Tyler Hansbrough"].entity_kind == "person"
    assert entities["Tyler Hansbrough"].mention_count == 3


def test_a_surname_alone_is_the_person_introduced_before_it(kb: KnowledgeBase) -> None:
    body = (
        "Vincent Gigante, the mob boss, died on Monday. Gigante ran the family for years. "
        "His brother, Louis Gigante, a priest, said Gigante was at peace."
    )
    found = [
        *every(body, "Vincent Gigante", "PERSON"),
        *every(body, "Louis Gigante", "PERSON"),
        *[
            m
            for m in every(body, "Gigante", "PERSON")
            if not body[: m.start].endswith(("Vincent ", "Louis "))
        ],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Vincent Gigante"].mention_count == 3
    assert entities["Louis Gigante"].mention_count == 1
    # Two of that surname named before it: the surname alone is neither.
    body = "Venus Williams and Serena Williams won on Monday. Williams said she was tired."
    found = [
        *mentions(body, ("Venus Williams", "PERSON"), ("Serena Williams", "PERSON")),
        *[m for m in every(body, "Williams", "PERSON") if m.start > 40],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Venus Williams"].mention_count == 1
    assert entities["Serena Williams"].mention_count == 1


@pytest.mark.parametrize(
    ("body", "surface", "label"),
    [
        (
            "The actress shot to fame in the 1999 movie American Pie, her agent said.",
            "American Pie",
            "ORG",
        ),
        (
            "Gary Ross will not direct the Hunger Games sequel, the studio said.",
            "Hunger Games",
            "ORG",
        ),
        ("Fans lined up for the film New Moon in Seattle on Friday.", "New Moon", "GPE"),
    ],
)
def test_a_works_title_is_no_organisation_or_place(
    kb: KnowledgeBase, body: str, surface: str, label: str
) -> None:
    assert surface not in linked(kb, body, (surface, label))


def test_a_persons_film_is_still_the_person(kb: KnowledgeBase) -> None:
    body = "Critics praised the Gary Ross film, and Suzanne Collins' novel sold well."
    entities = linked(kb, body, ("Gary Ross", "PERSON"), ("Suzanne Collins", "PERSON"))
    assert entities["Gary Ross"].entity_kind == "person"
    assert entities["Suzanne Collins"].entity_kind == "person"


@pytest.mark.parametrize(
    ("body", "spans", "region"),
    [
        (
            "The ranch near Eldorado, Texas, about 45 miles south of San Angelo, was raided.",
            [("Eldorado", "GPE"), ("Texas", "GPE"), ("San Angelo", "GPE")],
            "Texas",
        ),
        # A little-known namesake of a known place is taken at its word, list or not.
        (
            "The family lived in Northfield, Illinois, and Chicago before the move.",
            [("Northfield", "GPE"), ("Illinois", "GPE"), ("Chicago", "GPE")],
            "Illinois",
        ),
    ],
)
def test_a_place_written_with_the_state_it_lies_in_still_is_located_there(
    kb: KnowledgeBase, body: str, spans: list[tuple[str, str]], region: str
) -> None:
    result = EntityLinker(kb).link("", body, mentions(body, *spans))
    name = spans[0][0]
    (draft,) = [d for d in result.new_entities if d.display_name == name]
    assert Tag("region", region) in draft.tags


def test_an_edition_of_a_recurring_event_is_that_event(kb: KnowledgeBase) -> None:
    """ "The 79th Academy Awards", which the recogniser calls an organisation, are the Academy
    Awards; an edition of an event the knowledge base lacks is a new event. Ordinal names of
    other things stay what they are."""
    body = (
        "DeGeneres hosted the 79th Academy Awards in 2007 and the 3rd Annual Tribeca Film Festival."
    )
    found = linked(
        kb, body, ("79th Academy Awards", "ORG"), ("3rd Annual Tribeca Film Festival", "ORG")
    )
    assert found["Academy Awards"].entity_kind == "event"
    assert "79th Academy Awards" in found["Academy Awards"].surfaces
    assert found["3rd Annual Tribeca Film Festival"].entity_kind == "event"
    body = "Soldiers of the 101st Airborne Division left the base at 117th Street on Friday."
    found = linked(kb, body, ("101st Airborne Division", "ORG"), ("117th Street", "FAC"))
    assert found["101st Airborne Division"].entity_kind == "organization"
    assert found["117th Street"].entity_kind == "place"


def test_a_participle_before_a_known_name_and_a_rank_after_a_unit_are_cut(
    kb: KnowledgeBase,
) -> None:
    body = "Considering Lionsgate recently absorbed Summit, a change in director could be likely."
    found = linked(kb, body, ("Considering Lionsgate", "ORG"))
    assert set(found) == {"Lionsgate"}
    body = "She then opened fire on the others, Philadelphia Homicide Capt. James Clark said."
    found = linked(kb, body, ("Philadelphia Homicide Capt", "ORG"), ("James Clark", "PERSON"))
    assert "Philadelphia Homicide" in found
    assert "Philadelphia Homicide Capt" not in found


def test_a_drink_driving_charge_is_no_organisation(kb: KnowledgeBase) -> None:
    body = "The man was charged with DWI and leaving the scene, and DWI carries a jail term."
    result = EntityLinker(kb).link("", body, every(body, "DWI", "ORG"))
    assert result.entities == []


def test_a_persons_name_ends_where_lower_case_prose_begins(kb: KnowledgeBase) -> None:
    body = "New Orleans signed a back after putting Chris Ivory on Injured Reserve on Monday."
    found = linked(kb, body, ("Chris Ivory on Injured Reserve", "PERSON"))
    assert found["Chris Ivory"].entity_kind == "person"
    assert "Chris Ivory on Injured Reserve" not in found
    # Particles, alone or joined by a hyphen or an apostrophe, belong to the name.
    for name in ("Abdel Fattah el-Sisi", "Ludwig van Beethoven", "Anne Marie d'Ornano"):
        body = f"The crowd cheered {name} loudly, and {name} waved back."
        found = by_name(EntityLinker(kb).link("", body, every(body, name, "PERSON")))
        assert name in found


def test_a_role_written_before_a_persons_name_is_not_part_of_it(kb: KnowledgeBase) -> None:
    body = "Comedian Ellen DeGeneres will host the Oscars again, the academy said on Friday."
    found = linked(kb, body, ("Comedian Ellen DeGeneres", "PERSON"))
    assert found["Ellen DeGeneres"].entity_kind == "person"
    assert "Comedian Ellen DeGeneres" not in found


def test_a_known_company_called_a_nationality_is_the_company(kb: KnowledgeBase) -> None:
    body = "Having delivered a hit, Ross expects a raise from Lionsgate after French critics raved."
    found = linked(kb, body, ("Lionsgate", "NORP"), ("French", "NORP"), config=NATIONALITIES)
    assert found["Lionsgate"].entity_kind == "company"
    assert found["France"].entity_kind == "place"


def test_a_nationality_and_an_adjective_name_nothing(kb: KnowledgeBase) -> None:
    body = (
        "INS Mysore, the Indian Naval destroyer, caught the pirates; the Indian Navy said the "
        "Indian Naval action took an hour."
    )
    found = by_name(
        EntityLinker(kb).link(
            "", body, [*every(body, "Indian Naval", "LOC"), *mentions(body, ("Indian Navy", "ORG"))]
        )
    )
    assert "Indian Naval" not in found
    assert found["Indian Navy"].entity_kind == "organization"


def test_an_award_is_no_person_or_organisation(kb: KnowledgeBase) -> None:
    body = (
        "She received a 2008 MacArthur Fellowship and shared the Most Valuable Player Award, "
        "then watched the Academy Awards."
    )
    found = linked(
        kb,
        body,
        ("MacArthur Fellowship", "ORG"),
        ("Most Valuable Player Award", "ORG"),
        ("Academy Awards", "EVENT"),
    )
    assert "MacArthur Fellowship" not in found
    assert "Most Valuable Player Award" not in found
    assert found["Academy Awards"].entity_kind == "event"  # known: still linked


def test_a_version_is_no_new_place(kb: KnowledgeBase) -> None:
    body = (
        "The flaw affects Internet Explorer 8 (IE8) and IE9 on Windows. Users of IE8 should "
        "update, the company said; IE8 users in Paris were attacked."
    )
    found = [*every(body, "IE8", "GPE"), *mentions(body, ("IE9", "GPE"), ("Paris", "GPE"))]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "IE8" not in entities
    assert "IE9" not in entities
    assert entities["Paris"].entity_kind == "place"


def test_a_word_after_a_quote_that_another_name_holds_is_no_surname(kb: KnowledgeBase) -> None:
    body = "Fans of Madonna 'Like a Prayer' Records stayed home."
    found = mentions(body, ("Madonna", "PERSON"), ("Records", "ORG"))
    assert "Madonna Records" not in by_name(EntityLinker(kb).link("", body, found))


def test_an_auxiliary_participle_opening_a_name_is_cut(kb: KnowledgeBase) -> None:
    body = (
        "Hugh Jackman will host the Oscars. Having Jackman as host is a departure, and Jackman "
        "said he was thrilled."
    )
    found = [
        *mentions(body, ("Hugh Jackman", "PERSON"), ("Having Jackman", "PERSON")),
        every(body, "Jackman", "GPE")[-1],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Hugh Jackman"].mention_count == 3
    assert "Having Jackman" not in entities


@pytest.mark.parametrize("country", ["U.S.", "U. S.", "UK"])
def test_a_persons_name_does_not_run_through_a_countrys_abbreviation(
    kb: KnowledgeBase, country: str
) -> None:
    body = f"Regina Benjamin {country} Surgeon General nominee. Obama praised Regina Benjamin."
    cut = f"Benjamin {country} Surgeon"
    found = [
        Mention(cut, "PERSON", body.index(cut), body.index(cut) + len(cut)),
        *mentions(body, ("Obama", "PERSON")),
        every(body, "Regina Benjamin", "PERSON")[1],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Regina Benjamin"].mention_count == 2
    assert not any(
        "Surgeon" in name or "Benjamin " in name for name in entities if name != "Regina Benjamin"
    )
