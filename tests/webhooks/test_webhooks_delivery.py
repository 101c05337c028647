"""The delivery engine against real HTTPS receivers on loopback, on an injected clock: a signed
delivery arrives, failures are retried on the pinned schedule, and each kind of failure (a 500,
a timeout, a refused connection, a redirect, a target rebinding to a private address) is a failed
attempt."""

from __future__ import annotations

import socket
from datetime import timedelta

import pytest
import stripe
import trustme
from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.runtime import Runtime
from herald.webhooks.signing import standard_signature_header
from herald.webhooks.tasks import dispatch_due
from herald.webhooks.verify import verify_delivery
from herald.workspaces.service import CreatedKey
from tests.webhooks.delivery_support import DATA, Deliver, attempts, configure, deliveries, record
from tests.webhooks.webhook_receiver import FakeResolver, HttpsReceiver, Reply


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
