"""Moving members joined by mistake out of a story: the clusterer, the profile and the database."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
from sqlalchemy import select

from herald.clusters.assignment import ClusteringConfig, ScoredCandidate
from herald.clusters.evidence import DEFAULT_LINK_MODEL, link_evidence
from herald.clusters.item import StoryItem
from herald.clusters.members import MEMBER_SAMPLE
from herald.clusters.online import OnlineClusterer
from herald.clusters.profile import ClusterProfile
from herald.clusters.service import ClusterEngine, cluster_items
from herald.db.models.clusters import StoryClusterMember
from herald.runtime import Runtime
from tests.clusters.factories import STORIES, make_story_item
from tests.clusters.helpers import cluster_of, clusters, store_stories

T0 = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def reports(story: str, first_hour: int) -> list[StoryItem]:
    return [
        make_story_item(
            f"{story}-{n}",
            title,
            body,
            published_at=T0 + timedelta(hours=first_hour + n),
            source=f"{story}{n}.example",
        )
        for n, (title, body) in enumerate(STORIES[story])
    ]


def storm_with_a_mistake(
    config: ClusteringConfig | None = None,
) -> tuple[OnlineClusterer, ClusterProfile, list[StoryItem], list[StoryItem]]:
    """The three storm-a reports in one cluster, then the first storm-b report forced into it."""
    ana, mawar = reports("storm-a", 0), reports("storm-b", 3)
    clusterer = OnlineClusterer(config)
    for item in ana:
        clusterer.assign(item, now=item.published_at)
    (storm,) = clusterer.active_clusters
    prepared = clusterer.prepare(mawar[0])
    evidence = link_evidence(prepared.vectors, storm, clusterer.statistics)
    clusterer.place(prepared, ScoredCandidate(storm, evidence, 0.3), now=mawar[0].published_at)
    assert storm.member_count == 4
    return clusterer, storm, ana, mawar


def fresh_profile(items: list[StoryItem]) -> ClusterProfile:
    profile = ClusterProfile.founded_by(items[0], cluster_id="x", seq=0, now=T0)
    for item in items[1:]:
        profile.add(item, now=T0)
    return profile


def test_the_next_report_of_the_mistaken_event_takes_its_member_out() -> None:
    clusterer, storm, ana, mawar = storm_with_a_mistake()
    assignment = clusterer.assign(mawar[1], now=mawar[1].published_at)

    assert assignment.created
    assert assignment.split_from is storm
    assert assignment.moved == (mawar[0].content_id,)
    moved_to = assignment.cluster
    assert moved_to.article_ids == {m.article_id for m in mawar}
    assert moved_to.member_count == 2
    assert moved_to.unique_source_count == 2
    assert moved_to.first_published_at == mawar[0].published_at
    assert assignment.similarity >= clusterer.config.split_link
    assert assignment.link_confidence == clusterer.config.model.confidence(assignment.similarity)
    # The story it left is the storm-a story again.
    expected = fresh_profile(ana)
    assert storm.article_ids == expected.article_ids
    assert (storm.member_count, storm.source_counts) == (3, expected.source_counts)
    assert storm.latest_published_at == ana[-1].published_at
    assert np.allclose(storm.centroid(), expected.centroid(), atol=1e-5)
    assert storm.entities.keys() == expected.entities.keys()
    assert storm.phrases == expected.phrases
    assert storm.title in {item.title for item in ana}
    assert {r.content_id for r in storm.representatives} == {item.content_id for item in ana}
    assert [s.article_id for s in storm.sample] == [item.article_id for item in ana]
    # A later copy of the moved article follows it.
    copy = replace(mawar[0], content_id="cnt_copy", published_at=mawar[1].published_at)
    again = clusterer.assign(copy, now=copy.published_at)
    assert again.syndicated
    assert again.cluster is moved_to
    assert [c.content_id for c in moved_to.sample[0].copies] == [mawar[0].content_id, "cnt_copy"]


def test_moving_is_off_with_a_zero_cut_and_then_the_report_joins_the_story() -> None:
    clusterer, storm, _, mawar = storm_with_a_mistake(ClusteringConfig(split_cut=0.0))
    assignment = clusterer.assign(mawar[1], now=mawar[1].published_at)
    assert not assignment.created
    assert assignment.cluster is storm
    assert assignment.moved == ()
    assert assignment.split_from is None


def test_reports_of_one_story_are_never_moved_apart() -> None:
    clusterer = OnlineClusterer()
    for story, first_hour in (("storm-a", 0), ("storm-b", 0), ("trial", 0)):
        for item in reports(story, first_hour):
            assert clusterer.assign(item, now=item.published_at).moved == ()
    assert len(clusterer.active_clusters) == 3


def test_the_member_sample_is_bounded_and_survives_the_stored_state() -> None:
    title, body = STORIES["trial"][0]
    items = [
        make_story_item(f"r{n}", title, f"{body} Report {n}.", published_at=T0)
        for n in range(MEMBER_SAMPLE + 5)
    ]
    profile = fresh_profile(items)
    assert [s.article_id for s in profile.sample] == [i.article_id for i in items[-MEMBER_SAMPLE:]]
    state = profile.to_state()
    assert ClusterProfile.from_state(state).to_state() == state
    # A profile stored before sketches existed loads with an empty sample (nothing to move).
    del state["sample"]
    assert ClusterProfile.from_state(state).sample == []


def test_a_move_updates_the_member_rows_and_the_items_cluster_id(runtime: Runtime) -> None:
    """One process forced the mistake (a model that joins anything); the next report, clustered
    by another process with the default model, moves the mistaken member out in the database."""
    start = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)
    shared = [("Storm Desk", 1.0)]  # a shared entity: the storms are each other's candidates
    ids = store_stories(
        runtime, start=start, stories=("storm-a", "storm-b"), interleave=False, entities=shared
    )
    ids = {"a": ids["storm-a"], "b": ids["storm-b"]}
    anything = replace(DEFAULT_LINK_MODEL, bias=30.0)
    careless = ClusterEngine(ClusteringConfig(anything, split_cut=0.0))
    with runtime.sessions.write() as session:
        cluster_items(session, careless, ids["a"] + ids["b"][:1], clock=runtime.clock)
    (storm,) = clusters(runtime)
    assert storm.member_count == 4

    with runtime.sessions.write() as session:
        outcome = cluster_items(session, ClusterEngine(), ids["b"][1:], clock=runtime.clock)
    assert outcome.created == 1
    assigned = cluster_of(runtime)
    moved_to = assigned[ids["b"][1]]
    assert assigned[ids["b"][0]] == moved_to != storm.id
    assert {assigned[i] for i in ids["a"]} == {storm.id}
    rows = {c.id: c for c in clusters(runtime)}
    assert (rows[storm.id].member_count, rows[moved_to].member_count) == (3, 2)
    assert rows[storm.id].profile_version == 5  # four adds and one member moved out
    with runtime.sessions.read() as session:
        member_rows = session.scalars(select(StoryClusterMember)).all()
        by_content = {m.content_id: m.cluster_id for m in member_rows}
    assert by_content == assigned
