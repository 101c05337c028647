"""New names are staged: a discovered entity is a candidate until items from enough sources name
it, and an item's links do not depend on the order the items arrived in (SQLite and PostgreSQL,
real demo-corpus text through the real models)."""

from __future__ import annotations

import gzip
import json
import shutil
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity
from herald.db.models.job import Job
from herald.enrich.queueing import ENRICH_KIND, queue_enrichment
from herald.entities import staging
from herald.entities.service import get_entity_store
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources.jsonl import parse_json_lines
from herald.jobs.registry import lanes
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.conftest import START, _truncate_all
from tests.enrich.models import embedder

# Demo items naming people the test seed lacks: Elon Musk in four, Vladimir Putin in six.
NAMES = ("Elon Musk", "Vladimir Putin")
SOURCES = (
    {"name": "First Wire", "domain": "first.example"},
    {"name": "Second Post", "domain": "second.example"},
)


def demo_lines() -> list[dict[str, Any]]:
    """The demo items naming one of ``NAMES``, each given one of two sources in turn."""
    data = resources.files("herald").joinpath("data/demo/demo.jsonl.gz").read_bytes()
    lines = [json.loads(line) for line in gzip.decompress(data).splitlines()]
    chosen = [d for d in lines if any(n in (d.get("body") or "") for n in NAMES)]
    chosen.sort(key=lambda d: d["external_id"])
    for index, line in enumerate(chosen):
        line["source"] = SOURCES[index % 2]
        line["url"] = f"https://{line['source']['domain']}/{line['external_id']}"
    return chosen


def drain(runtime: Runtime) -> None:
    worker = Worker(runtime)
    while sum(worker.drain(lane) for lane in sorted(lanes())):
        pass


def ingest(runtime: Runtime, lines: Sequence[dict[str, Any]]) -> None:
    """Ingest the items one at a time, each enriched before the next arrives."""
    for line in lines:
        ingest_outcomes(
            runtime.sessions,
            parse_json_lines([json.dumps(line).encode()]),
            clock=runtime.clock,
        )
        drain(runtime)


def links(runtime: Runtime) -> dict[str, list[str]]:
    """Each item's linked entities, by external id, as ``kind:name`` (ids depend on nothing but
    kind and name, but names read better)."""
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(ContentItem.external_id, Entity.entity_kind, Entity.display_name)
            .join(ContentEntity, ContentEntity.content_id == ContentItem.id)
            .join(Entity, Entity.id == ContentEntity.entity_id)
        ).all()
    out: dict[str, list[str]] = {}
    for external_id, kind, name in rows:
        out.setdefault(str(external_id), []).append(f"{kind}:{name}")
    return {k: sorted(v) for k, v in sorted(out.items())}


def statuses(runtime: Runtime) -> dict[str, str]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(Entity.display_name, Entity.entity_kind, Entity.status).where(
                Entity.origin == "discovered"
            )
        ).all()
    return {f"{kind}:{name}": status for name, kind, status in rows}


@pytest.fixture
def fresh(
    backend: str, tmp_path: Path, small_seed: Path, request: pytest.FixtureRequest
) -> Iterator[Any]:
    """Makes runtimes on empty stores (one after another: a PostgreSQL store is emptied)."""
    made: list[Runtime] = []

    def make(name: str, **overrides: Any) -> Runtime:
        home = tmp_path / name
        home.mkdir()
        if backend == "sqlite":
            template: Path = request.getfixturevalue("sqlite_template")
            shutil.copy(template, home / "herald.db")
            url = f"sqlite:///{home / 'herald.db'}"
        else:
            url = request.getfixturevalue("pg_server_url")
            _truncate_all(url)
        settings = Settings(
            home=home,
            database_url=url,
            log_format="text",
            entity_seed=str(small_seed),
            **overrides,
        )
        runtime = Runtime(settings, clock=FrozenClock(START))
        runtime.service("embedder", embedder)
        made.append(runtime)
        return runtime

    yield make
    for runtime in made:
        runtime.close()


def test_the_same_corpus_in_two_orders_gives_the_same_links(fresh: Any) -> None:
    corpus = demo_lines()
    assert len(corpus) >= 8
    first = fresh("forward")
    ingest(first, corpus)
    forward = links(first)
    forward_status = statuses(first)
    first.close()
    second = fresh("backward")
    ingest(second, list(reversed(corpus)))
    backward = links(second)
    assert backward == forward
    assert statuses(second) == forward_status
    # Something was confirmed (and so linked in every item naming it), and the knowledge base
    # linking consults holds exactly the active entities.
    assert forward_status["person:Vladimir Putin"] == "active"
    naming = [d["external_id"] for d in corpus if "Vladimir Putin" in d["body"]]
    assert all("person:Vladimir Putin" in forward[k] for k in naming)
    kb = get_entity_store(second).knowledge_base()
    for key, status in forward_status.items():
        found = [r for r in kb.lookup(key.split(":", 1)[1].lower()) if r.origin == "discovered"]
        assert bool(found) == (status == "active"), key


def test_a_candidate_waits_for_items_from_two_sources(fresh: Any) -> None:
    """Three items of one source name a person: a candidate, linked by those items only and
    absent from the knowledge base; an item from a second source confirms it."""
    corpus = [d for d in demo_lines() if "Vladimir Putin" in d["body"]]
    for line in corpus:
        line["source"] = SOURCES[0]
        line["url"] = f"https://first.example/{line['external_id']}"
    runtime = fresh("sources")
    ingest(runtime, corpus[:3])
    assert statuses(runtime)["person:Vladimir Putin"] == "candidate"
    with runtime.sessions.read() as session:
        staged = staging.list_candidates(session, limit=1000)
    (putin,) = [c for c in staged if c.display_name == "Vladimir Putin"]
    assert (putin.items, putin.sources) == (3, 1)
    kb = get_entity_store(runtime).knowledge_base()
    assert putin.id not in kb
    assert kb.lookup("vladimir putin") == []
    other = dict(
        corpus[3], source=SOURCES[1], url=f"https://second.example/{corpus[3]['external_id']}"
    )
    ingest(runtime, [other])
    assert statuses(runtime)["person:Vladimir Putin"] == "active"
    assert putin.id in get_entity_store(runtime).knowledge_base()
    with runtime.sessions.read() as session:
        linked = set(
            session.scalars(
                select(ContentEntity.content_id).where(ContentEntity.entity_id == putin.id)
            )
        )
    assert len(linked) == 4


def test_accept_and_reject(fresh: Any) -> None:
    """An operator accepts a candidate (it joins the knowledge base, its items are enriched
    again) or rejects one (its links go, and it is never linked again)."""
    corpus = [d for d in demo_lines() if "Elon Musk" in d["body"]][:2]
    runtime = fresh("review", entity_confirm_items=50)
    ingest(runtime, corpus)
    with runtime.sessions.read() as session:
        staged = {c.display_name: c for c in staging.list_candidates(session, limit=1000)}
    musk = staged["Elon Musk"]
    assert musk.status == "candidate"
    assert musk.items == 2
    with runtime.sessions.write() as session:
        staging.accept(session, musk.id, clock=runtime.clock)
    with runtime.sessions.read() as session:
        status = session.scalars(select(Entity.status).where(Entity.id == musk.id)).one()
        queued = session.scalars(select(Job.payload).where(Job.kind == ENRICH_KIND)).all()
    assert status == "active"
    assert len(queued) == 2  # the two items naming it are enriched again
    assert musk.id in get_entity_store(runtime).knowledge_base()
    drain(runtime)
    rejected = next(c for name, c in staged.items() if name != "Elon Musk")
    with runtime.sessions.write() as session:
        staging.reject(session, rejected.id, clock=runtime.clock)
    drain(runtime)
    with runtime.sessions.read() as session:
        assert not session.scalars(
            select(ContentEntity).where(ContentEntity.entity_id == rejected.id)
        ).all()
        status = session.scalars(select(Entity.status).where(Entity.id == rejected.id)).one()
    assert status == "rejected"
    assert rejected.id not in get_entity_store(runtime).knowledge_base()
    # Enriching again (a new version of the item) does not bring it back.
    with runtime.sessions.write() as session:
        ids = list(session.scalars(select(ContentItem.id)))
        queue_enrichment(session, ids, clock=runtime.clock)
    drain(runtime)
    with runtime.sessions.read() as session:
        assert not session.scalars(
            select(ContentEntity).where(ContentEntity.entity_id == rejected.id)
        ).all()
        assert session.scalars(
            select(ContentEntity).where(ContentEntity.entity_id == musk.id)
        ).all()
