"""The delivery engine against real HTTPS receivers on loopback, on an injected clock: which
events are recorded and sent (signing-secret rotation, no enabled target, a rolled-back caller),
many events and a hanging target across workspaces, and the bodies as received."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest
import stripe
import trustme
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.webhooks import WebhookEvent
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.webhooks.delivery import PER_WORKSPACE_IN_FLIGHT, Sender, get_engine
from herald.webhooks.events import record_event
from herald.workspaces.service import CreatedKey
from tests.webhooks.delivery_support import Deliver, attempts, configure, deliveries, record
from tests.webhooks.webhook_receiver import HttpsReceiver, Reply


def test_during_rotation_deliveries_verify_with_old_and_new_secrets(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
    clock: FrozenClock,
) -> None:
    old = configure(client, auth, receiver.url(host="127.0.0.1"))
    rotated = client.post("/v1/webhooks/rotate-signing-secret", headers=auth).json()
    new = rotated["new_signing_secret"]
    record(runtime, member_key.team_id)
    deliver()
    clock.advance(timedelta(hours=24))  # exactly 24 h after the rotation: the overlap is over
    record(runtime, member_key.team_id)
    deliver()
    during, after = receiver.requests
    assert during.headers["x-service-signature"].count("v1=") == 2
    assert len(during.headers["webhook-signature"].split(" ")) == 2
    for secret in (old, new):
        stripe.WebhookSignature.verify_header(
            during.body, during.headers["x-service-signature"], secret
        )
    assert after.headers["x-service-signature"].count("v1=") == 1
    stripe.WebhookSignature.verify_header(after.body, after.headers["x-service-signature"], new)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(after.body, after.headers["x-service-signature"], old)


def test_no_event_without_an_enabled_target(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
) -> None:
    with runtime.sessions.write() as session:
        assert (
            record_event(
                session,
                team_id=member_key.team_id,
                event_type="monitor.run.failed",
                data={},
                clock=runtime.clock,
            )
            is None
        )
    configure(client, auth, receiver.url(host="127.0.0.1"))
    assert client.put("/v1/webhooks", json={"enabled": False}, headers=auth).status_code == 200
    with runtime.sessions.write() as session:
        assert (
            record_event(
                session,
                team_id=member_key.team_id,
                event_type="monitor.run.failed",
                data={},
                clock=runtime.clock,
            )
            is None
        )
        assert session.scalars(select(WebhookEvent)).all() == []


def test_a_rolled_back_caller_sends_nothing(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    with pytest.raises(RuntimeError), runtime.sessions.write() as session:
        team_id = member_key.team_id
        record_event(
            session, team_id=team_id, event_type="monitor.run.failed", data={}, clock=runtime.clock
        )
        raise RuntimeError("the monitor run failed to commit")
    deliver()
    assert receiver.requests == []
    assert deliveries(runtime) == []


def test_many_events_all_arrive_through_the_per_workspace_limit(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    ids = [record(runtime, member_key.team_id) for _ in range(30)]
    deliver()
    assert sorted(r.headers["x-service-event-id"] for r in receiver.requests) == sorted(ids)
    assert {d.status for d in deliveries(runtime)} == {"succeeded"}
    assert len(attempts(runtime)) == 30


# Attempts must still hang when the slots are counted (up to the 20 s deadline below): a
# timed-out attempt frees its slot and the next event takes it.
@pytest.mark.parametrize("sender_timeout", [60.0])
def test_a_hanging_target_does_not_hold_up_another_workspace(
    sender_timeout: float,
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    make_key: Callable[..., CreatedKey],
    ca: trustme.CA,
    sender: Sender,
) -> None:
    globex = make_key("globex")
    gate = threading.Event()
    with HttpsReceiver(ca) as stuck, HttpsReceiver(ca) as healthy:
        stuck.respond_with(lambda _request: Reply(200, gate=gate))
        configure(client, auth, stuck.url(host="127.0.0.1"))
        configure(client, {"x-api-key": globex.api_key}, healthy.url(host="127.0.0.1"))
        for _ in range(12):  # more than the stuck workspace's slots
            record(runtime, member_key.team_id)
        record(runtime, globex.team_id)
        worker = Worker(runtime)

        def healthy_recorded() -> bool:
            worker.drain()
            return any(
                d.team_id == globex.team_id and d.status == "succeeded" for d in deliveries(runtime)
            )

        deadline = time.monotonic() + 20
        while not healthy_recorded() and time.monotonic() < deadline:
            time.sleep(0.05)
        # The healthy workspace got its delivery while every stuck attempt was still hanging.
        assert healthy_recorded()
        assert len(healthy.requests) == 1
        stuck_deliveries = [d for d in deliveries(runtime) if d.team_id == member_key.team_id]
        assert {d.status for d in stuck_deliveries} == {"pending"}
        while len(stuck.requests) < PER_WORKSPACE_IN_FLIGHT and time.monotonic() < deadline:
            time.sleep(0.05)
        worker.drain()
        assert len(stuck.requests) == PER_WORKSPACE_IN_FLIGHT  # its slots, no more
        gate.set()
        assert get_engine(runtime).wait_idle(30)


def test_received_bodies_are_the_recorded_envelopes(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    event_id = record(runtime, member_key.team_id, "monitor.backfill.completed")
    deliver()
    (request,) = receiver.requests
    with runtime.sessions.read() as session:
        stored = session.get(WebhookEvent, event_id)
        assert stored is not None
        assert request.body == stored.body.encode()
    assert json.loads(request.body)["type"] == "monitor.backfill.completed"
