"""Admission: a name the rules leave out becomes a new entity when the trained admission model
is sure enough of it, and never when the lists of what is no name refuse it.

Real text through Herald's own recogniser and the bundled admission model."""

from __future__ import annotations

from dataclasses import replace

from herald.entities.linking import EntityLinker, LinkingConfig
from tests.enrich.models import fresh_knowledge_base, linked_by_name, trained_recognizer

# A results table names each club once, by its town: organisations the rules alone leave out
# (one mention, one word, no word saying what it is).
STANDINGS = (
    "BASKETBALL - LEAGUE STANDINGS\n\nStandings of the regional basketball league after games"
    " played on Sunday (tabulate under won, lost, points):\n\nOrebro 9 2 20\nUmea 8 3 19\n"
    "Sundsvall 6 5 17\nLulea 5 6 16\nBoras 2 9 13"
)
CLUBS = ("Orebro", "Umea", "Sundsvall", "Lulea", "Boras")
# A web page's time stamp: a weekday and a time zone, which the recogniser tags as names.
DATELINE = (
    "Posted on Mon Jun 3, 2024 08:45 AM EDT\n\nFire crews in Reno fought a blaze at a"
    " warehouse on Monday, the Reno Fire Department said."
)


entities = linked_by_name


def test_a_results_table_names_its_clubs_as_organisations() -> None:
    found = entities(STANDINGS)
    for club in CLUBS:
        assert found[club].entity_kind == "organization"
        # the model's probability, which is calibrated already, and at least the threshold
        assert LinkingConfig().admission_threshold <= found[club].confidence <= 1.0


def test_without_admission_the_rules_leave_the_clubs_out() -> None:
    found = entities(STANDINGS, LinkingConfig(admission_threshold=1.0))
    assert not set(CLUBS) & set(found)


def test_what_the_lists_say_is_no_name_is_never_admitted() -> None:
    found = entities(DATELINE, LinkingConfig(admission_threshold=0.0))
    assert "Mon" not in found
    assert "EDT" not in found
    assert found["Reno Fire Department"].entity_kind == "organization"


# One organisation named once by one word: the recogniser is sure of the first, not of the
# second (it cannot tell a cable operator's name from a place's in so few words).
SURE = "Shares of Norvista fell 4 percent on Tuesday after the company cut its forecast."
UNSURE = "The ferry to Sicily was cancelled on Friday, and Interoute repaired the cable."


def test_the_recognisers_confidence_decides_a_name_named_once() -> None:
    (sure,) = [m for m in trained_recognizer().recognize([SURE])[0] if m.text == "Norvista"]
    (unsure,) = [m for m in trained_recognizer().recognize([UNSURE])[0] if m.text == "Interoute"]
    assert sure.score is not None
    assert unsure.score is not None
    assert sure.score > unsure.score
    assert entities(SURE)["Norvista"].entity_kind == "organization"
    assert "Interoute" not in entities(UNSURE)


def test_a_name_without_the_recognisers_confidence_is_decided_by_the_rest() -> None:
    """spaCy's recogniser gives no confidence: the models read their training mean for it."""
    mentions = trained_recognizer().recognize([SURE])[0]
    unknown = [replace(m, score=None) for m in mentions]
    linker = EntityLinker(fresh_knowledge_base())
    found = {e.display_name: e for e in linker.link("", SURE, unknown).entities}
    # one word named once, with no confidence to go on: the rules' caution stands
    assert "Norvista" not in found
