"""A discovered entity the knowledge base comes to know (an upgraded seed, an import) is merged
into the knowledge base's entity: content links, search, timelines, entity search, saved
searches and later enrichment all follow, and the old id keeps answering."""

from __future__ import annotations

import json
import threading
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.config import Settings
from herald.core.files import sha256_file
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity, EntityRedirect
from herald.enrich.inputs import input_of_row
from herald.enrich.pipeline import BatchResult, EnrichedItem
from herald.enrich.service import store
from herald.entities import repository
from herald.entities.jsonl import entity_id_for
from herald.entities.linking import LinkedEntity
from herald.entities.merge import find_merges, merge_key
from herald.entities.model import EntityDraft, EntityKind, EntityRecord, Tag
from herald.entities.service import (
    get_entity_store,
    import_entities,
    merge_discovered,
    seed_knowledge_base,
)
from herald.monitors.match import matches
from herald.runtime import Runtime
from tests.enrich.models import embedder
from tests.search.support import put_item

PUBLISHED = datetime.fromisoformat("2026-03-10T09:00:00+00:00")


def seed_line(name: str, kind: str, **extra: Any) -> dict[str, Any]:
    return {"key": f"test:{kind}:{name.lower()}", "display_name": name, "entity_kind": kind} | extra


def seed_id(name: str, kind: str) -> str:
    return entity_id_for(kind, name, f"test:{kind}:{name.lower()}")


def write_seed(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


def discovered(name: str, kind: EntityKind, tags: tuple[Tag, ...] = ()) -> EntityRecord:
    """A discovered entity with the id linking gives it, confirmed (linking knows it)."""
    draft = EntityDraft(
        entity_id_for(kind, name, f"discovered:{kind}:{name.lower()}"), name, kind, tags=tags
    )
    return replace(draft.to_record(), status="active")


def known(name: str, kind: EntityKind, *tags: Tag) -> EntityRecord:
    return EntityRecord(id=seed_id(name, kind), display_name=name, entity_kind=kind, tags=tags)


# --- the rule ----------------------------------------------------------------------------------


def test_a_discovered_entity_merges_into_the_one_knowledge_base_entity_of_its_name_and_kind() -> (
    None
):
    obama = discovered("Barack Obama", "person")
    huawei = discovered("Huawei", "organization")
    jordan = discovered("Jordan", "person")  # the country is no person
    springfield = discovered("Springfield", "place", (Tag("country", "US"),))
    harriman = discovered("Harriman", "place", (Tag("region", "Tennessee"), Tag("country", "US")))
    candidates = [
        known("Barack Obama", "person"),
        known("Huawei", "company"),
        known("Jordan", "place"),
        replace(
            known("Springfield", "place", Tag("country", "US"), Tag("region", "Illinois")),
            id="ent_springfield_il",
        ),
        replace(
            known("Springfield", "place", Tag("country", "US"), Tag("region", "Missouri")),
            id="ent_springfield_mo",
        ),
        known("Harriman", "place", Tag("country", "US"), Tag("region", "New York")),
    ]
    index: dict[str, list[EntityRecord]] = {}
    for record in candidates:
        index.setdefault(merge_key(record), []).append(record)
    merges = find_merges([obama, huawei, jordan, springfield, harriman], index)
    assert [(m.discovered.display_name, m.into.id) for m in merges] == [
        ("Barack Obama", seed_id("Barack Obama", "person")),
        ("Huawei", seed_id("Huawei", "company")),
    ]
    # Two Springfields could be either; a Harriman the text placed in Tennessee is not New
    # York's. Another discovered entity is never a target.
    assert find_merges([obama], {merge_key(obama): [discovered("Barack Obama", "person")]}) == []


def test_a_discovered_person_named_with_initials_merges_into_the_person_without_them() -> None:
    benjamin = discovered("Regina M. Benjamin", "person")
    target = known("Regina Benjamin", "person")
    (merge,) = find_merges([benjamin], {"regina benjamin": [target]})
    assert merge.into == target
    # Initials are a person's only: "Plan B Group" is not "Plan Group".
    plan = discovered("Plan B Group", "organization")
    assert find_merges([plan], {"plan group": [known("Plan Group", "organization")]}) == []
    # Two known people without them: no telling which.
    bush = discovered("George X. Bush", "person")
    both = [known("George Bush", "person"), known("George Bush Sr", "person")]
    assert find_merges([bush], {"george bush": [both[0]], "george x bush": [both[1]]}) == []


# --- in the database ---------------------------------------------------------------------------


@pytest.fixture
def seed_file(tmp_path: Path) -> Path:
    return tmp_path / "seed.jsonl"


@pytest.fixture
def settings(settings: Settings, seed_file: Path) -> Settings:
    return settings.model_copy(update={"entity_seed": str(seed_file)})


@pytest.fixture
def merging(runtime: Runtime, seed_file: Path) -> Runtime:
    runtime.service("embedder", embedder)
    write_seed(seed_file, [seed_line("Aldor", "place", tags=[{"key": "country", "value": "DE"}])])
    assert seed_knowledge_base(runtime) == 1
    return runtime


@pytest.fixture
def obama(merging: Runtime) -> EntityRecord:
    """A discovered Barack Obama in a database whose seed does not know him yet."""
    record = discovered("Barack Obama", "person")
    add_discovered(merging, record)
    return record


def add_discovered(runtime: Runtime, *records: EntityRecord) -> None:
    with runtime.sessions.write() as session:
        repository.upsert_entities(session, records, now=runtime.clock.now(), replace=False)


def links(runtime: Runtime, content_id: str) -> dict[str, tuple[int, float, float]]:
    with runtime.sessions.read() as session:
        rows = session.scalars(select(ContentEntity).where(ContentEntity.content_id == content_id))
        return {r.entity_id: (r.mention_count, r.salience, r.confidence) for r in rows}


def search_ids(client: TestClient, auth: dict[str, str], entity_ids: list[str]) -> set[str]:
    body = {
        "query": "talks",
        "entity_ids": entity_ids,
        "start_date": "2026-03-01",
        "end_date": "2026-03-31",
    }
    response = client.post("/v1/content/search", json=body, headers=auth)
    assert response.status_code == 200, response.text
    return {r["content_item"]["id"] for r in response.json()["results"]}


def entity_search(client: TestClient, auth: dict[str, str], query: str) -> list[str]:
    response = client.post("/v1/entities/search", json={"query": query}, headers=auth)
    assert response.status_code == 200
    return [r["entity"]["id"] for r in response.json()["results"]]


def test_an_upgraded_seed_merges_what_linking_had_discovered(
    merging: Runtime, seed_file: Path, client: TestClient, auth: dict[str, str]
) -> None:
    runtime = merging
    obama = discovered("Barack Obama", "person")
    huawei = discovered("Huawei", "organization")
    aldor = discovered("Aldor", "place", (Tag("country", "FR"),))  # another Aldor
    smith = discovered("John Smith", "person")
    add_discovered(runtime, obama, huawei, aldor, smith)
    first = put_item(
        runtime,
        "https://example.com/a",
        title="Obama talks trade with Huawei",
        published_at=PUBLISHED,
        entity_ids=[obama.id, huawei.id],
    )
    second = put_item(
        runtime,
        "https://example.com/b",
        title="Obama holds talks in Aldor",
        published_at=PUBLISHED + timedelta(hours=1),
        entity_ids=[obama.id, aldor.id, smith.id],
    )
    assert search_ids(client, auth, [obama.id]) == {first, second}
    assert obama.id in entity_search(client, auth, "Barack Obama")  # the API's view has it
    assert get_entity_store(runtime).knowledge_base().get(obama.id) is not None
    with runtime.sessions.read() as session:
        seq_before = {row.id: row.change_seq for row in session.scalars(select(ContentItem))}

    # The next release's seed knows Obama and Huawei.
    write_seed(
        seed_file,
        [
            seed_line("Aldor", "place", tags=[{"key": "country", "value": "DE"}]),
            seed_line("Barack Obama", "person", description="44th president of the United States"),
            seed_line("Huawei", "company"),
        ],
    )
    assert seed_knowledge_base(runtime) == 2
    new_obama, new_huawei = seed_id("Barack Obama", "person"), seed_id("Huawei", "company")

    with runtime.sessions.read() as session:
        remaining = {row.id for row in session.scalars(select(Entity))}
        redirects = {r.from_id: r.to_id for r in session.scalars(select(EntityRedirect))}
        seq_after = {row.id: row.change_seq for row in session.scalars(select(ContentItem))}
    assert obama.id not in remaining
    assert huawei.id not in remaining
    assert {aldor.id, smith.id} <= remaining  # another country's Aldor; nobody the seed knows
    assert redirects == {obama.id: new_obama, huawei.id: new_huawei}
    assert set(links(runtime, first)) == {new_obama, new_huawei}
    assert set(links(runtime, second)) == {new_obama, aldor.id, smith.id}
    # Search indexes re-read the items whose links changed.
    assert all(seq_after[i] > seq_before[i] for i in (first, second))

    # The old id still finds the content (a monitor or a client saved it), as the new one does.
    assert search_ids(client, auth, [obama.id]) == {first, second}
    assert search_ids(client, auth, [new_obama]) == {first, second}
    assert search_ids(client, auth, [huawei.id]) == {first}
    # Its timeline is the entity's, under the entity's id.
    response = client.get(
        f"/v1/entities/{obama.id}/timeline",
        params={"start_date": "2026-03-01", "end_date": "2026-03-31"},
        headers=auth,
    )
    assert response.status_code == 200
    assert response.json()["entity_id"] == new_obama
    assert [t["id"] for t in response.json()["timeline"]] == [second, first]
    # Entity search and the linking knowledge base of this running process forget the old one.
    found = entity_search(client, auth, "Barack Obama")
    assert found[0] == new_obama
    assert obama.id not in found
    kb = get_entity_store(runtime).knowledge_base()
    assert kb.get(obama.id) is None
    assert [r.id for r in kb.lookup("barack obama")] == [new_obama]
    # Reading the same seed again merges nothing more.
    assert seed_knowledge_base(runtime, force=True) == 0


def test_a_database_seeded_by_an_earlier_release_merges_at_its_next_start(
    merging: Runtime, obama: EntityRecord, seed_file: Path
) -> None:
    runtime = merging
    write_seed(seed_file, [seed_line("Barack Obama", "person")])
    # An earlier release loaded this seed after linking had discovered Obama, merging nothing,
    # and recorded the file by its digest alone.
    with runtime.sessions.write() as session:
        seeded = replace(known("Barack Obama", "person"), origin="seed")
        repository.upsert_entities(session, [seeded], now=runtime.clock.now(), replace=False)
        repository.record_seed_load(
            session,
            digest=sha256_file(seed_file),
            source=str(seed_file),
            written=1,
            now=runtime.clock.now(),
        )
    assert seed_knowledge_base(runtime) == 0  # nothing to write, but read once more
    with runtime.sessions.read() as session:
        assert session.get(Entity, obama.id) is None
        redirect = session.get(EntityRedirect, obama.id)
        assert redirect is not None
        assert redirect.to_id == seeded.id
    assert seed_knowledge_base(runtime) == 0


def test_an_item_linked_to_both_keeps_one_link_with_the_mentions_added_up(
    merging: Runtime,
    obama: EntityRecord,
) -> None:
    runtime = merging
    new_obama = seed_id("Barack Obama", "person")
    with runtime.sessions.write() as session:
        # Written as an import writes it, but without its merge: both exist at once, as when
        # one worker linked with the knowledge base before the import and one after.
        repository.upsert_entities(
            session, [known("Barack Obama", "person")], now=runtime.clock.now()
        )
    item = put_item(
        runtime,
        "https://example.com/c",
        title="Obama talks",
        published_at=PUBLISHED,
        entity_ids=[obama.id, new_obama],
    )
    with runtime.sessions.write() as session:
        for row in session.scalars(select(ContentEntity).where(ContentEntity.content_id == item)):
            if row.entity_id == obama.id:
                row.mention_count, row.salience, row.confidence = 3, 0.8, 0.7
            else:
                row.mention_count, row.salience, row.confidence = 1, 0.4, 0.95
    with runtime.sessions.write() as session:
        assert merge_discovered(session, now=runtime.clock.now()) == 1
    assert links(runtime, item) == {new_obama: (4, 0.8, 0.95)}


def enriched(
    runtime: Runtime, item: str, draft: EntityRecord, links: list[tuple[str, int, float]]
) -> tuple[BatchResult, str]:
    """A batch's result for ``item`` as a worker computes it: its links (id, mentions,
    salience), ``draft`` proposed as new; and the hash of the item's enrichment input."""
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, item)
        assert row is not None
        input_hash = input_of_row(row)
    linked = [
        LinkedEntity(entity_id, draft.display_name, draft.entity_kind, mentions, salience, 0.9)
        for entity_id, mentions, salience in links
    ]
    embedding = np.zeros(384, dtype=np.float32)
    result = BatchResult(
        items=[EnrichedItem(item, "en", "", [], [], [], 2, linked, embedding)],
        new_entities=[EntityDraft.of(draft)],
        embedding_model="test",
    )
    return result, input_hash


def test_an_import_merges_and_enrichment_written_with_an_older_view_follows_the_merge(
    merging: Runtime,
    obama: EntityRecord,
) -> None:
    runtime = merging
    with runtime.sessions.write() as session:
        report = import_entities(
            session,
            [json.dumps(seed_line("Barack Obama", "person"))],
            now=runtime.clock.now(),
        )
    assert (report.written, report.merged) == (1, 1)
    new_obama = seed_id("Barack Obama", "person")
    item = put_item(runtime, "https://example.com/d", title="Obama talks", published_at=PUBLISHED)
    # A worker whose knowledge base was read before the import still links to the discovered
    # entity and proposes it again; it is stored as the entity it was merged into.
    result, input_hash = enriched(runtime, item, obama, [(obama.id, 2, 0.7), (new_obama, 1, 0.5)])
    with runtime.sessions.write() as session:
        assert store(session, result, {item: input_hash}, clock=runtime.clock) == [item]
    with runtime.sessions.read() as session:
        assert session.get(Entity, obama.id) is None  # not written again
    assert links(runtime, item) == {new_obama: (3, 0.7, 0.9)}

    # A monitor saved with the old id explains its matches with that id.
    with runtime.sessions.read() as session:
        row = session.get(ContentItem, item)
        assert row is not None
        explained = matches(
            session, [row], query="Obama", entity_ids=[obama.id], features={item: None}
        )
    assert explained[item]["entities"] == [obama.id]


def test_a_merge_waits_for_a_write_linking_content_in_progress(
    merging: Runtime, obama: EntityRecord
) -> None:
    """A worker's write that read no redirect yet (it started before the merge) finishes first,
    and the merge then moves what it linked: nothing is linked to a deleted entity (a cascade
    would drop it) and the discovered entity does not come back."""
    runtime = merging
    item = put_item(runtime, "https://example.com/e", title="Obama talks", published_at=PUBLISHED)
    result, input_hash = enriched(runtime, item, obama, [(obama.id, 2, 0.7)])
    stored, release, merged = threading.Event(), threading.Event(), threading.Event()

    def worker() -> None:
        with runtime.sessions.write() as session:
            store(session, result, {item: input_hash}, clock=runtime.clock)
            stored.set()
            release.wait(30)

    def importer() -> None:
        with runtime.sessions.write() as session:
            import_entities(
                session, [json.dumps(seed_line("Barack Obama", "person"))], now=runtime.clock.now()
            )
        merged.set()

    threads = [threading.Thread(target=worker), threading.Thread(target=importer)]
    threads[0].start()
    assert stored.wait(30)
    threads[1].start()
    assert not merged.wait(1.5)  # the merge waits for the worker's transaction
    release.set()
    for thread in threads:
        thread.join(30)
    assert merged.is_set()
    with runtime.sessions.read() as session:
        assert session.get(Entity, obama.id) is None
    assert links(runtime, item) == {seed_id("Barack Obama", "person"): (2, 0.7, 0.9)}
