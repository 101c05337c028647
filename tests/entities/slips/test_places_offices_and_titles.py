"""The small recogniser's other slips: places named once or located, offices, titles, ships and the
words around a name.

Each test gives the linker the mentions the recogniser produced for such a sentence (its cut
spans, wrong labels and glued names, as seen on the Wikipedia Current Events summaries of
September 2015), so each case is tested whatever a model version does with the sentence.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import (
    EntityLinker,
    document_text,
)
from herald.entities.model import EntityRecord, Tag
from tests.entities.slips.support import by_name, every, linked, mentions


def test_a_place_named_once_becomes_an_entity_but_not_a_one_word_organisation(
    kb: KnowledgeBase,
) -> None:
    body = "The ferry to Sicily was cancelled on Friday, and Interoute repaired the cable."
    entities = linked(kb, body, ("Sicily", "GPE"), ("Interoute", "ORG"))
    assert entities["Sicily"].entity_kind == "place"
    assert "Interoute" not in entities  # one word named once: too little to go on


def test_a_surname_alone_is_the_only_known_person_of_that_name(kb: KnowledgeBase) -> None:
    kb.add(EntityRecord("ent_jeb_magruder", "Jeb Magruder", "person"))
    body = "Fred LaRue, a Magruder campaign aide, died on Saturday."
    spans = [("Fred LaRue", "PERSON"), ("Magruder", "PERSON")]
    entities = linked(kb, body, *spans)
    assert entities["Jeb Magruder"].entity_id == "ent_jeb_magruder"
    assert entities["Jeb Magruder"].surfaces == ("Magruder",)
    # Two known people of that surname: the surname alone decides nothing.
    kb.add(EntityRecord("ent_pat_magruder", "Pat Magruder", "person"))
    assert {"Jeb Magruder", "Pat Magruder", "Magruder"}.isdisjoint(linked(kb, body, *spans))
    # Renaming an entity drops its old surname from the index.
    kb.add(EntityRecord("ent_pat_magruder", "Pat Ryan", "person"))
    assert [r.id for r in kb.lookup_surname("magruder")] == ["ent_jeb_magruder"]
    # A surname the recogniser called a nationality or a place is not taken for the person.
    assert "Jeb Magruder" not in linked(kb, body, ("Magruder", "NORP"))


def test_a_nickname_quoted_inside_a_name_is_not_part_of_it(kb: KnowledgeBase) -> None:
    body = (
        'Vincent "The Chin" Gigante, the mob boss, died in prison. '
        "Gigante had feigned mental illness for decades."
    )
    found = [
        *mentions(body, ('Vincent "The Chin" Gigante', "PERSON")),
        every(body, "Gigante", "PERSON")[-1],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Vincent Gigante"].entity_kind == "person"
    assert entities["Vincent Gigante"].mention_count == 2


def test_offices_and_sports_abbreviations_are_not_organisations(kb: KnowledgeBase) -> None:
    body = (
        "Obama named Regina Benjamin U.S. Surgeon General. A spokesman said the Surgeon General "
        "starts soon. Thomas went on IR after a TD run; IR ends his season, his TD the last one."
    )
    found = [
        *mentions(body, ("Regina Benjamin", "PERSON"), ("U.S. Surgeon General", "ORG")),
        *every(body, "IR", "ORG"),
        *every(body, "TD", "ORG"),
        every(body, "Surgeon General", "ORG")[-1],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Regina Benjamin" in entities
    assert not {"U.S. Surgeon General", "Surgeon General", "IR", "TD"} & set(entities)


def test_a_prison_is_a_place_whatever_the_recogniser_called_it(kb: KnowledgeBase) -> None:
    body = "He was moved from the county jail to Folsom State Prison on Monday."
    entities = linked(kb, body, ("Folsom State Prison", "PERSON"))
    assert entities["Folsom State Prison"].entity_kind == "place"


_WORDS = [
    "Governor", "of", "Wisconsin", "Scott", "Walker", "Harriman", "Tennessee", "Ala.", "U.S",
    "Islamic", "State", "Iraq", "and", "the", "Levant", "Tropical", "Storm", "Etau", "Dushanbe",
]  # fmt: skip
_GAPS = [" ", "  ", "\n", ", ", "'s ", ". "]
_LABELS = ["PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "PRODUCT"]


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    words=st.lists(
        st.tuples(st.sampled_from(_WORDS), st.sampled_from(_GAPS)), min_size=1, max_size=14
    ),
    spans=st.lists(
        st.tuples(st.integers(0, 13), st.integers(0, 5), st.sampled_from(_LABELS)), max_size=6
    ),
)
def test_any_spans_the_recogniser_may_return_link_without_error(
    kb: KnowledgeBase, words: list[tuple[str, str]], spans: list[tuple[int, int, str]]
) -> None:
    """Spans over whole words (as the recogniser's are), with any label, over words joined by
    any spacing or punctuation."""
    starts, body = [], ""
    for word, gap in words:
        starts.append(len(body))
        body += word + gap
    ends = [start + len(word) for start, (word, _) in zip(starts, words, strict=True)]
    found = []
    for first, extra, label in spans:
        if first < len(words):
            last = min(len(words) - 1, first + extra)
            found.append(
                Mention(body[starts[first] : ends[last]], label, starts[first], ends[last])
            )
    result = EntityLinker(kb).link("", body, found)
    assert all(0.0 <= e.confidence <= 1.0 for e in result.entities)
    assert {d.id for d in result.new_entities} <= {e.entity_id for e in result.entities}


def test_a_word_the_recogniser_kept_before_a_persons_name_is_not_part_of_it(
    kb: KnowledgeBase,
) -> None:
    body = (
        "Unemployed John Jenkin, 23, was arrested at the house. Jenkin denied the charge. "
        "Klitschko beat the American Hasim Rahman in 2008; Hasim Rahman has not fought since."
    )
    found = [
        *mentions(body, ("Unemployed John Jenkin", "PERSON"), ("the American Hasim Rahman", "ORG")),
        every(body, "Jenkin", "PERSON")[-1],
        every(body, "Hasim Rahman", "PERSON")[-1],
    ]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["John Jenkin"].mention_count == 2
    assert entities["Hasim Rahman"].entity_kind == "person"
    assert entities["Hasim Rahman"].mention_count == 2
    # A title and a surname only name nobody in particular.
    body = "Sheriff's Deputy Ortiz, 35, was killed outside an apartment."
    assert linked(kb, body, ("Deputy Ortiz", "PERSON")) == {}


def test_ships_and_quoted_titles_are_not_people(kb: KnowledgeBase) -> None:
    body = (
        "Gary Ross will direct 'Catching Fire', the sequel. Lionsgate wants 'Catching Fire' "
        "out next year. INS Sukanya foiled a piracy attempt; INS Sukanya escorted the ships."
    )
    found = [*every(body, "Catching Fire", "PERSON"), *every(body, "INS Sukanya", "PERSON")]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Catching Fire" not in entities
    assert "INS Sukanya" not in entities


def test_a_discovered_name_quoted_as_a_title_is_no_entity_there(kb: KnowledgeBase) -> None:
    """ "Sandy Bridge", made a place by an earlier item, is a product's code name in quotes."""
    first = "Intel shipped Sandy Bridge chips in January, and Sandy Bridge sold well."
    linker = EntityLinker(kb)
    made = linker.link("", first, every(first, "Sandy Bridge", "GPE"))
    for draft in made.new_entities:
        kb.add(draft.to_record())
    assert by_name(made)["Sandy Bridge"].entity_kind == "place"
    later = 'The servers use Intel\'s Atom and "Sandy Bridge" processors.'
    assert "Sandy Bridge" not in by_name(
        linker.link("", later, every(later, "Sandy Bridge", "GPE"))
    )
    # a possessive's apostrophe before a name and a quotation after it quote nothing
    first = "Peter Jennings of ABC News interviewed her, and Peter Jennings asked about the clinic."
    made = linker.link("", first, every(first, "Peter Jennings", "PERSON"))
    for draft in made.new_entities:
        kb.add(draft.to_record())
    later = 'She told ABC News\' Peter Jennings. "Sometimes it is very frustrating."'
    found = every(later, "Peter Jennings", "PERSON")
    assert by_name(linker.link("", later, found))["Peter Jennings"].entity_kind == "person"


def test_the_region_named_tells_places_of_one_name_apart() -> None:
    def bloomington(region: str) -> EntityRecord:
        return EntityRecord(
            f"ent_bloomington_{region.lower()}",
            "Bloomington",
            "place",
            tags=(Tag("place_type", "city"), Tag("country", "US"), Tag("region", region)),
        )

    minnesota = EntityRecord(
        "ent_mn", "Minnesota", "place", tags=(Tag("place_type", "region"), Tag("country", "US"))
    )
    kb = KnowledgeBase([bloomington("Indiana"), bloomington("Minnesota"), minnesota])
    body = "A woman was struck outside a store in Bloomington, police in Minnesota said."
    entities = linked(kb, body, ("Bloomington", "GPE"), ("Minnesota", "GPE"))
    assert entities["Bloomington"].entity_id == "ent_bloomington_minnesota"


def test_a_nationality_tells_places_of_one_name_apart(kb: KnowledgeBase) -> None:
    # The seed knows a Tuscany in Canada and the Italian region; "Italian officials" names Italy.
    assert {r.first_tag("country") for r in kb.lookup("tuscany")} == {"CA", "IT"}
    body = "Wildfires spread across Tuscany on Monday, Italian officials said."
    entities = linked(kb, body, ("Tuscany", "GPE"), ("Italian", "NORP"))
    tuscany = kb.get(entities["Tuscany"].entity_id)
    assert tuscany is not None
    assert tuscany.first_tag("country") == "IT"


def test_a_lower_case_province_after_a_place_is_not_part_of_its_name(kb: KnowledgeBase) -> None:
    body = "The earthquake struck Aceh province on Tuesday, killing at least 22 people."
    aceh = kb.get(linked(kb, body, ("Aceh province", "GPE"))["Aceh"].entity_id)
    assert aceh is not None
    assert aceh.first_tag("iso3166_2") == "ID-AC"  # the seed's province


def test_seas_straits_and_belts_are_places_whatever_the_recogniser_called_them(
    kb: KnowledgeBase,
) -> None:
    # The small model calls the Ring of Fire an organisation and cuts "the Strait of" from
    # "Hormuz", which it calls a person; the Red Sea is the sea, not Sudan's state of that name.
    body = (
        "Indonesia lies on the Pacific Ring of Fire. Shipping through the Red Sea and the "
        "Strait of Hormuz was not affected, and migrants kept crossing the Mediterranean."
    )
    entities = linked(
        kb,
        body,
        ("the Pacific Ring of Fire", "ORG"),
        ("the Red Sea", "LOC"),
        ("the Strait of", "LOC"),
        ("Hormuz", "PERSON"),
        ("Mediterranean", "LOC"),
    )
    for name in ("Ring of Fire", "Red Sea", "Strait of Hormuz", "Mediterranean Sea"):
        record = kb.get(entities[name].entity_id)
        assert record is not None
        assert record.entity_kind == "place"
        assert record.first_tag("place_type") == "area", name
    assert "Hormuz" not in entities


def test_an_office_a_storm_word_and_miss_name_nobody_of_their_own(kb: KnowledgeBase) -> None:
    # "State" of "Secretary of State John Kerry" is part of an office's name; a storm's word
    # without its name ("caused by Tropical Storm…", a cut headline) names no storm; "Miss" is
    # a title like "Ms" ("Miss Jenkin" is Katie Jenkin, named in full).
    body = (
        "U.S. Secretary of State John Kerry says the United States will accept more refugees. "
        "Flooding was caused by Tropical Storm… The bodies of Ms McMeekin and Miss Jenkin were "
        "found in Millom. Katie Jenkin, 14, lived there."
    )
    entities = linked(
        kb,
        body,
        ("State", "ORG"),
        ("John Kerry", "PERSON"),
        ("Tropical Storm", "ORG"),
        ("Miss Jenkin", "PERSON"),
        ("Katie Jenkin", "PERSON"),
    )
    assert "Tropical Storm" not in entities
    assert "Miss Jenkin" not in entities
    assert entities["Katie Jenkin"].mention_count == 2
    # (as a headline and its item wrote it)
    title = "U.S. Secretary of State John Kerry says that the United States will accept 85,000 r…"
    body = (
        "U.S. Secretary of State John Kerry says that the United States will accept 85,000 "
        "refugees from the world in 2016 and 100,000 in 2017."
    )
    text = document_text(title, body)
    found = [Mention("State", "ORG", m.start(), m.end()) for m in re.finditer(r"\bState\b", text)]
    found += every(text, "John Kerry", "PERSON") + every(text, "U.S.", "GPE")
    found += every(text, "the United States", "GPE")
    assert "State" not in by_name(EntityLinker(kb).link(title, body, found))


def test_words_around_a_name_read_closely(kb: KnowledgeBase) -> None:
    # "to Goldwater's campaign": the preposition governs the campaign, not the name.
    body = (
        "He backed the defeated candidate Barry Goldwater in 1964. After contributing heavily "
        "to Goldwater's campaign, he became a leading supporter of the party."
    )
    found = [*mentions(body, ("Barry Goldwater", "PERSON")), *every(body, "Goldwater's", "PERSON")]
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Barry Goldwater"].mention_count == 2
    # A kinship word far after a name says nothing about it; a place in apposition is a place.
    body = (
        "A climber stuck on Mount Aspiring after seeing his brother die was rescued. The "
        "rioting spread to Greece's second city, Thessaloniki."
    )
    entities = linked(kb, body, ("Mount Aspiring", "LOC"), ("Thessaloniki", "ORG"))
    assert entities["Mount Aspiring"].entity_kind == "place"
    assert entities["Thessaloníki"].entity_kind == "place"


def test_an_organisations_first_word_stands_for_it(kb: KnowledgeBase) -> None:
    body = (
        "Velorant Foods said the plant would reopen. A Velorant spokesman declined to comment, "
        "and the Interior Department and the Interior's staff reviewed the plans."
    )
    found = mentions(
        body,
        ("Velorant Foods", "ORG"),
        ("Velorant", "ORG"),
        ("the Interior Department", "ORG"),
        ("the Interior's", "ORG"),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Velorant Foods"].mention_count == 2
    assert "Velorant" not in entities
    assert entities["Interior Department"].mention_count == 2
    assert "Interior" not in entities


def test_a_name_before_a_word_for_its_people_is_a_place(kb: KnowledgeBase) -> None:
    body = "A Perth man survived two nights in an ice cave before rescuers reached him."
    entities = linked(kb, body, ("Perth", "ORG"))
    assert entities["Perth"].entity_kind == "place"
    assert kb.get(entities["Perth"].entity_id).first_tag("country") == "AU"


def test_a_name_does_not_run_from_the_title_into_the_text(kb: KnowledgeBase) -> None:
    title = "Colts clinch playoff spot by beating Jags"
    body = "Quarterback Peyton Manning was nearly perfect as the Colts won on Thursday night."
    text = document_text(title, body)
    glued = "Jags\n\nQuarterback Peyton Manning"
    start = text.index(glued)
    found = [Mention(glued, "ORG", start, start + len(glued))]
    entities = by_name(EntityLinker(kb).link(title, body, found))
    assert entities["Peyton Manning"].entity_kind == "person"
    assert entities["Peyton Manning"].surfaces == ("Peyton Manning",)


def test_a_state_abbreviated_with_spaced_initials_is_the_state(kb: KnowledgeBase) -> None:
    body = (
        "Vishwanand Subryan, 23, of Schenectady, N. Y., was charged with vehicular manslaughter."
        " The crime boss bribed the police force of Old Tappan, N. J.\nHe was known as Chin."
    )
    found = mentions(
        body,
        ("Vishwanand Subryan", "PERSON"),
        ("Schenectady", "PERSON"),
        ("N. Y.", "PERSON"),
        ("Old Tappan", "LOC"),
        ("N. J.\nHe", "PERSON"),  # a name run across a sentence's end
    )
    entities = {e.display_name: e for e in EntityLinker(kb).link("", body, found).entities}
    assert entities["New York"].entity_kind == "place"
    assert entities["New York"].surfaces == ("N. Y",)
    assert entities["New Jersey"].entity_kind == "place"
    assert entities["New Jersey"].surfaces == ("N. J",)
    assert entities["Schenectady"].entity_kind == "place"
    assert not [
        e for e in entities.values() if e.entity_kind == "person" and "N." in e.display_name
    ]
    assert "He" not in entities


def test_where_a_person_lives_is_a_place(kb: KnowledgeBase) -> None:
    body = (
        "Vishwanand Subryan of Schenectady, New York, was charged. Luann Johnson, 66, of "
        "Burnsville was hit."
    )
    found = mentions(
        body,
        ("Vishwanand Subryan", "PERSON"),
        ("Schenectady,", "ORG"),  # the recogniser kept the comma
        ("New York", "GPE"),
        ("Luann Johnson", "PERSON"),
        ("Burnsville", "PERSON"),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Schenectady"].entity_kind == "place"
    assert entities["Schenectady"].surfaces == ("Schenectady",)
    assert entities["Burnsville"].entity_kind == "place"
    assert entities["Luann Johnson"].entity_kind == "person"
