"""Teams resolved within one document: a city named in a game result, a college by its school or
a nickname in a text about sport is the team; the same names outside sport stay places,
institutions or people.

The tests give the linker the recogniser's mentions directly, so each variant is tested whatever
the model version does with the sentence.
"""

from __future__ import annotations

import pytest

from herald.entities.cues import team_cue
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from tests.entities.within_document.support import by_name, mentions


def test_a_city_named_as_a_team_in_a_result_is_the_team(kb: KnowledgeBase) -> None:
    body = (
        "Andrew Luck threw for 205 yards as the Colts clinched a playoff berth. Luck said after "
        "leading Indianapolis to a 20-13 victory over Kansas City that the quarterback's job "
        "was easy with this defense."
    )
    found = mentions(
        body,
        ("Andrew Luck", "PERSON", 0),
        ("Colts", "ORG", 0),
        ("Luck", "PERSON", 1),
        ("Indianapolis", "GPE", 0),
        ("Kansas City", "GPE", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Indianapolis Colts"].entity_kind == "organization"
    assert "Indianapolis" in entities["Indianapolis Colts"].surfaces
    # Kansas City's NFL team, not its baseball team: the report's words tell the sport.
    assert entities["Kansas City Chiefs"].entity_kind == "organization"
    assert "Indianapolis" not in entities
    assert "Kansas City" not in entities


def test_a_city_dealing_with_its_players_is_the_team(kb: KnowledgeBase) -> None:
    body = (
        "New Orleans picked up running back DeShawn Wynn on Monday after putting Chris Ivory on "
        "injured reserve; Wynn ran for two touchdowns in the NFL last season."
    )
    found = mentions(body, ("New Orleans", "GPE", 0), ("DeShawn Wynn", "PERSON", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["New Orleans Saints"].entity_kind == "organization"
    assert "New Orleans" not in entities


def test_a_college_team_is_named_by_its_school(kb: KnowledgeBase) -> None:
    body = (
        "Creighton 65, Drake 53: Doug McDermott scored 23 points and had nine rebounds as the "
        "top-seeded Bluejays beat Drake in the quarterfinals of the Missouri Valley basketball "
        "tournament. Drake guard Ben Simons said the game got away in the last five minutes."
    )
    found = mentions(
        body,
        ("Creighton", "GPE", 0),
        ("Drake", "PERSON", 0),
        ("Doug McDermott", "PERSON", 0),
        ("Bluejays", "ORG", 0),
        ("Drake", "ORG", 1),
        ("Drake", "ORG", 2),
        ("Ben Simons", "PERSON", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    creighton = entities["Creighton Bluejays"]
    assert creighton.entity_kind == "organization"
    assert set(creighton.surfaces) == {"Creighton", "Bluejays"}
    assert entities["Drake Bulldogs"].entity_kind == "organization"
    assert "Creighton" not in entities
    assert "Drake" not in entities


def test_a_state_abbreviated_after_a_place_stays_the_state_beside_its_team(
    kb: KnowledgeBase,
) -> None:
    body = (
        "Tyler Hansbrough had 20 points and nine rebounds to help the Tar Heels to a 91-73 "
        "victory over Evansville in Chapel Hill, N.C., and North Carolina (10-0) stayed unbeaten."
    )
    found = mentions(
        body,
        ("Tyler Hansbrough", "PERSON", 0),
        ("Tar Heels", "ORG", 0),
        ("Evansville", "GPE", 0),
        ("Chapel Hill", "GPE", 0),
        ("N.C.", "GPE", 0),
        ("North Carolina", "GPE", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert set(entities["North Carolina Tar Heels"].surfaces) == {"North Carolina", "Tar Heels"}
    assert entities["North Carolina"].entity_kind == "place"
    assert entities["North Carolina"].surfaces == ("N.C",)
    assert entities["Evansville Purple Aces"].entity_kind == "organization"


@pytest.mark.parametrize(
    ("text", "name", "expected"),
    [
        ("The two factored into Creighton's 65-53 victory against Drake.", "Creighton", True),
        ("Top-ranked North Carolina waited for Tyler Hansbrough.", "North Carolina", True),
        ("Creighton will play No. 5 seed Indiana State on Saturday.", "Indiana State", True),
        ("The third-seeded Evansville team lost.", "Evansville", True),
        ("Creighton 65, Drake 53.", "Drake", True),
        ("He moved to North Carolina last year.", "North Carolina", False),
        ("Creighton's 65-year-old coach retired.", "Creighton", False),
    ],
)
def test_a_teams_rank_or_result_reads_as_a_team(text: str, name: str, expected: bool) -> None:
    start = text.index(name)
    assert team_cue(text, start, start + len(name)) is expected


def test_a_college_teams_school_outside_sport_is_not_the_team(kb: KnowledgeBase) -> None:
    body = "Drake told the crowd in Toronto that the new album comes out on Friday."
    found = mentions(body, ("Drake", "PERSON", 0), ("Toronto", "GPE", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert "Drake Bulldogs" not in entities
    assert "Toronto" in entities


def test_a_city_outside_a_game_result_stays_a_place(kb: KnowledgeBase) -> None:
    body = (
        "Being the heir to Peyton Manning in Indianapolis is heady stuff for a rookie "
        "quarterback taking the reins of a franchise that won two games last season."
    )
    found = mentions(body, ("Peyton Manning", "PERSON", 0), ("Indianapolis", "GPE", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Indianapolis"].entity_kind == "place"


def test_a_team_nickname_links_only_in_a_text_about_sport(kb: KnowledgeBase) -> None:
    sport = "The Saints placed running back Reggie Bush on injured reserve before the game."
    found = mentions(sport, ("Saints", "ORG", 0), ("Reggie Bush", "PERSON", 0))
    assert "New Orleans Saints" in by_name(EntityLinker(kb).link("", sport, found))
    tour = "A Ride the Ducks tour vehicle and a charter bus crashed on the bridge in Seattle."
    found = mentions(tour, ("Ducks", "ORG", 0), ("Seattle", "GPE", 0))
    assert "Anaheim Ducks" not in by_name(EntityLinker(kb).link("", tour, found))


def test_team_and_institution_names_are_not_people(kb: KnowledgeBase) -> None:
    # "Red" is a given name, but the knowledge base knows the Red Sox as a team only.
    body = "The Red Sox made an offer to first baseman Mark Teixeira, the team said."
    found = mentions(body, ("Red Sox", "ORG", 0), ("Mark Teixeira", "PERSON", 0))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Boston Red Sox"].entity_kind == "organization"
    # An unknown name ending in an organisation's word is no person, whatever the label.
    body = (
        "Indiana State beat Evansville on Friday. Coach Greg Lansing said Indiana State "
        "played its best game of the season."
    )
    found = mentions(body, ("Indiana State", "PERSON", 0), ("Indiana State", "PERSON", 1))
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Indiana State"].entity_kind == "organization"


def test_news_outlets_and_award_ceremonies_link_with_their_kinds(kb: KnowledgeBase) -> None:
    body = (
        "Ellen DeGeneres will host the Academy Awards again, the show's producers told "
        "The Hollywood Reporter on Friday, and TMZ confirmed it."
    )
    found = mentions(
        body,
        ("Ellen DeGeneres", "PERSON", 0),
        ("the Academy Awards", "ORG", 0),
        ("The Hollywood Reporter", "ORG", 0),
        ("TMZ", "ORG", 0),
    )
    entities = by_name(EntityLinker(kb).link("", body, found))
    assert entities["Academy Awards"].entity_kind == "event"
    assert entities["The Hollywood Reporter"].entity_kind == "organization"
    assert entities["TMZ"].entity_kind == "organization"
