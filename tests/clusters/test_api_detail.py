"""GET /v1/news/clusters/{cluster_id} and a content item's ``cluster_id``: every rule of the
interface and of API-DECISIONS.md "Clusters" (stubs, members, keys, 404s)."""

from __future__ import annotations

from datetime import datetime, timedelta

from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.core.ids import stable_id
from herald.db.models.clusters import StoryClusterMember
from herald.db.models.content import ContentItem
from herald.runtime import Runtime
from tests.clusters.api_support import MEMBER_FIELDS, ids, make_cluster
from tests.clusters.factories import STORIES, make_enriched_item
from tests.clusters.helpers import drain_clustering, queue_clustering, store_stories


def test_detail_has_every_list_field_and_members_newest_first(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    cluster_id = make_cluster(runtime, "story", created_at=now - timedelta(hours=1), members=4)
    listed = client.get("/v1/news/clusters", headers=auth).json()["clusters"][0]
    response = client.get(f"/v1/news/clusters/{cluster_id}", headers=auth)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"cluster", "members", "meta"}
    assert body["cluster"] == listed
    members = body["members"]
    assert len(members) == 4
    assert all(set(m) == MEMBER_FIELDS for m in members)
    published = [m["published_date"] for m in members]
    assert published == sorted(published, reverse=True)
    for member in members:
        assert member["content_item"]["id"] == member["content_id"]
        assert member["content_item"]["title"].startswith("Report story-")
        assert member["link_confidence"] in {"high", "medium", "low"}
        assert member["cluster_member_id"].startswith("clm_")


def test_a_stub_is_returned_by_id(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    stub = make_cluster(
        runtime, "lonely", created_at=now - timedelta(hours=1), members=1, sources=1
    )
    assert client.get("/v1/news/clusters", headers=auth).json()["clusters"] == []
    body = client.get(f"/v1/news/clusters/{stub}", headers=auth).json()
    assert body["cluster"]["status"] == "stub"
    assert body["cluster"]["member_count"] == 1
    assert len(body["members"]) == 1


def test_members_are_capped_at_500(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    big = make_cluster(runtime, "big", created_at=now - timedelta(hours=1), members=501)
    body = client.get(f"/v1/news/clusters/{big}", headers=auth).json()
    assert body["cluster"]["member_count"] == 501
    assert len(body["members"]) == 500
    assert body["members"][0]["content_id"] == stable_id("cnt", "big-500")  # the newest


def test_unknown_cluster_is_a_404_envelope(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get("/v1/news/clusters/clu_missing", headers=auth)
    assert response.status_code == 404
    body = response.json()
    assert body["error"] == "not_found"
    assert body["meta"]["request_id"] == response.headers["x-request-id"]


def test_a_key_is_required_and_clusters_are_shared_by_workspaces(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    now: datetime,
) -> None:
    cluster_id = make_cluster(runtime, "shared", created_at=now - timedelta(hours=1))
    assert client.get("/v1/news/clusters").status_code == 401
    assert client.get(f"/v1/news/clusters/{cluster_id}").status_code == 401
    mine = client.get("/v1/news/clusters", headers=auth).json()["clusters"]
    theirs = client.get("/v1/news/clusters", headers=other_auth).json()["clusters"]
    assert mine == theirs
    assert client.get(f"/v1/news/clusters/{cluster_id}", headers=other_auth).status_code == 200


def test_clustered_items_show_their_cluster_end_to_end(
    runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    clock = runtime.clock
    assert isinstance(clock, FrozenClock)
    stories = store_stories(runtime, start=clock.now() - timedelta(days=1))
    queue_clustering(runtime, [i for ids_ in stories.values() for i in ids_])
    drain_clustering(runtime)

    listed = client.get("/v1/news/clusters", headers=auth).json()["clusters"]
    assert len(listed) == len(STORIES)  # every story has two or more reports
    for story, content_ids in stories.items():
        item = client.get(f"/v1/content/{content_ids[0]}", headers=auth).json()["content_item"]
        detail = client.get(f"/v1/news/clusters/{item['cluster_id']}", headers=auth).json()
        assert sorted(m["content_id"] for m in detail["members"]) == sorted(content_ids)
        assert detail["cluster"]["member_count"] == len(STORIES[story])
        assert detail["cluster"]["title"] in {title for title, _ in STORIES[story]}


def test_members_of_deleted_items_are_left_out_and_ties_go_by_member_id(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    cluster_id = make_cluster(runtime, "gone", created_at=now - timedelta(hours=1), members=4)
    deleted = stable_id("cnt", "gone-1")
    with runtime.sessions.write() as session:
        item = session.get(ContentItem, deleted)
        assert item is not None
        item.deleted_at = now
        for member in session.query(StoryClusterMember).filter_by(cluster_id=cluster_id):
            member.published_at = now - timedelta(hours=2)  # all published at once
    body = client.get(f"/v1/news/clusters/{cluster_id}", headers=auth).json()
    listed = [m["content_id"] for m in body["members"]]
    assert deleted not in listed
    assert len(listed) == 3
    member_ids = [m["cluster_member_id"] for m in body["members"]]
    assert member_ids == sorted(member_ids, reverse=True)
    assert body["cluster"]["member_count"] == 4  # the count is the cluster's, not the page's


def test_detail_by_an_unknown_id_is_a_404(client: TestClient, auth: dict[str, str]) -> None:
    # Any length or shape: an id that does not exist is not found.
    for unknown in ("clu_" + "x" * 60, "not-a-cluster-id", "clu_%20", "clu_" + "x" * 61):
        response = client.get(f"/v1/news/clusters/{unknown}", headers=auth)
        assert response.status_code == 404, unknown
        assert response.json()["error"] == "not_found"


def test_a_news_item_shows_a_null_cluster_id_until_it_is_clustered(
    runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    clock = runtime.clock
    assert isinstance(clock, FrozenClock)
    stories = store_stories(runtime, start=clock.now() - timedelta(hours=6), stories=("trial",))
    first, second = stories["trial"]
    item = client.get(f"/v1/content/{first}", headers=auth).json()["content_item"]
    assert "cluster_id" in item
    assert item["cluster_id"] is None
    queue_clustering(runtime, [first, second])
    drain_clustering(runtime)
    for content_id in (first, second):
        item = client.get(f"/v1/content/{content_id}", headers=auth).json()["content_item"]
        assert item["cluster_id"] is not None
        assert item["cluster_id"].startswith("clu_")
    cluster_id = item["cluster_id"]
    body = client.get(f"/v1/news/clusters/{cluster_id}", headers=auth).json()
    assert {m["content_id"] for m in body["members"]} == {first, second}
    assert [m["link_confidence"] for m in body["members"]][-1] == "high"  # the founder
    assert body["cluster"]["status"] == "regular"
    listed = client.get("/v1/news/clusters", headers=auth).json()
    assert ids(listed) == [cluster_id]


def test_podcast_items_carry_no_cluster_id(
    runtime: Runtime, client: TestClient, auth: dict[str, str]
) -> None:
    with runtime.sessions.write() as session:
        podcast = make_enriched_item(
            session,
            title="A podcast episode",
            body="Talk.",
            published_at=runtime.clock.now() - timedelta(hours=1),
            now=runtime.clock.now(),
            media_type="podcast",
        )
    queue_clustering(runtime, [podcast.id])
    drain_clustering(runtime)
    response = client.get(f"/v1/content/{podcast.id}", headers=auth)
    assert response.status_code == 200
    assert "cluster_id" not in response.json()["content_item"]
    assert client.get("/v1/news/clusters", headers=auth).json()["clusters"] == []
