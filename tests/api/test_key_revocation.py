"""A revoked key is refused at once by every API process, on /v1 and on /mcp (no key cache)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.workspaces.service import create_key, revoke_key

MCP_LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
MCP_HEADERS = {"accept": "application/json, text/event-stream"}


@pytest.fixture
def processes(home: Path, database_url: str, clock: FrozenClock) -> Iterator[list[Runtime]]:
    """Three runtimes on one database, each with its own connection pool: two API processes
    and the operator's ``herald keys`` command."""
    runtimes = [
        Runtime(Settings(home=home, database_url=database_url), clock=clock) for _ in range(3)
    ]
    yield runtimes
    for runtime in runtimes:
        runtime.close()


def test_a_revoked_key_is_refused_at_once_by_every_process(processes: list[Runtime]) -> None:
    first, second, operator = processes
    with operator.sessions.write() as session:
        key = create_key(session, workspace="acme", role="member", clock=operator.clock)
    headers = {"x-api-key": key.api_key}
    with (
        TestClient(create_app(first), raise_server_exceptions=False) as one,
        TestClient(create_app(second), raise_server_exceptions=False) as two,
    ):
        for client in (one, two):
            # Warm every path a cache could hide behind: the key has been seen and accepted.
            assert client.get("/v1/monitors", headers=headers).status_code == 200
            mcp = client.post("/mcp", json=MCP_LIST, headers=MCP_HEADERS | headers)
            assert mcp.status_code == 200, mcp.text
        with operator.sessions.write() as session:
            revoke_key(session, key.key_id, operator.clock)
        for client in (one, two):
            refused = client.get("/v1/monitors", headers=headers)
            assert refused.status_code == 401
            assert refused.json()["error"] == "unauthorized"
            mcp = client.post("/mcp", json=MCP_LIST, headers=MCP_HEADERS | headers)
            assert mcp.status_code == 401
            assert mcp.json()["error"] == "unauthorized"
