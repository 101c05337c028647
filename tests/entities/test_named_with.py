"""A person an item names by one word only ("my wife Portia", "Heller argued") is an entity known
by that word beside the item's main person: found again beside that person, never by the word
alone, and never merged into someone of that name.

The unit tests give the linker the mentions the recogniser produced for such a sentence, so each
case is tested whatever a model version does; the last test enriches real items end to end.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.content import ContentEntity
from herald.db.models.entity import Entity
from herald.enrich.ner import Mention
from herald.enrich.queueing import queue_enrichment
from herald.entities.cues import person_cue
from herald.entities.kb import NAMED_WITH, KnowledgeBase
from herald.entities.linking import EntityLinker, LinkedEntity
from herald.entities.matcher import dictionary_mentions
from herald.entities.merge import find_merges, merge_key
from herald.entities.model import EntityRecord, Tag
from herald.entities.service import seed_knowledge_base
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.enrich.factories import make_item
from tests.enrich.models import fresh_knowledge_base


@pytest.fixture
def kb() -> KnowledgeBase:
    return fresh_knowledge_base()


def link(kb: KnowledgeBase, body: str, *spans: tuple[str, str]) -> dict[str, LinkedEntity]:
    """Link ``body`` with each (text, label) of ``spans`` found at every occurrence, and add the
    new entities to ``kb`` as enrichment does."""
    found = []
    for surface, label in spans:
        start = body.find(surface)
        while start != -1:
            found.append(Mention(surface, label, start, start + len(surface)))
            start = body.find(surface, start + 1)
    found.sort(key=lambda m: m.start)
    result = EntityLinker(kb).link("", body, found)
    for draft in result.new_entities:
        kb.add(draft.to_record())
    return {e.display_name: e for e in result.entities}


ELLEN = (
    "Ellen DeGeneres will host the Oscars again. \"I'd like to thank the Academy, my wife "
    'Portia and, oh dear, there goes the orchestra," DeGeneres wrote.'
)


def test_a_person_named_by_one_word_is_known_beside_the_items_main_person(
    kb: KnowledgeBase,
) -> None:
    first = link(kb, ELLEN, ("Ellen DeGeneres", "PERSON"), ("Portia", "PERSON"))
    portia = first["Portia"]
    assert portia.entity_kind == "person"
    record = kb.get(portia.entity_id)
    assert record is not None
    assert record.origin == "discovered"
    assert record.first_tag(NAMED_WITH) == "Ellen DeGeneres"
    assert record.description == "Named with Ellen DeGeneres"
    # Another story about her: the same Portia.
    again = link(
        kb,
        "Ellen DeGeneres thanked her fans. Portia said the night was perfect, DeGeneres added.",
        ("Ellen DeGeneres", "PERSON"),
        ("Portia", "PERSON"),
    )
    assert again["Portia"].entity_id == portia.entity_id
    # A Portia beside someone else is someone else.
    other = link(
        kb,
        "Mark Heller defended the actress in court. His daughter Portia watched from the gallery.",
        ("Mark Heller", "PERSON"),
        ("Portia", "PERSON"),
    )
    assert other["Portia"].entity_id != portia.entity_id
    assert kb.get(other["Portia"].entity_id).first_tag(NAMED_WITH) == "Mark Heller"  # type: ignore[union-attr]
    # The word alone names no entity: no lookup, no dictionary match, no surname.
    assert kb.lookup("portia") == []
    assert kb.lookup_surname("portia") == []
    assert not kb.is_known_name("portia")
    assert dictionary_mentions("Portia arrived late.", kb, []) == []


def test_the_person_is_found_beside_whoever_they_were_first_named_with(kb: KnowledgeBase) -> None:
    """The second report's main person is the opponent; Vitali is still the one known beside
    Wladimir Klitschko, whom it names in full."""
    first = link(
        kb,
        "Wladimir Klitschko won again. Klitschko shares the titles with his older brother, "
        "Vitali. Klitschko said he was proud.",
        ("Wladimir Klitschko", "PERSON"),
        ("Klitschko", "PERSON"),
        ("Vitali", "PERSON"),
    )
    second = link(
        kb,
        "Tony Thompson lost to Wladimir Klitschko. Thompson said Thompson had tried; Thompson "
        "left. Klitschko and his older brother Vitali celebrated.",
        ("Tony Thompson", "PERSON"),
        ("Thompson", "PERSON"),
        ("Wladimir Klitschko", "PERSON"),
        ("Vitali", "PERSON"),
    )
    assert second["Tony Thompson"].mention_count > second["Wladimir Klitschko"].mention_count
    assert second["Vitali"].entity_id == first["Vitali"].entity_id


@pytest.mark.parametrize(
    ("body", "word"),
    [
        (
            '"He is in the best facility," Heller argued after the hearing with Lindsay Lohan.',
            "Heller",
        ),
        ('"We are thrilled to have Lindsay Lohan," said Zadan at the launch.', "Zadan"),
        ("Lindsay Lohan left the court with Mr Lyons, who had driven her.", "Lyons"),
        ("Lindsay Lohan won the title with her older brother, Vitali, this year.", "Vitali"),
        ("Lindsay Lohan's lawyer is Gupta, 54, of Beverly Hills.", "Gupta"),
    ],
)
def test_words_around_the_name_say_a_person(kb: KnowledgeBase, body: str, word: str) -> None:
    found = link(kb, body, ("Lindsay Lohan", "PERSON"), (word, "PERSON"))
    assert found[word].entity_kind == "person"
    assert kb.get(found[word].entity_id).first_tag(NAMED_WITH) == "Lindsay Lohan"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("body", "word"),
    [
        # the recogniser's label alone: a film, a trophy
        ("Lindsay Lohan hopes Oscar voters will notice the film.", "Oscar"),
        # a hashtag, a business named by its owner, a title's abbreviation
        ('Lindsay Lohan tweeted: "Well, at least they chose well... #DrWho" said fans.', "DrWho"),
        ("Lindsay Lohan thanked her partner, Det. Colin Orpe, on Friday.", "Det"),
        # a people, not a person
        ("Lindsay Lohan said Greeks said they would protest.", "Greeks"),
        # a word of the full name the item writes
        ("Lindsay Lohan arrived. Lindsay said she was tired.", "Lindsay"),
        # "his" after "and", "is" or two words: another's ("the Chin to admit his sham")
        ("Lindsay Lohan met Nel and his team at the studio.", "Nel"),
        ("Lindsay Lohan voiced Marvin; Marvin is his android.", "Marvin"),
        ("Lindsay Lohan said the Gambino family until his arrest.", "Gambino"),
    ],
)
def test_a_word_the_recogniser_calls_a_person_is_not_one_without_such_words(
    kb: KnowledgeBase, body: str, word: str
) -> None:
    found = link(kb, body, ("Lindsay Lohan", "PERSON"), (word, "PERSON"))
    assert word not in found


def test_without_a_person_named_in_full_the_word_is_no_entity(kb: KnowledgeBase) -> None:
    assert "Portia" not in link(kb, "My wife Portia and I thank the Academy.", ("Portia", "PERSON"))


def ellens_portia() -> EntityRecord:
    return EntityRecord(
        id="ent_portia",
        display_name="Portia",
        entity_kind="person",
        tags=(Tag(NAMED_WITH, "Ellen DeGeneres"),),
        origin="discovered",
    )


def test_the_main_person_is_found_by_any_of_their_names(kb: KnowledgeBase) -> None:
    """A discovered main person later merged into a known one ("Ellen DeGeneres" into "Ellen Lee
    DeGeneres", which has that name as an alias): their Portia is still found."""
    portia = ellens_portia()
    kb.add(portia)
    merged = EntityRecord(
        id="ent_ellen",
        display_name="Ellen Lee DeGeneres",
        entity_kind="person",
        aliases=("Ellen DeGeneres",),
    )
    assert kb.lookup_named_with("portia", merged) == portia
    kb.remove("ent_portia")
    assert kb.lookup_named_with("portia", merged) is None


def test_a_person_known_beside_another_is_never_merged_into_someone_of_that_name() -> None:
    portia = ellens_portia()
    imported = EntityRecord(
        id="ent_portia_de_rossi",
        display_name="Portia de Rossi",
        entity_kind="person",
        aliases=("Portia",),
        origin="import",
    )
    assert find_merges([portia], {merge_key(portia): [imported]}) == []


def test_person_cue_reads_only_the_words_right_around_the_name() -> None:
    text = "The mayor spoke. Later Portia walked home."
    start = text.index("Portia")
    assert not person_cue(text, start, start + len("Portia"))
    text = "Portia, 44, walked home."
    assert person_cue(text, 0, len("Portia"))


@pytest.mark.parametrize(
    ("text", "name", "cue"),
    [
        # two names joined by "and" share the verb of speech written before or after them
        ('"We are thrilled," said Zadan and Meron jointly.', "Meron", True),
        ("Zadan and Meron said they were thrilled.", "Zadan", True),
        ("Zadan and Meron flew home.", "Zadan", False),
        ("They met Zadan and Meron in May.", "Meron", False),
        ("A 57-year-old Wasilla woman was indicted on Friday.", "Wasilla", False),
        # a possessive and a relative or a lawyer after the name
        ("That is exactly what LiLo's lawyer did in court.", "LiLo", True),
        ("Jackson’s estranged wife filed for divorce.", "Jackson", True),
        ("LiLo ’ s lawyer argued", "LiLo", True),
        ("Apple's shares fell.", "Apple", False),
        ("Jackson's mayor spoke.", "Jackson", False),
    ],
)
def test_person_cue_reads_joined_names_ages_and_relatives(text: str, name: str, cue: bool) -> None:
    start = text.index(name)
    assert person_cue(text, start, start + len(name)) is cue


def test_a_person_named_beside_a_cued_one_is_known_by_one_word_too(kb: KnowledgeBase) -> None:
    body = (
        "Ellen DeGeneres will host the Oscars. "
        '"We are thrilled to have Ellen host," said Zadan and Meron jointly.'
    )
    entities = link(
        kb, body, ("Ellen DeGeneres", "PERSON"), ("Zadan", "PERSON"), ("Meron", "PERSON")
    )
    assert entities["Meron"].entity_kind == "person"
    assert entities["Zadan"].entity_kind == "person"


@pytest.mark.parametrize(
    ("body", "other", "anchor"),
    [
        (
            "Barack Obama asked Dr Gupta to be surgeon general. Obama praised the neurosurgeon, "
            "and CNN said Dr Gupta had been approached.",
            ("Barack Obama", "PERSON"),
            "Barack Obama",
        ),
        # an item that names nobody in full: beside its main organisation
        (
            "CNN's management confirmed yesterday that Dr Gupta had been approached. CNN said "
            "Dr Gupta would decide soon.",
            ("CNN", "ORG"),
            "CNN",
        ),
    ],
)
def test_a_title_with_one_word_says_a_person_is_named(
    kb: KnowledgeBase, body: str, other: tuple[str, str], anchor: str
) -> None:
    entities = link(kb, body, other, ("Dr Gupta", "PERSON"))
    gupta = entities["Gupta"]
    assert gupta.entity_kind == "person"
    record = kb.get(gupta.entity_id)
    assert record is not None
    assert record.first_tag(NAMED_WITH) == anchor
    assert record.description == f"Named with {anchor}"


def test_enrichment_stores_the_person_and_finds_them_again_in_a_later_batch(
    enrich_runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    """Real recogniser, real database: the second item, enriched after the first was stored,
    links the same Portia (read back from the database with the person she is named with)."""
    runtime = enrich_runtime
    seed_knowledge_base(runtime)
    # Headlines that do not open with her surname alone: after "DeGeneres returns" the
    # recogniser (float32 and int8 alike) calls her an organisation, and after "DeGeneres to
    # host the Oscars" its int8 graph misses her full name; a weakness of the recogniser's,
    # not what this tests.
    stories = [
        ("Oscars get a familiar host", ELLEN),
        (
            "Oscars host returns",
            "Ellen DeGeneres returns to the Oscars stage in March. DeGeneres, who hosted in "
            '2007, said she was thrilled. "My wife Portia told me to say yes," she added.',
        ),
    ]
    ids = []
    now = runtime.clock.now()
    for offset, (title, body) in enumerate(stories):
        with runtime.sessions.write() as session:
            item = make_item(
                session,
                title=title,
                body=body,
                published_at=now - timedelta(hours=offset + 1),
                now=now,
            )
            ids.append(item.id)
            queue_enrichment(session, [item.id], clock=runtime.clock)
        Worker(runtime).drain()
    with runtime.sessions.read() as session:
        (portia,) = session.scalars(select(Entity).where(Entity.display_name == "Portia")).all()
        linked = set(
            session.scalars(
                select(ContentEntity.content_id).where(ContentEntity.entity_id == portia.id)
            )
        )
    assert linked == set(ids)
    assert {"key": NAMED_WITH, "value": "Ellen DeGeneres"} in portia.tags
    results = client.post("/v1/entities/search", json={"query": "Portia"}, headers=auth).json()[
        "results"
    ]
    assert results[0]["entity"]["id"] == portia.id
    assert results[0]["entity"]["description"] == "Named with Ellen DeGeneres"


CHARGERS = (
    "San Diego receiver Vincent Ortega said the team would wait. Jackson was arrested by the "
    "California Highway Patrol on Tuesday, and officer Brad Baehr said Jackson was on probation."
)


def test_a_word_known_only_as_far_towns_may_name_a_person(kb: KnowledgeBase) -> None:
    """The seed knows "Jackson" only as towns in Mississippi, New Jersey, Tennessee and Michigan;
    a story from San Diego that names none of those states and writes "said Jackson" names a
    person."""
    assert {r.entity_kind for r in kb.lookup("jackson")} == {"place"}
    found = link(
        kb,
        CHARGERS,
        ("San Diego", "GPE"),
        ("Vincent Ortega", "PERSON"),
        ("Jackson", "PERSON"),
        ("Brad Baehr", "PERSON"),
    )
    assert found["Jackson"].entity_kind == "person"
    assert found["Jackson"].mention_count == 2


def test_a_word_known_as_a_town_that_the_words_around_place_names_no_new_person(
    kb: KnowledgeBase,
) -> None:
    body = CHARGERS + " He lives in Jackson."
    spans = [("San Diego", "GPE"), ("Vincent Ortega", "PERSON"), ("Jackson", "PERSON")]
    found = link(kb, body, *spans)
    assert "Jackson" not in found or found["Jackson"].entity_kind == "place"
