"""Text the databases cannot store (NUL, lone surrogates) is refused at the edge, for every
string of every request, before anything is stored; the workspace stays readable afterwards.

The fields come from the app's own OpenAPI document, so a new endpoint or field is covered
without touching this file. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.api.middleware import NDJSON_PATHS

NUL = "a\u0000b"
SURROGATE = "a\ud800b"
METHODS = ("get", "post", "put", "patch", "delete")


def resolve(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = document["components"]["schemas"][name]
    return schema


def string_fields(
    document: dict[str, Any], schema: dict[str, Any], path: tuple[str, ...] = (), depth: int = 0
) -> Iterator[tuple[str, ...]]:
    """Paths (``("search", "query")``, ``("dates", "0")``) of every string a body may hold."""
    if depth > 8:
        return
    schema = resolve(document, schema)
    variants = schema.get("anyOf") or schema.get("oneOf") or schema.get("allOf")
    if variants:
        seen: set[tuple[str, ...]] = set()
        for variant in variants:
            for found in string_fields(document, variant, path, depth + 1):
                if found not in seen:
                    seen.add(found)
                    yield found
        return
    kind = schema.get("type")
    if kind == "string":
        yield path
    elif kind == "array":
        yield from string_fields(document, schema.get("items", {}), (*path, "0"), depth + 1)
    elif kind == "object" or "properties" in schema:
        for name, child in schema.get("properties", {}).items():
            yield from string_fields(document, child, (*path, name), depth + 1)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            yield from string_fields(document, extra, (*path, "key"), depth + 1)


def body_with(path: tuple[str, ...], value: str) -> Any:
    node: Any = value
    for part in reversed(path):
        node = [node] if part.isdigit() else {part: node}
    return node


def operations(document: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path, item in document["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def fill(path: str, parameters: list[dict[str, Any]], bad: str | None = None) -> str:
    for parameter in parameters:
        if parameter["in"] == "path":
            value = "x-1" if parameter["name"] != bad else "a%00b"
            path = path.replace("{" + parameter["name"] + "}", value)
    return path


def assert_refused(response: Any, field: str, where: str) -> None:
    assert response.status_code == 400, (where, response.status_code, response.text)
    body = response.json()
    assert body["error"] == "invalid_request", where
    assert [d["field"] for d in body["details"]] == [field], where
    assert body["meta"]["request_id"], where


def test_every_string_of_every_endpoint_is_checked(
    client: TestClient, admin_auth: dict[str, str]
) -> None:
    document = client.get("/openapi.json").json()
    # A valid monitor first: the workspace must list and read it, unchanged, at the end.
    monitor = client.post(
        "/v1/monitors", json={"name": "Kept", "search": {"query": "solar"}}, headers=admin_auth
    )
    assert monitor.status_code == 201, monitor.text
    checked = 0
    for template, method, operation in operations(document):
        parameters = [resolve(document, p) for p in operation.get("parameters", [])]
        where = f"{method.upper()} {template}"
        for parameter in parameters:
            if parameter["in"] == "path":
                url = fill(template, parameters, bad=parameter["name"])
                response = client.request(method, url, headers=admin_auth)
                # an id that holds such text cannot exist: unknown, like any other id
                shown = (where, parameter["name"], response.text[:200])
                assert response.status_code == 404, shown
                assert response.json()["error"] == "not_found", shown
                checked += 1
            elif parameter["in"] == "query":
                response = client.request(
                    method,
                    fill(template, parameters),
                    params={parameter["name"]: NUL},
                    headers=admin_auth,
                )
                assert_refused(response, parameter["name"], f"{where} ?{parameter['name']}")
                checked += 1
        content = operation.get("requestBody", {}).get("content", {})
        if "application/json" not in content or template in NDJSON_PATHS:
            continue  # JSON Lines ingestion checks each line (tests/ingest/test_ingest_limits.py)
        schema = content["application/json"]["schema"]
        for field in string_fields(document, schema):
            for bad in (NUL, SURROGATE):
                # json.dumps writes a lone surrogate as the escape "\ud800", as a client would.
                raw = json.dumps(body_with(field, bad))
                response = client.request(
                    method,
                    fill(template, parameters),
                    content=raw,
                    headers=admin_auth | {"content-type": "application/json"},
                )
                assert_refused(response, ".".join(field) or "body", f"{where} {field} {bad!r}")
                checked += 1
    assert checked > 100  # the document really was walked

    # Nothing was stored and the workspace reads normally.
    listed = client.get("/v1/monitors", headers=admin_auth)
    assert listed.status_code == 200, listed.text
    assert [m["id"] for m in listed.json()["monitors"]] == [monitor.json()["id"]]
    shown = client.get(f"/v1/monitors/{monitor.json()['id']}", headers=admin_auth)
    assert shown.status_code == 200
    assert shown.json()["search"]["query"] == "solar"
    for path in ("/v1/admin/sources", "/v1/webhooks", "/v1/webhooks/events", "/v1/news/clusters"):
        assert client.get(path, headers=admin_auth).status_code == 200, path


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "M", "search": {"query": "a\ud800"}}, "search.query"),
        ({"name": "M", "description": "\ud800", "search": {"query": "q"}}, "description"),
        ({"name": "M", "search": {"query": "q", "include_domains": ["\udfff.com"]}}, None),
        ({"name": "M", "search": {"query": "q", "entity_ids": ["ent_\ud800"]}}, None),
        ({"name": "\ud800", "search": {"query": "q"}}, "name"),
        ({"name": "M\u0000", "search": {"query": "q"}}, "name"),
    ],
)
def test_a_monitor_with_unstorable_text_is_refused_and_the_list_still_works(
    client: TestClient, auth: dict[str, str], body: dict[str, Any], field: str | None
) -> None:
    response = client.post(
        "/v1/monitors",
        content=json.dumps(body),
        headers=auth | {"content-type": "application/json"},
    )
    assert response.status_code == 400, response.text
    [detail] = response.json()["details"]
    if field is not None:
        assert detail["field"] == field
    else:
        assert detail["field"].startswith("search.")
    listed = client.get("/v1/monitors", headers=auth)
    assert listed.status_code == 200
    assert listed.json()["monitors"] == []


def test_content_search_filters_and_admin_sources(
    client: TestClient, auth: dict[str, str], admin_auth: dict[str, str]
) -> None:
    search = client.post(
        "/v1/search",
        content=json.dumps({"query": "q", "include_domains": ["\ud800.com"]}),
        headers=auth | {"content-type": "application/json"},
    )
    assert_refused(search, "include_domains.0", "search")
    source = client.post(
        "/v1/admin/sources",
        content=json.dumps(
            {"url": "https://example.com/feed", "media_type": "news", "name": "\ud800"}
        ),
        headers=admin_auth | {"content-type": "application/json"},
    )
    assert_refused(source, "name", "sources")
    assert client.get("/v1/admin/sources", headers=admin_auth).json()["sources"] == []


def test_a_header_with_nul_is_refused(client: TestClient, auth: dict[str, str]) -> None:
    response = client.get("/v1/monitors", headers={"x-api-key": auth["x-api-key"] + "\u0000"})
    assert_refused(response, "x-api-key", "header")
