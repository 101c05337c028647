"""Staged names: when a candidate is confirmed, and `herald entities review` (SQLite and
PostgreSQL)."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta

import pytest
from sqlalchemy import delete, insert, select, update
from typer.testing import CliRunner

from herald.cli import common
from herald.cli.main import app
from herald.config import Settings
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.entity import Entity
from herald.db.models.job import Job
from herald.entities import repository, staging
from herald.entities.model import EntityDraft
from herald.entities.service import get_entity_store
from herald.entities.staging import ConfirmRule
from herald.runtime import Runtime
from tests.enrich.factories import make_item

runner = CliRunner()
DRAFT = EntityDraft("ent_staged_zorvath", "Zorvath Dairy", "company")


def env_for(settings: Settings) -> dict[str, str]:
    return {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
        "HERALD_ENTITY_SEED": settings.entity_seed,
    }


def name_in(runtime: Runtime, sources: list[str]) -> list[str]:
    """One item per source domain in ``sources``, each linked to the candidate."""
    now = runtime.clock.now()
    ids = []
    with runtime.sessions.write() as session:
        repository.upsert_entities(session, [DRAFT.to_record()], now=now, replace=False)
        for domain in sources:
            item = make_item(
                session,
                title=f"Zorvath Dairy story {len(ids)} {domain}",
                body="Zorvath Dairy opened a plant.",
                published_at=now - timedelta(hours=len(ids) + 1),
                now=now,
            )
            item.source_domain = domain
            session.add(
                ContentEntity(
                    content_id=item.id,
                    entity_id=DRAFT.id,
                    mention_count=1,
                    salience=0.5,
                    confidence=0.8,
                    published_at=item.published_at,
                    media_type="news",
                )
            )
            ids.append(item.id)
    return ids


DEFAULT_RULE = ConfirmRule()


def confirm(runtime: Runtime, rule: ConfirmRule = DEFAULT_RULE) -> list[str]:
    with runtime.sessions.write() as session:
        return staging.confirm_reached(session, [DRAFT.id], rule, clock=runtime.clock)


def status(runtime: Runtime) -> str:
    with runtime.sessions.read() as session:
        return session.scalars(select(Entity.status).where(Entity.id == DRAFT.id)).one()


def relinks(runtime: Runtime) -> set[str]:
    with runtime.sessions.read() as session:
        return {str(p["content_id"]) for p in session.scalars(select(Job.payload))}


def test_a_discovered_entity_is_stored_as_a_candidate(runtime: Runtime) -> None:
    name_in(runtime, ["a.example"])
    assert status(runtime) == "candidate"
    assert DRAFT.id not in get_entity_store(runtime).knowledge_base()
    # The search index shows it: an item links to it.
    assert [
        h.entity.id
        for h in get_entity_store(runtime)
        .search_index()
        .search("Zorvath", entity_kinds=None, limit=5)
    ] == [DRAFT.id]


def test_three_items_of_one_source_do_not_confirm(runtime: Runtime) -> None:
    name_in(runtime, ["a.example", "a.example", "a.example"])
    assert confirm(runtime) == []
    assert status(runtime) == "candidate"
    assert relinks(runtime) == set()


def test_two_sources_but_two_items_do_not_confirm(runtime: Runtime) -> None:
    name_in(runtime, ["a.example", "b.example"])
    assert confirm(runtime) == []
    assert confirm(runtime, ConfirmRule(items=2, sources=2)) == [DRAFT.id]


def test_three_items_from_two_sources_confirm_and_relink(runtime: Runtime) -> None:
    ids = name_in(runtime, ["a.example", "a.example", "b.example"])
    kb = get_entity_store(runtime).knowledge_base()
    assert DRAFT.id not in kb
    assert confirm(runtime) == [DRAFT.id]
    assert status(runtime) == "active"
    assert relinks(runtime) == set(ids)
    assert DRAFT.id in get_entity_store(runtime).knowledge_base()
    assert confirm(runtime) == []  # confirmed once


def test_a_deleted_item_does_not_count(runtime: Runtime) -> None:
    ids = name_in(runtime, ["a.example", "a.example", "b.example"])
    with runtime.sessions.write() as session:
        session.execute(
            update(ContentItem)
            .where(ContentItem.id == ids[2])
            .values(deleted_at=runtime.clock.now())
        )
    assert confirm(runtime) == []


def test_review_lists_accepts_and_rejects(
    settings: Settings, runtime: Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(common.stdout, "_width", 80)  # a default terminal, whatever runs this
    ids = name_in(runtime, ["a.example", "b.example"])
    result = runner.invoke(app, ["entities", "review", "--json"], env=env_for(settings))
    assert result.exit_code == 0, result.output
    (listed,) = json.loads(result.stdout)["entities"]
    assert (listed["id"], listed["items"], listed["sources"]) == (DRAFT.id, 2, 2)
    assert listed["display_name"] == "Zorvath Dairy"
    table = runner.invoke(app, ["entities", "review"], env=env_for(settings))
    # Too wide for 80 columns: a block of lines per name, every value whole (the id to be
    # copied into --accept, the name, the time first seen), nothing cut with an ellipsis.
    assert DRAFT.id in table.stdout, table.stdout
    assert "…" not in table.stdout
    assert "name:       Zorvath Dairy" in table.stdout
    assert f"first seen: {listed['first_seen']}" in table.stdout
    accepted = runner.invoke(
        app, ["entities", "review", "--accept", DRAFT.id], env=env_for(settings)
    )
    assert accepted.exit_code == 0, accepted.output
    assert status(runtime) == "active"
    assert relinks(runtime) == set(ids)
    assert DRAFT.id in get_entity_store(runtime).knowledge_base()
    rejected = runner.invoke(
        app, ["entities", "review", "--reject", DRAFT.id], env=env_for(settings)
    )
    assert rejected.exit_code == 0, rejected.output
    assert status(runtime) == "rejected"
    assert DRAFT.id not in get_entity_store(runtime).knowledge_base()
    hits = get_entity_store(runtime).search_index().search("Zorvath", entity_kinds=None, limit=5)
    assert hits == []
    with runtime.sessions.read() as session:
        assert (
            session.scalars(select(ContentEntity).where(ContentEntity.entity_id == DRAFT.id)).all()
            == []
        )
    # Storing the discovered entity again does not bring it back.
    with runtime.sessions.write() as session:
        repository.upsert_entities(
            session, [DRAFT.to_record()], now=runtime.clock.now(), replace=False
        )
        assert repository.existing_ids(session, [DRAFT.id]) == set()
    missing = runner.invoke(
        app, ["entities", "review", "--accept", "ent_nobody"], env=env_for(settings)
    )
    assert missing.exit_code == 1


def test_two_batches_committing_at_once_still_confirm(runtime: Runtime) -> None:
    """Two transactions each link the candidate in items the other cannot see yet: counting waits
    for the first to commit, so the second counts all three items and confirms."""
    ids = name_in(runtime, ["a.example", "b.example", "b.example"])
    with runtime.sessions.write() as session:
        session.execute(delete(ContentEntity).where(ContentEntity.entity_id == DRAFT.id))
    link_rows = {
        content_id: {
            "content_id": content_id,
            "entity_id": DRAFT.id,
            "mention_count": 1,
            "salience": 0.5,
            "confidence": 0.8,
            "published_at": runtime.clock.now(),
            "media_type": "news",
        }
        for content_id in ids
    }
    second: list[list[str]] = []
    started = threading.Event()

    def later_batch() -> None:
        started.set()
        with runtime.sessions.write() as session:
            session.execute(insert(ContentEntity).values(link_rows[ids[2]]))
            second.append(
                staging.confirm_reached(session, [DRAFT.id], DEFAULT_RULE, clock=runtime.clock)
            )

    with runtime.sessions.write() as session:
        session.execute(insert(ContentEntity).values([link_rows[ids[0]], link_rows[ids[1]]]))
        assert staging.confirm_reached(session, [DRAFT.id], DEFAULT_RULE, clock=runtime.clock) == []
        thread = threading.Thread(target=later_batch)
        thread.start()
        started.wait()
        time.sleep(0.5)  # the later batch now waits (for the count lock, or SQLite's writer)
    thread.join(timeout=30)
    assert second == [[DRAFT.id]]
    assert status(runtime) == "active"
