"""`clusters.recount`: the word statistics made exact again from the articles clustered now.

Articles clustered before revision 0028 have no record of their counted keys: an update of one
leaves its earlier words counted, so the counts drift. The recount records what is missing and
corrects the counts, while clustering, updates and deletions go on.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import delete, func, select
from typer.testing import CliRunner

from herald.cli.main import app
from herald.clusters.evidence import BAG_NAMES
from herald.clusters.recount import RECOUNT_KIND, needs_recount, recount
from herald.clusters.tasks import schedule_recount
from herald.config import Settings
from herald.content.deletion import ContentSelector, delete_content
from herald.db.models.clusters import (
    ClusterArticleKeys,
    ClusterState,
    ClusterTermStat,
    StoryClusterMember,
)
from herald.db.models.job import Job
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from tests.clusters.factories import make_enriched_item
from tests.clusters.helpers import (
    drain_clustering,
    expected_keys,
    queue_clustering,
    rewrite,
    store_stories,
)

START = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)
runner = CliRunner()


def _stored(runtime: Runtime) -> tuple[Counter[tuple[str, str]], dict[str, int]]:
    with runtime.sessions.read() as session:
        rows = session.execute(
            select(ClusterTermStat.bag, ClusterTermStat.key, ClusterTermStat.documents)
        )
        counts = Counter({(bag, key): n for bag, key, n in rows if n})
        state = session.get(ClusterState, 1)
        assert state is not None
        return counts, dict(state.documents)


def _assert_exact(runtime: Runtime) -> None:
    expected, articles = expected_keys(runtime)
    counts, documents = _stored(runtime)
    assert counts == expected
    assert documents == dict.fromkeys(BAG_NAMES, articles)


def _clustered_before_0028(runtime: Runtime) -> list[str]:
    """Real articles through the real clustering, then without records (as counted before
    revision 0028), then updated: their earlier words stay counted, the counts drift."""
    ids = [cid for story in store_stories(runtime, start=START).values() for cid in story]
    queue_clustering(runtime, ids)
    drain_clustering(runtime)
    _assert_exact(runtime)
    with runtime.sessions.write() as session:
        session.execute(delete(ClusterArticleKeys))
    for n, content_id in enumerate(ids[::3]):
        rewrite(runtime, content_id, n)
    delete_content(
        runtime.sessions, ContentSelector(content_id=ids[1]), actor="t", clock=runtime.clock
    )
    expected, _ = expected_keys(runtime)
    assert _stored(runtime)[0] != expected  # the drift the recount is for
    return [cid for cid in ids if cid != ids[1]]


def _new_article(runtime: Runtime, n: int) -> str:
    with runtime.sessions.write() as session:
        item = make_enriched_item(
            session,
            title=f"Harbour{n} authority approves quayside{n} expansion plan",
            body=f"The harbour{n} board voted to extend the quayside{n} by 300 metres.",
            published_at=START + timedelta(days=1, hours=n),
            now=runtime.clock.now(),
            domain=f"late{n}.example",
        )
        content_id = item.id
    queue_clustering(runtime, [content_id])
    drain_clustering(runtime)
    return content_id


def test_recount_makes_drifted_counts_exact_and_records_every_article(runtime: Runtime) -> None:
    _clustered_before_0028(runtime)
    with runtime.sessions.read() as session:
        assert needs_recount(session)
    report = recount(runtime.sessions, clock=runtime.clock, batch_size=2)
    _assert_exact(runtime)
    assert report.recorded > 0
    assert report.corrected > 0
    with runtime.sessions.read() as session:
        assert not needs_recount(session)
        clustered = session.scalar(select(func.count(StoryClusterMember.article_id.distinct())))
        assert session.scalar(select(func.count()).select_from(ClusterArticleKeys)) == clustered
    # Idempotent: a second recount finds nothing to correct.
    again = recount(runtime.sessions, clock=runtime.clock)
    assert (again.recorded, again.corrected) == (0, 0)
    _assert_exact(runtime)


def test_recount_restores_counts_lost_and_removes_counts_of_no_article(runtime: Runtime) -> None:
    _clustered_before_0028(runtime)
    recount(runtime.sessions, clock=runtime.clock)
    with runtime.sessions.write() as session:
        lost = session.execute(select(ClusterTermStat.bag, ClusterTermStat.key).limit(3)).all()
        for bag, key in lost:
            session.execute(
                delete(ClusterTermStat).where(
                    ClusterTermStat.bag == bag, ClusterTermStat.key == key
                )
            )
        session.add(
            ClusterTermStat(bag=BAG_NAMES[0], key="no article has this", documents=4, changed_seq=1)
        )
    report = recount(runtime.sessions, clock=runtime.clock)
    assert (report.recorded, report.corrected) == (0, 4)
    _assert_exact(runtime)


def test_articles_clustered_updated_and_deleted_during_the_recount_keep_counts_exact(
    runtime: Runtime,
) -> None:
    ids = _clustered_before_0028(runtime)
    calls = []

    def meanwhile() -> None:
        # Between the snapshot and its application: a new article, an update, a deletion (the
        # deletion changes the epoch: the first snapshot is dropped and taken again).
        calls.append(len(calls))
        if len(calls) == 1:
            _new_article(runtime, 1)
            rewrite(runtime, ids[0], 90)
            delete_content(
                runtime.sessions, ContentSelector(content_id=ids[2]), actor="t", clock=runtime.clock
            )
        elif len(calls) == 2:
            _new_article(runtime, 2)
            rewrite(runtime, ids[3], 91)

    recount(runtime.sessions, clock=runtime.clock, batch_size=3, before_apply=meanwhile)
    assert len(calls) == 2  # the deletion made it take the snapshot again
    _assert_exact(runtime)
    # Clustering goes on from exact counts: they stay exact.
    _new_article(runtime, 3)
    rewrite(runtime, ids[4], 92)
    _assert_exact(runtime)


def test_hourly_check_queues_a_recount_only_when_an_article_lacks_its_record(
    runtime: Runtime,
) -> None:
    ids = [cid for story in store_stories(runtime, start=START).values() for cid in story]
    queue_clustering(runtime, ids)
    drain_clustering(runtime)
    assert schedule_recount(runtime) is False  # every article has its record
    with runtime.sessions.write() as session:
        session.execute(
            delete(ClusterArticleKeys).where(
                ClusterArticleKeys.article_id.in_(
                    select(StoryClusterMember.article_id).where(
                        StoryClusterMember.content_id == ids[0]
                    )
                )
            )
        )
    rewrite(runtime, ids[0], 7)
    assert schedule_recount(runtime) is True
    assert schedule_recount(runtime) is False  # one is queued already
    assert Worker(runtime).drain("default") >= 1
    with runtime.sessions.read() as session:
        assert (
            session.scalar(select(func.count()).select_from(Job).where(Job.kind == RECOUNT_KIND))
            == 0
        )
    _assert_exact(runtime)
    assert schedule_recount(runtime) is False


def test_cli_queues_the_recount_or_runs_it_now(
    runtime: Runtime, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    _clustered_before_0028(runtime)
    env = {"HERALD_HOME": str(settings.home), "HERALD_DATABASE_URL": settings.resolved_database_url}
    queued = runner.invoke(app, ["clusters", "recount", "--json"], env=env)
    assert queued.exit_code == 0, queued.output
    first = json.loads(queued.stdout)
    assert first["queued"] is True
    assert isinstance(first["job_id"], int)
    again = runner.invoke(app, ["clusters", "recount"], env=env)
    assert again.exit_code == 0, again.output
    assert again.stdout.strip() == "a recount is already queued or running"
    now = runner.invoke(app, ["clusters", "recount", "--now", "--json"], env=env)
    assert now.exit_code == 0, now.output
    report = json.loads(now.stdout)
    assert report["corrected"] > 0
    assert report["recorded"] > 0
    _assert_exact(runtime)
