"""A JSON body nested too deeply is a 400 in the error envelope at every endpoint, never a 500
(the parser and the routes' checks recurse, so depth used to exhaust the stack)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from herald.api.middleware import MAX_JSON_DEPTH, NDJSON_PATHS
from tests.api.test_unstorable_text import fill, operations, resolve


def nested(depth: int, *, objects: bool) -> str:
    if objects:
        return '{"a":' * depth + "1" + "}" * depth
    return "[" * depth + "]" * depth


# The deepest is near the 1 MiB body limit.
@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 900, 5000, 150_000])
def test_a_deeply_nested_body_is_refused_everywhere(
    client: TestClient, admin_auth: dict[str, str], depth: int
) -> None:
    document = client.get("/openapi.json").json()
    checked = 0
    for template, method, operation in operations(document):
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" not in content or template in NDJSON_PATHS:
            continue  # ingestion reads each entry on its own (tests/ingest)
        parameters = [resolve(document, p) for p in operation.get("parameters", [])]
        for objects in (False, True):
            response = client.request(
                method,
                fill(template, parameters),
                content=nested(depth, objects=objects),
                headers=admin_auth | {"content-type": "application/json"},
            )
            where = (method, template, objects, response.text[:200])
            assert response.status_code == 400, where
            body = response.json()
            assert body["error"] == "invalid_request", where
            assert [d["field"] for d in body["details"]] == ["body"], where
            assert body["meta"]["request_id"], where
            checked += 1
    assert checked > 20


def test_a_body_at_the_depth_limit_is_read(client: TestClient, auth: dict[str, str]) -> None:
    # Within the limit the route reads it and answers its own way (here: a wrong type).
    body = (
        '{"name": "M", "search": {"query": "q", "entity_ids": '
        + nested(MAX_JSON_DEPTH - 2, objects=False)
        + "}}"
    )
    response = client.post(
        "/v1/monitors", content=body, headers=auth | {"content-type": "application/json"}
    )
    assert response.status_code == 400, response.text
    assert [d["field"] for d in response.json()["details"]] != ["body"]
