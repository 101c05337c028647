"""The embedded index on PostgreSQL: each machine keeps its own Tantivy index and vector graph,
synced from the database's change sequence, with PostgreSQL as the system of record.

What must hold: it is the default on PostgreSQL; a restarted process applies what changed while
it was down (updates, tombstones, rows deleted outright, new items); two machines (two
``HERALD_HOME`` directories on one database) each see every write of the other; and a search
within one workspace's result store never returns another workspace's items.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete

from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.models.content import ContentItem
from herald.db.models.monitor import MonitorResult
from herald.runtime import Runtime
from herald.search.request import build_content_search
from herald.search.service import get_search
from tests.enrich.models import embedder
from tests.search.support import delete_item, put_item


@pytest.fixture
def backend() -> str:
    return "postgres"


def machine(settings: Settings, home: Path, clock: FrozenClock) -> Runtime:
    """Another machine's process: its own HERALD_HOME, the same database."""
    home.mkdir(exist_ok=True)
    runtime = Runtime(settings.model_copy(update={"home": home}), clock=clock)
    runtime.service("embedder", embedder)
    return runtime


def found(runtime: Runtime, query: str) -> list[str]:
    request = build_content_search(query=query, clock=runtime.clock)
    with runtime.sessions.read() as session:
        return [hit.content_id for hit in get_search(runtime).search(session, request)]


def story(runtime: Runtime, name: str, title: str, body: str) -> str:
    return put_item(
        runtime,
        f"https://news.example/{name}",
        title=title,
        body=body,
        published_at=runtime.clock.now() - timedelta(days=1),
    )


def test_the_embedded_index_is_the_default_on_postgresql(search_runtime: Runtime) -> None:
    cid = story(search_runtime, "quake", "Earthquake shakes the capital", "A strong quake hit.")
    assert get_search(search_runtime).backend == "embedded"
    assert found(search_runtime, "earthquake capital") == [cid]
    lexical = search_runtime.settings.index_dir / "lexical"
    assert any(lexical.iterdir())  # the index lives on this machine's disk


def test_a_restarted_process_applies_what_changed_while_it_was_down(
    search_runtime: Runtime, tmp_path: Path, clock: FrozenClock
) -> None:
    runtime = search_runtime
    edited = story(runtime, "bridge", "Bridge closed for repairs", "Engineers found cracks.")
    gone = story(runtime, "dam", "Dam spillway opened", "Water was released from the dam.")
    purged = story(runtime, "tunnel", "Tunnel boring machine arrives", "The tunnel dig starts.")
    assert found(runtime, "bridge repairs") == [edited]
    assert found(runtime, "dam spillway") == [gone]
    assert found(runtime, "tunnel boring machine") == [purged]
    runtime.close()  # this process stops (its index stays on disk)

    other = machine(runtime.settings, tmp_path / "other", clock)
    try:  # meanwhile, another process writes
        story(other, "bridge", "Bridge reopens to traffic", "Repairs ended early.")
        delete_item(other, gone)
        with other.sessions.write() as session:
            session.execute(delete(ContentItem).where(ContentItem.id == purged))
        added = story(other, "ferry", "Ferry service resumes", "Boats run again after storms.")
    finally:
        other.close()

    restarted = machine(runtime.settings, runtime.settings.home, clock)
    try:
        assert found(restarted, "bridge reopens traffic") == [edited]
        assert found(restarted, "dam spillway water released") == []
        assert found(restarted, "tunnel boring machine dig") == []
        assert found(restarted, "ferry service boats") == [added]
    finally:
        restarted.close()


def test_two_machines_see_each_others_writes(
    search_runtime: Runtime, tmp_path: Path, clock: FrozenClock
) -> None:
    first = search_runtime
    second = machine(first.settings, tmp_path / "second", clock)
    try:
        cid = story(first, "flood", "River floods farmland", "The river burst its banks.")
        assert found(second, "river floods farmland") == [cid]
        assert found(first, "river floods farmland") == [cid]
        story(second, "flood", "Drought dries up the river", "No rain fell for months.")
        assert found(first, "drought dries river") == [cid]
        assert found(first, "floods farmland burst banks") == []
        with second.sessions.write() as session:
            session.execute(delete(ContentItem).where(ContentItem.id == cid))
        assert found(first, "drought dries river") == []
        assert found(second, "drought dries river") == []
        assert second.settings.index_dir != first.settings.index_dir
    finally:
        second.close()


def _monitor(client: TestClient, headers: dict[str, str], query: str) -> str:
    body = {"name": f"{query} watch", "search": {"query": query}}
    response = client.post("/v1/monitors", json=body, headers=headers)
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def _capture(runtime: Runtime, monitor_id: str, content_id: str) -> None:
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        session.add(
            MonitorResult(
                monitor_id=monitor_id,
                content_id=content_id,
                published_date=(now - timedelta(days=1)).date(),
                published_at=now - timedelta(days=1),
                score=0.9,
                enriched_at=now,
                first_captured_at=now,
                first_run_id="run-1",
            )
        )


def test_a_store_search_never_returns_another_workspaces_items(
    search_runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
) -> None:
    runtime = search_runtime
    ours = story(runtime, "mine", "Copper mine expands output", "The copper mine adds a shaft.")
    theirs = story(runtime, "smelter", "Copper smelter expands output", "Copper smelting grows.")
    mine, other = _monitor(client, auth, "copper"), _monitor(client, other_auth, "copper")
    _capture(runtime, mine, ours)
    _capture(runtime, other, theirs)
    query = {"query": "copper smelter smelting expands output"}  # their item matches best
    results = client.post(f"/v1/monitors/{mine}/search", json=query, headers=auth).json()
    assert [r["content_item"]["id"] for r in results["results"]] == [ours]
    results = client.post(f"/v1/monitors/{other}/search", json=query, headers=other_auth).json()
    assert [r["content_item"]["id"] for r in results["results"]] == [theirs]
    assert client.post(f"/v1/monitors/{other}/search", json=query, headers=auth).status_code == 404
