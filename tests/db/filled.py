"""A Herald home filled by the real pipeline, and what to compare on a copy or a restore of it.

The fill: a workspace and its admin key, a webhook target with its signing secret, items ingested
and enriched (entities, embeddings, fingerprints, clusters), a monitor run with its results,
ledger, runs, events and deliveries, a job still waiting, and one item and one entity deleted
outright (removals in the search change feed and the entity log, with the logs' marks of the
day). A copy or a restore serves the same when the same key authenticates, the same searches
return the same ids in the same order, the monitor's results are the same, and a delivery signed
there verifies with the secret the receiver was given.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, select, text
from typer.testing import CliRunner

from herald.api.app import create_app
from herald.cli.main import app as herald_app
from herald.clusters.service import CLUSTER_KIND
from herald.config import Settings
from herald.content.changes import next_change_seq
from herald.core.clock import FrozenClock
from herald.db.copy import copied_tables
from herald.db.engine import make_engine
from herald.db.migrate import upgrade
from herald.db.removal_logs import LOGS, record_mark
from herald.entities.service import seed_knowledge_base
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.jobs.queue import enqueue
from herald.runtime import Runtime
from herald.webhooks.repository import leased_delivery
from herald.webhooks.signing import active_secrets, delivery_headers
from herald.webhooks.verify import verify_delivery
from herald.workspaces.service import create_key
from tests.client.conftest import SMALL_SEED, run_jobs
from tests.conftest import PG_ADMIN_URL, REQUIRE_PG, START

QUERIES = [
    {"query": "earthquake Chile"},
    {"query": "central bank interest rates"},
    {"query": "solar", "media_types": ["news"]},
]
FILLER = (
    "Reporters on the scene spoke with residents, officials and analysts who followed the events "
    "closely through the afternoon, and said more details would follow in the coming days as "
    "investigators gathered figures from every district affected."
)
STORIES = [
    ("https://news.example.com/quake", "Earthquake shakes the coast of Chile", "news", 1),
    (
        "https://wire.example.org/quake",
        "Strong earthquake hits Chile, buildings damaged",
        "wire",
        2,
    ),
    ("https://news.example.com/ecb", "European Central Bank holds interest rates", "news", 3),
    ("https://pod.example.net/rates", "Why central banks raise interest rates", "podcast", 4),
    ("https://news.example.com/solar", "Solar panel factory opens in Texas", "news", 5),
    ("https://news.example.com/gone", "Solar farm plans withdrawn in Chile", "news", 6),
]

GIVEN_LANGUAGE_DAYS = 3  # the story whose source gives its language


@dataclass
class Filled:
    settings: Settings
    api_key: str
    secret: str
    delivery_id: int
    searches: list[list[str]]
    monitor_results: list[str]


def settings_for(home: Path, url: str) -> Settings:
    return Settings(
        home=home,
        database_url=url,
        log_format="text",
        rate_limit_per_minute=0,
        webhook_allow_networks="127.0.0.0/8",
        embedding_model="herald-hashing",
        entity_seed=str(SMALL_SEED),
    )


def corpus() -> bytes:
    lines = []
    for url, title, media_type, days in STORIES:
        line: dict[str, Any] = {
            "url": url,
            "media_type": media_type,
            "title": title,
            "published_date": (START - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "source": {"name": "Example", "domain": url.split("/")[2]},
        }
        if media_type == "podcast":
            segment = {"start": 0.0, "end": 30.5, "speaker": "Host", "text": f"{title}. {FILLER}"}
            line |= {"transcript_segments": [segment], "podcast": {"title": "Rates"}}
        else:
            line["body"] = f"{title}. {FILLER}"
        if days == GIVEN_LANGUAGE_DAYS:
            line["language"] = "en-GB"  # given by the source; the others' are detected
        lines.append(line)
    return "\n".join(json.dumps(line) for line in lines).encode()


def searches(client: TestClient, key: str) -> list[list[str]]:
    found = []
    for body in QUERIES:
        response = client.post("/v1/content/search", json=body, headers={"x-api-key": key})
        assert response.status_code == 200, response.text
        found.append([r["content_item"]["id"] for r in response.json()["results"]])
    return found


def monitor_results(client: TestClient, key: str) -> list[str]:
    (monitor,) = client.get("/v1/monitors", headers={"x-api-key": key}).json()["monitors"]
    response = client.get(f"/v1/monitors/{monitor['id']}/results", headers={"x-api-key": key})
    assert response.status_code == 200, response.text
    return [r["content_item"]["id"] for r in response.json()["results"]]


@pytest.fixture(scope="session")
def filled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Filled]:
    """Filled once per session (per worker): the tests read the source and never change what
    they compare (the backup test's writer adds rate buckets only). Its runtime stays open, as
    a serving Herald's would."""
    home = tmp_path_factory.mktemp("filled") / "source"
    url = f"sqlite:///{home / 'herald.db'}"
    home.mkdir()
    upgrade(url)
    settings = settings_for(home, url)
    runtime = Runtime(settings, clock=FrozenClock(START))
    try:
        seed_knowledge_base(runtime)
        with runtime.sessions.write() as session:
            key = create_key(session, workspace="acme", role="admin", clock=runtime.clock).api_key
        auth = {"x-api-key": key}
        with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
            hook = client.put(
                "/v1/webhooks", json={"url": "https://127.0.0.1:9/hook"}, headers=auth
            )
            assert hook.status_code == 200, hook.text
            outcomes = JsonLinesAdapter().parse(Document(content=corpus(), origin="corpus"))
            report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
            assert report.accepted == len(STORIES), report
            run_jobs(runtime)  # enrichment, indexing, clustering
            body = {"name": "quakes", "search": {"query": "earthquake Chile"}}
            monitor = client.post("/v1/monitors", json=body, headers=auth).json()
            run = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
            assert run.status_code in {200, 201, 202}, run.text
            run_jobs(runtime)  # the dated jobs, their results, the event and its delivery
            with runtime.sessions.write() as session:
                # Deleted outright: a removal in the change feed.
                session.execute(text("DELETE FROM content_items WHERE url LIKE '%/gone'"))
                # An entity no item names, deleted: a removal in the entity views' log.
                session.execute(
                    text(
                        "DELETE FROM entities WHERE id = (SELECT min(id) FROM entities WHERE id "
                        "NOT IN (SELECT entity_id FROM content_entities))"
                    )
                )
                for log in LOGS:  # as the daily history job does
                    record_mark(session, runtime.clock.now(), log)
                # A teaser whose article page failed twice (polls may fetch it again).
                session.execute(
                    text("UPDATE content_items SET page_fetch_failures = 2 WHERE url LIKE '%/ecb'")
                )
                # SQL NULL where the models write the JSON value null: both must survive.
                session.execute(
                    text(
                        "UPDATE content_items SET transcript_segments = NULL "
                        "WHERE url LIKE '%/solar'"
                    )
                )
                # A job still waiting when the copy runs.
                enqueue(
                    session,
                    CLUSTER_KIND,
                    {"content_id": "cnt_later"},
                    clock=runtime.clock,
                    run_at=START + timedelta(days=1),
                )
            with runtime.sessions.read() as session:
                delivery_id = session.execute(text("SELECT min(id) FROM webhook_deliveries"))
                delivery = int(delivery_id.scalar_one())
            yield Filled(
                settings,
                key,
                hook.json()["new_signing_secret"],
                delivery,
                searches(client, key),
                monitor_results(client, key),
            )
    finally:
        runtime.close()


@pytest.fixture
def new_pg_database(pg_problem: str | None) -> Iterator[Callable[[], str]]:
    """Makes new, empty PostgreSQL databases (not migrated); drops them at the end."""
    if pg_problem is not None:
        message = f"PostgreSQL not reachable ({pg_problem})"
        if REQUIRE_PG:
            pytest.fail(message + " and HERALD_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    names: list[str] = []

    def make() -> str:
        name = f"herald_copy_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        names.append(name)
        return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"

    yield make
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        for name in names:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url(new_pg_database: Callable[[], str]) -> str:
    """A new, empty PostgreSQL database (not migrated: the copy migrates it)."""
    return new_pg_database()


def herald(args: list[str], home: Path, database_url: str | None = None) -> Any:
    """`herald ARGS` in this process, with an operator's environment (the hashing embedder)."""
    env = {
        "HERALD_HOME": str(home),
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
        "HERALD_ENTITY_SEED": str(SMALL_SEED),
        "HERALD_DATABASE_URL": database_url,
    }
    return CliRunner().invoke(herald_app, args, env=env)


def herald_copy(source: str, target: str, home: Path, *extra: str) -> Any:
    return herald(["db", "copy", "--from", source, "--to", target, *extra], home)


def all_rows(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every copied table, as the models read it (on Herald's engine), in
    primary-key order."""
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return {
                table.name: [
                    tuple(row)
                    for row in connection.execute(
                        select(table).order_by(*table.primary_key.columns)
                    )
                ]
                for table in copied_tables()
            }
    finally:
        engine.dispose()


def raw_facts(url: str) -> dict[str, int]:
    """Counts the models cannot see: SQL NULL in a JSON column reads back as ``None`` just as
    the JSON value ``null`` does."""
    queries = {
        "items": "SELECT count(*) FROM content_items",
        "SQL NULL transcripts": (
            "SELECT count(*) FROM content_items WHERE transcript_segments IS NULL"
        ),
        "JSON null transcripts": (
            "SELECT count(*) FROM content_items WHERE CAST(transcript_segments AS TEXT) = 'null'"
        ),
        "child runs": "SELECT count(*) FROM monitor_runs WHERE parent_run_id IS NOT NULL",
        "given languages": "SELECT count(*) FROM content_items WHERE language_provided",
        "detected languages": (
            "SELECT count(*) FROM content_items "
            "WHERE language IS NOT NULL AND NOT language_provided"
        ),
        "page fetch failures": "SELECT sum(page_fetch_failures) FROM content_items",
    }
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return {
                name: int(connection.execute(text(q)).scalar_one()) for name, q in queries.items()
            }
    finally:
        engine.dispose()


def assert_serves_the_same(filled: Filled, home: Path, url: str) -> None:
    runtime = Runtime(settings_for(home, url), clock=FrozenClock(START))
    try:
        with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
            assert searches(client, filled.api_key) == filled.searches
            assert monitor_results(client, filled.api_key) == filled.monitor_results
            wrong = client.get("/v1/monitors", headers={"x-api-key": filled.api_key + "x"})
            assert wrong.status_code == 401
        with runtime.sessions.read() as session:
            leased = leased_delivery(
                session, filled.delivery_id, owner="test", expires=runtime.clock.now()
            )
        now = runtime.clock.now()
        headers = delivery_headers(
            secrets_newest_first=active_secrets(leased.secrets, now),
            event_id=leased.event_id,
            delivery_id=str(leased.id),
            timestamp=int(now.timestamp()),
            body=leased.body,
        )
        event = verify_delivery(leased.body, headers, filled.secret, clock=runtime.clock)
        assert event["id"] == leased.event_id
        with runtime.sessions.write() as session:  # numbering continues after the copied rows
            highest_job = session.execute(text("SELECT max(id) FROM jobs")).scalar_one()
            highest_change = session.execute(
                text("SELECT max(change_seq) FROM content_removals")
            ).scalar_one()
            job = enqueue(session, CLUSTER_KIND, {"content_id": "cnt_new"}, clock=runtime.clock)
            assert job is not None
            assert job > highest_job
            assert next_change_seq(session) > highest_change
            session.rollback()  # the target stays as copied, for the copy back
    finally:
        runtime.close()


def assert_keeps_working(filled: Filled, home: Path, url: str) -> None:
    """Herald keeps working on a copy or a restore: an item ingested there is found by search
    (the change sequence continues above the copied one), and running the monitor again
    announces no result it had announced (only the run's own completion)."""
    runtime = Runtime(settings_for(home, url), clock=FrozenClock(START))
    auth = {"x-api-key": filled.api_key}
    events = "SELECT event_type, count(*) FROM webhook_events GROUP BY event_type"
    try:
        with runtime.sessions.read() as session:
            before = dict(session.execute(text(events)).all())
        with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
            (monitor,) = client.get("/v1/monitors", headers=auth).json()["monitors"]
            again = client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
            assert again.status_code in {200, 201, 202}, again.text
            run_jobs(runtime)
            with runtime.sessions.read() as session:
                after = dict(session.execute(text(events)).all())
            assert after["monitor.results.added"] == before["monitor.results.added"]
            assert after["monitor.backfill.completed"] == before["monitor.backfill.completed"] + 1
            item = {
                "url": "https://news.example.com/aftershock",
                "media_type": "news",
                "title": "Aftershock: another earthquake in Chile",
                "body": f"Another earthquake struck Chile. {FILLER}",
                "published_date": (START - timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "source": {"name": "Example", "domain": "news.example.com"},
            }
            stored = client.post("/v1/admin/content", json=[item], headers=auth)
            assert stored.status_code == 200, stored.text
            (new_id,) = stored.json()["content_ids"]
            run_jobs(runtime)
            assert new_id in searches(client, filled.api_key)[0]
    finally:
        runtime.close()
