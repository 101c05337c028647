"""The small recogniser's other slips, and what a one-sentence news summary needs.

Each test gives the linker the mentions the recogniser produced for such a sentence (its cut
spans, wrong labels and glued names, as seen on the Wikipedia Current Events summaries of
September 2015), so each case is tested whatever a model version does with the sentence.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from herald.enrich.ner import Mention
from herald.entities.cues import ORG, PERSON, PLACE, kind_cues
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import (
    EntityLinker,
    LinkedEntity,
    LinkingConfig,
    LinkResult,
    document_text,
)
from herald.entities.model import EntityRecord, Tag
from tests.enrich.models import fresh_knowledge_base


@pytest.fixture
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()


def mentions(text: str, *spans: tuple[str, str]) -> list[Mention]:
    """Mentions of ``(surface, label)`` at the surface's first occurrence in ``text``."""
    out = []
    for surface, label in spans:
        start = text.index(surface)
        out.append(Mention(surface, label, start, start + len(surface)))
    return out


def every(text: str, surface: str, label: str) -> list[Mention]:
    """Mentions of ``surface`` at each of its occurrences in ``text``."""
    starts = [m.start() for m in re.finditer(re.escape(surface), text)]
    return [Mention(surface, label, start, start + len(surface)) for start in starts]


def by_name(result: LinkResult) -> dict[str, LinkedEntity]:
    return {e.display_name: e for e in result.entities}


def linked(
    kb: KnowledgeBase, body: str, *spans: tuple[str, str], config: LinkingConfig | None = None
) -> dict[str, LinkedEntity]:
    """The entities linked in ``body`` from the mentions ``spans`` (see :func:`mentions`)."""
    return by_name(EntityLinker(kb, config).link("", body, mentions(body, *spans)))


NATIONALITIES = LinkingConfig(nationalities=True)  # HERALD_ENTITY_NATIONALITIES=link


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
