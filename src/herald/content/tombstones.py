"""Tombstones: an item an operator deleted is not ingested again.

A takedown deletes an item whose source may still list it; without a trace of the deletion the
next poll of the feed (or a re-import of the same file) would store it again. A deletion by an
operator (``DELETE /v1/admin/content/{id}``, ``herald content delete``) therefore leaves one
tombstone per deleted item, holding no content: the SHA-256 of the item's identities (see
:func:`identity_hashes`), the deletion's id and the time. Ingestion looks the identities of a
whole batch up at once and skips the entries it finds (counted as ``tombstoned``). Retention
deletions leave none: an item that aged out is stored again if its source publishes it again.

``herald content allow --url`` lifts the tombstone of a URL, ``--deletion`` every tombstone of a
deletion.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, delete, func, insert, or_, select
from sqlalchemy.orm import Session

from herald.db.models.content import ContentItem, ContentTombstone

__all__ = [
    "count_tombstones",
    "identity_hashes",
    "lift_tombstones",
    "tombstone_rows",
    "tombstoned_hashes",
    "tombstoned_ids",
    "tombstones_of",
    "url_hash",
]


def _sha256(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def url_hash(canonical: str) -> str:
    """The hash of a canonical URL's identity (the ``url:`` key ingestion dedupes on)."""
    return _sha256(f"url:{canonical}")


def identity_hashes(canonical: str | None, canonical_key: str) -> tuple[str | None, str | None]:
    """(URL hash, external-id hash) of an item: its canonical URL's, and, when the item is
    identified by its own id within its source (its key is ``ext:domain:id``), that key's."""
    return (
        None if canonical is None else url_hash(canonical),
        _sha256(canonical_key) if canonical_key.startswith("ext:") else None,
    )


def tombstone_rows(session: Session, ids: Sequence[str], *, deletion_id: str, now: datetime) -> int:
    """Record a tombstone for each row of ``ids`` (call before deleting them, in the same
    transaction). An earlier tombstone of the same item is replaced."""
    from herald.ingest.urls import InvalidUrl, canonical_url

    rows = session.execute(
        select(ContentItem.id, ContentItem.url, ContentItem.canonical_key).where(
            ContentItem.id.in_(list(ids))
        )
    ).all()
    if not rows:
        return 0
    values = []
    for content_id, url, key in rows:
        # The canonical URL in today's form: a key stored by an earlier release may hold an
        # earlier one (ingestion looks for both).
        canonical = None
        for known in (key[4:] if key.startswith("url:") else None, url):
            if canonical is None and known:
                with contextlib.suppress(InvalidUrl):
                    canonical = canonical_url(known)
        by_url, by_external = identity_hashes(canonical, key)
        values.append(
            {
                "content_id": content_id,
                "url_hash": by_url,
                "external_hash": by_external,
                "deletion_id": deletion_id,
                "created_at": now,
            }
        )
    session.execute(
        delete(ContentTombstone)
        .where(ContentTombstone.content_id.in_([v["content_id"] for v in values]))
        .execution_options(synchronize_session=False)
    )
    session.execute(insert(ContentTombstone), values)
    return len(values)


def tombstoned_hashes(
    session: Session, url_hashes: Iterable[str], external_hashes: Iterable[str]
) -> set[str]:
    """Which of these hashes have a tombstone: one query, on the two indexes."""
    urls, externals = sorted(set(url_hashes)), sorted(set(external_hashes))
    conditions = []
    if urls:
        conditions.append(ContentTombstone.url_hash.in_(urls))
    if externals:
        conditions.append(ContentTombstone.external_hash.in_(externals))
    if not conditions:
        return set()
    found: set[str] = set()
    for by_url, by_external in session.execute(
        select(ContentTombstone.url_hash, ContentTombstone.external_hash).where(or_(*conditions))
    ):
        found.update(h for h in (by_url, by_external) if h is not None)
    return found


def tombstoned_ids(session: Session, content_ids: Iterable[str]) -> set[str]:
    """Which of these content ids belong to an item an operator deleted (one query)."""
    ids = sorted(set(content_ids))
    if not ids:
        return set()
    return set(
        session.scalars(
            select(ContentTombstone.content_id).where(ContentTombstone.content_id.in_(ids))
        )
    )


def tombstones_of(
    *, canonicals: Sequence[str] = (), deletion_id: str | None = None
) -> ColumnElement[bool]:
    """The tombstones of a canonical URL, given in each of its forms (today's and those of
    earlier releases; 0 or 1 tombstone, unless items of several sources shared it), or those a
    deletion left."""
    if canonicals:
        return ContentTombstone.url_hash.in_(sorted({url_hash(c) for c in canonicals}))
    if deletion_id is None:
        raise ValueError("give a canonical URL or a deletion id")
    return ContentTombstone.deletion_id == deletion_id


def count_tombstones(session: Session, which: ColumnElement[bool]) -> int:
    """How many tombstones ``which`` (:func:`tombstones_of`) selects."""
    found = session.scalar(select(func.count()).select_from(ContentTombstone).where(which))
    return int(found or 0)


def lift_tombstones(session: Session, which: ColumnElement[bool]) -> int:
    """Lift the tombstones ``which`` (:func:`tombstones_of`) selects, with their external-id
    hashes: their entries are ingested again. Returns how many were lifted."""
    result = session.execute(
        delete(ContentTombstone).where(which).execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)
