"""Names resolved within one document: a full name and its later short forms are one entity.

The first test runs the real recogniser; the others give the linker the recogniser's known slips
directly (a surname called a place, a person's full name called an organisation), so each
variant is tested whatever the model version does with the sentence.
"""

from __future__ import annotations

import re

import pytest

from herald.enrich.ner import Mention
from herald.entities.cues import team_cue
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker, LinkedEntity, LinkResult, document_text
from herald.entities.model import EntityRecord
from herald.entities.names import without_initials
from tests.enrich.models import fresh_knowledge_base, recognizer

LAGARDE_TITLE = "ECB keeps rates on hold"
LAGARDE_BODY = (
    "Christine Lagarde, president of the European Central Bank, said in Frankfurt on Thursday "
    "that rates would stay where they are. Lagarde spoke after a meeting with Olaf Scholz in "
    "Berlin. The ECB expects inflation to ease next year, Lagarde added."
)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()


def by_name(result: LinkResult) -> dict[str, LinkedEntity]:
    return {e.display_name: e for e in result.entities}


def mentions(text: str, *spans: tuple[str, str, int]) -> list[Mention]:
    """Mentions of ``(surface, label, occurrence)``: the n-th (0-based) occurrence in text."""
    out = []
    for surface, label, occurrence in spans:
        found = [m.start() for m in re.finditer(re.escape(surface), text)]
        start = found[occurrence]
        out.append(Mention(surface, label, start, start + len(surface)))
    return out


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
