"""A database made by Herald 0.1.0 upgrades to this version with its data intact.

The 0.1.0 schema is built from the migrations 0.1.0 shipped (up to ``0012_entity_redirects``)
and filled by raw SQL, as that version wrote its rows: a workspace and its key, an item, an
entity linked to it, a monitor with a stored result and its ledger, a webhook target with its
signing secret, an event, a delivery and its attempt, and a queued job. After `herald db
upgrade` every row reads back the same (columns a later migration added aside), and the server
answers the old key with the old item, monitor, result and webhook target.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, MetaData, create_engine, select, text

from herald.api.app import create_app
from herald.config import Settings
from herald.db.migrate import head_revisions, upgrade
from herald.runtime import Runtime
from tests.conftest import PG_ADMIN_URL

RELEASE_0_1_0 = "0012_entity_redirects"
KEY = "hk_0.1.0-upgrade-test-key-not-a-real-one"
KEY_HASH = "14ec1d960b1aa719547b4c0c974260e13d12b705e66e2bed81b4c3e4d63263bb"  # sha256(KEY)
T0 = datetime(2026, 11, 20, 9, 30, tzinfo=UTC)
BODY = "Dock workers in Rotterdam tested new harbour cranes on Monday, the port authority said. "
SECRET = "whsec_MfKQ9r8GLYSwkt5tI3DtiyjvqR0Kq0Bq8sxBw2ZmLYY"

ROWS: list[tuple[str, dict[str, Any]]] = [
    ("teams", {"id": "team_acme0000000000000", "name": "acme", "created_at": T0}),
    (
        "api_keys",
        {
            "id": "key_acme00000000000000",
            "team_id": "team_acme0000000000000",
            "role": "admin",
            "key_hash": KEY_HASH,
            "key_prefix": KEY[:10],
            "label": "made by 0.1.0",
            "created_at": T0,
            "revoked_at": None,
        },
    ),
    (
        "content_items",
        {
            "id": "cnt_harbour00000000000",
            "canonical_key": "url:https://example.com/harbour",
            "media_type": "news",
            "url": "https://example.com/harbour",
            "external_id": None,
            "source_id": None,
            "source_name": "Example News",
            "source_domain": "example.com",
            "title": "Harbour cranes tested in Rotterdam",
            "authors": ["Ann Example"],
            "language": "en",
            "published_at": T0,
            "body": BODY * 3,
            "transcript_segments": None,
            "summary": "Dock workers in Rotterdam tested new harbour cranes.",
            "summary_provided": False,
            "summaries": [],
            "key_points": ["New harbour cranes were tested."],
            "segments": [],
            "word_count": 42,
            "content_hash": "f" * 64,
            "article_id": "art_harbour00000000000",
            "podcast_id": None,
            "podcast_title": None,
            "podcast_publisher": None,
            "episode_id": None,
            "audio_url": None,
            "duration_seconds": None,
            "cluster_id": None,
            "enriched_at": T0,
            "change_seq": 1,
            "version": 1,
            "created_at": T0,
            "updated_at": T0,
            "deleted_at": None,
        },
    ),
    (
        "entities",
        {
            "id": "ent_rotterdam000000000",
            "display_name": "Rotterdam",
            "entity_kind": "place",
            "description": "",
            "aliases": [],
            "tags": ["country:NL"],
            "origin": "seed",
            "created_at": T0,
            "updated_at": T0,
        },
    ),
    ("entity_aliases", {"alias_norm": "rotterdam", "entity_id": "ent_rotterdam000000000"}),
    (
        "content_entities",
        {
            "content_id": "cnt_harbour00000000000",
            "entity_id": "ent_rotterdam000000000",
            "mention_count": 3,
            "salience": 0.8,
            "confidence": 0.9,
            "published_at": T0,
            "media_type": "news",
        },
    ),
    (
        "monitors",
        {
            "id": "mon_harbours0000000000",
            "team_id": "team_acme0000000000000",
            "name": "Harbours",
            "description": None,
            "status": "active",
            "search": {"query": "harbour cranes"},
            "frequency": "daily",
            "timezone": "Europe/Amsterdam",
            "minute": None,
            "run_time": "06:00",
            "next_run_at": datetime(2026, 11, 21, 5, tzinfo=UTC),
            "created_at": T0,
            "updated_at": T0,
            "disabled_at": None,
        },
    ),
    (
        "monitor_ledger",
        {
            "monitor_id": "mon_harbours0000000000",
            "published_date": date(2026, 11, 20),
            "status": "succeeded",
            "run_id": "0f0c6a52-6a43-4a43-8a8b-1a2b3c4d5e6f",
            "run_origin": "scheduled",
            "run_at": T0,
            "latest_indexed_content_at": T0,
            "result_count": 1,
            "error_message": None,
            "completed_at": T0,
            "updated_at": T0,
        },
    ),
    (
        "monitor_results",
        {
            "monitor_id": "mon_harbours0000000000",
            "content_id": "cnt_harbour00000000000",
            "published_date": date(2026, 11, 20),
            "published_at": T0,
            "score": 0.62,
            "enriched_at": T0,
            "first_captured_at": T0,
            "first_run_id": "0f0c6a52-6a43-4a43-8a8b-1a2b3c4d5e6f",
        },
    ),
    (
        "webhook_targets",
        {
            "team_id": "team_acme0000000000000",
            "url": "https://hooks.example.com/herald",
            "enabled": True,
            "created_at": T0,
            "updated_at": T0,
            "disabled_reason": None,
            "disabled_at": None,
        },
    ),
    (
        "webhook_signing_secrets",
        {
            "id": 1,
            "team_id": "team_acme0000000000000",
            "version": 1,
            "secret": SECRET,
            "created_at": T0,
            "retired_at": None,
        },
    ),
    (
        "webhook_events",
        {
            "id": "evt_one000000000000000",
            "team_id": "team_acme0000000000000",
            "event_type": "monitor.results",
            "body": json.dumps({"id": "evt_one000000000000000", "type": "monitor.results"}),
            "created_at": T0,
        },
    ),
    (
        "webhook_deliveries",
        {
            "id": 1,
            "team_id": "team_acme0000000000000",
            "event_id": "evt_one000000000000000",
            "event_type": "monitor.results",
            "is_test": False,
            "status": "retrying",
            "attempt_count": 1,
            "last_http_status": 503,
            "last_error": "http_status: HTTP 503",
            "created_at": T0,
            "last_attempt_at": T0,
            "next_attempt_at": datetime(2026, 11, 20, 9, 35, tzinfo=UTC),
            "lease_owner": None,
            "lease_expires_at": None,
        },
    ),
    (
        "webhook_attempts",
        {
            "id": 1,
            "team_id": "team_acme0000000000000",
            "delivery_id": 1,
            "event_id": "evt_one000000000000000",
            "event_type": "monitor.results",
            "attempt_number": 1,
            "delivery_status": "retrying",
            "http_status": 503,
            "error": "http_status: HTTP 503",
            "duration_ms": 41,
            "attempted_at": T0,
        },
    ),
    (
        "jobs",
        {
            "id": 1,
            "kind": "enrich.item",
            "lane": "default",
            "payload": {"content_id": "cnt_harbour00000000000"},
            "unique_key": "enrich:cnt_harbour00000000000",
            "team_id": None,
            "status": "queued",
            "priority": 0,
            "run_at": T0,
            "attempts": 0,
            "max_attempts": 5,
            "lease_expires_at": None,
            "worker_id": None,
            "last_error": None,
            "created_at": T0,
            "updated_at": T0,
            "finished_at": None,
        },
    ),
]


@pytest.fixture
def empty_database(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A database with no tables yet, on SQLite or on the test PostgreSQL server."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'herald.db'}"
        return
    request.getfixturevalue("pg_server_url")  # skips (or fails in CI) without PostgreSQL
    name = f"herald_upgrade_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    finally:
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _stored(value: Any, dialect: str) -> Any:
    """A value as 0.1.0's columns held it: JSON as text, SQLite's times as naive UTC text."""
    if isinstance(value, list | dict):
        return json.dumps(value)
    if dialect == "sqlite" and isinstance(value, datetime):
        return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    if dialect == "sqlite" and isinstance(value, date):
        return value.isoformat()
    return value


def _insert_as_0_1_0(engine: Engine) -> None:
    with engine.begin() as connection:
        for table, row in ROWS:
            insert_row(connection, table, row)


def insert_row(connection: Any, table: str, row: dict[str, Any]) -> None:
    """``row`` inserted into ``table`` with plain SQL, as a schema of another version holds it
    (JSON values cast on PostgreSQL, dates as text on SQLite)."""
    dialect = connection.dialect.name
    columns = ", ".join(f'"{column}"' for column in row)
    values = ", ".join(
        f"CAST(:{c} AS JSON)" if dialect == "postgresql" and isinstance(v, list | dict)
        else f":{c}"
        for c, v in row.items()
    )  # fmt: skip
    connection.execute(
        text(f"INSERT INTO {table} ({columns}) VALUES ({values})"),
        {column: _stored(value, dialect) for column, value in row.items()},
    )


def _snapshot(engine: Engine, columns: dict[str, list[str]] | None = None) -> dict[str, Any]:
    """Every row of every table (of the given columns), in primary key order."""
    metadata = MetaData()
    metadata.reflect(engine)
    found: dict[str, Any] = {}
    with engine.connect() as connection:
        for name, table in sorted(metadata.tables.items()):
            if name == "alembic_version" or (columns is not None and name not in columns):
                continue
            wanted = columns[name] if columns else [c.name for c in table.columns]
            query = select(*(table.c[c] for c in wanted)).order_by(*table.primary_key.columns)
            found[name] = {"columns": wanted, "rows": connection.execute(query).all()}
    return found


def test_a_0_1_0_database_upgrades_with_its_data(empty_database: str, tmp_path: Path) -> None:
    assert hashlib.sha256(KEY.encode()).hexdigest() == KEY_HASH
    upgrade(empty_database, RELEASE_0_1_0)
    engine = create_engine(empty_database)
    try:
        _insert_as_0_1_0(engine)
        before = _snapshot(engine)
        assert {table for table, _row in ROWS} <= set(before)
        upgrade(empty_database)  # what `herald db upgrade` runs
        with engine.connect() as connection:
            version = connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
            assert set(version) == head_revisions(empty_database)
        after = _snapshot(engine, {name: t["columns"] for name, t in before.items()})
    finally:
        engine.dispose()
    for name, table in before.items():
        assert after[name]["rows"] == table["rows"], f"table {name} changed in the upgrade"

    home = tmp_path / "home"
    settings = Settings(home=home, database_url=empty_database, rate_limit_per_minute=0)
    runtime = Runtime(settings)
    try:
        with TestClient(create_app(runtime)) as client:
            auth = {"authorization": f"Bearer {KEY}"}
            item = client.get("/v1/content/cnt_harbour00000000000", headers=auth)
            assert item.status_code == 200, item.text
            assert item.json()["content_item"]["title"] == "Harbour cranes tested in Rotterdam"
            monitor = client.get("/v1/monitors/mon_harbours0000000000", headers=auth)
            assert monitor.status_code == 200, monitor.text
            assert monitor.json()["search"] == {"query": "harbour cranes"}
            results = client.get("/v1/monitors/mon_harbours0000000000/results", headers=auth)
            assert results.status_code == 200, results.text
            assert "cnt_harbour00000000000" in results.text
            webhook = client.get("/v1/webhooks", headers=auth)
            assert webhook.status_code == 200, webhook.text
            assert "https://hooks.example.com/herald" in webhook.text
            assert webhook.json()["webhook"]["signing_secret"]["version"] == 1
            assert SECRET not in webhook.text  # shown as a preview only, as before
    finally:
        runtime.close()
