"""What each counted article added to the document frequencies, kept so the counts stay exact.

An article's keys (per bag) are counted in ``cluster_term_stats`` when its first copy is
clustered, and recorded in ``cluster_article_keys``. When an update of a copy is clustered again
(a new title or text, other entities), the article's counts move from the recorded keys to the
new version's; deleting its last copy takes the recorded keys away. Without the record a
deletion could only take away the current version's keys: an earlier version's stayed counted
for good, so the table grew with every update and other articles' counts went wrong.

Counts an update leaves at zero stay as rows until the next deletion (which makes every process
reload its statistics) deletes them: another process reads a changed count, never a deletion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from herald.clusters.evidence import bag_keys
from herald.clusters.online import OnlineClusterer
from herald.clusters.refresh import text_item
from herald.db.dialect import insert_for
from herald.db.models.clusters import ClusterArticleKeys, ClusterTermStat, StoryClusterMember
from herald.db.models.content import ContentEntity, ContentItem

Keys = dict[str, list[str]]  # bag -> keys, sorted
Counts = dict[tuple[str, str], int]  # (bag, key) -> documents

_CHUNK = 900  # stay under SQLite's bound-parameter limit


def as_recorded(keys: Mapping[str, set[str]]) -> Keys:
    return {bag: sorted(found) for bag, found in sorted(keys.items()) if found}


def recorded(session: Session, article_ids: Sequence[str]) -> dict[str, Keys]:
    """The recorded keys of ``article_ids`` (articles counted before the record have none)."""
    ids = sorted(set(article_ids))
    out: dict[str, Keys] = {}
    for start in range(0, len(ids), _CHUNK):
        rows = session.execute(
            select(ClusterArticleKeys.article_id, ClusterArticleKeys.keys).where(
                ClusterArticleKeys.article_id.in_(ids[start : start + _CHUNK])
            )
        )
        out.update({article_id: dict(keys) for article_id, keys in rows})
    return out


def record(session: Session, counted: Mapping[str, Keys]) -> None:
    """Record (or replace) the keys counted for each article."""
    rows = [{"article_id": a, "keys": keys} for a, keys in sorted(counted.items())]
    for start in range(0, len(rows), _CHUNK // 2):
        statement = insert_for(session, ClusterArticleKeys).values(
            rows[start : start + _CHUNK // 2]
        )
        statement = statement.on_conflict_do_update(
            index_elements=["article_id"], set_={"keys": statement.excluded["keys"]}
        )
        session.execute(statement)


def forget(session: Session, article_ids: Sequence[str]) -> None:
    ids = sorted(set(article_ids))
    for start in range(0, len(ids), _CHUNK):
        session.execute(
            delete(ClusterArticleKeys).where(
                ClusterArticleKeys.article_id.in_(ids[start : start + _CHUNK])
            )
        )


def moved_counts(old: Keys, new: Keys) -> tuple[Counts, Counts]:
    """What replacing ``old`` by ``new`` takes away and adds: (decrements, increments)."""
    was = {(bag, key) for bag, keys in old.items() for key in keys}
    now = {(bag, key) for bag, keys in new.items() for key in keys}
    return dict.fromkeys(was - now, 1), dict.fromkeys(now - was, 1)


def delete_zero_counts(session: Session) -> None:
    """Delete the counts at zero (``ix_cluster_term_stats_emptied`` finds them); only in a
    transaction that makes every process reload its statistics (a new clustering epoch)."""
    session.execute(
        delete(ClusterTermStat)
        .where(ClusterTermStat.documents <= 0)
        .execution_options(synchronize_session=False)
    )


def keys_of(session: Session, content_id: str) -> dict[str, set[str]]:
    """The keys of the item's current version (its text and entities), per bag."""
    row = session.get(ContentItem, content_id)
    if row is None:
        return {}
    entities = session.execute(
        select(ContentEntity.entity_id, ContentEntity.salience).where(
            ContentEntity.content_id == content_id
        )
    ).all()
    item = text_item(row, [(e, float(salience)) for e, salience in entities])
    return bag_keys(item)


def follow_updates(
    session: Session, clusterer: OnlineClusterer, content_ids: Sequence[str]
) -> tuple[Counts, Counts, dict[str, Keys]]:
    """Move the counts of the articles of ``content_ids`` (clustered items clustered again after
    an update) to their current keys, in ``clusterer``'s statistics too. Returns what to write:
    (decrements, increments, the new records)."""
    articles: dict[str, str] = {}  # article -> the updated copy
    ids = sorted(set(content_ids))
    for start in range(0, len(ids), _CHUNK):
        articles.update(
            (article_id, content_id)
            for content_id, article_id in session.execute(
                select(StoryClusterMember.content_id, StoryClusterMember.article_id).where(
                    StoryClusterMember.content_id.in_(ids[start : start + _CHUNK])
                )
            )
        )
    decrements: Counts = {}
    increments: Counts = {}
    records: dict[str, Keys] = {}
    for article_id, old in recorded(session, list(articles)).items():
        new = as_recorded(keys_of(session, articles[article_id]))
        if new == old:
            continue
        gone, added = moved_counts(old, new)
        for pair, n in gone.items():
            decrements[pair] = decrements.get(pair, 0) + n
        for pair, n in added.items():
            increments[pair] = increments.get(pair, 0) + n
        records[article_id] = new
    for (bag, key), n in decrements.items():
        counts = clusterer.statistics[bag].counts
        left = counts.get(key, 0) - n
        if left > 0:
            counts[key] = left
        else:
            counts.pop(key, None)
    for (bag, key), n in increments.items():
        counts = clusterer.statistics[bag].counts
        counts[key] = counts.get(key, 0) + n
    return decrements, increments, records
