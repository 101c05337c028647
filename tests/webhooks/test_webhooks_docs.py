"""docs/webhooks.md stays honest: its example receiver runs and verifies real deliveries."""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from herald.core.clock import SystemClock
from herald.webhooks.signing import delivery_headers, new_signing_secret

DOC = Path(__file__).resolve().parents[2] / "docs" / "webhooks.md"
MARKER = "<!-- example: receiver"


def example_receiver() -> str:
    text = DOC.read_text(encoding="utf-8")
    after = text[text.index(MARKER) :]
    match = re.search(r"```python\n(.*?)```", after, re.DOTALL)
    assert match is not None, "the example receiver block is missing"
    return match.group(1)


@pytest.fixture
def running_receiver(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], int, list[str]]]:
    old, new = new_signing_secret(), new_signing_secret()
    script = tmp_path / "receiver.py"
    script.write_text(example_receiver(), encoding="utf-8")
    env = dict(os.environ, WEBHOOK_SECRET=f"{new},{old}", PORT="0")
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, env=env
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        port = int(first.rsplit(" ", 1)[1])
        yield proc, port, [new, old]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stdout is not None:
            proc.stdout.close()


def post(port: int, body: bytes, headers: dict[str, str]) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_the_documented_receiver_accepts_genuine_and_refuses_forged_deliveries(
    running_receiver: tuple[subprocess.Popen[str], int, list[str]],
) -> None:
    proc, port, (new, old) = running_receiver
    now = int(SystemClock().now().timestamp())
    event = {"id": "evt_doc", "type": "webhook.test", "created_at": "x", "team_id": "t", "data": {}}
    body = json.dumps(event).encode()

    def headers(secrets: list[str], t: int = now) -> dict[str, str]:
        return delivery_headers(
            secrets_newest_first=secrets,
            event_id="evt_doc",
            delivery_id="1",
            timestamp=t,
            body=body,
        )

    assert post(port, body, headers([new])) == 204
    assert post(port, body, headers([old])) == 204  # a repeat: accepted, processed once
    assert post(port, body, headers([new_signing_secret()])) == 400  # forged
    assert post(port, body + b" ", headers([new])) == 400  # tampered
    assert post(port, body, headers([new], t=now - 600)) == 400  # replayed later
    proc.terminate()
    assert proc.stdout is not None
    output, _ = proc.communicate(timeout=10)
    assert output.splitlines() == ['{"received": "webhook.test", "id": "evt_doc"}']
