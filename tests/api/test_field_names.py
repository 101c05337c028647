"""Every error detail names its field by its path in the JSON body or the query string: keys and
list indexes joined by dots (``search.media_types.0``), whoever found the fault (the request
models or the domain's own rules).

The endpoints, their required fields and their types come from the app's OpenAPI document, so
a new endpoint or field is covered without touching this file.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from herald.api.middleware import NDJSON_PATHS
from tests.api.test_unstorable_text import operations, resolve

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # validation only

BODY_METHODS = ("post", "put", "patch")
# A value of each JSON type that is not of the named type.
WRONG = {"string": 5, "integer": "5", "number": "5", "boolean": "yes", "array": "x", "object": 5}
Path = tuple[str, ...]
Ids = dict[str, str]


def concrete(document: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """The schema of a value that is present: an optional field's non-null variant."""
    schema = resolve(document, schema)
    variants = [resolve(document, v) for v in schema.get("anyOf", [])]
    present = [v for v in variants if v.get("type") != "null"]
    if len(present) == 1:
        return present[0]
    if present and len({v.get("type") for v in present}) == 1:  # a date or a datetime
        return present[0]
    return schema


def valid(document: dict[str, Any], schema: dict[str, Any]) -> Any:
    """A value the schema accepts, with only the required fields of objects."""
    schema = concrete(document, schema)
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        return {name: valid(document, properties[name]) for name in schema.get("required", [])}
    if kind == "array":
        return [valid(document, schema.get("items", {}))]
    if kind == "integer" or kind == "number":
        return schema.get("minimum", 1)
    if kind == "boolean":
        return True
    return {
        "date": "2026-11-20",
        "date-time": "2026-11-20T00:00:00Z",
        "uri": "https://a.example",
    }.get(schema.get("format", ""), "chips")


def fields(
    document: dict[str, Any], schema: dict[str, Any], path: Path = ()
) -> Iterator[tuple[Path, dict[str, Any], bool]]:
    """``(path, schema, required)`` of every field of an object, nested objects' fields and
    the first item of arrays included (``("search", "media_types", "0")``)."""
    schema = concrete(document, schema)
    required = set(schema.get("required", []))
    for name, child in schema.get("properties", {}).items():
        child = concrete(document, child)
        here = (*path, name)
        yield here, child, name in required
        if child.get("type") == "object" or "properties" in child:
            yield from fields(document, child, here)
        elif child.get("type") == "array" and "type" in concrete(document, child.get("items", {})):
            yield (*here, "0"), concrete(document, child["items"]), False


def put(body: dict[str, Any], path: Path, value: Any) -> dict[str, Any]:
    """``body`` with ``value`` at ``path`` (the objects and list on the way made as needed)."""
    node: Any = body
    for i, part in enumerate(path[:-1]):
        following = path[i + 1]
        if isinstance(node, list):
            node = node[int(part)]
            continue
        empty: Any = [None] if following.isdigit() else {}
        if not isinstance(node.get(part), list | dict):
            node[part] = empty
        node = node[part]
    last = path[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return body


def remove(body: dict[str, Any], path: Path) -> dict[str, Any]:
    node = body
    for part in path[:-1]:
        node = node[part]
    del node[path[-1]]
    return body


def named(response: Any, where: str, code: str = "invalid_request") -> list[str]:
    """The fields the error's details name (a 400 with ``code``)."""
    assert response.status_code == 400, (where, response.status_code, response.text)
    body = response.json()
    assert body["error"] == code, (where, body)
    assert body["meta"]["request_id"], where
    return [d["field"] for d in body["details"]]


@pytest.fixture
def ids(client: TestClient, admin_auth: dict[str, str]) -> Ids:
    """Real ids for path parameters: some rules run once the resource is found."""
    created = client.post(
        "/v1/monitors", json={"name": "M", "search": {"query": "q"}}, headers=admin_auth
    )
    assert created.status_code == 201, created.text
    return {"monitor_id": created.json()["id"]}


def body_operations(
    document: dict[str, Any], ids: Ids
) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """``(method, template, url, body schema)`` of every endpoint taking a JSON body."""
    for template, method, operation in operations(document):
        content = operation.get("requestBody", {}).get("content", {})
        if method not in BODY_METHODS or template in NDJSON_PATHS:
            continue  # ingestion reports each entry in its answer (tests/ingest)
        if "application/json" not in content:
            continue
        url = filled(document, template, operation, ids)
        yield method, template, url, content["application/json"]["schema"]


def filled(document: dict[str, Any], template: str, operation: dict[str, Any], ids: Ids) -> str:
    for parameter in operation.get("parameters", []):
        parameter = resolve(document, parameter)
        if parameter["in"] == "path":
            value = ids.get(parameter["name"], "x-1")
            template = template.replace("{" + parameter["name"] + "}", value)
    return template


# Fields each kind of fault must reach: the models' and the domain's, nested, list entries.
REACHED = {
    "missing": {
        "POST /v1/content/search query",
        "POST /v1/entities/search query",
        "POST /v1/monitors/{monitor_id}/search query",
        "POST /v1/monitors search",
        "POST /v1/monitors search.query",
        "POST /v1/monitors/preview search.query",
        "POST /v1/monitors/{monitor_id}/backfills dates",
        "POST /v1/admin/sources url",
        "PATCH /v1/admin/sources/{source_id} retention_days",
    },
    "wrong type": {
        "POST /v1/content/search query",
        "POST /v1/content/search media_types.0",
        "POST /v1/entities/search entity_kinds.0",
        "POST /v1/monitors/{monitor_id}/search entity_ids.0",
        "POST /v1/monitors search.query",
        "POST /v1/monitors search.media_types",
        "POST /v1/monitors search.media_types.0",
        "POST /v1/monitors/preview search.include_domains.0",
        "POST /v1/monitors schedule.minute",
        "PATCH /v1/monitors/{monitor_id} schedule.timezone",
        "POST /v1/monitors/{monitor_id}/backfills dates.0",
        "PUT /v1/webhooks url",
        "POST /v1/webhooks/replay start",
        "POST /v1/admin/sources interval_seconds",
    },
}


@pytest.mark.parametrize("fault", sorted(REACHED))
def test_a_field_at_fault_is_named_by_its_path(
    client: TestClient, admin_auth: dict[str, str], ids: Ids, fault: str
) -> None:
    """Every endpoint taking a JSON body, every field: left out when it is required, or given
    a value of another type (a field no value is valid for, PATCH's ``search``, is left to
    tests/monitors)."""
    document = client.get("/openapi.json").json()
    checked: set[str] = set()
    for method, template, url, schema in body_operations(document, ids):
        for path, field_schema, required in fields(document, schema):
            kind = field_schema.get("type")
            if fault == "missing" and required:
                body = remove(valid(document, schema), path)
            elif fault == "wrong type" and kind in WRONG:
                body = put(valid(document, schema), path, WRONG[kind])
            else:
                continue
            where = f"{method.upper()} {template} {body}"
            response = client.request(method, url, json=body, headers=admin_auth)
            assert named(response, where) == [".".join(path)], where
            checked.add(f"{method.upper()} {template} {'.'.join(path)}")
    assert checked >= REACHED[fault], sorted(REACHED[fault] - checked)


def test_a_wrongly_typed_query_parameter_is_named_by_its_name(
    client: TestClient, admin_auth: dict[str, str], ids: Ids
) -> None:
    document = client.get("/openapi.json").json()
    checked: set[str] = set()
    for template, method, operation in operations(document):
        url = filled(document, template, operation, ids)
        for parameter in operation.get("parameters", []):
            parameter = resolve(document, parameter)
            kind = concrete(document, parameter.get("schema", {})).get("type")
            if parameter["in"] != "query" or kind not in ("integer", "number", "boolean"):
                continue
            where = f"{method.upper()} {template} ?{parameter['name']}"
            response = client.request(
                method, url, params={parameter["name"]: "x"}, headers=admin_auth
            )
            assert named(response, where) == [parameter["name"]], where
            checked.add(where)
    assert len(checked) > 10


SEARCHES = [
    ("/v1/content/search", ""),
    ("/v1/monitors/{monitor_id}/search", ""),
    ("/v1/monitors", "search."),
    ("/v1/monitors/preview", "search."),
]


@pytest.mark.parametrize(("url", "prefix"), SEARCHES)
@pytest.mark.parametrize(
    ("filters", "code", "fields"),
    [
        ({"media_types": ["news", "video"]}, "invalid_request", ["media_types.1"]),
        (
            {"media_types": ["video", "wire", "tv"]},
            "invalid_request",
            ["media_types.0", "media_types.2"],
        ),
        ({"include_domains": ["a.com", "not a domain"]}, "invalid_request", ["include_domains.1"]),
        ({"exclude_domains": ["*.example.com"]}, "invalid_request", ["exclude_domains.0"]),
        ({"entity_ids": ["ent_a", " "]}, "invalid_request", ["entity_ids.1"]),
        (
            {"include_domains": [f"d{i}.com" for i in range(11)]},
            "too_many_domains",
            ["include_domains"],
        ),
        ({"entity_ids": [f"ent_{i}" for i in range(101)]}, "invalid_request", ["entity_ids"]),
    ],
)
def test_the_search_rules_name_the_offending_entry(
    client: TestClient,
    admin_auth: dict[str, str],
    ids: Ids,
    url: str,
    prefix: str,
    filters: dict[str, Any],
    code: str,
    fields: list[str],
) -> None:
    search = {"query": "chips", **filters}
    body = {"search": search} if prefix else search
    if url == "/v1/monitors":
        body["name"] = "M"
    response = client.post(url.format(**ids), json=body, headers=admin_auth)
    assert named(response, url, code) == [prefix + f for f in fields]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("media_types=news,video", "media_types.0"),
        ("media_types=news&media_types=wire,tv", "media_types.1"),
        ("limit=x", "limit"),
        ("offset=-1", "offset"),
    ],
)
def test_a_query_parameter_is_named_by_its_name_and_index(
    client: TestClient, admin_auth: dict[str, str], query: str, field: str
) -> None:
    response = client.get(f"/v1/entities/ent_x/timeline?{query}", headers=admin_auth)
    assert named(response, query) == [field]


@pytest.mark.parametrize("name", ["query", "path", "header", "cookie", "body"])
def test_a_field_named_like_a_part_of_the_request_keeps_its_name(
    client: TestClient, admin_auth: dict[str, str], name: str
) -> None:
    # Where the server found a value (the body, the query string) is not part of the path.
    sent = {"query": 1} if name == "query" else {"query": "chips", name: 1}  # unknown field
    response = client.post("/v1/content/search", json=sent, headers=admin_auth)
    assert named(response, name) == [name]
    response = client.post("/v1/content/search", json={}, headers=admin_auth)
    assert named(response, "missing") == ["query"]
    response = client.post("/v1/content/search", json=["query"], headers=admin_auth)
    assert named(response, "not an object") == ["body"]
