"""docs/mcp.md as a user follows it: its two client configurations, with the key the client keeps
in its secret store put where the configuration names it, reach the tools; its one-line check
prints their names."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.mcp.conftest import RunningServer
from tests.mcp.test_mcp import TOOL_NAMES
from tests.serving import HERALD

DOC = Path(__file__).resolve().parents[2] / "docs" / "mcp.md"
BLOCK = re.compile(r"<!-- mcp: ([\w-]+) -->\n```(\w+)\n(.*?)```", re.S)
SECRET = "${input:herald-key}"

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


def blocks() -> dict[str, str]:
    text = DOC.read_text()
    found = {m.group(1): m.group(3) for m in BLOCK.finditer(text)}
    assert len(found) == text.count("<!-- mcp:") == 3
    return found


def config(name: str) -> dict[str, Any]:
    """The configuration, checked to keep the key in the client's secret store: no key in it,
    the key read from a hidden input."""
    text = blocks()[name]
    assert "hk_" not in text
    parsed: dict[str, Any] = json.loads(text)
    [secret] = parsed["inputs"]
    assert secret == {
        "id": "herald-key",
        "type": "promptString",
        "description": "Herald API key",
        "password": True,
    }
    return parsed["servers"]["herald"]  # type: ignore[no-any-return]


def filled(value: str, key: str) -> str:
    """What the client sends: the stored secret in place of its reference."""
    assert value.count(SECRET) <= 1
    return value.replace(SECRET, key)


async def test_the_stdio_configuration_starts_herald_mcp(server: RunningServer) -> None:
    stdio = config("stdio")
    assert stdio["type"] == "stdio"
    assert stdio["command"].endswith("/.venv/bin/herald")
    assert SECRET not in " ".join(stdio["args"])  # not on the command line
    assert stdio["env"]["HERALD_API_KEY"] == SECRET
    assert stdio["env"]["HERALD_BASE_URL"] == "http://127.0.0.1:8080"
    env = {name: filled(value, server.acme_key) for name, value in stdio["env"].items()}
    env["HERALD_BASE_URL"] = server.base_url  # this test's server listens on a free port
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=HERALD, args=stdio["args"], env=env)
    async with Client(params, read_timeout_seconds=60) as client:
        assert {t.name for t in (await client.list_tools()).tools} == TOOL_NAMES


async def test_the_remote_configuration_reaches_the_endpoint(server: RunningServer) -> None:
    remote = config("http")
    assert remote["type"] == "http"
    assert remote["url"].startswith("https://")
    assert remote["url"].endswith("/mcp")
    headers = {name: filled(value, server.acme_key) for name, value in remote["headers"].items()}
    assert headers == {"Authorization": f"Bearer {server.acme_key}"}
    url = server.base_url + "/" + remote["url"].split("/", 3)[3]  # this test's server, over HTTP
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        assert {t.name for t in (await client.list_tools()).tools} == TOOL_NAMES


def test_the_one_line_check_prints_the_tool_names(server: RunningServer) -> None:
    line = blocks()["list-tools"].strip()
    assert "\n" not in line
    env = dict(os.environ, HERALD_BASE_URL=server.base_url, HERALD_API_KEY=server.acme_key)
    shown = subprocess.run(["bash", "-c", line], env=env, capture_output=True, text=True)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == sorted(TOOL_NAMES)
    env["HERALD_API_KEY"] = "hk_wrong"
    refused = subprocess.run(["bash", "-c", line], env=env, capture_output=True, text=True)
    assert refused.returncode != 0  # a refused key prints no names
    assert refused.stdout == ""
