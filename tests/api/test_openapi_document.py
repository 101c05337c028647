"""The OpenAPI document states the rules the server enforces, in shapes generated clients use."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi import FastAPI

pytestmark = pytest.mark.parametrize("backend", ["sqlite"], indirect=True)  # the document only


def _resolve(doc: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = doc["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _body(doc: dict[str, Any], path: str, method: str = "post") -> dict[str, Any]:
    content = doc["paths"][path][method]["requestBody"]["content"]["application/json"]
    return _resolve(doc, content["schema"])


def _param(doc: dict[str, Any], path: str, name: str) -> dict[str, Any]:
    params = doc["paths"][path]["get"]["parameters"]
    return next(p["schema"] for p in params if p["name"] == name)


def test_request_rules_are_in_the_schema(app: FastAPI) -> None:
    doc = app.openapi()
    ingest = doc["paths"]["/v1/admin/content"]["post"]["requestBody"]
    assert ingest["required"] is True
    assert {"application/json", "application/x-ndjson"} <= set(ingest["content"])

    run_now = doc["paths"]["/v1/monitors/{monitor_id}/run"]["post"]["requestBody"]
    assert run_now.get("required", False) is False
    run_now_schema = run_now["content"]["application/json"]["schema"]
    assert run_now_schema["$ref"] == "#/components/schemas/RunNowRequest"
    assert "anyOf" not in run_now_schema

    search = _body(doc, "/v1/content/search")["properties"]
    assert search["query"]["minLength"] == 1
    assert search["query"]["maxLength"] == 2000
    media = search["media_types"]["anyOf"][0]
    assert media["items"]["enum"] == ["news", "wire", "podcast"]
    assert search["include_domains"]["anyOf"][0]["maxItems"] == 10
    assert search["entity_ids"]["anyOf"][0]["maxItems"] == 100
    formats = {s.get("format") for s in search["start_date"]["anyOf"]}
    assert formats == {"date", "date-time", None}  # None: the null of an optional field

    create = _body(doc, "/v1/monitors")["properties"]
    assert create["name"]["minLength"] == 1
    assert create["search"]["properties"]["query"]["minLength"] == 1
    patch = _body(doc, "/v1/monitors/{monitor_id}", "patch")["properties"]
    assert patch["search"]["not"] == {}
    assert patch["status"]["not"] == {}

    dates = _body(doc, "/v1/monitors/{monitor_id}/backfills")["properties"]["dates"]
    assert (dates["minItems"], dates["maxItems"], dates["uniqueItems"]) == (1, 100, True)
    assert dates["items"]["format"] == "date"

    source = _body(doc, "/v1/admin/sources")["properties"]
    assert source["media_type"]["enum"] == ["news", "wire", "podcast"]
    assert source["format"]["enum"] == ["rss", "ninjs", "jsonl", "jsonfeed"]

    ledger = _param(doc, "/v1/monitors/{monitor_id}/backfills", "start_date")
    assert ledger["anyOf"][0]["format"] == "date"
    assert _param(doc, "/v1/webhooks/stats", "bucket_minutes")["enum"] == [5, 15, 60, 1440]


def test_timestamps_are_date_times(app: FastAPI) -> None:
    schemas = app.openapi()["components"]["schemas"]
    monitor = schemas["MonitorOut"]["properties"]
    assert monitor["created_at"] == {"type": "string", "format": "date-time", "title": "Created At"}
    assert monitor["next_run_at"]["anyOf"][0]["format"] == "date-time"
    events = schemas["AttemptsResponse"]["properties"]
    assert events["page_size"]["const"] == 50
