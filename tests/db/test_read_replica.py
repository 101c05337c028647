"""HERALD_DATABASE_READ_URL: reads of member keys go to a real streaming standby, and back to the
primary when they must see a write (or after waiting for the standby to replay it), when the
standby lags, and when it is down.

The standby replays the primary's WAL; pausing its replay (``pg_wal_replay_pause()``) holds it at
a known state, so what each request read from is told by what it returns.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import psycopg
import pytest
from fastapi.testclient import TestClient
from prometheus_client import REGISTRY

from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db.migrate import upgrade
from herald.entities.service import seed_knowledge_base
from herald.runtime import Runtime
from herald.workspaces.service import create_key
from tests.client.conftest import SMALL_SEED, run_jobs
from tests.conftest import START, _truncate_all
from tests.content.conftest import ITEMS
from tests.db.standby import Pair, standby_pair, wait_replayed

__all__ = ["standby_pair"]  # the fixture, imported to be found
pytestmark = pytest.mark.xdist_group("read-replica")  # one primary and standby for the module

DATABASE = "herald_replica_test"
WINDOW = {"start_date": "2026-11-20", "end_date": "2026-11-25"}


@pytest.fixture(scope="module")
def migrated(standby_pair: Pair) -> Pair:
    with psycopg.connect(standby_pair.primary.dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{DATABASE}"')
    upgrade(standby_pair.primary.url(DATABASE))
    return standby_pair


@pytest.fixture
def pair(migrated: Pair) -> Iterator[Pair]:
    _truncate_all(migrated.primary.url(DATABASE))
    wait_replayed(migrated)
    yield migrated
    with psycopg.connect(migrated.standby.dsn(), autocommit=True) as conn:
        conn.execute("SELECT pg_wal_replay_resume()")


def _settings(pair: Pair, home: Path, **extra: object) -> Settings:
    return Settings(
        home=home,
        database_url=pair.primary.url(DATABASE),
        database_read_url=pair.standby.url(DATABASE),
        log_format="text",
        rate_limit_per_minute=0,
        embedding_model="herald-hashing",
        entity_seed=str(SMALL_SEED),
        **extra,  # type: ignore[arg-type]
    )


class Herald:
    """An API on the pair, with an admin and a member key and the three items stored."""

    def __init__(
        self, pair: Pair, home: Path, max_lag: float, search: str = "auto", wait_ms: int = 0
    ) -> None:
        self.pair = pair
        settings = _settings(
            pair,
            home,
            database_read_max_lag_seconds=max_lag,
            search_backend=search,
            database_read_wait_ms=wait_ms,
        )
        self.runtime = Runtime(settings, clock=FrozenClock(START))
        self.runtime.reads.check_seconds = 0  # measure the standby before every read
        self.client = TestClient(create_app(self.runtime), raise_server_exceptions=False)
        self.admin = self.key("admin")
        self.member = self.key("member")
        assert seed_knowledge_base(self.runtime) == 7
        response = self.client.post("/v1/admin/content", json=ITEMS, headers=self.admin)
        assert response.status_code == 200, response.text
        self.ids: list[str] = list(response.json()["content_ids"])
        run_jobs(self.runtime)
        wait_replayed(pair)

    def key(self, role: str) -> dict[str, str]:
        with self.runtime.sessions.write() as session:
            created = create_key(session, workspace="acme", role=role, clock=self.runtime.clock)
        return {"x-api-key": created.api_key}

    def title(self, content_id: str, headers: dict[str, str]) -> str:
        response = self.client.get(f"/v1/content/{content_id}", headers=headers)
        assert response.status_code == 200, response.text
        return str(response.json()["content_item"]["title"])

    def retitle_on_primary(self, content_id: str, title: str) -> None:
        with psycopg.connect(self.pair.primary.dsn(DATABASE), autocommit=True) as conn:
            conn.execute("UPDATE content_items SET title = %s WHERE id = %s", (title, content_id))

    def pause_standby(self) -> None:
        self.pair.pause_replay()

    def resume_standby(self) -> None:
        self.pair.resume_replay()

    def close(self) -> None:
        self.client.close()
        self.runtime.close()


@pytest.fixture
def herald(pair: Pair, tmp_path: Path) -> Iterator[Herald]:
    app = Herald(pair, tmp_path / "home", max_lag=3600)
    yield app
    app.close()


def _count(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    """The reasons of the replica warnings logged, in order."""
    return [
        getattr(r, "replica_fallback", "?")
        for r in caplog.records
        if r.name == "herald.db.replica" and r.levelname == "WARNING"
    ]


def _fallbacks(reason: str) -> float:
    return _count("herald_read_replica_fallbacks_total", reason=reason)


def _replica_reads() -> float:
    return _count("herald_read_replica_reads_total", target="replica")


@pytest.mark.parametrize("search", ["embedded", "postgresql"])
def test_member_reads_are_answered_by_the_standby(pair: Pair, tmp_path: Path, search: str) -> None:
    herald = Herald(pair, tmp_path / "home", max_lag=3600, search=search)
    try:
        _answered_by_the_standby(herald)
    finally:
        herald.close()


def _answered_by_the_standby(herald: Herald) -> None:
    first = herald.ids[0]
    herald.pause_standby()
    herald.retitle_on_primary(first, "Written on the primary only")
    before = _replica_reads()

    # The standby has not replayed the change: a member key reads the old title there.
    assert herald.title(first, herald.member) == ITEMS[0]["title"]
    assert _replica_reads() == before + 1
    # Admin keys (the only ones that write content) read the primary.
    assert herald.title(first, herald.admin) == "Written on the primary only"
    for path, params in [
        ("/v1/news/clusters", {}),
        ("/v1/entities/ent_99yig2g1bclgxrqxtguv/timeline", WINDOW),
    ]:
        response = herald.client.get(path, params=params, headers=herald.member)
        assert response.status_code == 200, response.text
    search = herald.client.post(
        "/v1/content/search",
        json={"query": "European Central Bank interest rates", **WINDOW},
        headers=herald.member,
    )
    assert search.status_code == 200, search.text
    titles = {r["content_item"]["title"] for r in search.json()["results"]}
    assert ITEMS[0]["title"] in titles
    assert "Written on the primary only" not in titles
    preview = herald.client.post(
        "/v1/monitors/preview",
        json={"search": {"query": "European Central Bank interest rates"}, "days": 3},
        headers=herald.member,
    )
    assert preview.status_code == 200, preview.text
    previewed = {r["content_item"]["title"] for d in preview.json()["days"] for r in d["top"]}
    assert ITEMS[0]["title"] in previewed
    assert _replica_reads() == before + 5

    herald.resume_standby()
    assert herald.title(first, herald.member) == "Written on the primary only"


def test_a_member_sees_what_was_just_written(herald: Herald) -> None:
    herald.pause_standby()
    # A key made now authenticates at once, and the monitor it creates reads back.
    fresh = herald.key("member")
    created = herald.client.post(
        "/v1/monitors", json={"name": "ECB", "search": {"query": "ECB rates"}}, headers=fresh
    )
    assert created.status_code == 201, created.text
    monitor = herald.client.get(f"/v1/monitors/{created.json()['id']}", headers=fresh)
    assert monitor.status_code == 200, monitor.text

    # An item stored now is not on the standby yet: its 404 there is asked of the primary.
    item = {**ITEMS[0], "url": "https://news.example.com/just-now", "title": "Just stored"}
    stored = herald.client.post("/v1/admin/content", json=[item], headers=herald.admin)
    assert stored.status_code == 200, stored.text
    (new_id,) = stored.json()["content_ids"]
    before = _fallbacks("not_found")
    assert herald.title(new_id, fresh) == "Just stored"
    assert _fallbacks("not_found") == before + 1
    # A missing item is still a 404.
    missing = herald.client.get("/v1/content/cnt_does_not_exist", headers=fresh)
    assert missing.status_code == 404, missing.text


def test_a_lagging_standby_degrades_reads_to_the_primary(
    pair: Pair, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    herald = Herald(pair, tmp_path / "home", max_lag=0)
    try:
        first = herald.ids[0]
        herald.pause_standby()
        herald.retitle_on_primary(first, "Newer than the standby")
        before = _fallbacks("lag")
        assert herald.title(first, herald.member) == "Newer than the standby"
        assert _fallbacks("lag") == before + 1
        assert _count("herald_read_replica_lag_seconds") > 0
        assert _warnings(caplog) == ["lag"]
        metrics = herald.client.get("/metrics")
        assert 'herald_read_replica_fallbacks_total{reason="lag"}' in metrics.text

        # Caught up and allowed to lag again, the standby answers again.
        herald.resume_standby()
        herald.runtime.reads.max_lag_seconds = 60
        reads = _replica_reads()
        assert herald.title(first, herald.member) == "Newer than the standby"
        assert _replica_reads() == reads + 1
    finally:
        herald.close()


def test_a_stopped_standby_degrades_reads_to_the_primary(
    herald: Herald, caplog: pytest.LogCaptureFixture
) -> None:
    first = herald.ids[0]
    assert herald.title(first, herald.member) == ITEMS[0]["title"]
    # The router believes the standby healthy and will not look again: the next read fails
    # there, mid-request, and is answered by the primary.
    herald.runtime.reads.check_seconds = 3600
    herald.runtime.reads.check()
    herald.pair.stop_standby()
    try:
        errors, down = _fallbacks("error"), _fallbacks("down")
        statuses = [
            herald.client.get(f"/v1/content/{first}", headers=herald.member).status_code,
            herald.client.get("/v1/news/clusters", headers=herald.member).status_code,
            herald.client.post(
                "/v1/content/search",
                json={"query": "interest rates", **WINDOW},
                headers=herald.member,
            ).status_code,
            herald.client.get(f"/v1/content/{first}", headers=herald.member).status_code,
        ]
        assert statuses == [200, 200, 200, 200]
        assert _fallbacks("error") == errors + 1  # the read that found the standby gone
        assert _fallbacks("down") == down + 3  # the others, without trying it
        assert _count("herald_read_replica_lag_seconds") == -1
        # One warning of each kind, however many reads fell back.
        assert _warnings(caplog) == ["error", "down"]
    finally:
        herald.pair.start_standby()
    herald.runtime.reads.check()
    reads = _replica_reads()
    assert herald.title(first, herald.member) == ITEMS[0]["title"]
    assert _replica_reads() == reads + 1


def test_a_read_that_must_see_writes_waits_for_replay(pair: Pair, tmp_path: Path) -> None:
    """HERALD_DATABASE_READ_WAIT_MS: an admin read waits for the standby to replay what the
    primary had written, reads the standby once it has, and the primary when it has not."""
    herald = Herald(pair, tmp_path / "home", max_lag=3600, wait_ms=300)
    try:
        first = herald.ids[0]
        herald.pause_standby()
        herald.retitle_on_primary(first, "Not replayed in time")
        timeouts, reads = _fallbacks("wait_timeout"), _replica_reads()
        # Replay held: the wait runs out and the primary answers, with the write.
        assert herald.title(first, herald.admin) == "Not replayed in time"
        assert _fallbacks("wait_timeout") == timeouts + 1
        assert _replica_reads() == reads
        # Member reads do not wait: the standby answers at once, as it stands.
        assert herald.title(first, herald.member) == ITEMS[0]["title"]
        assert _replica_reads() == reads + 1

        # Replay resumed while the read waits: the standby answers it, with the write.
        herald.runtime.reads.wait_seconds = 30
        herald.retitle_on_primary(first, "Replayed while waiting")
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(herald.title, first, herald.admin)
            time.sleep(0.5)
            assert not waiting.done()  # held by the paused replay (up to 30 s)
            with psycopg.connect(pair.standby.dsn(), autocommit=True) as conn:
                conn.execute("SELECT pg_wal_replay_resume()")
            assert waiting.result(timeout=60) == "Replayed while waiting"
        assert _replica_reads() == reads + 2
        assert _fallbacks("wait_timeout") == timeouts + 1
    finally:
        herald.close()
