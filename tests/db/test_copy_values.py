"""`herald db copy` keeps awkward values exactly: SQLite -> PostgreSQL (COPY) -> SQLite.

COPY's text format gives a meaning to tabs, newlines, backslashes and ``\\N``; these tests write
values made of them (and unicode, SQL ``NULL`` beside the JSON value ``null``, binary with zero
bytes, JSON with quotes, floats that have no short decimal form, microsecond instants) and read
the SQLite file at the end byte for byte, as SQLite stores it, against the one they started
from. PostgreSQL keeps ``jsonb`` in its own form (keys ordered by length, then bytes), so the JSON
objects here have their keys in that order already; the values inside are what must not change.
"""

from __future__ import annotations

import json
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import JSON, String, create_engine, insert, select, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from herald.core.clock import FrozenClock, isoformat_z
from herald.db.bulk import column_formatter, line_formatter
from herald.db.copy import copied_tables, copy_database, nonempty_tables
from herald.db.engine import make_engine
from herald.db.migrate import upgrade
from herald.db.models.content import ContentEmbedding, ContentItem
from herald.db.models.job import RateBucket
from herald.ingest.dates import parse_published_date
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.runtime import Runtime
from tests.conftest import PG_ADMIN_URL, START
from tests.db.filled import Filled, herald_copy, settings_for

AWKWARD = (
    "tab\there, newline\nthere, CRLF\r\n, back\\slash, \\N and \\\\N and \\t literally, "
    "quotes \"double\" 'single', unicode é 中文 🎉, a vertical tab \x0b, end\\"
)
BINARY = b"\x00\x00\x80?\x00\t\n\\N\r\x00" + bytes(range(256)) + b"\x00"
AT = datetime(2026, 1, 2, 3, 4, 5, 678901, tzinfo=UTC)


def _item(item_id: str, **values: Any) -> dict[str, Any]:
    return {
        "id": item_id,
        "canonical_key": f"key:{item_id}",
        "media_type": "news",
        "url": None,
        "external_id": None,
        "source_name": AWKWARD,
        "source_domain": "example.com",
        "title": AWKWARD,
        "authors": ['O"Brien', "tab\there", "back\\slash", "\\N", "é"],
        "language": "en",
        "language_provided": True,
        "published_at": AT,
        "body": "",
        "transcript_segments": None,  # the models write the JSON value null
        "summary": None,
        "summary_provided": True,
        "summaries": [],
        "key_points": ["\\N", "line\nbreak"],
        "segments": [{"text": 'say "hi"\t\\N', "start": 0.1}],
        "word_count": 0,
        "page_fetch_failures": 0,
        "content_hash": "0" * 64,
        "change_seq": 2**40,
        "created_at": AT,
        "updated_at": AT,
        "deleted_at": None,
        "duration_seconds": None,
    } | values


def _fill(url: str) -> None:
    upgrade(url)
    engine = create_engine(url)
    with engine.begin() as connection:
        connection.execute(
            insert(ContentItem.__table__),
            [
                _item("cnt_a", url="\\N", summary=AWKWARD, duration_seconds=7),
                _item(
                    "cnt_b",
                    body=AWKWARD,
                    summary_provided=False,
                    language=None,
                    language_provided=False,
                    page_fetch_failures=3,
                    deleted_at=AT,
                ),
            ],
        )
        # SQL NULL where the models write the JSON value null.
        connection.execute(
            text("UPDATE content_items SET transcript_segments = NULL WHERE id = 'cnt_b'")
        )
        connection.execute(
            insert(ContentEmbedding.__table__).values(updated_at=AT),
            [
                {"content_id": "cnt_a", "model": AWKWARD, "dim": 3, "vector": BINARY},
                {"content_id": "cnt_b", "model": "m", "dim": 0, "vector": b""},
            ],
        )
        connection.execute(
            insert(RateBucket.__table__),
            [
                {"bucket": "key\t1", "tokens": 0.1 + 0.2, "updated_at": 1e-300, "allowed": True},
                {"bucket": "\\N", "tokens": -1.5e308, "updated_at": 1 / 3, "allowed": False},
            ],
        )
        # The JSON value null inside a column the models never leave empty.
        connection.execute(
            insert(ContentItem.__table__),
            [_item("cnt_c", transcript_segments=JSON.NULL, segments=[None, {"a": None}])],
        )
    engine.dispose()


def _stored(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every copied table as SQLite stores it: each value with its storage class."""
    with sqlite3.connect(path) as connection:
        found = {}
        for table in copied_tables():
            columns = ", ".join(f"typeof({c.name}), {c.name}" for c in table.columns)
            keys = ", ".join(c.name for c in table.primary_key.columns)
            found[table.name] = connection.execute(
                f"SELECT {columns} FROM {table.name} ORDER BY {keys}"
            ).fetchall()
        return found


def test_awkward_values_round_trip_byte_identical(pg_url: str, tmp_path: Path) -> None:
    source = tmp_path / "a" / "herald.db"
    back = tmp_path / "b" / "herald.db"
    _fill(f"sqlite:///{source}")
    before = _stored(source)
    assert len(before["content_items"]) == 3
    assert len(before["content_embeddings"]) == 2
    assert len(before["rate_buckets"]) == 2

    copy_database(f"sqlite:///{source}", pg_url)
    with psycopg.connect(pg_url.replace("+psycopg", "")) as connection:
        rows = connection.execute(
            "SELECT id, title, url, summary, body, transcript_segments IS NULL, "
            "transcript_segments::text, authors::text FROM content_items ORDER BY id"
        ).fetchall()
        vectors = connection.execute(
            "SELECT vector FROM content_embeddings ORDER BY content_id"
        ).fetchall()
        buckets = connection.execute(
            "SELECT bucket, tokens, updated_at FROM rate_buckets ORDER BY bucket"
        ).fetchall()
    assert [r[1] for r in rows] == [AWKWARD] * 3
    assert [r[2] for r in rows] == ["\\N", None, None]  # the text \N is not NULL
    assert [r[3] for r in rows] == [AWKWARD, None, None]
    assert [r[4] for r in rows] == ["", AWKWARD, ""]
    assert [(r[5], r[6]) for r in rows] == [(False, "null"), (True, None), (False, "null")]
    assert rows[0][7] == '["O\\"Brien", "tab\\there", "back\\\\slash", "\\\\N", "é"]'
    assert [bytes(v[0]) for v in vectors] == [BINARY, b""]
    assert buckets == [("\\N", -1.5e308, 1 / 3), ("key\t1", 0.1 + 0.2, 1e-300)]

    copy_database(pg_url, f"sqlite:///{back}")
    assert _stored(back) == before


def test_every_copied_column_has_a_copy_text_format() -> None:
    """A column of a type COPY's formatting does not know is refused before any row is sent;
    every column of the schema has one."""
    dialect = PGDialect_psycopg()
    for table in copied_tables():
        line_formatter(table, dialect)
    with pytest.raises(TypeError, match="no COPY text format"):
        column_formatter(ARRAY(String()), dialect)


def test_a_value_postgresql_refuses_leaves_the_target_empty(pg_url: str, tmp_path: Path) -> None:
    """SQLite keeps a NUL character in text, PostgreSQL refuses it: the COPY fails as a statement
    would (a SQLAlchemy error), and nothing of the copy stays in the target."""
    source = tmp_path / "a" / "herald.db"
    _fill(f"sqlite:///{source}")
    with sqlite3.connect(source) as connection:
        connection.execute("UPDATE content_items SET body = ? WHERE id = 'cnt_c'", ("a\x00b",))
    with pytest.raises(DBAPIError, match="0x00"):
        copy_database(f"sqlite:///{source}", pg_url)
    engine = create_engine(pg_url)
    try:
        assert nonempty_tables(engine) == []
        # The command says so in a line (PostgreSQL's reason, no values), not a traceback.
        result = herald_copy(f"sqlite:///{source}", pg_url, tmp_path / "home")
        assert result.exit_code == 1
        assert isinstance(result.exception, SystemExit)
        assert "not copied" in result.output
        assert "0x00" in result.output
        assert "none of it" in result.output
        assert nonempty_tables(engine) == []
    finally:
        engine.dispose()


@pytest.mark.slow
def test_copy_writes_what_insert_writes(
    filled: Filled, new_pg_database: Any, tmp_path: Path
) -> None:
    """The filled home through COPY and through INSERT: every row the same in PostgreSQL's
    own text form."""
    source = filled.settings.resolved_database_url
    by_copy, by_insert = new_pg_database(), new_pg_database()
    copy_database(source, by_copy)
    copy_database(source, by_insert, use_copy=False)
    assert _pg_text(by_copy) == _pg_text(by_insert)


def _pg_text(url: str) -> dict[str, list[str]]:
    with psycopg.connect(url.replace("+psycopg", "")) as connection:
        found = {}
        for table in copied_tables():
            keys = ", ".join(c.name for c in table.primary_key.columns)
            found[table.name] = [
                row[0]
                for row in connection.execute(
                    f"SELECT t::text FROM {table.name} AS t ORDER BY {keys}"
                )
            ]
        return found


# Instants at the ends of what ingestion accepts, and one a microsecond before midnight UTC.
FAR_DATES = ["0001-01-01T00:00:00Z", "2026-11-29T23:59:59.999999Z", "9999-12-31T23:59:59.999999Z"]


@pytest.mark.parametrize("zone", ["America/New_York", "Asia/Tokyo"])
def test_far_instants_survive_a_postgresql_server_in_another_time_zone(
    new_pg_database: Any, tmp_path: Path, zone: str
) -> None:
    """Items published at year 1 and at the end of year 9999 (UTC), ingested through the
    pipeline, copied to a PostgreSQL database whose time zone is not UTC and back: every row
    the same. In the server's zone the first is in year 0 (west of UTC) and the last in year
    10000 (east of it), which no Python datetime holds: the sessions read instants in UTC."""
    source = tmp_path / "a" / "herald.db"
    source_url = f"sqlite:///{source}"
    _ingest_far_dates(source_url, tmp_path / "a")
    before = _stored(source)
    assert len(before["content_items"]) == len(FAR_DATES)

    pg = new_pg_database()
    with psycopg.connect(PG_ADMIN_URL, autocommit=True) as connection:
        connection.execute(f"ALTER DATABASE \"{make_url(pg).database}\" SET timezone TO '{zone}'")
    copy_database(source_url, pg)
    engine = make_engine(pg)
    try:
        with engine.connect() as connection:
            published = connection.execute(
                select(ContentItem.published_at).order_by(ContentItem.published_at)
            ).scalars()
            assert [isoformat_z(at) for at in published] == [
                isoformat_z(parse_published_date(date)) for date in FAR_DATES
            ]
    finally:
        engine.dispose()
    back = tmp_path / "b" / "herald.db"
    copy_database(pg, f"sqlite:///{back}")
    assert _stored(back) == before


def _ingest_far_dates(url: str, home: Path) -> None:
    upgrade(url)
    lines = [
        {
            "url": f"https://far.example.com/{n}",
            "media_type": "news",
            "title": f"Far story {n}",
            "body": f"A story dated {date}.",
            "published_date": date,
            "source": {"name": "Far", "domain": "far.example.com"},
        }
        for n, date in enumerate(FAR_DATES)
    ]
    content = "\n".join(json.dumps(line) for line in lines).encode()
    runtime = Runtime(settings_for(home, url), clock=FrozenClock(START))
    try:
        outcomes = JsonLinesAdapter().parse(Document(content=content, origin="far"))
        report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
        assert report.accepted == len(FAR_DATES), report
    finally:
        runtime.close()
