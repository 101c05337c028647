"""Grouping within one item (:mod:`herald.entities.coreference`): the mentions that name one
thing are one group, and a short form joins the one full name it stands for.

Most tests run the real recogniser over real sentences, and give its mentions to the stages in
the linker's order (mention repair, then grouping); where the recogniser's slip is what is
tested (a first name it did not tag, a surname it called a nationality), the mentions are built
from the text as it produced them elsewhere, so the case is tested whatever a model version does.
"""

from __future__ import annotations

import pytest

from herald.enrich.ner import Mention
from herald.entities.coreference import group_mentions
from herald.entities.document import Group
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import document_text
from herald.entities.repair import repaired
from tests.enrich.models import fresh_knowledge_base, recognizer


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()


def grouped(kb: KnowledgeBase, title: str, body: str) -> list[Group]:
    """The item's groups, from the real recogniser's mentions, repaired as the linker does."""
    text = document_text(title, body)
    found = recognizer().recognize([text])[0]
    return group_mentions(text, repaired(text, found, kb, dictionary=False), kb)


def built(kb: KnowledgeBase, body: str, *spans: tuple[str, str, int]) -> list[Group]:
    """The groups of ``body`` when the recogniser found each ``(surface, label, occurrence)``:
    the n-th (0-based) occurrence of the surface."""
    found = []
    for surface, label, occurrence in spans:
        start = -1
        for _ in range(occurrence + 1):
            start = body.index(surface, start + 1)
        found.append(Mention(surface, label, start, start + len(surface)))
    return group_mentions(body, found, kb)


def spellings(groups: list[Group]) -> dict[str, dict[str, int]]:
    """Each group's name and its spellings with their counts."""
    return {g.name: dict(g.surfaces) for g in groups}


def test_a_surname_joins_the_full_name_whatever_the_recogniser_called_it(
    kb: KnowledgeBase,
) -> None:
    groups = grouped(
        kb,
        "ECB keeps rates on hold",
        "Christine Lagarde, president of the European Central Bank, said in Frankfurt on "
        "Thursday that rates would stay where they are. Lagarde spoke after a meeting with Olaf "
        "Scholz in Berlin. The ECB expects inflation to ease next year, Lagarde added.",
    )
    names = spellings(groups)
    assert names["Christine Lagarde"] == {"Christine Lagarde": 1, "Lagarde": 2}
    assert "Lagarde" not in names
    lagarde = next(g for g in groups if g.name == "Christine Lagarde")
    # The small model called the surname a place; joined to her name, it is a person's mention.
    assert [m.label for m in lagarde.mentions] == ["PERSON"] * 3
    # The acronym joins the bank the item names in full.
    assert names["European Central Bank"] == {"European Central Bank": 1, "ECB": 1}


def test_a_surname_two_people_share_stays_apart(kb: KnowledgeBase) -> None:
    names = spellings(
        grouped(
            kb,
            "",
            "Venus Williams and Serena Williams reached the final on Saturday. Williams said she"
            " was tired after the match.",
        )
    )
    assert names["Venus Williams"] == {"Venus Williams": 1}
    assert names["Serena Williams"] == {"Serena Williams": 1}
    assert names["Williams"] == {"Williams": 1}


def test_a_name_with_and_without_its_initials_is_one_person(kb: KnowledgeBase) -> None:
    names = spellings(
        grouped(
            kb,
            "",
            "Surgeon General Regina M. Benjamin visited the clinic on Monday. Regina Benjamin said"
            " the clinic had served the town for years, and Benjamin thanked the nurses.",
        )
    )
    assert names["Regina M. Benjamin"] == {
        "Regina M. Benjamin": 1,
        "Regina Benjamin": 1,
        "Benjamin": 1,
    }
    assert "Regina Benjamin" not in names
    assert "Benjamin" not in names


def test_a_name_without_initials_that_fits_two_names_with_them_stays_apart(
    kb: KnowledgeBase,
) -> None:
    names = spellings(
        grouped(
            kb,
            "",
            "Mark A. Hollis met Mark B. Hollis in Denver on Monday. Mark Hollis said the meeting"
            " went well.",
        )
    )
    assert names["Mark A. Hollis"] == {"Mark A. Hollis": 1}
    assert names["Mark B. Hollis"] == {"Mark B. Hollis": 1}
    assert names["Mark Hollis"] == {"Mark Hollis": 1}


def test_an_acronym_joins_the_organisation_it_abbreviates(kb: KnowledgeBase) -> None:
    names = spellings(
        grouped(
            kb,
            "",
            "The Tri-County Water Authority raised its rates on Monday. The TCWA said the increase"
            " would pay for new pipes.",
        )
    )
    assert names == {"Tri-County Water Authority": {"Tri-County Water Authority": 1, "TCWA": 1}}


def test_an_organisations_first_word_joins_it(kb: KnowledgeBase) -> None:
    names = spellings(
        grouped(
            kb,
            "",
            "The Interior Department said on Monday that the park would reopen. A spokesman for"
            " the Interior said the repairs were done.",
        )
    )
    assert names == {"Interior Department": {"Interior Department": 1, "Interior": 1}}


def test_a_first_name_alone_joins_the_one_full_name_it_starts(kb: KnowledgeBase) -> None:
    body = "Bettie Page was a model in the 1950s. Bettie later said she had no regrets."
    groups = built(kb, body, ("Bettie Page", "ORG", 0), ("Bettie", "ORG", 1))
    assert spellings(groups) == {"Bettie Page": {"Bettie Page": 1, "Bettie": 1}}
    # a first name is a person's, whatever the label
    assert groups[0].mentions[1].label == "PERSON"


def test_a_first_name_two_full_names_start_stays_apart(kb: KnowledgeBase) -> None:
    body = "Bettie Page met Bettie Davis in 1955. Bettie later said she had no regrets."
    groups = built(
        kb,
        body,
        ("Bettie Page", "PERSON", 0),
        ("Bettie Davis", "PERSON", 0),
        ("Bettie", "PERSON", 2),
    )
    assert "Bettie" in spellings(groups)


def test_a_short_organisation_name_joins_the_one_longer_name_after_a_place(
    kb: KnowledgeBase,
) -> None:
    body = (
        "The California Supreme Court heard the case on Monday. The Supreme Court said it would"
        " rule within weeks."
    )
    groups = built(kb, body, ("California Supreme Court", "ORG", 0), ("Supreme Court", "ORG", 1))
    assert spellings(groups) == {
        "California Supreme Court": {"California Supreme Court": 1, "Supreme Court": 1}
    }


def test_a_place_after_another_keeps_its_own_group(kb: KnowledgeBase) -> None:
    body = "Lagos is the largest city of Nigeria, and Nigeria's oil comes from the south."
    groups = built(kb, body, ("Lagos", "GPE", 0), ("Nigeria", "GPE", 0), ("Nigeria", "GPE", 1))
    assert spellings(groups) == {"Lagos": {"Lagos": 1}, "Nigeria": {"Nigeria": 2}}
