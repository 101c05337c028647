"""The delivery engine against real HTTPS receivers on loopback, on an injected clock."""

from __future__ import annotations

import json
import socket
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
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery, WebhookEvent
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.webhooks.delivery import PER_WORKSPACE_IN_FLIGHT, Sender, get_engine
from herald.webhooks.events import record_event
from herald.webhooks.signing import standard_signature_header
from herald.webhooks.tasks import dispatch_due
from herald.webhooks.verify import verify_delivery
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import FakeResolver, HttpsReceiver, Reply

Deliver = Callable[[], None]
DATA = {"monitor_id": "mon_1", "new_result_count": 2}


def configure(client: TestClient, auth: dict[str, str], url: str) -> str:
    response = client.put("/v1/webhooks", json={"url": url}, headers=auth)
    assert response.status_code == 200, response.text
    secret: str = response.json()["new_signing_secret"]
    return secret


def record(runtime: Runtime, team_id: str, event_type: str = "monitor.results.added") -> str:
    with runtime.sessions.write() as session:
        event_id = record_event(
            session, team_id=team_id, event_type=event_type, data=DATA, clock=runtime.clock
        )
    assert event_id is not None
    return event_id


def deliveries(runtime: Runtime) -> list[WebhookDelivery]:
    with runtime.sessions.read() as session:
        return list(session.scalars(select(WebhookDelivery).order_by(WebhookDelivery.id)))


def attempts(runtime: Runtime) -> list[WebhookAttempt]:
    with runtime.sessions.read() as session:
        return list(
            session.scalars(
                select(WebhookAttempt).order_by(
                    WebhookAttempt.delivery_id, WebhookAttempt.attempt_number
                )
            )
        )


def test_a_delivery_arrives_signed_and_is_recorded(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
    clock: FrozenClock,
) -> None:
    secret = configure(client, auth, receiver.url(host="127.0.0.1"))
    event_id = record(runtime, member_key.team_id)
    assert receiver.requests == []  # nothing is sent before a worker runs
    deliver()

    (request,) = receiver.requests
    headers = request.headers
    event = verify_delivery(request.body, headers, secret, clock=clock)
    assert event == {
        "id": event_id,
        "type": "monitor.results.added",
        "created_at": "2026-11-25T12:00:00Z",
        "team_id": member_key.team_id,
        "data": DATA,
    }
    stripe.WebhookSignature.verify_header(request.body, headers["x-service-signature"], secret)
    t = int(clock.now().timestamp())
    assert headers["webhook-id"] == headers["x-service-event-id"] == event_id
    assert headers["webhook-timestamp"] == str(t)
    assert headers["webhook-signature"] == standard_signature_header(
        [secret], event_id, t, request.body
    )
    (delivery,) = deliveries(runtime)
    assert headers["x-service-delivery-id"] == str(delivery.id)
    assert (delivery.status, delivery.attempt_count, delivery.last_http_status) == (
        "succeeded",
        1,
        200,
    )
    assert delivery.next_attempt_at is None
    assert delivery.lease_owner is None
    (attempt,) = attempts(runtime)
    assert (attempt.attempt_number, attempt.delivery_status, attempt.http_status) == (
        1,
        "succeeded",
        200,
    )
    assert attempt.error is None


def test_500_then_success_on_the_pinned_schedule(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
    clock: FrozenClock,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    receiver.script(Reply(500, b"busy"), Reply(200))
    record(runtime, member_key.team_id)
    start = clock.now()
    deliver()
    (delivery,) = deliveries(runtime)
    assert (delivery.status, delivery.attempt_count, delivery.last_http_status) == (
        "retrying",
        1,
        500,
    )
    assert delivery.next_attempt_at == start + timedelta(minutes=5)
    assert delivery.last_error == "http_status: HTTP 500: busy"

    clock.advance(timedelta(minutes=4, seconds=59))
    assert dispatch_due(runtime) == 0  # not due yet
    deliver()
    assert len(receiver.requests) == 1

    clock.advance(timedelta(seconds=1))
    assert dispatch_due(runtime) == 1
    deliver()
    (delivery,) = deliveries(runtime)
    assert (delivery.status, delivery.attempt_count, delivery.last_http_status) == (
        "succeeded",
        2,
        200,
    )
    assert [(a.attempt_number, a.delivery_status, a.http_status) for a in attempts(runtime)] == [
        (1, "retrying", 500),
        (2, "succeeded", 200),
    ]
    first, second = receiver.requests
    assert first.headers["x-service-event-id"] == second.headers["x-service-event-id"]
    assert first.body == second.body  # the same bytes, re-signed at the new time


def test_five_failures_make_the_delivery_failed(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
    clock: FrozenClock,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    receiver.state.default = Reply(503, b"")
    record(runtime, member_key.team_id)
    deliver()
    waits = [timedelta(minutes=5), timedelta(minutes=60), timedelta(hours=3), timedelta(hours=24)]
    for number, wait in enumerate(waits, start=1):
        (delivery,) = deliveries(runtime)
        assert (delivery.status, delivery.attempt_count) == ("retrying", number)
        assert delivery.next_attempt_at == clock.now() + wait
        clock.advance(wait)
        dispatch_due(runtime)
        deliver()
    (delivery,) = deliveries(runtime)
    assert (delivery.status, delivery.attempt_count) == ("failed", 5)
    assert delivery.next_attempt_at is None
    assert [a.delivery_status for a in attempts(runtime)] == ["retrying"] * 4 + ["failed"]
    clock.advance(timedelta(days=3))
    assert dispatch_due(runtime) == 0
    deliver()
    assert len(receiver.requests) == 5


@pytest.mark.parametrize("sender_timeout", [1.0])
def test_a_timeout_is_a_failed_attempt(
    sender_timeout: float,
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    deliver: Deliver,
) -> None:
    configure(client, auth, receiver.url(host="127.0.0.1"))
    receiver.script(Reply(200, delay=5))  # the test sender gives up after 1 s
    record(runtime, member_key.team_id)
    deliver()
    (delivery,) = deliveries(runtime)
    assert (delivery.status, delivery.last_http_status) == ("retrying", None)
    assert (delivery.last_error or "").startswith("timeout: no complete response")
    (attempt,) = attempts(runtime)
    assert attempt.error == delivery.last_error
    assert attempt.http_status is None


def test_a_refused_connection_is_a_failed_attempt(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    deliver: Deliver,
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    configure(client, auth, f"https://127.0.0.1:{port}/hook")
    record(runtime, member_key.team_id)
    deliver()
    (delivery,) = deliveries(runtime)
    assert delivery.status == "retrying"
    assert (delivery.last_error or "").startswith("connect: could not connect to 127.0.0.1")


def test_a_redirect_is_a_failure_and_is_not_followed(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    ca: trustme.CA,
    deliver: Deliver,
) -> None:
    with HttpsReceiver(ca) as elsewhere:
        receiver.script(Reply(302, b"", headers=[("Location", elsewhere.url(host="127.0.0.1"))]))
        configure(client, auth, receiver.url(host="127.0.0.1"))
        record(runtime, member_key.team_id)
        deliver()
        assert elsewhere.requests == []
    (delivery,) = deliveries(runtime)
    assert (delivery.status, delivery.last_http_status) == ("retrying", 302)
    assert (delivery.last_error or "").startswith("redirect: HTTP 302")


def test_a_target_that_rebinds_to_a_private_address_is_refused_at_delivery(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    receiver: HttpsReceiver,
    resolver: FakeResolver,
    deliver: Deliver,
) -> None:
    resolver.answer("hooks.herald.test", ["93.184.215.14"], ["10.0.0.8"])
    configure(client, auth, f"https://hooks.herald.test:{receiver.port}/hook")
    record(runtime, member_key.team_id)
    deliver()
    (delivery,) = deliveries(runtime)
    assert delivery.status == "retrying"
    assert "invalid_webhook_url" in (delivery.last_error or "")
    assert "outside the public internet" in (delivery.last_error or "")
    assert "10.0.0.8" not in (delivery.last_error or "")  # members never see internal addresses
    assert receiver.requests == []


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
