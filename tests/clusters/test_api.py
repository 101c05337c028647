"""GET /v1/news/clusters and GET /v1/news/clusters/{cluster_id}: every rule of the interface and
of API-DECISIONS.md "Clusters" (stubs, featured, ordering, window defaults, limits, paging)."""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from herald.clusters.service import member_id_for, status_for
from herald.core.clock import FrozenClock
from herald.core.ids import stable_id
from herald.db.models.clusters import StoryCluster, StoryClusterMember
from herald.db.models.content import ContentItem
from herald.runtime import Runtime
from tests.clusters.factories import STORIES, make_enriched_item
from tests.clusters.helpers import drain_clustering, queue_clustering, store_stories

LIST_FIELDS = {
    "cluster_id",
    "cluster_type",
    "status",
    "featured_status",
    "title",
    "abstract",
    "member_count",
    "unique_source_count",
    "source_keys",
    "key_entities",
    "key_ideas",
    "first_published_at",
    "latest_published_at",
    "latest_member_added_at",
    "profile_version",
    "created_at",
    "updated_at",
}
MEMBER_FIELDS = {
    "cluster_member_id",
    "content_id",
    "published_date",
    "assigned_at",
    "link_confidence",
    "source_key",
    "content_item",
}


def _content(session: Session, key: str, *, published_at: datetime, now: datetime) -> ContentItem:
    item = ContentItem(
        id=stable_id("cnt", key),
        canonical_key=key,
        media_type="news",
        url=f"https://example.com/{key}",
        source_name="Example",
        source_domain="example.com",
        title=f"Report {key}",
        authors=[],
        language="en",
        published_at=published_at,
        body="Body.",
        summaries=[],
        key_points=["A point."],
        segments=[],
        word_count=1,
        content_hash=hashlib.sha256(key.encode()).hexdigest(),
        article_id=stable_id("art", key),
        change_seq=0,
        version=1,
        created_at=now,
        updated_at=now,
    )
    session.add(item)
    return item


def make_cluster(
    runtime: Runtime,
    name: str,
    *,
    created_at: datetime,
    members: int = 2,
    sources: int = 2,
) -> str:
    """A cluster row with ``members`` member items (published one minute apart)."""
    cluster_id = stable_id("clu", name)
    first = created_at - timedelta(hours=1)
    with runtime.sessions.write() as session:
        seq = session.query(StoryCluster).count()
        session.add(
            StoryCluster(
                id=cluster_id,
                seq=seq,
                status=status_for(members),
                title=f"Story {name}",
                abstract=f"What happened in {name}.",
                member_count=members,
                unique_source_count=sources,
                source_keys=[f"s{i}.example" for i in range(sources)],
                key_entities=["Hurricane Ana"],
                key_ideas=["storm surge"],
                first_published_at=first,
                latest_published_at=first + timedelta(minutes=members - 1),
                latest_member_added_at=created_at,
                profile_version=members,
                created_at=created_at,
                updated_at=created_at,
                changed_seq=0,
                profile=None,
                index_keys=None,
            )
        )
        session.flush()
        for n in range(members):
            published = first + timedelta(minutes=n)
            item = _content(session, f"{name}-{n}", published_at=published, now=created_at)
            session.flush()
            session.add(
                StoryClusterMember(
                    id=member_id_for(item.id),
                    cluster_id=cluster_id,
                    content_id=item.id,
                    article_id=item.article_id,
                    source_key=f"s{n % max(sources, 1)}.example",
                    published_at=published,
                    assigned_at=created_at,
                    link_confidence="high" if n == 0 else "medium",
                    similarity=1.0,
                )
            )
            item.cluster_id = cluster_id
    return cluster_id


def ids(body: dict[str, Any]) -> list[str]:
    return [c["cluster_id"] for c in body["clusters"]]


@pytest.fixture
def now(runtime: Runtime) -> datetime:
    return runtime.clock.now()


def test_the_default_list_is_regular_clusters_created_in_the_last_seven_days(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    recent = make_cluster(runtime, "recent", created_at=now - timedelta(days=1))
    edge = make_cluster(runtime, "edge", created_at=now - timedelta(days=7) + timedelta(minutes=1))
    make_cluster(runtime, "old", created_at=now - timedelta(days=7, minutes=1))
    make_cluster(runtime, "stub", created_at=now - timedelta(hours=2), members=1, sources=1)

    response = client.get("/v1/news/clusters", headers=auth)
    assert response.status_code == 200
    body = response.json()
    assert ids(body) == [recent, edge]
    assert (body["limit"], body["offset"], body["next_offset"], body["has_more"]) == (
        25,
        0,
        None,
        False,
    )
    assert body["meta"]["request_id"] == response.headers["x-request-id"]
    cluster = body["clusters"][0]
    assert set(cluster) == LIST_FIELDS
    assert cluster["cluster_type"] == "cluster"
    assert cluster["status"] == "regular"
    assert cluster["created_at"] == (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")


def test_newest_first_with_limit_offset_and_next_offset(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    made = [make_cluster(runtime, f"c{n}", created_at=now - timedelta(hours=n)) for n in range(30)]
    first = client.get("/v1/news/clusters", headers=auth).json()
    assert ids(first) == made[:25]  # default limit 25, newest first
    assert (first["next_offset"], first["has_more"]) == (25, True)
    rest = client.get("/v1/news/clusters", params={"offset": 25}, headers=auth).json()
    assert ids(rest) == made[25:]
    assert (rest["offset"], rest["next_offset"], rest["has_more"]) == (25, None, False)
    page = client.get("/v1/news/clusters", params={"limit": 100}, headers=auth).json()
    assert ids(page) == made
    two = client.get("/v1/news/clusters", params={"limit": 2, "offset": 3}, headers=auth).json()
    assert ids(two) == made[3:5]
    assert two["next_offset"] == 5


@pytest.mark.parametrize(
    "params",
    [{"limit": 0}, {"limit": 101}, {"limit": "ten"}, {"offset": -1}],
)
def test_out_of_range_paging_is_a_400(
    client: TestClient, auth: dict[str, str], params: dict[str, Any]
) -> None:
    response = client.get("/v1/news/clusters", params=params, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"


def test_creation_windows(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
    late = make_cluster(
        runtime, "late", created_at=day - timedelta(days=10, hours=-23)
    )  # D-10 23:00
    early = make_cluster(runtime, "early", created_at=day - timedelta(days=20))
    current = make_cluster(runtime, "current", created_at=now - timedelta(hours=1))

    def listed(**params: str) -> list[str]:
        response = client.get("/v1/news/clusters", params=params, headers=auth)
        assert response.status_code == 200, response.json()
        return ids(response.json())

    d10 = (day - timedelta(days=10)).date().isoformat()
    d30 = (day - timedelta(days=30)).date().isoformat()
    assert listed(start_date=d30, end_date=d10) == [late, early]  # a date-only end is inclusive
    assert listed(start_date=d10) == [current, late]  # a lone start runs through now
    assert listed(end_date=d10) == [late]  # a lone end covers the 7 days before it
    # Datetimes without an offset are UTC; a datetime end is inclusive of that instant.
    assert listed(start_date=f"{d10}T22:00:00", end_date=f"{d10}T23:00:00") == [late]
    assert listed(start_date=f"{d10}T22:00:00", end_date=f"{d10}T22:59:59") == []
    assert listed(start_date=d30, end_date=now.date().isoformat()) == [current, late, early]


@pytest.mark.parametrize(
    ("params", "code"),
    [
        ({"start_date": "2026-11-20", "end_date": "2026-11-10"}, "date_window_too_long"),
        ({"start_date": "2030-01-01"}, "date_window_too_long"),
        ({"start_date": "yesterday"}, "invalid_request"),
        ({"end_date": "2026-13-01"}, "invalid_request"),
    ],
)
def test_bad_windows_are_a_400(
    client: TestClient, auth: dict[str, str], params: dict[str, str], code: str
) -> None:
    response = client.get("/v1/news/clusters", params=params, headers=auth)
    assert response.status_code == 400
    assert response.json()["error"] == code


def test_featured_needs_five_unique_sources(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    five = make_cluster(runtime, "five", created_at=now - timedelta(hours=1), members=5, sources=5)
    four = make_cluster(runtime, "four", created_at=now - timedelta(hours=2), members=6, sources=4)
    body = client.get("/v1/news/clusters", headers=auth).json()
    status = {c["cluster_id"]: c["featured_status"] for c in body["clusters"]}
    assert status == {five: "featured", four: "standard"}


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


def test_limit_bounds_and_an_offset_past_the_end(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    made = [make_cluster(runtime, f"b{n}", created_at=now - timedelta(hours=n)) for n in range(3)]
    one = client.get("/v1/news/clusters", params={"limit": 1}, headers=auth).json()
    assert ids(one) == made[:1]
    assert (one["limit"], one["next_offset"], one["has_more"]) == (1, 1, True)
    last = client.get("/v1/news/clusters", params={"limit": 1, "offset": 2}, headers=auth).json()
    assert ids(last) == made[2:]
    assert (last["next_offset"], last["has_more"]) == (None, False)
    beyond = client.get("/v1/news/clusters", params={"offset": 50}, headers=auth).json()
    assert (beyond["clusters"], beyond["offset"], beyond["next_offset"]) == ([], 50, None)
    assert beyond["has_more"] is False


def test_equal_creation_times_are_ordered_by_cluster_id_descending(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    at = now - timedelta(hours=3)
    made = [make_cluster(runtime, f"tie{n}", created_at=at) for n in range(4)]
    newer = make_cluster(runtime, "newer", created_at=at + timedelta(seconds=1))
    body = client.get("/v1/news/clusters", headers=auth).json()
    assert ids(body) == [newer, *sorted(made, reverse=True)]
    # Paging through ties neither repeats nor skips a cluster.
    seen: list[str] = []
    offset: int | None = 0
    while offset is not None:
        page = client.get(
            "/v1/news/clusters", params={"limit": 2, "offset": offset}, headers=auth
        ).json()
        seen += ids(page)
        offset = page["next_offset"]
    assert seen == ids(body)


def test_window_edges_of_the_defaults(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    just_now = make_cluster(runtime, "just-now", created_at=now)
    make_cluster(runtime, "seven-days", created_at=now - timedelta(days=7))
    assert ids(client.get("/v1/news/clusters", headers=auth).json()) == [just_now]

    # A lone date-only end_date: the 7 days through the end of that day.
    end = (now - timedelta(days=20)).replace(hour=0, minute=0, second=0, microsecond=0)
    inside = make_cluster(runtime, "first-day", created_at=end - timedelta(days=6))
    make_cluster(runtime, "day-before", created_at=end - timedelta(days=6, seconds=1))
    last = make_cluster(runtime, "end-of-day", created_at=end + timedelta(hours=23, minutes=59))
    make_cluster(runtime, "next-day", created_at=end + timedelta(days=1))
    response = client.get(
        "/v1/news/clusters", params={"end_date": end.date().isoformat()}, headers=auth
    )
    assert ids(response.json()) == [last, inside]

    # A date-only start_date begins at 00:00:00Z of that day.
    response = client.get(
        "/v1/news/clusters",
        params={
            "start_date": (end - timedelta(days=6)).date().isoformat(),
            "end_date": end.date().isoformat(),
        },
        headers=auth,
    )
    assert ids(response.json()) == [last, inside]


def test_datetimes_with_an_offset_are_converted_to_utc(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    at = (now - timedelta(days=2)).replace(hour=8, minute=0, second=0, microsecond=0)
    cluster_id = make_cluster(runtime, "offset", created_at=at)
    day = at.date().isoformat()

    def listed(start: str, end: str) -> list[str]:
        params = {"start_date": start, "end_date": end}
        response = client.get("/v1/news/clusters", params=params, headers=auth)
        assert response.status_code == 200, response.json()
        return ids(response.json())

    assert listed(f"{day}T10:00:00+02:00", f"{day}T10:00:00+02:00") == [cluster_id]
    assert listed(f"{day}T08:00:00Z", f"{day}T08:00:00Z") == [cluster_id]
    assert listed(f"{day}T08:00:00+01:00", f"{day}T08:59:59+01:00") == []  # 07:00-07:59Z


def test_the_list_is_never_cut_to_a_maximum_window(
    runtime: Runtime, client: TestClient, auth: dict[str, str], now: datetime
) -> None:
    old = make_cluster(runtime, "ancient", created_at=now - timedelta(days=400))
    response = client.get(
        "/v1/news/clusters",
        params={"start_date": (now - timedelta(days=500)).date().isoformat()},
        headers=auth,
    )
    assert response.status_code == 200
    assert ids(response.json()) == [old]


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
