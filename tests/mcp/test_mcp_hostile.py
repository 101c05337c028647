"""Hostile tool arguments get an answer the model can act on: an id that is empty or too long
for a URL, a NUL character or a lone surrogate (over either transport), and (over stdio) deep
nesting, which the SDK's parser refuses without answering."""

from __future__ import annotations

import json
import os
import select
import subprocess
from typing import Any

import httpx
import pytest
from mcp import MCPError
from mcp.types import INVALID_PARAMS

from tests.mcp.conftest import TRANSPORTS, Connect, RunningServer
from tests.mcp.test_mcp import failure
from tests.serving import HERALD

pytestmark = [pytest.mark.slow]

ID_TOOLS: list[tuple[str, str, dict[str, Any]]] = [
    ("get_content", "content_id", {}),
    ("get_story", "story_id", {}),
    ("entity_timeline", "entity_id", {}),
    ("run_monitor", "monitor_id", {}),
    ("monitor_results", "monitor_id", {}),
    ("search_monitor_results", "monitor_id", {"query": "ecb"}),
]


@pytest.mark.anyio
@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_an_empty_or_huge_id_is_an_invalid_argument_not_an_internal_error(
    server: RunningServer, connect: Connect, transport: str
) -> None:
    async with connect(transport, server.acme_key) as client:
        for tool, field, extra in ID_TOOLS:
            for value in ["", "x" * 100_000]:
                refused = await failure(client, tool, {field: value, **extra})
                assert refused["error"] == "invalid_request", (tool, refused)
                assert field in refused["message"], (tool, refused)
        # "." and ".." are ids like any other, never path segments that send the call elsewhere
        for tool, field, extra in ID_TOOLS:
            for value in [".", ".."]:
                unknown = await failure(client, tool, {field: value, **extra})
                assert unknown["error"] == "not_found", (tool, value, unknown)
        # a long id that still fits is an unknown one
        missing = await failure(client, "get_content", {"content_id": "cnt_" + "x" * 990})
        assert missing["error"] == "not_found"
        # resources and prompts answer the protocol's invalid-params error, not a crash
        for uri in ["herald://stories/", "herald://entities/"]:
            with pytest.raises(MCPError, match="invalid_request") as raised:
                await client.read_resource(uri)
            assert raised.value.code == INVALID_PARAMS
        for story_id in ["", "x" * 100_000]:
            with pytest.raises(MCPError, match="invalid_request") as raised:
                await client.get_prompt("story_briefing", {"story_id": story_id})
            assert raised.value.code == INVALID_PARAMS


def test_a_lone_surrogate_or_deep_nesting_over_stdio_is_answered_not_dropped(
    server: RunningServer,
) -> None:
    env = {"HERALD_BASE_URL": server.base_url, "HERALD_API_KEY": server.acme_key}
    env["PATH"] = os.environ["PATH"]
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    process = subprocess.Popen(
        [HERALD, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env
    )
    assert process.stdin is not None
    assert process.stdout is not None

    def ask(message: dict[str, Any]) -> dict[str, Any]:
        assert process.stdin is not None
        assert process.stdout is not None
        # json.dumps escapes the surrogate as "\ud800", as a JavaScript client writes it
        process.stdin.write((json.dumps(message) + "\n").encode())
        process.stdin.flush()
        ready, _, _ = select.select([process.stdout], [], [], 30)
        assert ready, f"no answer to {message['method']}"
        return json.loads(process.stdout.readline())  # type: ignore[no-any-return]

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        hello["clientInfo"] = {"name": "test", "version": "1"}
        ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": hello})
        process.stdin.write(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}\n')
        calls = [
            ("search_content", {"query": "\ud800"}, "query"),
            ("create_monitor", {"name": "n", "query": "x", "timezone": "UTC\udfff"}, "timezone"),
            ("search_content", {"query": "ecb", "entity_ids": ["ent_\ud800"]}, "entity_ids.0"),
        ]
        for index, (tool, arguments, field) in enumerate(calls, start=1):
            params = {"name": tool, "arguments": arguments}
            answer = ask({"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": params})
            assert answer["id"] == index
            result = answer["result"]
            assert result["isError"] is True
            body = json.loads(result["content"][0]["text"])
            assert body == result["structuredContent"]
            assert body["error"] == "invalid_request"
            assert body["details"] == [
                {"field": field, "message": "is not valid Unicode (it contains a lone surrogate)"}
            ]
        uri = {"uri": "herald://stories/clu_\ud800"}
        refused = ask({"jsonrpc": "2.0", "id": 9, "method": "resources/read", "params": uri})
        assert refused["id"] == 9
        assert refused["error"]["data"]["error"] == "invalid_request"
        # nested deeper than the SDK's parser goes: answered too
        deep: Any = "ent_x"
        for _ in range(300):
            deep = [deep]
        params = {"name": "search_content", "arguments": {"query": "ecb", "entity_ids": deep}}
        nested = ask({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": params})
        assert nested["result"]["isError"] is True
        assert json.loads(nested["result"]["content"][0]["text"])["error"] == "invalid_request"
        # lines no JSON parser reads have no id to answer; the server reads on
        process.stdin.write(b"{not json\n" + b"[" * 100_000 + b"\n")
        # and the server still answers ordinary calls
        found = ask(
            {
                "jsonrpc": "2.0",
                "id": 10,
                "method": "tools/call",
                "params": {"name": "search_content", "arguments": {"query": "ECB", "limit": 1}},
            }
        )
        assert not found["result"].get("isError")
    finally:
        process.kill()
        process.wait(20)
        process.stdin.close()
        process.stdout.close()


@pytest.mark.anyio
async def test_nul_or_a_lone_surrogate_over_http_is_a_tool_error_naming_the_argument(
    server: RunningServer, connect: Connect
) -> None:
    # through the SDK's own client: a NUL in an id or a query
    async with connect("http", server.acme_key) as client:
        for tool, arguments, field in [
            ("get_content", {"content_id": "cnt_\x00"}, "content_id"),
            ("search_content", {"query": "ecb\x00"}, "query"),
            ("create_monitor", {"name": "n\x00", "query": "x"}, "name"),
        ]:
            refused = await failure(client, tool, arguments)
            assert refused["error"] == "invalid_request", (tool, refused)
            assert refused["details"] == [
                {"field": field, "message": "must not contain NUL (U+0000) characters"}
            ]
        still = await client.call_tool("search_content", {"query": "ECB", "limit": 1})
        assert not still.is_error
    # as a JavaScript client writes a broken string: "\ud800" escaped in the JSON
    headers = {"x-api-key": server.acme_key, "accept": "application/json, text/event-stream"}
    headers["content-type"] = "application/json"
    call = {"name": "search_content", "arguments": {"query": "ecb", "entity_ids": ["ent_\ud800"]}}
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": call})
    async with httpx.AsyncClient(timeout=30) as http:
        answer = await http.post(server.mcp_url, content=body.encode(), headers=headers)
        assert answer.status_code == 200, answer.text
        result = answer.json()["result"]
        assert answer.json()["id"] == 7
        assert result["isError"] is True
        assert result["structuredContent"]["details"] == [
            {
                "field": "entity_ids.0",
                "message": "is not valid Unicode (it contains a lone surrogate)",
            }
        ]
        uri = {"uri": "herald://stories/clu_\x00"}
        read = {"jsonrpc": "2.0", "id": 8, "method": "resources/read", "params": uri}
        refused = await http.post(server.mcp_url, content=json.dumps(read), headers=headers)
        assert refused.json()["error"]["data"]["error"] == "invalid_request"
