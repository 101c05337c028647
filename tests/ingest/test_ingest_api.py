"""POST /v1/admin/content, /v1/admin/sources and GET /v1/content/{id} over the real app."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from .conftest import ecbplus_docs

DOCS = ecbplus_docs()


def _item(doc_id: str, **overrides: object) -> dict[str, object]:
    doc = DOCS[doc_id]
    lines = doc["text"].split("\n")
    item: dict[str, object] = {
        "url": doc["source_url"],
        "media_type": "news",
        "title": lines[0],
        "published_date": "2012-12-23T18:11:00-05:00",
        "source": {"name": "Yahoo Sports", "domain": doc["source_domain"]},
        "authors": ["The Associated Press"],
        "body": "\n".join(lines[1:]),
    }
    item.update(overrides)
    return item


EPISODE = {
    "url": "https://changelog.com/practicalai/300",
    "media_type": "podcast",
    "title": "Practical AI, episode 300",
    "published_date": "2024-12-02T12:00:00Z",
    "source": {"name": "Changelog", "domain": "changelog.com"},
    "podcast": {
        "podcast_id": "practicalai",
        "title": "Practical AI",
        "publisher": "Changelog Media",
    },
    "episode_id": "practicalai-300",
    "audio_url": "https://op3.dev/e/changelog.com/practicalai-300.mp3",
    "duration_seconds": 3081,
    "transcript_segments": [
        {
            "start": 0,
            "end": 28.4,
            "speaker": "Daniel Whitenack",
            "text": "Welcome to another episode of Practical AI.",
        },
        {"start": 28.5, "end": 29.7, "speaker": "Chris Benson", "text": "That's right."},
    ],
}


def test_json_lines_body_reports_bad_lines_and_stores_the_rest(
    client: TestClient, admin_auth: dict[str, str]
) -> None:
    body = "\n".join(
        [
            json.dumps(_item("29_1ecbplus")),
            "{bad json",
            json.dumps({"title": "x"}),
            json.dumps(EPISODE),
        ]
    )
    response = client.post(
        "/v1/admin/content",
        content=body,
        headers=admin_auth | {"content-type": "application/x-ndjson"},
    )
    assert response.status_code == 200, response.text
    data = response.json()
    assert (data["accepted"], data["updated"], data["duplicates"], data["rejected"]) == (2, 0, 0, 2)
    assert [(e["location"], e["line"]) for e in data["errors"]] == [("line 2", 2), ("line 3", 3)]
    assert data["errors"][0]["reason"].startswith("invalid JSON")
    assert data["meta"]["request_id"] == response.headers["x-request-id"]
    assert len(data["content_ids"]) == 2

    again = client.post(
        "/v1/admin/content",
        content=body,
        headers=admin_auth | {"content-type": "application/x-ndjson"},
    ).json()
    assert (again["accepted"], again["duplicates"]) == (0, 2)


def test_json_array_body_and_the_full_item_shape(
    client: TestClient, admin_auth: dict[str, str], auth: dict[str, str]
) -> None:
    response = client.post(
        "/v1/admin/content",
        json=[_item("29_1ecbplus"), _item("29_5ecbplus"), EPISODE],
        headers=admin_auth,
    )
    assert response.status_code == 200, response.text
    news_id, reprint_id, episode_id = response.json()["content_ids"]

    fetched = client.get(f"/v1/content/{news_id}", headers=auth)
    assert fetched.json()["meta"]["request_id"] == fetched.headers["x-request-id"]
    item = fetched.json()["content_item"]
    assert item["id"] == news_id
    assert item["media_type"] == "news"
    assert item["published_date"] == "2012-12-23T23:11:00Z"
    assert item["title"] == "Colts beat Chiefs 20 - 13 to clinch playoff berth"
    assert item["source"] == {"name": "Yahoo Sports", "domain": "yahoo.com"}
    assert item["url"] == DOCS["29_1ecbplus"]["source_url"]
    assert item["authors"] == ["The Associated Press"]
    assert item["article_id"].startswith("art_")
    # Not enriched yet: empty, never invented.
    assert item["key_points"] == []
    assert item["summaries"] == []
    assert item["entities"] == []
    assert item["summary"] is None
    assert item["enriched_at"] is None
    assert item["cluster_id"] is None
    assert item["word_count"] > 800
    assert "body" not in item
    assert "transcript" not in item
    assert "segments" not in item
    reprint = client.get(f"/v1/content/{reprint_id}", headers=auth).json()["content_item"]
    assert reprint["article_id"] == item["article_id"]
    assert reprint["id"] != news_id

    episode = client.get(f"/v1/content/{episode_id}", headers=auth).json()["content_item"]
    assert episode["media_type"] == "podcast"
    assert (episode["podcast_id"], episode["episode_id"]) == ("practicalai", "practicalai-300")
    assert episode["podcast"] == {"title": "Practical AI", "publisher": "Changelog Media"}
    assert episode["duration_seconds"] == 3081
    assert episode["audio_url"] == EPISODE["audio_url"]
    assert episode["segments"] == []  # segments come from enrichment
    assert "article_id" not in episode
    assert "transcript_segments" not in episode
    assert "body" not in episode


def test_member_keys_do_not_see_operator_endpoints(
    client: TestClient, auth: dict[str, str]
) -> None:
    assert (
        client.post("/v1/admin/content", json=[_item("29_1ecbplus")], headers=auth).status_code
        == 404
    )
    assert client.get("/v1/admin/sources", headers=auth).status_code == 404
    assert client.post("/v1/admin/content", json=[]).status_code == 401


def test_bodies_that_are_not_items(client: TestClient, admin_auth: dict[str, str]) -> None:
    response = client.post(
        "/v1/admin/content", content=b"hello", headers=admin_auth | {"content-type": "text/plain"}
    )
    assert response.status_code == 415
    assert response.json()["error"] == "unsupported_media_type"
    response = client.post(
        "/v1/admin/content",
        content=b"[1, 2",
        headers=admin_auth | {"content-type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["error"] == "invalid_request"
    response = client.post(
        "/v1/admin/content",
        content=b"  ",
        headers=admin_auth | {"content-type": "application/json"},
    )
    assert response.status_code == 400
    big = b"[" + b" " * (1024 * 1024 + 10) + b"]"
    response = client.post(
        "/v1/admin/content", content=big, headers=admin_auth | {"content-type": "application/json"}
    )
    assert response.status_code == 413


def test_unknown_content_is_404_for_every_workspace(
    client: TestClient, auth: dict[str, str], other_auth: dict[str, str], admin_auth: dict[str, str]
) -> None:
    assert (
        client.get("/v1/content/cnt_doesnotexist000000", headers=auth).json()["error"]
        == "not_found"
    )
    content_id = client.post(
        "/v1/admin/content", json=[_item("24_5ecbplus")], headers=admin_auth
    ).json()["content_ids"][0]
    # Content is shared by all workspaces.
    assert client.get(f"/v1/content/{content_id}", headers=other_auth).status_code == 200
    assert client.get(f"/v1/content/{content_id}").status_code == 401


def test_sources_endpoints(client: TestClient, admin_auth: dict[str, str]) -> None:
    response = client.post(
        "/v1/admin/sources",
        json={
            "url": "https://feeds.test/liftoff.xml",
            "media_type": "news",
            "interval_seconds": 600,
        },
        headers=admin_auth,
    )
    assert response.status_code == 201, response.text
    source = response.json()["source"]
    assert source["id"].startswith("src_")
    assert source["interval_seconds"] == 600
    assert source["last_error"] is None
    assert source["next_poll_at"].endswith("Z")
    listed = client.get("/v1/admin/sources", headers=admin_auth).json()["sources"]
    assert [s["id"] for s in listed] == [source["id"]]
    assert (
        client.get(f"/v1/admin/sources/{source['id']}", headers=admin_auth).json()["source"]["url"]
        == source["url"]
    )
    duplicate = client.post(
        "/v1/admin/sources",
        json={"url": "https://feeds.test/liftoff.xml", "media_type": "news"},
        headers=admin_auth,
    )
    assert duplicate.status_code == 400
    assert duplicate.json()["error"] == "invalid_request"
    bad = client.post(
        "/v1/admin/sources",
        json={"url": "https://feeds.test/x", "media_type": "news", "colour": 1},
        headers=admin_auth,
    )
    assert bad.status_code == 400
    assert client.delete(f"/v1/admin/sources/{source['id']}", headers=admin_auth).status_code == 200
    assert client.get(f"/v1/admin/sources/{source['id']}", headers=admin_auth).status_code == 404
