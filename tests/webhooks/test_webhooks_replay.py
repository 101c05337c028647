"""Replays: one delivery now, a window through the engine; same event id, current secret."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
import stripe
from fastapi.testclient import TestClient
from sqlalchemy import event as sa_event
from sqlalchemy import select, update

from herald.core.clock import FrozenClock
from herald.db.models.webhook_ops import WebhookReplay
from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery
from herald.runtime import Runtime
from herald.webhooks import leasing, replay
from herald.webhooks.attempt import AttemptOutcome
from herald.webhooks.delivery import Sender
from herald.webhooks.events import create_event, enqueue_dispatch
from herald.webhooks.repository import AttemptResult
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import HttpsReceiver, Reply


def target(client: TestClient, auth: dict[str, str], receiver: HttpsReceiver) -> str:
    response = client.put(
        "/v1/webhooks", json={"url": receiver.url(host="127.0.0.1")}, headers=auth
    )
    assert response.status_code == 200, response.text
    return str(response.json()["new_signing_secret"])


def event(runtime: Runtime, team_id: str, *, dispatch: bool = False) -> int:
    with runtime.sessions.write() as session:
        _, delivery_id = create_event(
            session,
            team_id=team_id,
            event_type="monitor.run.failed",
            data={"monitor_id": "mon_1"},
            clock=runtime.clock,
        )
        if dispatch:
            enqueue_dispatch(session, team_id, runtime.clock)
    return delivery_id


def test_replay_one_delivery_keeps_the_event_id_and_signs_with_the_current_secret(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    receiver: HttpsReceiver,
    sender: Sender,
    deliver: Callable[[], None],
) -> None:
    target(client, auth, receiver)
    receiver.script(Reply(500, b"down"))
    delivery_id = event(runtime, member_key.team_id, dispatch=True)
    deliver()
    (first,) = receiver.requests
    new_secret = client.post("/v1/webhooks/rotate-signing-secret", headers=auth).json()[
        "new_signing_secret"
    ]

    response = client.post(f"/v1/webhooks/deliveries/{delivery_id}/replay", headers=auth)
    assert response.status_code == 200, response.text
    delivery = response.json()["delivery"]
    assert delivery["delivery_status"] == "succeeded"
    assert delivery["attempt_count"] == 2
    assert delivery["event_id"] == first.headers["x-service-event-id"]
    second = receiver.requests[1]
    assert second.headers["x-service-event-id"] == first.headers["x-service-event-id"]
    assert second.headers["webhook-id"] == first.headers["webhook-id"]
    assert second.body == first.body
    stripe.WebhookSignature.verify_header(
        second.body, second.headers["x-service-signature"], new_secret
    )
    events = client.get("/v1/webhooks/events", headers=auth).json()["events"]
    assert [(e["attempt_number"], e["delivery_status"]) for e in events] == [
        (2, "succeeded"),
        (1, "retrying"),
    ]
    stats = client.get("/v1/webhooks/stats", headers=auth).json()["stats"]
    assert {(r["delivery_status"], r["attempt_count"]) for r in stats} == {
        ("succeeded", 1),
        ("retrying", 1),
    }
    with runtime.sessions.read() as session:
        scopes = session.scalars(select(WebhookReplay.scope)).all()
    assert scopes == ["delivery"]


def test_replay_one_delivery_refusals(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    receiver: HttpsReceiver,
    sender: Sender,
) -> None:
    assert client.post("/v1/webhooks/deliveries/1/replay", headers=auth).status_code == 404
    target(client, auth, receiver)
    delivery_id = event(runtime, member_key.team_id)
    missing = client.post(f"/v1/webhooks/deliveries/{delivery_id + 99}/replay", headers=auth)
    assert missing.status_code == 404
    assert missing.json()["error"] == "not_found"
    target(client, other_auth, receiver)
    other = client.post(f"/v1/webhooks/deliveries/{delivery_id}/replay", headers=other_auth)
    assert other.status_code == 404
    assert client.post("/v1/webhooks/deliveries/0/replay", headers=auth).status_code == 400
    assert client.post(f"/v1/webhooks/deliveries/{delivery_id}/replay").status_code == 401

    with runtime.sessions.write() as session:
        session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == delivery_id)
            .values(lease_owner="x", lease_expires_at=runtime.clock.now() + timedelta(seconds=9))
        )
    busy = client.post(f"/v1/webhooks/deliveries/{delivery_id}/replay", headers=auth)
    assert busy.status_code == 409
    assert busy.json()["error"] == "delivery_in_flight"

    client.put("/v1/webhooks", json={"enabled": False}, headers=auth)
    off = client.post(f"/v1/webhooks/deliveries/{delivery_id}/replay", headers=auth)
    assert off.status_code == 400
    assert "disabled" in off.json()["message"]
    assert receiver.requests == []


def test_window_replay_resends_unfinished_deliveries_bounded_and_rate_limited(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    clock: FrozenClock,
    receiver: HttpsReceiver,
    sender: Sender,
    deliver: Callable[[], None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    target(client, auth, receiver)
    team = member_key.team_id
    old = event(runtime, team)  # outside the window
    clock.advance(timedelta(days=2))
    failed = [event(runtime, team) for _ in range(3)]
    done = event(runtime, team)
    with runtime.sessions.write() as session:
        session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id.in_([old, *failed]))
            .values(status="failed", attempt_count=5, next_attempt_at=None)
        )
        session.execute(
            update(WebhookDelivery)
            .where(WebhookDelivery.id == done)
            .values(status="succeeded", attempt_count=1, next_attempt_at=None)
        )
    monkeypatch.setattr(replay, "MAX_REPLAY_DELIVERIES", 2)
    window = {"start": (clock.now() - timedelta(hours=1)).isoformat()}
    first = client.post("/v1/webhooks/replay", json=window, headers=auth)
    assert first.status_code == 202, first.text
    assert first.json()["replayed"] == 2
    assert first.json()["has_more"] is True
    limited = client.post("/v1/webhooks/replay", json=window, headers=auth)
    assert limited.status_code == 429
    assert limited.json()["error"] == "rate_limited"
    assert int(limited.headers["retry-after"]) == 30
    deliver()
    clock.advance(timedelta(seconds=31))
    second = client.post("/v1/webhooks/replay", json=window, headers=auth)
    assert second.json()["replayed"] == 1
    assert second.json()["has_more"] is False
    deliver()

    with runtime.sessions.read() as session:
        statuses = dict(session.execute(select(WebhookDelivery.id, WebhookDelivery.status)).all())
        numbers = session.scalars(select(WebhookAttempt.attempt_number)).all()
    assert [statuses[d] for d in failed] == ["succeeded"] * 3
    assert statuses[old] == "failed"  # outside the window
    assert statuses[done] == "succeeded"
    assert sorted(numbers) == [6, 6, 6]
    assert len(receiver.requests) == 3

    too_long = client.post(
        "/v1/webhooks/replay", json={"start": "2026-01-01", "end": "2026-03-01"}, headers=auth
    )
    assert too_long.status_code == 400
    assert too_long.json()["error"] == "invalid_request"


def test_a_replay_racing_the_engines_record_is_recorded_as_the_next_attempt(
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    runtime: Runtime,
    receiver: HttpsReceiver,
    sender: Sender,
    backend: str,
) -> None:
    """The engine's attempt ends while a replay is under way: the engine records its attempt
    after the replay read the delivery but before it took the lease. The replay must number
    its attempt after the engine's and record it (PostgreSQL; SQLite runs one writer at a
    time, so the engine waits for the replay's transaction there)."""
    if backend == "sqlite":
        pytest.skip("SQLite write transactions begin IMMEDIATE: nothing commits in between")
    target(client, auth, receiver)
    team = member_key.team_id
    delivery_id = event(runtime, team)
    now = runtime.clock.now()
    with runtime.sessions.write() as session:  # the engine leased it; its attempt is running
        (in_flight,) = leasing.lease_due_deliveries(
            session, {team: 1}, owner="engine", now=now, lease_seconds=sender.lease_seconds
        )
    engines = AttemptResult(
        in_flight, AttemptOutcome(False, 500, "http_status: HTTP 500", 3), now, now
    )
    recorded: list[bool] = []

    def engine_records_now(_conn: object, _cursor: object, statement: str, *_: object) -> None:
        reads_it = "FROM webhook_deliveries" in statement
        if reads_it and statement.lstrip().startswith("SELECT") and not recorded:
            with runtime.sessions.write() as other:
                recorded.append(leasing.record_attempt(other, engines))

    sa_event.listen(runtime.engine, "after_cursor_execute", engine_records_now)
    try:
        delivery = replay.replay_delivery(runtime, team, delivery_id)
    finally:
        sa_event.remove(runtime.engine, "after_cursor_execute", engine_records_now)

    assert recorded == [True]
    assert len(receiver.requests) == 1  # the replay's attempt went out
    assert (delivery.status, delivery.attempt_count) == ("succeeded", 2)
    with runtime.sessions.read() as session:
        attempts = session.execute(
            select(WebhookAttempt.attempt_number, WebhookAttempt.delivery_status).order_by(
                WebhookAttempt.attempt_number
            )
        ).all()
        lease = session.scalar(
            select(WebhookDelivery.lease_owner).where(WebhookDelivery.id == delivery_id)
        )
    assert [tuple(a) for a in attempts] == [(1, "retrying"), (2, "succeeded")]
    assert lease is None
