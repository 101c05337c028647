"""Every example marked in docs/client.md runs, against the real app, as written.

Markers: ``<!-- example: NAME [requires=/v1/path] -->`` before a python block. Examples share one
namespace in document order with ``client`` bound to a client of the in-process app (as the page
says it is). The webhook example's URL is pointed at a loopback HTTPS receiver; the receiver
example runs as its own process and receives signed deliveries over HTTP.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import herald_client
import httpx
import pytest
import trustme
from fastapi import FastAPI
from herald_client.webhooks import sign, verify

from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.webhooks.delivery import Sender
from tests.serving import free_port
from tests.webhooks.webhook_receiver import HttpsReceiver

DOC = Path(__file__).parents[2] / "docs" / "client.md"
MARKER = re.compile(r"<!-- example: (\w+)(?: requires=(\S+))? -->\n```python\n(.*?)```", re.S)
DOC_WEBHOOK_URL = "https://hooks.example.com/herald"


def examples() -> dict[str, tuple[str | None, str]]:
    found = {m.group(1): (m.group(2), m.group(3)) for m in MARKER.finditer(DOC.read_text())}
    assert len(found) == DOC.read_text().count("<!-- example:"), "an example marker is malformed"
    return found


def test_the_page_marks_its_examples() -> None:
    assert set(examples()) >= {
        "content",
        "entities",
        "clusters",
        "monitors",
        "webhooks",
        "receiver",
        "pagination",
        "errors",
        "async",
        "testing",
    }


def test_the_examples_run_against_the_real_app(
    app: FastAPI,
    herald: herald_client.Client,
    ca: trustme.CA,
    trusting_sender: Sender,
    seeded: Runtime,
    clock: FrozenClock,
    capsys: pytest.CaptureFixture[str],
) -> None:
    served = set(app.openapi()["paths"])
    namespace: dict[str, Any] = {
        "herald_client": herald_client,
        "client": herald,
        "async_transport": httpx.ASGITransport(app=app),
    }
    ran, skipped = [], []
    with HttpsReceiver(ca, names=("127.0.0.1",)) as receiver:
        for name, (requires, code) in examples().items():
            if name == "receiver":
                continue
            if requires and requires not in served:
                skipped.append(name)
                continue
            source = code.replace(DOC_WEBHOOK_URL, receiver.url(host="127.0.0.1"))
            exec(compile(source, f"docs/client.md:{name}", "exec"), namespace)
            ran.append(name)
        deliveries = receiver.requests
    assert {"monitors", "webhooks", "errors", "async", "testing", "entities"} <= set(ran)
    assert set(skipped) <= {"content", "clusters"}, skipped  # only while those routes are missing

    printed = capsys.readouterr().out
    assert "field_not_allowed" in printed
    assert "ent_99yig2g1bclgxrqxtguv European Central Bank" in printed
    # The webhook example really delivered a signed test event to the receiver.
    first_secret = namespace["hook"].new_signing_secret
    event = verify(
        deliveries[0].body, deliveries[0].headers, first_secret, now=clock.now().timestamp()
    )
    assert event.type == "webhook.test"


def test_the_receiver_example_accepts_signed_deliveries_only(tmp_path: Path) -> None:
    _, code = examples()["receiver"]
    script = tmp_path / "receiver.py"
    script.write_text(code)
    secret = "whsec_dGVzdC1zZWNyZXQtZm9yLXRoZS1yZWNlaXZlci1leGFtcGxl"
    port = free_port()
    env = {**os.environ, "WEBHOOK_SECRET": secret, "PORT": str(port)}
    with subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE, text=True
    ) as process:
        assert process.stdout is not None
        try:
            assert process.stdout.readline().strip() == f"listening on port {port}"
            body = (
                b'{"id":"evt_1","type":"webhook.test","created_at":"2026-11-25T12:00:00Z",'
                b'"team_id":"team_1","data":{"message":"hello"}}'
            )
            url = f"http://127.0.0.1:{port}/"
            good = {"X-Service-Signature": sign(body, secret), "X-Service-Event-Id": "evt_1"}
            assert httpx.post(url, content=body, headers=good).status_code == 204
            assert httpx.post(url, content=body, headers=good).status_code == 204  # a repeat
            forged = {"X-Service-Signature": sign(body, "whsec_x"), "X-Service-Event-Id": "evt_1"}
            refused = httpx.post(url, content=body, headers=forged)
            assert refused.status_code == 400
            assert "no v1 signature matches" in refused.text
            stale = {"X-Service-Signature": sign(body, secret, timestamp=int(time.time()) - 3600)}
            assert httpx.post(url, content=body, headers=stale).status_code == 400
            assert process.stdout.readline().startswith("received webhook.test evt_1")
        finally:
            process.terminate()
            process.wait(timeout=10)
        assert process.stdout.read() == ""  # the repeat was not processed twice
