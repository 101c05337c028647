"""An API of another Herald version, whose successful answers the client library cannot read,
is a tool error that says so (which request, which fields), not a bare ``internal_error``.

``herald mcp`` runs for real over stdio against a server on loopback that answers every request
``200`` with a body of another shape, as an API of another version would.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from mcp import Client, MCPError, StdioServerParameters
from mcp.types import INTERNAL_ERROR

from tests.mcp.test_mcp import failure
from tests.serving import HERALD

REQUEST_ID = "0123456789abcdef0123456789abcdef"


class OtherVersion(BaseHTTPRequestHandler):
    """Answers ``200`` with JSON of another shape, or with a body that is no JSON at all."""

    def _answer(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        self.rfile.read(length)
        body = b"<html>maintenance</html>" if "not-json" in self.path else b'{"renamed": []}'
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("x-request-id", REQUEST_ID)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def other_version() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), OtherVersion)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.anyio
async def test_an_answer_of_another_api_version_is_a_tool_error_naming_what_did_not_match(
    other_version: str,
) -> None:
    env = {"HERALD_BASE_URL": other_version, "HERALD_API_KEY": "hk_test"}
    env["PATH"] = os.environ["PATH"]
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    params = StdioServerParameters(command=HERALD, args=["mcp"], env=env)
    async with Client(params, read_timeout_seconds=60) as client:
        refused = await failure(client, "get_content", {"content_id": "cnt_1"})
        assert refused["error"] == "api_version_mismatch", refused
        assert "GET /v1/content/cnt_1" in refused["message"]
        assert "another Herald version: content_item: Field required" in refused["message"]
        fields = {detail["field"] for detail in refused["details"]}
        assert "content_item" in fields, refused  # the field the answer lacks, by name
        assert refused["request_id"] == REQUEST_ID
        assert "errors.pydantic.dev" not in json.dumps(refused)

        broken = await failure(client, "get_content", {"content_id": "not-json"})
        assert broken["error"] == "api_version_mismatch"
        assert "is not JSON" in broken["message"]

        # a resource has no tool error: the protocol's error, with the code in its data
        with pytest.raises(MCPError) as raised:
            await client.read_resource("herald://stories/clu_1")
        assert raised.value.code == INTERNAL_ERROR
        assert raised.value.error.data["error"] == "api_version_mismatch"
        assert "/v1/news/clusters/clu_1" in raised.value.error.data["message"]
