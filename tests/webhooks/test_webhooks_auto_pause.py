"""Auto-pause: a target failing every attempt for the configured period is disabled with a
reason and an audit record; re-enabling offers the replay of what failed meanwhile."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.core.clock import FrozenClock
from herald.db.models.webhook_ops import WebhookTargetAudit
from herald.db.models.webhooks import WebhookDelivery
from herald.runtime import Runtime
from herald.webhooks.auto_pause import auto_pause
from herald.webhooks.delivery import Sender
from herald.webhooks.events import create_event, enqueue_dispatch
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import HttpsReceiver, Received, Reply


def event(runtime: Runtime, team_id: str) -> int:
    with runtime.sessions.write() as session:
        _, delivery_id = create_event(
            session, team_id=team_id, event_type="monitor.run.failed", data={}, clock=runtime.clock
        )
        enqueue_dispatch(session, team_id, runtime.clock)
    return delivery_id


def test_failing_target_is_paused_then_resumed_with_a_replay_offer(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    member_key: CreatedKey,
    make_key: Callable[..., CreatedKey],
    runtime: Runtime,
    clock: FrozenClock,
    receiver: HttpsReceiver,
    sender: Sender,
    deliver: Callable[[], None],
) -> None:
    healthy = {"/a": False, "/b": False}

    def respond(request: Received) -> Reply:
        return Reply(200) if healthy[request.path] else Reply(500, b"down")

    receiver.respond_with(respond)
    client.put("/v1/webhooks", json={"url": receiver.url("/a", host="127.0.0.1")}, headers=auth)
    client.put(
        "/v1/webhooks", json={"url": receiver.url("/b", host="127.0.0.1")}, headers=other_auth
    )
    other_team = make_key("globex").team_id
    start = clock.now()
    first = event(runtime, member_key.team_id)
    other = event(runtime, other_team)
    deliver()
    clock.advance(timedelta(days=3))
    healthy["/b"] = True  # the other workspace's receiver recovers
    assert client.post(f"/v1/webhooks/deliveries/{other}/replay", headers=other_auth).status_code
    healthy["/b"] = False
    clock.advance(timedelta(days=2) - timedelta(minutes=1))
    second = event(runtime, member_key.team_id)
    deliver()
    assert auto_pause(runtime) == 0  # 4 days 23:59 of failures: not yet

    clock.advance(timedelta(minutes=1))
    never = Runtime(runtime.settings.model_copy(update={"webhook_auto_pause_days": 0}), clock=clock)
    try:
        assert auto_pause(never) == 0  # 0 days: never pause
    finally:
        never.close()
    assert auto_pause(runtime) == 1
    shown = client.get("/v1/webhooks", headers=auth).json()["webhook"]
    assert shown["enabled"] is False
    # the first delivery's retry (due 5 minutes after it failed) went out with the second event
    assert shown["disabled_reason"].startswith("paused automatically: all 3 delivery attempts")
    assert "2026-11-25T12:00:00Z" in shown["disabled_reason"]
    assert shown["disabled_at"] == "2026-11-30T12:00:00Z"
    other_shown = client.get("/v1/webhooks", headers=other_auth).json()["webhook"]
    assert other_shown["enabled"] is True  # it succeeded three days ago
    assert "disabled_reason" not in other_shown
    with runtime.sessions.read() as session:
        audit = session.execute(select(WebhookTargetAudit.team_id, WebhookTargetAudit.action)).all()
    assert audit == [(member_key.team_id, "auto_paused")]
    assert auto_pause(runtime) == 0  # already paused

    healthy["/a"] = True
    resumed = client.put("/v1/webhooks", json={"enabled": True}, headers=auth).json()
    assert resumed["webhook"]["enabled"] is True
    assert "disabled_reason" not in resumed["webhook"]
    offer = resumed["replay_offer"]
    assert offer["deliveries"] == 2
    assert offer["start_at"] == start.isoformat().replace("+00:00", "Z")
    again = client.put("/v1/webhooks", json={"enabled": True}, headers=auth).json()
    assert "replay_offer" not in again
    replayed = client.post(
        "/v1/webhooks/replay",
        json={"start": offer["start_at"], "end": offer["end_at"]},
        headers=auth,
    )
    assert replayed.json()["replayed"] == 2
    deliver()
    with runtime.sessions.read() as session:
        statuses = session.scalars(
            select(WebhookDelivery.status).where(WebhookDelivery.id.in_([first, second]))
        ).all()
        actions = session.scalars(
            select(WebhookTargetAudit.action).order_by(WebhookTargetAudit.id)
        ).all()
    assert statuses == ["succeeded", "succeeded"]
    assert actions == ["auto_paused", "re_enabled"]
