"""Atom feeds of monitor results: secret URL shown once, rotate, revoke, valid Atom, ETag/304."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from xml.etree import ElementTree as ET

import feedparser
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.monitor_feeds import MonitorFeed
from herald.runtime import Runtime
from tests.monitors.support import WordSearch

Content = Callable[..., str]
ATOM = "{http://www.w3.org/2005/Atom}"


def captured_monitor(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    content: Content,
    drain: Callable[[], int],
) -> dict[str, Any]:
    now = runtime.clock.now()
    content("Solar farm opens", now - timedelta(days=1))
    content("Solar prices fall", now - timedelta(hours=2), domain="news.example")
    content("Wind farm opens", now - timedelta(hours=3))
    monitor = client.post(
        "/v1/monitors", json={"name": "Solar <watch>", "search": {"query": "solar"}}, headers=auth
    ).json()
    assert client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth).status_code == 202
    drain()
    return dict(monitor)


def feed_path(url: str) -> str:
    return url.split("testserver", 1)[1]


def test_feed_is_valid_atom_newest_first_with_etag(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    content: Content,
    word_search: WordSearch,
    drain: Callable[[], int],
) -> None:
    monitor = captured_monitor(client, auth, runtime, content, drain)
    created = client.post(f"/v1/monitors/{monitor['id']}/feed", headers=auth)
    assert created.status_code == 201
    url = created.json()["feed_url"]
    token = url.rsplit("/", 1)[1]
    with runtime.sessions.read() as session:
        stored = session.scalars(select(MonitorFeed.token_hash)).one()
    assert token not in stored  # only a hash is kept
    assert len(token) >= 40

    response = client.get(feed_path(url))  # no API key: the URL is the credential
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/atom+xml")
    parsed = feedparser.parse(response.content)
    assert parsed.bozo == 0
    assert parsed.version == "atom10"
    assert parsed.feed.title == "Herald monitor: Solar <watch>"
    assert [e.title for e in parsed.entries] == ["Solar prices fall", "Solar farm opens"]
    first = parsed.entries[0]
    assert first.link.startswith("https://news.example/")
    assert first.source.title == "News"
    assert "Solar prices fall happened." in first.summary
    assert first.published_parsed is not None

    root = ET.fromstring(response.content)
    for tag in ("id", "title", "updated", "author"):
        assert root.find(f"{ATOM}{tag}") is not None, tag
    entries = root.findall(f"{ATOM}entry")
    assert len(entries) == 2
    for entry in entries:
        for tag in ("id", "title", "updated", "link"):
            assert entry.find(f"{ATOM}{tag}") is not None, tag

    etag = response.headers["etag"]
    unchanged = client.get(feed_path(url), headers={"if-none-match": etag})
    assert unchanged.status_code == 304
    assert unchanged.content == b""
    content("Solar storage record", runtime.clock.now() - timedelta(hours=1))
    client.post(f"/v1/monitors/{monitor['id']}/run", headers=auth)
    drain()
    changed = client.get(feed_path(url), headers={"if-none-match": etag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag
    assert feedparser.parse(changed.content).entries[0].title == "Solar storage record"


def test_rotate_and_revoke_and_workspace_scope(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    runtime: Runtime,
    content: Content,
    word_search: WordSearch,
    drain: Callable[[], int],
) -> None:
    monitor = captured_monitor(client, auth, runtime, content, drain)
    path = f"/v1/monitors/{monitor['id']}/feed"
    first = feed_path(client.post(path, headers=auth).json()["feed_url"])
    second = feed_path(client.post(path, headers=auth).json()["feed_url"])
    assert first != second
    gone = client.get(first)
    assert gone.status_code == 404
    assert gone.json()["error"] == "not_found"
    assert client.get(second).status_code == 200

    assert client.post(path, headers=other_auth).status_code == 404  # another workspace
    assert client.delete(path, headers=other_auth).status_code == 404
    assert client.post(path).status_code == 401

    revoked = client.delete(path, headers=auth)
    assert revoked.status_code == 200
    assert revoked.json()["revoked"] is True
    assert client.get(second).status_code == 404
    assert client.delete(path, headers=auth).json()["revoked"] is False
    assert client.get("/feeds/not-a-token").status_code == 404
