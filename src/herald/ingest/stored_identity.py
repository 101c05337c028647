"""Which stored row, or which operator's deletion, an incoming item is: the identities earlier
releases gave it (legacy keys) keep a row's id, and a tombstone under any of them holds."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy.orm import Session

from herald.content.tombstones import identity_hashes, tombstoned_hashes, url_hash
from herald.ingest.model import IncomingItem, content_id_for_key
from herald.ingest.repository import StoredState

__all__ = ["keep_legacy_ids", "not_tombstoned"]


def not_tombstoned(
    session: Session, items: Sequence[IncomingItem]
) -> tuple[list[IncomingItem], int]:
    """The items no operator deleted, and how many were (neither stored nor queued). One lookup
    for the batch (every identity of every item, those earlier releases gave it included)."""
    if not items:
        return [], 0
    hashes = [_identity_hashes(item) for item in items]
    found = tombstoned_hashes(
        session,
        (h for by_url, _ in hashes for h in by_url),
        (h for _, by_external in hashes for h in by_external),
    )
    if not found:
        return list(items), 0
    kept = [
        item
        for item, (by_url, by_external) in zip(items, hashes, strict=True)
        if found.isdisjoint(by_url) and found.isdisjoint(by_external)
    ]
    return kept, len(items) - len(kept)


def _identity_hashes(item: IncomingItem) -> tuple[list[str], list[str]]:
    """The URL hashes and external-id hashes an item's tombstone may be under: its own, and
    those of the canonical forms and external ids earlier releases gave it."""
    by_url, by_external = identity_hashes(item.canonical_url, item.canonical_key)
    legacy = [url_hash(canonical) for canonical in item.legacy_canonical_urls]
    externals = [identity_hashes(None, key)[1] for key in item.legacy_keys]
    return (
        ([] if by_url is None else [by_url]) + legacy,
        [h for h in (by_external, *externals) if h is not None],
    )


def keep_legacy_ids(
    items: Sequence[IncomingItem], states: Mapping[str, StoredState]
) -> list[IncomingItem]:
    """An entry whose row was stored under one of its legacy keys (its canonical URL, before
    entries were identified by their own id; its URL's canonical form before the text of paths
    and queries was normalised to NFC; an earlier external id, such as a podcast episode's
    enclosure URL as written) keeps that row's id. An entry identified by its own id
    does not when the row belongs to another entry (another external id, or claimed by an
    earlier entry of this batch)."""
    out: list[IncomingItem] = []
    claimed: dict[str, str | None] = {}
    for item in items:
        if item.content_id not in states:
            by_id = item.canonical_key.startswith("ext:")
            for key in item.legacy_keys:
                legacy_id = content_id_for_key(key)
                state = states.get(legacy_id)
                if state is None:
                    continue
                owner = claimed.get(legacy_id, state.external_id)
                if by_id and owner not in (None, item.external_id, *item.legacy_external_ids):
                    continue
                claimed[legacy_id] = item.external_id
                item = item.rekeyed(key)
                break
        out.append(item)
    return out
