"""All SQL of ingestion: content rows as ingestion writes them, syndication fingerprints,
sources, and the pending-job count ``herald ingest`` waits on."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Table, bindparam, case, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from herald.db.base import Base
from herald.db.bulk import copy_rows, copy_text
from herald.db.models.content import ContentEntity, ContentItem
from herald.db.models.ingest import ContentFingerprint, FingerprintBand, Source

_CHUNK = 900  # stay under SQLite's bound-parameter limit
_PLAIN_ID = re.compile(r"[A-Za-z0-9_]+")


def _table(model: type[Base]) -> Table:
    table = model.__table__
    assert isinstance(table, Table)
    return table


@dataclass(frozen=True, slots=True)
class StoredState:
    """What the upsert needs to know about a row that already exists."""

    content_hash: str
    published_at: datetime
    article_id: str | None
    summary_provided: bool
    language_provided: bool
    version: int
    deleted: bool
    external_id: str | None = None
    page_fetch_failures: int = 0
    language: str | None = None
    enrichment_input: str | None = None  # herald.enrich.inputs


def stored_states(session: Session, content_ids: Iterable[str]) -> dict[str, StoredState]:
    ids = list(dict.fromkeys(content_ids))
    found: dict[str, StoredState] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(
                ContentItem.id,
                ContentItem.content_hash,
                ContentItem.published_at,
                ContentItem.article_id,
                ContentItem.summary_provided,
                ContentItem.language_provided,
                ContentItem.version,
                ContentItem.deleted_at,
                ContentItem.external_id,
                ContentItem.page_fetch_failures,
                ContentItem.language,
                ContentItem.enrichment_input,
            ).where(ContentItem.id.in_(ids[start : start + _CHUNK]))
        )
        for row in rows:
            found[row.id] = StoredState(
                content_hash=row.content_hash,
                published_at=row.published_at,
                article_id=row.article_id,
                summary_provided=row.summary_provided,
                language_provided=row.language_provided,
                version=row.version,
                deleted=row.deleted_at is not None,
                external_id=row.external_id,
                page_fetch_failures=row.page_fetch_failures,
                language=row.language,
                enrichment_input=row.enrichment_input,
            )
    return found


def lock_versions(
    session: Session, content_ids: Sequence[str]
) -> dict[str, tuple[int, str | None]]:
    """Lock the rows of ``content_ids`` for update (in id order, so two batches never deadlock
    on them) and return their current versions and enrichment input hashes (enrichment stores
    its results without a new version)."""
    ids = sorted(set(content_ids))
    found: dict[str, tuple[int, str | None]] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(ContentItem.id, ContentItem.version, ContentItem.enrichment_input)
            .where(ContentItem.id.in_(ids[start : start + _CHUNK]))
            .order_by(ContentItem.id)
            .with_for_update(key_share=True)  # FOR NO KEY UPDATE, as the update itself
        )
        found.update({row.id: (int(row.version), row.enrichment_input) for row in rows})
    return found


def redate_entity_links(session: Session, published: Mapping[str, datetime]) -> None:
    """Give the entity links of items (``content_id -> published_at``) their items' new
    publication time (enrichment copies it into them for the entity timelines)."""
    if published:
        links = _table(ContentEntity)
        session.execute(  # Core executemany: one statement for the batch
            update(links)
            .where(links.c.content_id == bindparam("b_id"))
            .values(published_at=bindparam("b_published")),
            [{"b_id": cid, "b_published": when} for cid, when in sorted(published.items())],
        )


def page_fetch_state(session: Session, content_id: str) -> tuple[int, datetime] | None:
    """``(page_fetch_failures, created_at)`` of a stored (not deleted) item, else None."""
    row = session.execute(
        select(ContentItem.page_fetch_failures, ContentItem.created_at).where(
            ContentItem.id == content_id, ContentItem.deleted_at.is_(None)
        )
    ).first()
    return None if row is None else (int(row.page_fetch_failures), row.created_at)


def insert_items(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        return
    if _copy_writes(session):
        # One COPY stream: an INSERT per row (pipelined) cost PostgreSQL and this process more.
        copy_rows(session.connection(), _table(ContentItem), rows)
        return
    # Core executemany on the table: the ORM's per-row bookkeeping is not needed here.
    session.execute(insert(_table(ContentItem)), list(rows))


# Whether new rows go to PostgreSQL by COPY (tests compare the rows with the INSERT path's).
_COPY_ON_POSTGRES = True


def _copy_writes(session: Session) -> bool:
    return _COPY_ON_POSTGRES and session.get_bind().dialect.name == "postgresql"


def update_items(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Bulk update by primary key (each dict carries ``id``)."""
    if rows:
        session.execute(update(ContentItem), list(rows))


# --- syndication fingerprints ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoredFingerprint:
    content_id: str
    article_id: str
    signature: bytes
    band_keys: tuple[int, ...]  # the keys it shares with the query (enough to find it again)


def fingerprints_sharing_bands(
    session: Session, band_keys: Iterable[int], *, per_article: int = 3
) -> list[StoredFingerprint]:
    """Stored fingerprints with at least one band key in ``band_keys`` (LSH candidates), at most
    ``per_article`` copies of each article: a story reprinted fifty times needs only a few of its
    copies to be recognised again."""
    keys = list(dict.fromkeys(band_keys))
    if _copy_writes(session):  # PostgreSQL (the same switch: tests compare both paths)
        return _fingerprints_sharing_bands_pg(session, keys, per_article)
    hits: dict[str, str] = {}
    shared: dict[str, list[int]] = {}
    for content_id, article_id, band_key in _band_rows(session, keys):
        hits[content_id] = article_id
        shared.setdefault(content_id, []).append(int(band_key))
    chosen: dict[str, list[str]] = {}
    for content_id in sorted(hits):
        members = chosen.setdefault(hits[content_id], [])
        if len(members) < per_article:
            members.append(content_id)
    ids = sorted(cid for members in chosen.values() for cid in members)
    found: list[StoredFingerprint] = []
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(
                ContentFingerprint.content_id,
                ContentFingerprint.article_id,
                ContentFingerprint.signature,
            ).where(ContentFingerprint.content_id.in_(ids[start : start + _CHUNK]))
        )
        found.extend(
            StoredFingerprint(r.content_id, r.article_id, r.signature, tuple(shared[r.content_id]))
            for r in rows
        )
    return found


# The portable path's selection in one statement: each stored fingerprint sharing a band with the
# batch, its shared keys aggregated, at most ``per_article`` per article (the first ones in the
# order of their ids, as Python sorts them: the "C" collation), with its signature. One row per
# candidate instead of one per shared band (21,000 keys a batch matched about 6,600 band rows).
_CANDIDATES_PG = (
    "WITH hits AS ("
    f" SELECT content_id, array_agg(band_key) AS keys FROM {FingerprintBand.__tablename__}"
    " WHERE band_key = ANY(%s::bigint[]) GROUP BY content_id"
    "), ranked AS ("
    " SELECT h.content_id, f.article_id, f.signature, h.keys, row_number() OVER ("
    '  PARTITION BY f.article_id ORDER BY h.content_id COLLATE "C") AS n'
    f" FROM hits AS h JOIN {ContentFingerprint.__tablename__} AS f"
    " ON f.content_id = h.content_id"
    ") SELECT content_id, article_id, signature, keys FROM ranked WHERE n <= %s"
)


def _fingerprints_sharing_bands_pg(
    session: Session, keys: list[int], per_article: int
) -> list[StoredFingerprint]:
    # The array as one text literal: the driver's per-element adaptation of 21,000 integers
    # cost more CPU than PostgreSQL spends running the query.
    literal = "{" + ",".join(map(str, keys)) + "}"
    rows = session.connection().exec_driver_sql(_CANDIDATES_PG, (literal, per_article))
    return [
        StoredFingerprint(content_id, article_id, bytes(signature), tuple(shared))
        for content_id, article_id, signature, shared in rows
    ]


_BAND_SELECT = (
    f"SELECT b.content_id, f.article_id, b.band_key FROM {FingerprintBand.__tablename__} AS b "
    f"JOIN {ContentFingerprint.__tablename__} AS f ON f.content_id = b.content_id "
)


def _band_rows(session: Session, keys: list[int]) -> Iterator[tuple[str, str, int]]:
    """``(content_id, article_id, band_key)`` of the stored bands with one of ``keys``.

    Driver-level SQL: compiling 21,000 bound parameters per chunk through SQLAlchemy cost more
    than running the query. PostgreSQL takes every key as one array (one round trip for a whole
    batch); SQLite, whose parameters are bound in process, takes them in chunks."""
    connection = session.connection()
    if session.get_bind().dialect.name == "postgresql":
        # The array as one text literal: the driver's per-element adaptation of 21,000 integers
        # cost more CPU than PostgreSQL spends running the query.
        literal = "{" + ",".join(map(str, keys)) + "}"
        yield from connection.exec_driver_sql(
            _BAND_SELECT + "WHERE b.band_key = ANY(%s::bigint[])", (literal,)
        )
        return
    for start in range(0, len(keys), _CHUNK):
        chunk = keys[start : start + _CHUNK]
        yield from connection.exec_driver_sql(
            _BAND_SELECT + f"WHERE b.band_key IN ({', '.join(['?'] * len(chunk))})", tuple(chunk)
        )


def replace_fingerprints(
    session: Session,
    fingerprints: Sequence[tuple[str, str, bytes, list[int]]],
    *,
    drop: Iterable[str] = (),
) -> None:
    """Store ``(content_id, article_id, signature, band_keys)``; first drop those of ``drop``."""
    dropped = list(drop)
    for start in range(0, len(dropped), _CHUNK):
        chunk = dropped[start : start + _CHUNK]
        session.execute(delete(FingerprintBand).where(FingerprintBand.content_id.in_(chunk)))
        session.execute(delete(ContentFingerprint).where(ContentFingerprint.content_id.in_(chunk)))
    if not fingerprints:
        return
    stored = [{"content_id": c, "article_id": a, "signature": s} for c, a, s, _ in fingerprints]
    if _copy_writes(session):
        copy_rows(session.connection(), _table(ContentFingerprint), stored)
    else:
        session.execute(insert(_table(ContentFingerprint)), stored)
    # 42 rows per item: a driver-level executemany skips SQLAlchemy's per-row processing, which
    # was a third of an import's CPU time; on PostgreSQL, COPY sends them as one stream (an
    # INSERT per row was half of an import's wall time there).
    columns = f"{FingerprintBand.__tablename__} (content_id, band, band_key)"
    connection = session.connection()
    if session.get_bind().dialect.name == "postgresql":
        # COPY's text format written directly: ids are letters, digits and "_", the rest integers,
        # so nothing needs escaping, and formatting 42 lines per item as strings costs a fraction
        # of adapting each value.
        copy_text(connection, columns, _band_lines(fingerprints))
        return
    rows = [(c, band, key) for c, _, _, keys in fingerprints for band, key in enumerate(keys)]
    connection.exec_driver_sql(f"INSERT INTO {columns} VALUES (?, ?, ?)", rows)


def _band_lines(fingerprints: Sequence[tuple[str, str, bytes, list[int]]]) -> Iterator[str]:
    for content_id, _, _, keys in fingerprints:
        if not _PLAIN_ID.fullmatch(content_id):
            raise ValueError(f"content id {content_id!r} would need escaping in COPY text")
        yield "".join([f"{content_id}\t{band}\t{key}\n" for band, key in enumerate(keys)])


# --- sources -------------------------------------------------------------------------------------


def add_source(session: Session, source: Source) -> bool:
    """Insert ``source``; False when a concurrent request inserted the same feed first."""
    try:
        with session.begin_nested():  # a savepoint: the caller's transaction stays usable
            session.add(source)
            session.flush()
    except IntegrityError:
        return False
    return True


def source_by_canonical_urls(session: Session, canonicals: Sequence[str]) -> Source | None:
    """The source of a feed whose canonical URL is one of ``canonicals`` (its forms)."""
    query = select(Source).where(Source.canonical_url.in_(list(canonicals))).order_by(Source.id)
    return session.scalars(query).first()


def moved_sources(session: Session) -> list[tuple[str, str]]:
    """``(id, fetch_url)`` of the sources fetched from where their feed moved."""
    rows = session.execute(
        select(Source.id, Source.fetch_url).where(Source.fetch_url.is_not(None)).order_by(Source.id)
    )
    return [(row.id, row.fetch_url) for row in rows]


def get_source(session: Session, source_id: str, *, lock: bool = False) -> Source | None:
    """``lock``: the row stays locked until the transaction ends (PostgreSQL), so a removal
    waits for it."""
    return session.get(Source, source_id, with_for_update=lock)


def list_sources(session: Session) -> list[Source]:
    return list(session.scalars(select(Source).order_by(Source.created_at.desc(), Source.id)))


def delete_source(session: Session, source_id: str) -> bool:
    result = session.execute(delete(Source).where(Source.id == source_id))
    return bool(result.rowcount)  # type: ignore[attr-defined]


def claim_due_sources(session: Session, *, now: datetime, limit: int = 100) -> list[Source]:
    """Sources due for a poll, moved to their next slot in the same statement's transaction, so
    two schedulers never both enqueue one poll (the job's unique key also guards it)."""
    return list(
        session.scalars(
            select(Source)
            .where(Source.enabled.is_(True), Source.next_poll_at <= now)
            .order_by(Source.next_poll_at)
            .limit(limit)
            .with_for_update(skip_locked=True)
        )
    )


@dataclass(frozen=True, slots=True)
class SourceHealth:
    """The polled sources: how many work and how many fail, and since when the one failing
    longest has failed (None when none fails)."""

    ok: int
    failing: int
    failing_since: datetime | None


def source_health(session: Session) -> SourceHealth:
    """One grouped read of the sources (a row per feed): a source fails while its last poll
    failed (``consecutive_failures`` > 0). It has failed since the poll after its last
    success was due (that success plus its interval), or since it was added if it never
    worked."""
    failing = (Source.consecutive_failures > 0).label("failing")
    rows = session.execute(
        select(
            failing,
            Source.interval_seconds,
            func.count(),
            func.min(Source.last_success_at),
            func.min(case((Source.last_success_at.is_(None), Source.created_at))),
        )
        .where(Source.enabled.is_(True))
        .group_by(failing, Source.interval_seconds)
    ).all()
    counts = {True: 0, False: 0}
    starts: list[datetime] = []
    for is_failing, interval, count, last_success, never_worked in rows:
        counts[bool(is_failing)] += int(count)
        if is_failing and last_success is not None:
            starts.append(last_success + timedelta(seconds=interval))
        if is_failing and never_worked is not None:
            starts.append(never_worked)
    return SourceHealth(counts[False], counts[True], min(starts, default=None))
