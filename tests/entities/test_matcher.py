"""The dictionary matcher: knowledge-base names found where the recogniser found nothing."""

from __future__ import annotations

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, LinkingConfig
from herald.entities.matcher import dictionary_mentions
from herald.entities.model import EntityRecord, Tag


def kb() -> KnowledgeBase:
    return KnowledgeBase(
        [
            EntityRecord(
                "ent_geosurvey",
                "United States Geological Survey",
                "organization",
                "the US agency for earth sciences: earthquakes, maps",
                aliases=("US Geological Survey", "USGS"),
            ),
            EntityRecord(
                "ent_sumatra",
                "Sumatra",
                "place",
                "island of Indonesia",
                tags=(Tag("place_type", "country"),),  # prior 1.0: a well-known name
            ),
            EntityRecord(
                "ent_police",
                "Police",
                "place",
                "a small town",
                tags=(Tag("place_type", "city"), Tag("population", "5000")),
            ),
            EntityRecord("ent_jordan_p", "Jordan", "person", "basketball player"),
            EntityRecord("ent_horton", "D.R. Horton", "company", "homebuilder"),
            EntityRecord(
                "ent_jordan", "Jordan", "place", "country", tags=(Tag("place_type", "country"),)
            ),
        ]
    )


def test_names_the_recogniser_missed_are_found_with_their_kind() -> None:
    text = (
        "The quake struck off Sumatra on Tuesday, the US Geological Survey said. "
        "Police said the USGS had warned residents."
    )
    found = dictionary_mentions(text, kb(), [])
    assert [(m.text, m.label) for m in found] == [
        ("Sumatra", "GPE"),
        ("US Geological Survey", "ORG"),
        ("USGS", "ORG"),
    ]
    # "Police" opens a sentence and names only a little-known town: not a match.
    assert all(text[m.start : m.end] == m.text for m in found)


def test_spans_the_recogniser_found_and_ambiguous_names_are_left_alone() -> None:
    text = "Officials in Jordan met the US Geological Survey team near Sumatra."
    start = text.index("US Geological Survey")
    recognised = [Mention("US Geological Survey", "ORG", start, start + 20)]
    found = dictionary_mentions(text, kb(), recognised)
    # "Jordan" is a person and a place in the knowledge base: only the recogniser decides.
    assert [m.text for m in found] == ["Sumatra"]


def test_the_linker_links_what_only_the_dictionary_found() -> None:
    body = "Scientists at the US Geological Survey measured the earthquake's depth."
    on = EntityLinker(kb()).link("", body, [])
    off = EntityLinker(kb(), LinkingConfig(dictionary=False)).link("", body, [])
    assert [e.display_name for e in on.entities] == ["United States Geological Survey"]
    assert off.entities == []


def test_a_one_word_name_the_text_uses_as_a_word_is_not_matched() -> None:
    known = KnowledgeBase(
        [EntityRecord("ent_people", "People", "organization", "celebrity news magazine")]
    )
    assert [m.text for m in dictionary_mentions("Her rep told People on Friday.", known, [])] == [
        "People"
    ]
    headline = "Thousands Of People Flee Fire\n\nMany people left their homes on Friday."
    assert dictionary_mentions(headline, known, []) == []


def test_a_known_name_holding_the_recognisers_shorter_spans_is_returned() -> None:
    text = "Scientists at the United States Geological Survey measured the quake."
    start = text.index("the United States")
    # The recogniser cut the name in two: "the United States" and "Geological Survey".
    recognised = [
        Mention("the United States", "GPE", start, start + 17),
        Mention("Geological Survey", "ORG", start + 18, start + 35),
    ]
    found = dictionary_mentions(text, kb(), recognised)
    assert [(m.text, m.label) for m in found] == [("United States Geological Survey", "ORG")]
    # A known name inside a longer recognised one is not.
    text = "Scientists at the United States Geological Survey Cascades Observatory said so."
    start = text.index("United States")
    longer = "United States Geological Survey Cascades Observatory"
    assert dictionary_mentions(text, kb(), [Mention(longer, "ORG", start, start + 52)]) == []


def test_spaced_initials_are_one_word_of_a_known_name() -> None:
    text = "Shares of D. R. Horton rose on Tuesday, and D.R. Horton said orders grew."
    found = dictionary_mentions(text, kb(), [])
    assert [(m.text, m.label) for m in found] == [("D. R. Horton", "ORG"), ("D.R. Horton", "ORG")]


def test_a_possessive_is_not_part_of_a_name() -> None:
    text = (
        "The US Geological Survey's report on Sumatra’s quake came out. The USGS's team and "
        "D.R. Horton's builders met."
    )
    found = dictionary_mentions(text, kb(), [])
    assert [(m.text, m.label) for m in found] == [
        ("US Geological Survey", "ORG"),
        ("Sumatra", "GPE"),
        ("USGS", "ORG"),
        ("D.R. Horton", "ORG"),
    ]


def test_a_name_holding_a_possessive_keeps_it() -> None:
    names = KnowledgeBase(
        [
            EntityRecord("ent_pboc", "People's Bank of China", "organization", "central bank"),
            EntityRecord(
                "ent_mcd",
                "McDonald's",
                "company",
                "restaurant chain",
                tags=(Tag("index", "S&P 500"), Tag("index", "Dow Jones")),  # well known
            ),
            EntityRecord("ent_people", "People", "organization", "a magazine"),
        ]
    )
    text = "Shares of McDonald's fell as the People's Bank of China cut rates."
    found = dictionary_mentions(text, names, [])
    assert [m.text for m in found] == ["McDonald's", "People's Bank of China"]
