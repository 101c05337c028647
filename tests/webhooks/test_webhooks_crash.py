"""A real worker process killed with SIGKILL while a delivery is in flight."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import trustme
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import SystemClock
from herald.db.models.job import Job
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery
from herald.runtime import Runtime
from herald.webhooks.events import record_event
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import HttpsReceiver, Received, Reply

ROOT = Path(__file__).resolve().parents[2]
WORKER = "from herald.cli.main import app; app(['worker', '--threads', '1'])"


def start_worker(runtime: Runtime, ca_file: str, log: Path) -> subprocess.Popen[bytes]:
    env = os.environ | {
        "HERALD_HOME": str(runtime.settings.home),
        "HERALD_DATABASE_URL": runtime.settings.resolved_database_url,
        "HERALD_WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8",
        "HERALD_JOB_POLL_SECONDS": "0.2",
        "HERALD_SCHEDULER_TICK_SECONDS": "0.5",
        "HERALD_LOG_LEVEL": "INFO",
        "HERALD_LOG_FORMAT": "text",
        "SSL_CERT_FILE": ca_file,
        "PYTHONPATH": str(ROOT),
    }
    with log.open("ab") as stderr:  # the child keeps its own handle
        return subprocess.Popen(
            [sys.executable, "-c", WORKER],
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )


def wait_for(predicate: Callable[[], bool], timeout: float, log: Path, runtime: Runtime) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    with runtime.sessions.read() as session:
        state = [
            (d.status, d.attempt_count, d.lease_owner, d.lease_expires_at, d.next_attempt_at)
            for d in session.scalars(select(WebhookDelivery))
        ] + [
            (j.kind, j.status, j.run_at, j.attempts, j.last_error)
            for j in session.scalars(select(Job))
        ]
    tail = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    raise AssertionError(f"timed out at {SystemClock().now()}; state {state}; worker log:\n{tail}")


@pytest.mark.slow
def test_worker_killed_mid_delivery_then_restarted_delivers_and_logs_consistently(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    ca: trustme.CA,
    ca_file: str,
    tmp_path: Path,
) -> None:
    log = tmp_path / "workers.log"
    hold = threading.Event()  # never set: the first attempt hangs until the worker dies

    def answer(request: Received) -> Reply:
        return Reply(200, gate=hold) if len(receiver.requests) == 1 else Reply(204, b"")

    with HttpsReceiver(ca) as receiver:
        receiver.respond_with(answer)
        put = client.put("/v1/webhooks", json={"url": receiver.url(host="127.0.0.1")}, headers=auth)
        assert put.status_code == 200
        with runtime.sessions.write() as session:
            event_id = record_event(
                session,
                team_id=member_key.team_id,
                event_type="monitor.run.failed",
                data={"monitor_id": "mon_1"},
                clock=SystemClock(),  # the worker processes run on the real clock
            )
        first = start_worker(runtime, ca_file, log)
        try:
            wait_for(lambda: len(receiver.requests) == 1, 60, log, runtime)
            os.kill(first.pid, signal.SIGKILL)
            first.wait(10)
        finally:
            if first.poll() is None:
                first.kill()
                first.wait(10)
        with runtime.sessions.read() as session:
            (delivery,) = session.scalars(select(WebhookDelivery)).all()
            assert (delivery.status, delivery.attempt_count) == ("pending", 0)
            assert delivery.lease_owner is not None  # leased to the dead process
            assert session.scalars(select(WebhookAttempt)).all() == []

        second = start_worker(runtime, ca_file, log)
        try:

            def delivered() -> bool:
                with runtime.sessions.read() as session:
                    row = session.scalars(select(WebhookDelivery)).one()
                    return row.status == "succeeded"

            wait_for(delivered, 90, log, runtime)  # after the dead process's lease (15 s) expires
        finally:
            second.send_signal(signal.SIGTERM)
            second.wait(30)

        requests = receiver.requests
        assert [r.headers["x-service-event-id"] for r in requests] == [event_id, event_id]
        assert requests[0].body == requests[1].body  # at least once: the same event again
    with runtime.sessions.read() as session:
        (delivery,) = session.scalars(select(WebhookDelivery)).all()
        assert (delivery.status, delivery.attempt_count, delivery.last_http_status) == (
            "succeeded",
            1,
            204,
        )
        assert delivery.lease_owner is None
        attempts = session.scalars(select(WebhookAttempt)).all()
        # The attempt cut off by the crash left no record; the log is the one that completed.
        assert [(a.attempt_number, a.delivery_status, a.http_status) for a in attempts] == [
            (1, "succeeded", 204)
        ]
        # No webhook job is left behind (the workers' other periodic jobs, such as the daily
        # history job, may still be leased to the killed process until their lease expires).
        left = session.scalars(
            select(Job).where(Job.status != "failed", Job.kind.startswith("webhooks."))
        ).all()
        assert [(j.kind, j.status, j.attempts, j.payload) for j in left] == []
