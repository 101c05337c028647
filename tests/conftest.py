"""Shared fixtures: every storage test runs on SQLite AND on PostgreSQL.

PostgreSQL: one throwaway database per test session (per xdist worker), migrated once and
truncated between tests. SQLite: one migrated template file, copied per test. When PostgreSQL is
unreachable the PostgreSQL half is skipped with a notice, unless HERALD_REQUIRE_POSTGRES=1 (CI),
which turns that into a failure. The console's browser tests (tests/console) are treated the
same way: without Chromium they are reported as not run, unless HERALD_REQUIRE_BROWSER=1 (CI).
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import text

from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.db import models  # noqa: F401  (all tables)
from herald.db.base import Base
from herald.db.migrate import upgrade
from herald.runtime import Runtime
from herald.workspaces.service import CreatedKey, create_key
from tests.console.browser import REQUIRE_BROWSER, browser_problem

PG_ADMIN_URL = os.environ.get(
    "HERALD_TEST_PG_ADMIN", "postgresql://postgres@127.0.0.1:5432/postgres"
)
REQUIRE_PG = os.environ.get("HERALD_REQUIRE_POSTGRES") == "1"
START = datetime(2026, 11, 25, 12, 0, 0, tzinfo=UTC)


def _pg_reachable() -> str | None:
    try:
        with psycopg.connect(PG_ADMIN_URL, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
        return None
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}".strip()


@pytest.fixture(scope="session")
def pg_problem() -> str | None:
    return _pg_reachable()


@pytest.fixture(scope="session")
def pg_server_url(pg_problem: str | None) -> Iterator[str]:
    """A migrated throwaway PostgreSQL database for this test session."""
    if pg_problem is not None:
        message = f"PostgreSQL not reachable at {PG_ADMIN_URL} ({pg_problem})"
        if REQUIRE_PG:
            pytest.fail(message + " and HERALD_REQUIRE_POSTGRES=1")
        pytest.skip(message)
    name = f"herald_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"
    upgrade(url)
    yield url
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "herald.db"
    upgrade(f"sqlite:///{path}")
    return path


# The sequences that have handed out a value since their last restart, with their tables.
_USED_SEQUENCES = """
SELECT t.relname FROM pg_sequences AS q
JOIN pg_class AS s ON s.relname = q.sequencename AND s.relnamespace = q.schemaname::regnamespace
JOIN pg_depend AS d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass
  AND d.refclassid = 'pg_class'::regclass
JOIN pg_class AS t ON t.oid = d.refobjid
WHERE q.last_value IS NOT NULL
"""


def _truncate_all(url: str) -> None:
    """Every table but the database's identity (a migrated database always has one; the record
    of a backup in it is cleared), with its sequences restarted. The tables that hold no row and
    whose sequences handed out nothing are as a truncation leaves them, so only the others are
    truncated (a truncation costs a hundred milliseconds per test whatever it empties)."""
    kept = {"database_identity"}
    names = [t.name for t in Base.metadata.sorted_tables if t.name not in kept]
    probe = " UNION ALL ".join(
        f"SELECT '{n}' FROM (SELECT FROM \"{n}\" LIMIT 1) AS r" for n in names
    )
    with psycopg.connect(url.replace("+psycopg", ""), autocommit=True) as conn:
        used = {str(row[0]) for row in conn.execute(text(probe).text)}
        used |= {str(row[0]) for row in conn.execute(text(_USED_SEQUENCES).text)}
        dirty = ", ".join(f'"{n}"' for n in names if n in used)
        if dirty:
            conn.execute(text(f"TRUNCATE {dirty} RESTART IDENTITY CASCADE").text)
        conn.execute(
            "UPDATE database_identity SET backed_up_at = NULL WHERE backed_up_at IS NOT NULL"
        )


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def database_url(backend: str, home: Path, request: pytest.FixtureRequest) -> str:
    if backend == "sqlite":
        template: Path = request.getfixturevalue("sqlite_template")
        shutil.copy(template, home / "herald.db")
        return f"sqlite:///{home / 'herald.db'}"
    url: str = request.getfixturevalue("pg_server_url")
    _truncate_all(url)
    return url


@pytest.fixture
def settings(home: Path, database_url: str) -> Settings:
    # No request rate limit in tests (tests of the limit set their own); the quotas stay on.
    return Settings(
        home=home, database_url=database_url, log_format="text", rate_limit_per_minute=0
    )


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock(START)


@pytest.fixture
def runtime(settings: Settings, clock: FrozenClock) -> Iterator[Runtime]:
    rt = Runtime(settings, clock=clock)
    yield rt
    rt.close()


@pytest.fixture
def app(runtime: Runtime) -> FastAPI:
    return create_app(runtime)


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture
def make_key(runtime: Runtime) -> Callable[..., CreatedKey]:
    def _make(workspace: str = "acme", role: str = "member") -> CreatedKey:
        with runtime.sessions.write() as session:
            return create_key(session, workspace=workspace, role=role, clock=runtime.clock)

    return _make


@pytest.fixture
def member_key(make_key: Callable[..., CreatedKey]) -> CreatedKey:
    return make_key("acme", "member")


@pytest.fixture
def admin_key(make_key: Callable[..., CreatedKey]) -> CreatedKey:
    return make_key("acme", "admin")


@pytest.fixture
def auth(member_key: CreatedKey) -> dict[str, str]:
    """Headers of a member key of workspace "acme"."""
    return {"x-api-key": member_key.api_key}


@pytest.fixture
def admin_auth(admin_key: CreatedKey) -> dict[str, str]:
    return {"x-api-key": admin_key.api_key}


@pytest.fixture
def other_auth(make_key: Callable[..., CreatedKey]) -> dict[str, str]:
    """Headers of a member key of another workspace ("globex")."""
    return {"x-api-key": make_key("globex", "member").api_key}


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    # Checked here, in the controlling process: with xdist the fixtures ran in the workers.
    problem = _pg_reachable()
    if problem is not None and not REQUIRE_PG:
        terminalreporter.write_sep("!", "PostgreSQL half SKIPPED", yellow=True)
        terminalreporter.write_line(f"PostgreSQL not reachable at {PG_ADMIN_URL} ({problem})")
        terminalreporter.write_line(
            "Only SQLite was tested. Start PostgreSQL 15 on 127.0.0.1:5432 (trust auth, user "
            "postgres), e.g. `pg_ctlcluster --skip-systemctl-redirect 15 main start`, or point "
            "HERALD_TEST_PG_ADMIN at a server, then run `make test` again."
        )
    browser = browser_problem()
    if browser is not None and not REQUIRE_BROWSER:
        terminalreporter.write_sep("!", "Browser tests of the console NOT RUN", yellow=True)
        terminalreporter.write_line(f"tests/console was skipped: {browser}.")
        terminalreporter.write_line(
            "Install Chromium (as root: `apt-get update && apt-get install -y chromium`), then "
            "run `make test` again; CI sets HERALD_REQUIRE_BROWSER=1 and fails instead."
        )
