"""Well-known people of public life in the seed, and what a bare surname of theirs links to.

Each test gives the linker the mentions the recogniser produced for such a sentence, so each
case is tested whatever a model version does.
"""

from __future__ import annotations

import pytest

from herald.enrich.ner import Mention
from herald.entities.kb import KnowledgeBase
from herald.entities.linking import EntityLinker
from herald.entities.matcher import dictionary_mentions
from herald.entities.model import EntityRecord, Tag
from tests.enrich.models import fresh_knowledge_base
from tests.entities.conftest import linked


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()


def test_the_seed_knows_heads_of_state_and_of_international_bodies(kb: KnowledgeBase) -> None:
    (nixon,) = kb.lookup("richard nixon")
    assert nixon.entity_kind == "person"
    assert nixon.first_tag("country") == "US"
    assert "Watergate" in nixon.description
    (lagarde,) = kb.lookup("christine lagarde")
    assert "European Central Bank" in lagarde.description
    (lula,) = kb.lookup("lula")
    assert lula.display_name == "Luiz Inácio Lula da Silva"
    # Well known: a bare mention of one of them outweighs a listed company's officer.
    assert kb.prior(nixon.id) >= 0.7


@pytest.mark.parametrize(
    ("body", "surface", "person"),
    [
        (
            "Frederick LaRue, a Nixon aide jailed over Watergate, died at 75.",
            "Nixon",
            "Richard Nixon",
        ),
        # The name such a person is called by alone is not always the last word.
        ("On Monday Xi told the party congress that growth would slow.", "Xi", "Xi Jinping"),
        ("Officials said Merkel, the chancellor, would lead.", "Merkel", "Angela Merkel"),
    ],
)
def test_a_well_known_person_is_found_by_the_name_used_alone(
    kb: KnowledgeBase, body: str, surface: str, person: str
) -> None:
    entities = linked(kb, body, (surface, "PERSON"))
    assert entities[person].entity_kind == "person"
    assert surface in entities[person].surfaces


def test_a_surname_alone_is_a_known_person_only_where_the_item_fits_them(
    kb: KnowledgeBase,
) -> None:
    # "Carter" is the surname of one well-known person; a sports report's Carter is not him.
    body = "The coach said Carter had played through the injury."
    assert "Jimmy Carter" not in linked(kb, body, ("Carter", "PERSON"))
    body = "On Monday Carter, the former president, said the Camp David accords held."
    assert "Jimmy Carter" in linked(kb, body, ("Carter", "PERSON"))


def test_a_surname_two_well_known_people_share_links_to_neither(kb: KnowledgeBase) -> None:
    body = "Critics said Bush had ignored the warnings before the war."
    entities = linked(kb, body, ("Bush", "PERSON"))
    assert "George W. Bush" not in entities
    assert "George H. W. Bush" not in entities


def test_a_surname_alone_is_the_person_the_item_names_in_full(kb: KnowledgeBase) -> None:
    body = "Vincent Jackson was arrested on Friday. Jackson was released on bail."
    later = body.rindex("Jackson")
    found = [
        Mention("Vincent Jackson", "PERSON", 0, 15),
        Mention("Jackson", "PERSON", later, later + 7),
    ]
    entities = {e.display_name: e for e in EntityLinker(kb).link("", body, found).entities}
    assert "Jackson" in entities["Vincent Jackson"].surfaces


def test_the_issues_example_links_christine_lagarde(kb: KnowledgeBase) -> None:
    body = (
        "Christine Lagarde, president of the European Central Bank, said in Frankfurt that "
        "rates would hold. Lagarde spoke after a meeting with Olaf Scholz in Berlin."
    )
    entities = linked(
        kb,
        body,
        ("Christine Lagarde", "PERSON"),
        ("the European Central Bank", "ORG"),
        ("Frankfurt", "GPE"),
        ("Lagarde", "GPE"),
        ("Olaf Scholz", "ORG"),
        ("Berlin", "GPE"),
    )
    lagarde = entities["Christine Lagarde"]
    assert lagarde.entity_id == kb.lookup("christine lagarde")[0].id
    assert "Lagarde" in lagarde.surfaces
    assert entities["Olaf Scholz"].entity_id == kb.lookup("olaf scholz")[0].id


def test_a_persons_name_inside_another_name_is_not_the_person(kb: KnowledgeBase) -> None:
    text = "She received the Nelson Mandela Award for Health and Human Rights in 1998."
    assert "Nelson Mandela" not in {m.text for m in dictionary_mentions(text, kb, [])}
    text = "A statue of Nelson Mandela stands in Parliament Square."
    assert "Nelson Mandela" in {m.text for m in dictionary_mentions(text, kb, [])}


def test_a_surname_tag_says_what_one_word_names_the_person() -> None:
    def person(entity_id: str, name: str, surname: str | None = None) -> EntityRecord:
        tags = (Tag("surname", surname),) if surname else ()
        return EntityRecord(id=entity_id, display_name=name, entity_kind="person", tags=tags)

    kb = KnowledgeBase(
        [
            person("ent_a", "Kim Jong Un", "Kim"),
            person("ent_b", "Martin Luther King Jr.", "Martin Luther King"),
            person("ent_c", "Pope Leo XIV"),
        ]
    )
    assert [r.id for r in kb.lookup_surname("kim")] == ["ent_a"]
    assert kb.lookup_surname("un") == []
    assert kb.lookup_surname("king") == []  # "King" alone is not he
    assert [r.id for r in kb.lookup_surname("leo")] == ["ent_c"]
