"""The form of a new organisation's name: connecting words and signs inside it, legal forms at
its end, and how long a name whose head word says what it names may be. Real text through
Herald's own recogniser and linker."""

from __future__ import annotations

import pytest

from herald.entities.linking import EntityLinker
from herald.entities.model import EntityDraft
from tests.enrich.models import fresh_knowledge_base, trained_recognizer


def new_entities(text: str) -> dict[str, EntityDraft]:
    mentions = trained_recognizer().recognize([text])[0]
    result = EntityLinker(fresh_knowledge_base()).link("", text, mentions)
    return {d.display_name: d for d in result.new_entities}


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (  # after an ampersand, which otherwise joins two names
            "Harlow Pemberton & Co said on Monday it advised the buyer. Shares of the bank rose"
            " after Harlow Pemberton & Co confirmed the fee.",
            "Harlow Pemberton & Co",
        ),
        (  # a legal form is no person's last name
            "Brandt Chemical Co said it would build a plant in Texas. Brandt Chemical Co shares"
            " rose 2 percent.",
            "Brandt Chemical Co",
        ),
    ],
)
def test_a_name_ending_in_a_legal_form_is_a_company(text: str, name: str) -> None:
    firm = new_entities(text).get(name)
    assert firm is not None
    assert firm.entity_kind == "company"


def test_two_names_joined_by_an_ampersand_are_not_one_entity() -> None:
    text = (
        "Critics praised Tristan & Isolde at the opera house on Friday. The run of Tristan &"
        " Isolde ends next week."
    )
    assert "Tristan & Isolde" not in new_entities(text)


def test_a_long_name_whose_head_word_says_what_it_names_is_kept_whole() -> None:
    text = (
        "The Organisation for Maritime Safety and Cooperation in Africa met in Dakar on Monday."
        " The Organisation for Maritime Safety and Cooperation in Africa said piracy had fallen."
    )
    names = new_entities(text)
    assert "Organisation for Maritime Safety and Cooperation in Africa" in names
    assert names["Organisation for Maritime Safety and Cooperation in Africa"].entity_kind == (
        "organization"
    )
