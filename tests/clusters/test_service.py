"""The clustering step against the database (SQLite and PostgreSQL): jobs, members, the item's
cluster_id, syndication, compaction, caches in several processes, rollback, and rebuild."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from herald.clusters.assignment import ClusteringConfig
from herald.clusters.service import ClusterEngine, cluster_items, get_engine, rebuild
from herald.core.clock import FrozenClock
from herald.core.ids import stable_id
from herald.db.models.clusters import ClusterState, ClusterTermStat, StoryCluster
from herald.db.models.content import ContentItem
from herald.runtime import Runtime
from tests.clusters.factories import STORIES, make_enriched_item
from tests.clusters.helpers import (
    cluster_of,
    clusters,
    drain_clustering,
    members,
    queue_clustering,
    store_stories,
)

START = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)


def grouping(runtime: Runtime, stories: dict[str, list[str]]) -> dict[str, set[str | None]]:
    assigned = cluster_of(runtime)
    return {story: {assigned[i] for i in ids} for story, ids in stories.items()}


def test_jobs_cluster_items_into_stories_and_set_their_cluster_id(runtime: Runtime) -> None:
    stories = store_stories(runtime, start=START)
    queue_clustering(runtime, [i for ids in stories.values() for i in ids])
    assert drain_clustering(runtime) > 0

    groups = grouping(runtime, stories)
    assert all(len(ids) == 1 and None not in ids for ids in groups.values()), groups
    assert len({next(iter(ids)) for ids in groups.values()}) == len(STORIES)
    rows = {c.id: c for c in clusters(runtime)}
    storm = rows[next(iter(groups["storm-a"]))]
    assert storm.status == "regular"
    assert storm.member_count == 3
    assert storm.unique_source_count == 3
    assert storm.profile_version == 3
    assert storm.title in {title for title, _ in STORIES["storm-a"]}
    assert storm.first_published_at == START
    assert storm.created_at == runtime.clock.now()
    assert storm.profile is not None  # within the horizon: the working profile is kept
    found = members(runtime)
    assert len(found) == sum(len(r) for r in STORIES.values())
    assert {m.link_confidence for m in found} <= {"high", "medium", "low"}
    with runtime.sessions.read() as session:
        state = session.get(ClusterState, 1)
        assert state is not None
        assert state.sequence >= 1
        assert state.documents["terms"] == len(found)
        assert session.scalar(select(ClusterTermStat).limit(1)) is not None


def test_clustering_twice_changes_nothing(runtime: Runtime) -> None:
    stories = store_stories(runtime, start=START, stories=("trial",))
    ids = stories["trial"]
    queue_clustering(runtime, ids)
    drain_clustering(runtime)
    before = [(c.id, c.member_count, c.profile_version) for c in clusters(runtime)]
    queue_clustering(runtime, ids)  # e.g. the items were enriched again
    drain_clustering(runtime)
    assert [(c.id, c.member_count, c.profile_version) for c in clusters(runtime)] == before
    assert len(members(runtime)) == len(ids)


def test_podcasts_and_unenriched_items_are_left_alone(runtime: Runtime) -> None:
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        podcast = make_enriched_item(
            session,
            title="A podcast",
            body="Talk.",
            published_at=START,
            now=now,
            media_type="podcast",
        )
        pending = make_enriched_item(
            session, title="Not yet", body="Body.", published_at=START, now=now
        )
        pending.enriched_at = None
    queue_clustering(runtime, [podcast.id, pending.id])
    drain_clustering(runtime)
    assert clusters(runtime) == []
    assert cluster_of(runtime) == {podcast.id: None, pending.id: None}


def test_a_copy_of_an_old_story_joins_it_after_it_left_the_horizon(runtime: Runtime) -> None:
    title, body = STORIES["trial"][0]
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        wire = make_enriched_item(
            session,
            title=title,
            body=body,
            published_at=START - timedelta(days=10),
            now=now,
            domain="wire.example",
        )
        fresh = make_enriched_item(
            session,
            title="Unrelated budget vote",
            body="The council passed the budget 7-2.",
            published_at=START,
            now=now,
            domain="city.example",
        )
        reprint = make_enriched_item(
            session,
            title="Voss convicted",
            body=body,
            published_at=START,
            now=now,
            domain="paper.example",
            article_id=wire.article_id,
        )
    queue_clustering(runtime, [wire.id, fresh.id])
    drain_clustering(runtime)
    with runtime.sessions.read() as session:
        old = session.get(StoryCluster, cluster_of(runtime)[wire.id])
        assert old is not None
        assert old.profile is None  # compacted: ten days before the newest item
    queue_clustering(runtime, [reprint.id])
    drain_clustering(runtime)

    assigned = cluster_of(runtime)
    assert assigned[reprint.id] == assigned[wire.id]
    with runtime.sessions.read() as session:
        old = session.get(StoryCluster, assigned[wire.id])
        assert old is not None
        assert (old.member_count, old.status, old.profile_version) == (2, "regular", 2)
        assert old.source_keys == ["paper.example", "wire.example"]
        assert old.latest_published_at == START
    member = next(m for m in members(runtime) if m.content_id == reprint.id)
    assert member.link_confidence == "high"


def test_two_processes_share_the_clustering_state(runtime: Runtime) -> None:
    """Two engines (two processes' caches) take turns: each catches up with the other's writes."""
    stories = store_stories(runtime, start=START, stories=("storm-a",))
    first, second, third = stories["storm-a"]
    engine_a, engine_b = ClusterEngine(), ClusterEngine()
    clock = runtime.clock
    with runtime.sessions.write() as session:
        cluster_items(session, engine_a, [first], clock=clock)
    with runtime.sessions.write() as session:
        cluster_items(session, engine_b, [second], clock=clock)
    with runtime.sessions.write() as session:
        cluster_items(session, engine_a, [third], clock=clock)

    assigned = cluster_of(runtime)
    assert assigned[first] == assigned[second] == assigned[third]
    (row,) = clusters(runtime)
    assert (row.member_count, row.profile_version) == (3, 3)
    with runtime.sessions.read() as session:
        state = session.get(ClusterState, 1)
        assert state is not None
        assert state.documents["terms"] == 3


def test_a_rolled_back_batch_leaves_no_trace_in_any_cache(runtime: Runtime) -> None:
    stories = store_stories(runtime, start=START, stories=("trial",))
    first, second = stories["trial"]
    engine = ClusterEngine()
    with pytest.raises(RuntimeError, match="boom"), runtime.sessions.write() as session:
        cluster_items(session, engine, [first], clock=runtime.clock)
        raise RuntimeError("boom")
    assert clusters(runtime) == []
    with runtime.sessions.write() as session:
        outcome = cluster_items(session, engine, [first, second], clock=runtime.clock)
    assert (outcome.clustered, outcome.created) == (2, 1)
    (row,) = clusters(runtime)
    assert row.member_count == 2
    assert row.profile_version == 2  # the rolled-back add was not counted in memory


def test_rebuild_reclusters_in_publication_order(runtime: Runtime) -> None:
    stories = store_stories(runtime, start=START)
    ids = [i for story in stories.values() for i in story]
    with runtime.sessions.read() as session:
        order = list(session.scalars(select(ContentItem.id).order_by(ContentItem.published_at)))
    queue_clustering(runtime, list(reversed(order)))  # arrival order: newest first
    drain_clustering(runtime)
    progress: list[tuple[int, int]] = []
    clock = runtime.clock
    assert isinstance(clock, FrozenClock)
    clock.advance(timedelta(hours=1))

    outcome = rebuild(
        runtime.sessions,
        get_engine(runtime),
        clock=clock,
        on_progress=lambda done, total: progress.append((done, total)),
    )
    assert outcome.clustered == len(ids)
    assert outcome.created == len(STORIES)
    assert progress[-1] == (len(ids), len(ids))
    groups = grouping(runtime, stories)
    assert all(len(g) == 1 for g in groups.values())
    published = {content_id: START + timedelta(hours=n) for n, content_id in enumerate(order)}
    rebuilt = clusters(runtime)  # by creation order
    for story, story_ids in stories.items():
        founder = min(story_ids, key=lambda i: published[i])
        (cluster_id,) = groups[story]
        # Named after its earliest-published report, as a rebuild replays publication order.
        assert cluster_id == stable_id("clu", f"cluster:{founder}")
    assert [c.first_published_at for c in rebuilt] == sorted(c.first_published_at for c in rebuilt)
    with runtime.sessions.read() as session:
        state = session.get(ClusterState, 1)
        assert state is not None
        assert not state.rebuilding
        assert state.epoch == 1


def test_jobs_wait_while_a_rebuild_runs(runtime: Runtime) -> None:
    stories = store_stories(runtime, start=START, stories=("trial",))
    first, second = stories["trial"]
    engine = ClusterEngine(ClusteringConfig())
    with runtime.sessions.write() as session:
        cluster_items(session, engine, [first], clock=runtime.clock)
        row = session.get(ClusterState, 1)
        assert row is not None
        row.rebuilding = True
    queue_clustering(runtime, [second])
    drain_clustering(runtime)  # the job finishes without clustering: the rebuild owns the item
    assert cluster_of(runtime)[second] is None
    outcome = rebuild(runtime.sessions, engine, clock=runtime.clock)
    assert outcome.clustered == 2
    assigned = cluster_of(runtime)
    assert assigned[first] == assigned[second] is not None
