"""The kind model (herald.entities.kinds): real text through Herald's recogniser and the linker
with the bundled knowledge base, kinds decided by the trained model."""

from __future__ import annotations

import pytest

from herald.entities.kb import KnowledgeBase
from herald.entities.kinds import CLASSES, FEATURES, bundled
from herald.entities.linking import EntityLinker, LinkingConfig, document_text
from tests.enrich.models import trained_recognizer

CRICKET = (
    "Cricket - Somerset beat Kent",
    "Somerset beat Kent by six wickets in the county championship at Taunton on Friday. Kent"
    " were bowled out for 210 and Somerset reached their target with ten overs to spare.",
)


@pytest.fixture(scope="module")
def kb() -> KnowledgeBase:
    return KnowledgeBase.from_seed()


def kinds_of(kb: KnowledgeBase, title: str, body: str, *, learned: bool) -> dict[str, str]:
    (mentions,) = trained_recognizer().recognize([document_text(title, body)])
    linker = EntityLinker(kb, LinkingConfig(learned_kinds=learned))
    return {e.display_name: e.entity_kind for e in linker.link(title, body, mentions).entities}


def test_the_bundled_model_reads_the_features_this_herald_computes() -> None:
    model = bundled()
    assert model.features == FEATURES
    assert set(model.classes) == set(CLASSES)
    assert len(model.weights) == len(CLASSES)
    assert all(len(row) == len(FEATURES) for row in model.weights)


def test_clubs_named_after_their_counties_are_organisations_in_a_sports_report(
    kb: KnowledgeBase,
) -> None:
    """Somerset and Kent are places the knowledge base knows; in a match report they are the
    clubs, and the kind model says so where the hand-set votes found no fitting entity."""
    kinds = kinds_of(kb, *CRICKET, learned=True)
    assert kinds.get("Somerset") == "organization"
    assert kinds.get("Kent") == "organization"
    assert kinds.get("Taunton") == "place"


def test_people_and_places_of_general_news_keep_their_kinds(kb: KnowledgeBase) -> None:
    title = "Regulator fines lender"
    body = (
        "Britain's Financial Conduct Authority fined Northgate Lending 12 million pounds on"
        " Tuesday, its chief executive Margaret Olsen said in London. The lender will appeal."
    )
    kinds = kinds_of(kb, title, body, learned=True)
    assert kinds.get("Margaret Olsen") == "person"
    assert kinds.get("London") == "place"
    assert kinds.get("Northgate Lending") in ("organization", "company")
