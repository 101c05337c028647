"""Products: the seed's product lines, their models, and what the small recogniser calls them.

Each test gives the linker the mentions the recogniser produced for such a sentence (it calls
"MacBook Pros" an organisation, "Windows Vista" a nationality, "Windows XP" a location), so each
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


def test_the_seed_knows_product_lines_their_makers_and_model_words(kb: KnowledgeBase) -> None:
    (macbook,) = kb.lookup("macbook pro")
    assert macbook.entity_kind == "product"
    assert macbook.first_tag("maker") == "Apple Inc."
    assert [r.display_name for r in kb.lookup_line("galaxy")] == ["Samsung Galaxy"]
    # "BlackBerry" alone is the company (so named since 2013) or its phones: the text decides.
    assert {r.entity_kind for r in kb.lookup("blackberry")} == {"company", "product"}


@pytest.mark.parametrize(
    ("body", "surface", "label", "product"),
    [
        (
            "Apple on Monday unveiled new MacBook Pros with faster processors.",
            "MacBook Pros",
            "ORG",
            "MacBook Pro",
        ),
        (
            "Hackers exploit a flaw in Internet Explorer on Windows Vista, Microsoft said.",
            "Windows Vista",
            "NORP",
            "Windows Vista",
        ),
        (
            "Support for Windows XP ends in April, Microsoft said.",
            "Windows XP",
            "LOC",
            "Windows XP",
        ),
    ],
)
def test_a_known_product_is_the_product_whatever_the_label(
    kb: KnowledgeBase, body: str, surface: str, label: str, product: str
) -> None:
    entities = linked(kb, body, (surface, label))
    assert entities[product].entity_kind == "product"
    assert surface in entities[product].surfaces


@pytest.mark.parametrize(
    ("body", "surface", "label"),
    [
        ("T-Mobile will carry the BlackBerry Q10 from April 29.", "BlackBerry Q10", "ORG"),
        ("The carrier will sell the Galaxy S4 next month.", "Galaxy S4", "PERSON"),
        ("RIM announced the BlackBerry Curve 8900 for February.", "BlackBerry Curve 8900", "ORG"),
        ("Servers running Windows Server 2008 are exposed too.", "Windows Server 2008", "GPE"),
        # an edition or a feature named by one capitalised word after the line's name
        ("Install the fix through Windows Update today.", "Windows Update", "ORG"),
        ("BlackBerry Balance keeps work apps apart.", "BlackBerry Balance", "ORG"),
        # a company's whole name and one more word: what it makes
        ("SeaMicro's servers run on Intel Atom chips.", "Intel Atom", "ORG"),
        ("A rival design uses the AMD Opteron instead.", "AMD Opteron", "ORG"),
    ],
)
def test_a_model_of_a_known_line_or_a_companys_product_is_a_new_product(
    kb: KnowledgeBase, body: str, surface: str, label: str
) -> None:
    entities = linked(kb, body, (surface, label))
    assert entities[surface].entity_kind == "product"


def test_a_car_named_with_its_maker_is_the_car(kb: KnowledgeBase) -> None:
    body = "She was struck by a grey Toyota Camry heading north, police said."
    entities = linked(kb, body, ("Toyota", "ORG"))
    assert entities["Toyota Camry"].entity_kind == "product"
    assert "Toyota" not in entities


def test_a_name_capitalised_on_its_second_letter_is_matched(kb: KnowledgeBase) -> None:
    text = "The screen is larger than on the iPhone, and it runs Android."
    found = {m.text: m.label for m in dictionary_mentions(text, kb, [])}
    assert found == {"iPhone": "PRODUCT", "Android": "PRODUCT"}


def test_a_word_that_is_no_model_keeps_the_name_as_it_was(kb: KnowledgeBase) -> None:
    # "Galaxy" opens model names, but "Los Angeles Galaxy" is no model and "Galaxy Fans" none.
    body = "Galaxy Fans United met before the game in Carson."
    entities = linked(kb, body, ("Galaxy Fans United", "ORG"))
    assert entities["Galaxy Fans United"].entity_kind == "organization"
    # a word organisations are named with after the line's name
    body = "The BlackBerry Foundation gave the school new computers."
    entities = linked(kb, body, ("The BlackBerry Foundation", "ORG"))
    assert entities["BlackBerry Foundation"].entity_kind == "organization"
    # or after a company's whole name: a part of the company
    entities = linked(kb, "Intel Capital led the round.", ("Intel Capital", "ORG"))
    assert entities["Intel Capital"].entity_kind == "company"


def test_a_replaced_entity_leaves_no_old_line_home_or_demonym_behind() -> None:
    kb = KnowledgeBase(
        [
            EntityRecord(
                "ent_phone",
                "Nimbus",
                "product",
                "a phone line",
                tags=(Tag("line", "Nimbus"), Tag("home", "Oslo"), Tag("demonym", "Nimbian")),
            )
        ]
    )
    assert kb.lookup_line("nimbus")
    assert kb.lookup_home("oslo")
    assert kb.lookup_demonym("nimbian")
    kb.add(
        EntityRecord("ent_phone", "Nimbus", "product", "a phone line", tags=(Tag("line", "Nb"),))
    )
    assert [r.id for r in kb.lookup_line("nb")] == ["ent_phone"]
    assert not kb.lookup_line("nimbus")
    assert not kb.lookup_home("oslo")
    assert not kb.lookup_demonym("nimbian")


def test_software_is_a_product_and_common_abbreviations_are_no_entities(
    kb: KnowledgeBase,
) -> None:
    """What the small recogniser makes of a technology podcast's talk: "Python" a place,
    "Postgres" and "AI" organisations or places. Known software is the seed's product; an
    abbreviation of a common noun ("AI", "API", "LLM", "GPU") becomes no entity of its own."""
    body = (
        "So we rewrote the API in Python, put the data in Postgres and ran the LLM on a GPU, "
        "and honestly AI made it easier. The AI part was the easy bit, said the host of "
        "the show, who deploys it all on Kubernetes."
    )
    entities = linked(
        kb,
        body,
        ("API", "ORG"),
        ("Python", "GPE"),
        ("Postgres", "ORG"),
        ("LLM", "ORG"),
        ("GPU", "ORG"),
        ("AI", "GPE"),
        ("Kubernetes", "ORG"),
    )
    assert {name: e.entity_kind for name, e in entities.items()} == {
        "Python": "product",
        "PostgreSQL": "product",
        "Kubernetes": "product",
    }


@pytest.mark.parametrize("word", ["ASIC", "OEM", "LTE", "IP", "Q10"])
def test_a_common_abbreviation_or_a_model_number_is_no_organisation(
    kb: KnowledgeBase, word: str
) -> None:
    body = f"The {word} was the story on Monday. Analysts talked about the {word} again."
    second = body.rindex(word)
    found = [
        Mention(word, "ORG", body.index(word), body.index(word) + len(word)),
        Mention(word, "ORG", second, second + len(word)),
    ]
    entities = EntityLinker(kb).link("", body, found).entities
    assert [e.display_name for e in entities] == []
