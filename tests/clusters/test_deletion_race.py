"""Deleting an item while a clustering batch that places it has not committed yet (SQLite and
PostgreSQL): the deletion waits for the batch and then takes the item out of the story the batch
put it in, so no story keeps counting, sourcing or showing a deleted item."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import func, select

from herald.clusters.service import cluster_items, get_engine
from herald.content.deletion import ContentSelector, delete_content
from herald.db.models.clusters import ClusterState, StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem
from herald.runtime import Runtime
from tests.clusters.helpers import drain_clustering, queue_clustering, store_stories
from tests.content.blocking import Background, held_open, wait_until_blocked

START = datetime(2026, 11, 24, 6, 0, tzinfo=UTC)


def _stories_agree_with_their_members(runtime: Runtime) -> list[StoryCluster]:
    with runtime.sessions.read() as session:
        rows = list(session.scalars(select(StoryCluster)))
        for row in rows:
            members = session.execute(
                select(StoryClusterMember.source_key, StoryClusterMember.content_id).where(
                    StoryClusterMember.cluster_id == row.id
                )
            ).all()
            assert members, f"story {row.id} ({row.title!r}) has no member left"
            assert row.member_count == len(members), row.title
            assert sorted(row.source_keys) == sorted({source for source, _ in members})
    return rows


def test_an_item_deleted_while_its_clustering_batch_is_open_leaves_no_story_behind(
    runtime: Runtime,
) -> None:
    stories = store_stories(runtime, start=START, stories=("storm-a", "trial"))
    storm, trial = stories["storm-a"], stories["trial"]
    queue_clustering(runtime, storm[:2])
    assert drain_clustering(runtime) > 0
    joining, founding = storm[2], trial[0]  # one joins a story, one founds its own
    with runtime.sessions.read() as session:
        victims = session.execute(
            select(ContentItem.title, ContentItem.url).where(
                ContentItem.id.in_([joining, founding])
            )
        ).all()
        epoch = session.scalars(select(ClusterState.epoch)).one()
    titles = {title for title, _ in victims}
    urls = tuple(str(url) for _, url in victims)
    engine = get_engine(runtime)

    def place(session: object) -> object:
        with engine.lock:
            return cluster_items(session, engine, [joining, founding], clock=runtime.clock)  # type: ignore[arg-type]

    with held_open(runtime, place) as clustering:
        deletion = Background(
            lambda: delete_content(
                runtime.sessions, ContentSelector(urls=urls), actor="test", clock=runtime.clock
            )
        )
        deletion.start()
        wait_until_blocked(runtime)
    assert clustering.result.clustered == 2  # the batch committed first
    assert deletion.outcome().deleted == 2

    rows = _stories_agree_with_their_members(runtime)
    assert len(rows) == 1  # the story the deleted item founded went with it
    assert not titles & {row.title for row in rows}
    with runtime.sessions.read() as session:
        assert session.scalar(select(func.count()).select_from(StoryClusterMember)) == 2
        # every process's clusterer reloads: none keeps the deleted items' sketches
        assert session.scalars(select(ClusterState.epoch)).one() > epoch
