"""Taking deleted content out of its story clusters, so no cluster shows or keeps it.

A cluster's working profile (the online clusterer's state) holds sketches of its recent members:
their titles, abstracts, phrases and embeddings. A member cannot be subtracted from it exactly,
so a cluster that loses a member is closed: its working profile is dropped (as when it falls out
of the clustering horizon), and what the API shows is recomputed from the members that remain.
New copies of a remaining article still join it; other new items found a new story. A cluster
with no member left is deleted. The stream's document frequencies forget an article whose last
copy is deleted: the keys recorded for it leave ``cluster_term_stats``
(:mod:`herald.clusters.article_keys`), and a word only it used leaves with them.

The clustering epoch goes up in the same transaction: every process's in-memory clusterer
reloads from the database at its next batch, so none keeps (or writes back) a profile holding
the deleted items. Call :func:`forget_contents` before the content rows are deleted, in the same
transaction; it locks the cluster state row first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from herald.clusters import article_keys, repository
from herald.clusters.evidence import BAG_NAMES
from herald.clusters.features import abstract_for
from herald.clusters.service import status_for
from herald.db.models.clusters import (
    ClusterState,
    StoryCluster,
    StoryClusterMember,
)
from herald.db.models.content import ContentItem

_CHUNK = 900  # stay under SQLite's bound-parameter limit


@dataclass(frozen=True, slots=True)
class ClusterCleanup:
    changed: int = 0  # clusters recomputed and closed
    removed: int = 0  # clusters left without members, deleted


def hold_clusters(session: Session, *, now: datetime) -> None:
    """Lock the cluster state row until the transaction ends. A deletion takes it before it locks
    the content rows, in the order clustering takes them (the state, then the items it
    references), so the two never wait for each other in a cycle."""
    repository.lock_state(session, now=now)


def forget_contents(
    session: Session, content_ids: Sequence[str], *, now: datetime
) -> ClusterCleanup:
    """Remove ``content_ids`` from their clusters and fix up those clusters.

    The state row is locked first, before memberships are read: a clustering batch that is
    placing (or moving) one of these items either committed before, and its memberships are
    read here, or waits for this transaction and then finds the item gone."""
    ids = list(dict.fromkeys(content_ids))
    state = repository.lock_state(session, now=now)
    cluster_ids: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        cluster_ids.update(
            session.scalars(
                select(StoryClusterMember.cluster_id).where(
                    StoryClusterMember.content_id.in_(chunk)
                )
            )
        )
    if not cluster_ids:
        return ClusterCleanup()
    gone = _texts_of(session, ids)
    articles: dict[str, str] = {}  # deleted member -> its article
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        for content_id, article_id in session.execute(
            select(StoryClusterMember.content_id, StoryClusterMember.article_id).where(
                StoryClusterMember.content_id.in_(chunk)
            )
        ):
            articles[content_id] = article_id
        session.execute(delete(StoryClusterMember).where(StoryClusterMember.content_id.in_(chunk)))
    sequence = state.sequence + 1
    _uncount(session, state, articles, sequence=sequence)
    changed = removed = 0
    for cluster_id in sorted(cluster_ids):
        row = session.get(StoryCluster, cluster_id)
        if row is None:
            continue
        if _recompute(session, row, gone, sequence=sequence, now=now):
            changed += 1
        else:
            session.delete(row)
            removed += 1
    state.sequence = sequence
    state.epoch += 1  # every process reloads its clusterer: none keeps a deleted member
    state.updated_at = now
    return ClusterCleanup(changed=changed, removed=removed)


def _uncount(
    session: Session, state: ClusterState, articles: dict[str, str], *, sequence: int
) -> None:
    """Take out of the document frequencies each article no remaining member carries.

    An article was counted once, when its first copy was clustered; its copies share its text,
    so the keys of any deleted copy are the ones that were counted."""
    last: dict[str, str] = {}  # article -> one deleted copy of it
    for content_id, article_id in articles.items():
        last.setdefault(article_id, content_id)
    remaining = set(
        session.scalars(
            select(StoryClusterMember.article_id).where(
                StoryClusterMember.article_id.in_(list(last))
            )
        )
    )
    decrements: dict[tuple[str, str], int] = {}
    documents = dict(state.documents or {})
    gone = [article_id for article_id in last if article_id not in remaining]
    counted = article_keys.recorded(session, gone)
    for article_id in gone:
        # What was counted for it; an article counted before the record: its current keys.
        keys = counted.get(article_id) or article_keys.keys_of(session, last[article_id])
        # It was counted in every bag, with keys there or not (DocumentFrequencies.observe).
        for bag in set(BAG_NAMES) | set(keys):
            documents[bag] = max(int(documents.get(bag, 0)) - 1, 0)
        for bag, found in keys.items():
            for key in found:
                decrements[(bag, key)] = decrements.get((bag, key), 0) + 1
    repository.subtract_statistics(session, decrements, sequence=sequence)
    article_keys.forget(session, gone)
    article_keys.delete_zero_counts(session)  # every process reloads: see the epoch below
    state.documents = documents


def _texts_of(session: Session, ids: Sequence[str]) -> set[str]:
    """The titles and abstracts of the deleted items, as a cluster may show them."""
    texts: set[str] = set()
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(ContentItem.title, ContentItem.summary, ContentItem.body).where(
                ContentItem.id.in_(ids[start : start + _CHUNK])
            )
        )
        for title, summary, body in rows:
            texts.add(title.strip())
            texts.add(abstract_for(summary, body or ""))
    return texts


def _recompute(
    session: Session, row: StoryCluster, gone: set[str], *, sequence: int, now: datetime
) -> bool:
    """Recompute what ``row`` shows from its remaining members; False if none remains."""
    members = session.execute(
        select(StoryClusterMember, ContentItem)
        .join(ContentItem, ContentItem.id == StoryClusterMember.content_id)
        .where(StoryClusterMember.cluster_id == row.id)
        .order_by(StoryClusterMember.published_at.desc(), StoryClusterMember.id)
    ).all()
    if not members:
        return False
    sources = sorted({member.source_key for member, _ in members})
    published = [member.published_at for member, _ in members]
    newest = members[0][1]
    if row.title.strip() in gone or row.abstract in gone:
        row.title = newest.title.strip()
        row.abstract = abstract_for(newest.summary, newest.body or "")
    # A key idea is a phrase of some member's text: keep the ones a remaining member still has.
    texts = [
        " ".join((item.title, item.summary or "", item.body or "")).lower() for _, item in members
    ]
    row.key_ideas = [idea for idea in row.key_ideas if any(idea.lower() in t for t in texts)]
    row.member_count = len(members)
    row.unique_source_count = len(sources)
    row.source_keys = sources
    row.status = status_for(len(members))
    row.first_published_at = min(published)
    row.latest_published_at = max(published)
    row.latest_member_added_at = max(member.assigned_at for member, _ in members)
    row.profile = None
    row.index_keys = None
    row.changed_seq = sequence
    row.updated_at = now
    return True
