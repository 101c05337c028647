"""Logs are JSON, carry the request id, and never the API key."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

from fastapi.testclient import TestClient

from herald.logging import JsonFormatter
from herald.workspaces.service import CreatedKey


@contextmanager
def _json_log() -> Iterator[io.StringIO]:
    """Everything logged at INFO and above meanwhile, as Herald's JSON lines."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.addHandler(handler)
    previous = root.level
    root.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        root.removeHandler(handler)
        root.setLevel(previous)


def test_access_log_has_request_id_and_no_key(client: TestClient, member_key: CreatedKey) -> None:
    with _json_log() as stream:
        response = client.get("/healthz", headers={"x-api-key": member_key.api_key})
        client.get("/v1/none", headers={"authorization": f"Bearer {member_key.api_key}"})
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    access = [line for line in lines if line["logger"] == "herald.access"]
    assert access, lines
    assert access[0]["request_id"] == response.headers["x-request-id"]
    assert access[0]["status"] == 200
    assert member_key.api_key not in stream.getvalue()


def test_secret_fields_are_redacted() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", None, None)
    record.api_key = "hk_supersecret"
    assert "hk_supersecret" not in JsonFormatter().format(record)


def test_access_log_never_has_a_feed_token(client: TestClient, auth: dict[str, str]) -> None:
    # The feed URL is a credential (anyone holding it reads the feed): its token is stored
    # hashed, and the access log shows the route's template instead of it.
    monitor = client.post(
        "/v1/monitors", json={"name": "watch", "search": {"query": "solar"}}, headers=auth
    ).json()
    feed_url = client.post(f"/v1/monitors/{monitor['id']}/feed", headers=auth).json()["feed_url"]
    token = feed_url.rsplit("/", 1)[1]
    with _json_log() as stream:
        assert client.get(feed_url).status_code == 200
        assert client.get(feed_url + "x").status_code == 404
    ours = [json.loads(line) for line in stream.getvalue().splitlines()]
    ours = [line for line in ours if line["logger"].startswith("herald")]  # not the test client's
    access = [line for line in ours if line["logger"] == "herald.access"]
    assert [line["status"] for line in access] == [200, 404]
    assert token not in json.dumps(ours)
    assert [line["path"] for line in access] == ["/feeds/{token}"] * 2


def test_access_log_has_no_feed_token_from_a_path_that_misses_the_route(
    client: TestClient, auth: dict[str, str]
) -> None:
    # Feed readers and proxies add a slash or a suffix to the URL they were given; the answer is
    # a redirect or a 404, and the token in the path is still a credential.
    monitor = client.post(
        "/v1/monitors", json={"name": "watch", "search": {"query": "solar"}}, headers=auth
    ).json()
    feed_url = client.post(f"/v1/monitors/{monitor['id']}/feed", headers=auth).json()["feed_url"]
    token = feed_url.rsplit("/", 1)[1]
    with _json_log() as stream:
        assert client.get(feed_url + "/", follow_redirects=False).status_code == 307
        assert client.get(feed_url + "/entries").status_code == 404
        assert client.get(f"/feeds//{token}").status_code == 404
        assert client.get(f"http://testserver//feeds/{token}").status_code == 404
    ours = [json.loads(line) for line in stream.getvalue().splitlines()]
    ours = [line for line in ours if line["logger"].startswith("herald")]  # not the test client's
    access = [line for line in ours if line["logger"] == "herald.access"]
    assert len(access) == 4
    assert token not in json.dumps(ours)
    assert {line["path"] for line in access} == {"/feeds/{token}"}
