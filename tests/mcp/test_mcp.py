"""Herald's MCP server through the ``mcp`` SDK's own client, over stdio (``herald mcp``) and
streamable HTTP (``/mcp``), against a real ``herald serve`` with a real corpus. Every answer is
checked against what the HTTP API says for the same request."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Any

import anyio
import herald_client
import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, TextContent

from tests.mcp.conftest import TRANSPORTS, Connect, RunningServer

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

ECB = "ent_99yig2g1bclgxrqxtguv"  # "European Central Bank" in the small seed
TOOL_NAMES = {
    "search_content",
    "get_content",
    "search_entities",
    "entity_timeline",
    "list_stories",
    "get_story",
    "list_monitors",
    "create_monitor",
    "run_monitor",
    "monitor_results",
    "search_monitor_results",
}
# What a search result costs a model's context at most (docs/mcp.md has the measured size).
BYTES_PER_SEARCH_RESULT = 1000


@pytest.fixture
async def api(server: RunningServer) -> AsyncIterator[herald_client.AsyncClient]:
    """The HTTP API, as the reference for every tool's answer."""
    async with herald_client.AsyncClient(
        base_url=server.base_url, api_key=server.acme_key
    ) as client:
        yield client


async def call(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text(result)
    data = json.loads(text(result))
    assert data == result.structured_content
    return data  # type: ignore[no-any-return]


async def failure(client: Client, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    assert result.is_error, text(result)
    return json.loads(text(result))  # type: ignore[no-any-return]


async def refusal(call: Awaitable[object]) -> dict[str, Any]:
    """The error envelope of the client library's refusal of ``call`` (which sends nothing)."""
    with pytest.raises(herald_client.RequestNotSentError) as refused:
        await call
    error = refused.value
    details = [{"field": d.field, "message": d.message} for d in error.details]
    return {"error": error.code, "message": error.message, "details": details}


def text(result: CallToolResult) -> str:
    [block] = result.content
    assert isinstance(block, TextContent)
    return block.text


def no_full_text(data: Any) -> None:
    serialized = json.dumps(data)
    for field in ('"body"', '"transcript"', '"summaries"'):
        assert field not in serialized


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_every_tool_answers_what_the_api_answers(
    server: RunningServer, connect: Connect, api: herald_client.AsyncClient, transport: str
) -> None:
    async with connect(transport, server.acme_key) as client:
        tools = (await client.list_tools()).tools
        assert {t.name for t in tools} == TOOL_NAMES
        for tool in tools:
            assert len(tool.description or "") > 80, tool.name  # written for a model
            assert tool.input_schema["type"] == "object"
        search_schema = next(t for t in tools if t.name == "search_content").input_schema
        assert set(search_schema["properties"]) == {
            "query",
            "start_date",
            "end_date",
            "media_types",
            "include_domains",
            "exclude_domains",
            "entity_ids",
            "limit",
        }
        assert search_schema["required"] == ["query"]

        request = {"query": "European Central Bank interest rates", "limit": 5}
        found = await call(client, "search_content", request)
        expected = await api.content.search(**request)
        assert [r["id"] for r in found["results"]] == [r.content_item.id for r in expected.results]
        assert len(found["results"]) >= 3
        for mine, theirs in zip(found["results"], expected.results, strict=True):
            item = await api.content.get(theirs.content_item.id)
            assert mine["url"] == item.url
            assert mine["title"] == item.title
            assert mine["source"] == item.source.name
            assert mine["score"] == round(theirs.score, 3)
            assert mine["key_points"] == theirs.content_item.key_points[:3]
        no_full_text(found)
        filtered = {**request, "media_types": ["wire"], "include_domains": ["example.org"]}
        wire = await call(client, "search_content", filtered)
        assert [r["id"] for r in wire["results"]] == [
            r.content_item.id for r in (await api.content.search(**filtered)).results
        ]
        assert {r["media_type"] for r in wire["results"]} == {"wire"}

        news_id = found["results"][0]["id"]
        detail = await call(client, "get_content", {"content_id": news_id})
        item = await api.content.get(news_id)
        assert (detail["id"], detail["url"], detail["summary"]) == (item.id, item.url, item.summary)
        assert [e["id"] for e in detail["entities"]] == [e.entity_id for e in item.entities or []]
        assert ECB in [e["id"] for e in detail["entities"]]
        assert detail["story_id"] == item.cluster_id is not None
        no_full_text(detail)

        entities = await call(client, "search_entities", {"query": "European Central Bank"})
        expected_entities = await api.entities.search(query="European Central Bank")
        assert [e["id"] for e in entities["results"]] == [
            r.entity.id for r in expected_entities.results
        ]
        assert entities["results"][0]["name"] == "European Central Bank"

        timeline = await call(client, "entity_timeline", {"entity_id": ECB, "limit": 2})
        expected_timeline = await api.entities.timeline(ECB, limit=2)
        assert [t["id"] for t in timeline["items"]] == [t.id for t in expected_timeline.timeline]
        assert timeline.get("next_offset") == expected_timeline.next_offset == 2
        assert all(t["url"].startswith("https://") for t in timeline["items"])

        stories = await call(client, "list_stories", {})
        expected_stories = await api.clusters.list()
        assert [s["id"] for s in stories["stories"]] == [
            c.cluster_id for c in expected_stories.clusters
        ]
        assert item.cluster_id in [s["id"] for s in stories["stories"]]
        story = await call(client, "get_story", {"story_id": item.cluster_id})
        expected_story = await api.clusters.get(item.cluster_id)
        assert story["story"]["member_count"] == expected_story.cluster.member_count == 3
        assert [m["id"] for m in story["members"]] == [m.content_id for m in expected_story.members]
        assert {m["url"] for m in story["members"]} == {
            (await api.content.get(m.content_id)).url for m in expected_story.members
        }

        created = await call(
            client,
            "create_monitor",
            {
                "name": f"ECB via {transport}",
                "query": "European Central Bank",
                "media_types": ["news", "wire"],
                "frequency": "daily",
                "run_time": "07:30",
                "timezone": "Europe/Berlin",
            },
        )
        monitor = await api.monitors.get(created["id"])
        assert (monitor.name, monitor.search.query) == (created["name"], "European Central Bank")
        assert created["schedule"] == {
            "frequency": "daily",
            "timezone": "Europe/Berlin",
            "run_time": "07:30",
        }
        listed = await call(client, "list_monitors", {})
        assert [m["id"] for m in listed["monitors"]] == [
            m.id for m in (await api.monitors.list()).monitors
        ]
        assert created["id"] in [m["id"] for m in listed["monitors"]]

        queued = await call(client, "run_monitor", {"monitor_id": created["id"]})
        task = await api.monitors.task(created["id"], queued["task_id"])
        assert queued["summary"]["requested"] == task.summary.requested == 4
        collected = await wait_for_results(client, created["id"])
        expected_results = await api.monitors.results(created["id"])
        assert [r["id"] for r in collected["results"]] == [
            r.content_item.id for r in expected_results.results
        ]
        assert {r["media_type"] for r in collected["results"]} <= {"news", "wire"}
        assert all(r["url"].startswith("https://") for r in collected["results"])

        within = {"monitor_id": created["id"], "query": "interest rates Lagarde"}
        searched = await call(client, "search_monitor_results", within)
        expected_search = await api.monitors.search(created["id"], query=within["query"])
        assert [r["id"] for r in searched["results"]] == [
            r.content_item.id for r in expected_search.results
        ]
        assert searched["results"]


async def wait_for_results(client: Client, monitor_id: str) -> dict[str, Any]:
    """The server's workers run the dated jobs that run_monitor queued."""
    deadline = time.monotonic() + 60
    while True:
        page = await call(client, "monitor_results", {"monitor_id": monitor_id})
        if page["results"] or time.monotonic() > deadline:
            return page
        await anyio.sleep(0.5)


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_bad_arguments_come_back_as_tool_errors_with_the_api_code(
    server: RunningServer, connect: Connect, api: herald_client.AsyncClient, transport: str
) -> None:
    async with connect(transport, server.acme_key) as client:
        half_window = await failure(
            client, "search_content", {"query": "ecb", "start_date": "2026-11-01"}
        )
        assert half_window["error"] == "date_window_incomplete"
        assert half_window["message"]
        assert half_window["request_id"]
        both = {"query": "ecb", "include_domains": ["a.com"], "exclude_domains": ["b.com"]}
        assert (await failure(client, "search_content", both))["error"] == "domain_filter_conflict"
        too_many = await failure(client, "search_content", {"query": "ecb", "limit": 101})
        assert too_many["error"] == "invalid_request"
        assert [d["field"] for d in too_many["details"]] == ["limit"]
        # Values of the wrong type the client library refuses before sending: its refusal is
        # the tool error as it stands, the API's code, message and fields (no request id).
        kind = await failure(client, "search_content", {"query": "ecb", "media_types": ["tv"]})
        assert kind == await refusal(api.content.search(query="ecb", media_types=["tv"]))  # type: ignore[list-item]
        assert kind["error"] == "invalid_request"
        assert [d["field"] for d in kind["details"]] == ["media_types.0"]
        assert kind["message"].startswith("invalid request: media_types.0: ")
        assert "request_id" not in kind
        weekly = {"name": "x", "query": "ecb", "frequency": "weekly"}
        assert await failure(client, "create_monitor", weekly) == {
            "error": "invalid_request",
            "message": "invalid request: schedule.frequency: Input should be 'hourly' or 'daily'",
            "details": [
                {"field": "schedule.frequency", "message": "Input should be 'hourly' or 'daily'"}
            ],
        }
        wrong_type = await failure(client, "search_content", {"query": "ecb", "limit": "many"})
        assert wrong_type["error"] == "invalid_request"
        assert "limit" in wrong_type["message"]
        unknown = await failure(client, "search_everything", {"query": "ecb"})
        assert unknown["error"] == "invalid_request"
        timezone = {"name": "x", "query": "ecb", "timezone": "Nowhere/Land"}
        assert (await failure(client, "create_monitor", timezone))["error"] == "invalid_timezone"
        missing = await failure(client, "get_content", {"content_id": "cnt_missing"})
        assert missing["error"] == "not_found"
        assert (await failure(client, "get_story", {"story_id": "clu_missing"}))[
            "error"
        ] == "not_found"


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_one_workspace_never_sees_another_workspaces_monitors(
    server: RunningServer, connect: Connect, transport: str
) -> None:
    async with connect("http", server.acme_key) as acme:  # one stdio start-up is enough
        mine = await call(acme, "create_monitor", {"name": "Private", "query": "Apple"})
    async with connect(transport, server.globex_key) as globex:
        listed = await call(globex, "list_monitors", {})
        assert mine["id"] not in [m["id"] for m in listed["monitors"]]
        for tool, arguments in [
            ("run_monitor", {}),
            ("monitor_results", {}),
            ("search_monitor_results", {"query": "Apple"}),
        ]:
            refused = await failure(globex, tool, {"monitor_id": mine["id"], **arguments})
            assert refused["error"] == "not_found", tool


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_story_and_entity_resources_and_the_briefing_prompt(
    server: RunningServer, connect: Connect, api: herald_client.AsyncClient, transport: str
) -> None:
    story_id = (await api.clusters.list()).clusters[0].cluster_id
    expected = await api.clusters.get(story_id)
    async with connect(transport, server.acme_key) as client:
        templates = (await client.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {
            "herald://stories/{story_id}",
            "herald://entities/{entity_id}",
        }
        [story] = (await client.read_resource(f"herald://stories/{story_id}")).contents
        body = json.loads(story.text)  # type: ignore[union-attr]
        assert body["story"]["id"] == story_id
        assert [m["id"] for m in body["members"]] == [m.content_id for m in expected.members]
        [entity] = (await client.read_resource(f"herald://entities/{ECB}")).contents
        recent = json.loads(entity.text)["recent"]  # type: ignore[union-attr]
        assert [t["id"] for t in recent] == [
            t.id for t in (await api.entities.timeline(ECB)).timeline
        ]

        prompt = await client.get_prompt("story_briefing", {"story_id": story_id})
        [message] = prompt.messages
        assert message.role == "user"
        assert isinstance(message.content, TextContent)
        for member in expected.members:
            url = (await api.content.get(member.content_id)).url
            assert url is not None
            assert url in message.content.text
        with pytest.raises(Exception, match="not_found"):
            await client.read_resource("herald://stories/clu_missing")


async def test_the_http_transport_refuses_a_missing_or_wrong_key(server: RunningServer) -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }
    accept = {"accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(timeout=30) as http:
        for headers in [
            {},
            {"x-api-key": "hk_wrong"},
            {"authorization": "Bearer hk_wrong"},
            {"authorization": f"Basic {server.acme_key}"},
            {"x-api-key": server.acme_key, "authorization": f"Bearer {server.globex_key}"},
        ]:
            response = await http.post(server.mcp_url, json=initialize, headers=accept | headers)
            assert response.status_code == 401, headers
            body = response.json()
            assert body["error"] == "unauthorized"
            assert body["meta"]["request_id"] == response.headers["x-request-id"]
            assert response.headers["www-authenticate"] == "Bearer"
        ok = await http.post(
            server.mcp_url,
            json=initialize,
            headers=accept | {"authorization": f"Bearer {server.acme_key}"},
        )
        assert ok.status_code == 200, ok.text
        assert ok.json()["result"]["serverInfo"]["name"] == "herald"


async def test_a_search_result_is_small_and_cites_its_source(
    server: RunningServer, connect: Connect
) -> None:
    async with connect("http", server.acme_key) as client:
        result = await client.call_tool("search_content", {"query": "interest rates", "limit": 10})
    items = json.loads(text(result))["results"]
    assert len(items) >= 3
    per_item = len(text(result).encode()) / len(items)
    print(f"search_content: {len(items)} results, {per_item:.0f} bytes per result")
    assert per_item <= BYTES_PER_SEARCH_RESULT
    for item in items:
        assert {"id", "title", "url", "source", "published"} <= set(item)


async def test_clients_of_the_initialize_handshake_era_work_too(server: RunningServer) -> None:
    """Most agents today open with `initialize` (protocol 2025-xx) instead of discovery."""
    async with (
        httpx2.AsyncClient(headers={"x-api-key": server.acme_key}, timeout=60) as http,
        Client(streamable_http_client(server.mcp_url, http_client=http), mode="legacy") as client,
    ):
        assert {t.name for t in (await client.list_tools()).tools} == TOOL_NAMES
        found = await call(client, "search_content", {"query": "Apple iPhone", "limit": 1})
        assert found["results"][0]["url"] == "https://tech.example.com/apple-results"
        refused = await failure(client, "get_story", {"story_id": "clu_missing"})
        assert refused["error"] == "not_found"
