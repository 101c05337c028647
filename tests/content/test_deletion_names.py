"""A name linking discovered only in deleted items (a candidate entity) goes with them, from the
database and from every process's entity search; a name other live items still link to stays."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.content.retention import apply_retention
from herald.db.models.entity import Entity
from herald.entities.service import get_entity_store, seed_knowledge_base
from herald.runtime import Runtime
from tests.client.conftest import run_jobs
from tests.content.conftest import files_holding
from tests.content.test_purge import env_for

NAME = "Marigold Featherstonehaugh"


def council(n: int, domain: str) -> dict[str, Any]:
    return {
        "url": f"https://{domain}/2026/11/24/council-{n}",
        "media_type": "news",
        "title": f"Council meeting ends early ({n})",
        "published_date": "2026-11-24T09:00:00Z",
        "source": {"name": domain, "domain": domain},
        "body": (
            "The council meeting in Frankfurt ended early on Tuesday. "
            f"Councillor {NAME} said the budget was not ready. {NAME} told reporters she "
            "would resign. Featherstonehaugh, 52, has served since 2010."
        ),
    }


def ingest(
    runtime: Runtime, client: TestClient, admin: dict[str, str], items: list[Any]
) -> list[str]:
    assert seed_knowledge_base(runtime) == 7
    response = client.post("/v1/admin/content", json=items, headers=admin)
    assert response.status_code == 200, response.text
    run_jobs(runtime)
    return list(response.json()["content_ids"])


def found(client: TestClient, auth: dict[str, str]) -> list[str]:
    response = client.post("/v1/entities/search", json={"query": NAME}, headers=auth)
    assert response.status_code == 200, response.text
    return [r["entity"]["display_name"] for r in response.json()["results"]]


def stored_names(runtime: Runtime) -> list[tuple[str, str]]:
    with runtime.sessions.read() as session:
        return [
            (row.display_name, row.status)
            for row in session.scalars(select(Entity).where(Entity.origin == "discovered"))
        ]


def test_a_takedown_takes_the_name_it_alone_held_everywhere(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str], auth: dict[str, str]
) -> None:
    [content_id] = ingest(runtime, client, admin_auth, [council(1, "news.example.com")])
    assert stored_names(runtime) == [(NAME, "candidate")]
    assert found(client, auth) == [NAME]
    # Another process (a second API process or worker) whose entity search was built before.
    other = Runtime(runtime.settings, clock=runtime.clock)
    try:
        assert [h.entity.display_name for h in _other_search(other)] == [NAME]
        done = CliRunner().invoke(
            app, ["content", "delete", content_id, "--yes", "--json"], env=env_for(runtime)
        )
        assert done.exit_code == 0, done.output
        assert stored_names(runtime) == []
        assert found(client, auth) == []
        assert _other_search(other) == []
    finally:
        other.close()
    assert files_holding(runtime.settings.home, ["Featherstonehaugh"]) == []


def _other_search(other: Runtime) -> list[Any]:
    return get_entity_store(other).search_index().search(NAME, entity_kinds=None, limit=10)


def test_a_name_other_live_items_link_to_stays(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str], auth: dict[str, str]
) -> None:
    first, second = ingest(
        runtime,
        client,
        admin_auth,
        [council(1, "news.example.com"), council(2, "news.example.com")],
    )
    assert stored_names(runtime) == [(NAME, "candidate")]
    deleted = client.delete(f"/v1/admin/content/{first}", headers=admin_auth)
    assert deleted.status_code == 200, deleted.text
    assert stored_names(runtime) == [(NAME, "candidate")]
    [hit] = client.post("/v1/entities/search", json={"query": NAME}, headers=auth).json()["results"]
    timeline = client.get(f"/v1/entities/{hit['entity']['id']}/timeline", headers=auth)
    assert [row["id"] for row in timeline.json()["timeline"]] == [second]


def test_retention_takes_the_names_of_the_items_it_deletes(
    runtime: Runtime, client: TestClient, admin_auth: dict[str, str], auth: dict[str, str]
) -> None:
    ingest(runtime, client, admin_auth, [council(1, "news.example.com")])
    assert found(client, auth) == [NAME]
    [outcome] = apply_retention(runtime.sessions, default_days=1, clock=runtime.clock)
    assert outcome.deleted == 1
    assert stored_names(runtime) == []
    assert found(client, auth) == []
