"""Taking document counts out of ``cluster_term_stats`` (deleted articles) touches only the keys
decremented, and leaves exactly what decrementing every key and deleting every count at zero
left."""

from __future__ import annotations

import random

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from herald.clusters.repository import subtract_statistics
from herald.db.models.clusters import ClusterTermStat
from herald.runtime import Runtime

BAGS = ("terms", "names", "numbers", "entities")


def _table(session: Session) -> list[tuple[str, str, int, int]]:
    return [
        (r.bag, r.key, r.documents, r.changed_seq)
        for r in session.execute(
            select(
                ClusterTermStat.bag,
                ClusterTermStat.key,
                ClusterTermStat.documents,
                ClusterTermStat.changed_seq,
            ).order_by(ClusterTermStat.bag, ClusterTermStat.key)
        )
    ]


def _every_key_then_whole_table(
    session: Session, decrements: dict[tuple[str, str], int], sequence: int
) -> None:
    """The rule as it was first written: one update per key, then a delete over the table."""
    for (bag, key), count in decrements.items():
        session.execute(
            update(ClusterTermStat)
            .where(ClusterTermStat.bag == bag, ClusterTermStat.key == key)
            .values(documents=ClusterTermStat.documents - count, changed_seq=sequence)
        )
    session.execute(delete(ClusterTermStat).where(ClusterTermStat.documents <= 0))


def test_subtracting_counts_leaves_what_the_whole_table_delete_left(runtime: Runtime) -> None:
    rng = random.Random(7)
    rows = [
        {"bag": bag, "key": f"k{i}", "documents": rng.choice((1, 1, 1, 2, 3, 7)), "changed_seq": 1}
        for bag in BAGS
        for i in range(1500)  # more keys per bag than one chunk of parameters
    ]
    with runtime.sessions.write() as session:
        session.execute(insert(ClusterTermStat), rows)
    chosen = rng.sample(rows, 2500)
    # Most keys lose what they had (deleted), some lose less (kept), a few more than they had.
    decrements = {
        (r["bag"], r["key"]): max(1, r["documents"] - rng.choice((0, 0, 0, 1, -1))) for r in chosen
    }
    # A key no stored row has (its article was counted under another form) is harmless.
    decrements[("terms", "never-stored")] = 1

    results = []
    for apply in (_every_key_then_whole_table, _subtract):
        with runtime.sessions.write() as session:
            attempt = session.begin_nested()
            apply(session, decrements, 5)
            results.append(_table(session))
            attempt.rollback()
    before, after = results
    assert after == before
    gone = len(rows) - len(after)
    assert gone > 1000  # the deletions were exercised, not only the updates
    assert any(documents > 0 and seq == 5 for _, _, documents, seq in after)
    assert all(documents > 0 for _, _, documents, _ in after)


def _subtract(session: Session, decrements: dict[tuple[str, str], int], sequence: int) -> None:
    subtract_statistics(session, decrements, sequence=sequence)


def test_subtracting_counts_keeps_other_keys_untouched(runtime: Runtime) -> None:
    with runtime.sessions.write() as session:
        session.execute(
            insert(ClusterTermStat),
            [
                {"bag": "terms", "key": "court", "documents": 1, "changed_seq": 1},
                {"bag": "names", "key": "court", "documents": 4, "changed_seq": 1},
                {"bag": "terms", "key": "verdict", "documents": 2, "changed_seq": 1},
            ],
        )
    with runtime.sessions.write() as session:
        subtract_statistics(session, {("terms", "court"): 1, ("terms", "verdict"): 1}, sequence=9)
    with runtime.sessions.read() as session:
        assert _table(session) == [("names", "court", 4, 1), ("terms", "verdict", 1, 9)]
