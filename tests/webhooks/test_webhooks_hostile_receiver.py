"""What a receiver answers is stored in the attempt log: whatever bytes it sends, the attempt is
recorded (PostgreSQL text cannot hold NUL), and other workspaces' attempts with it."""

from __future__ import annotations

import logging
from collections.abc import Callable

import pytest
import trustme
from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery
from herald.runtime import Runtime
from herald.webhooks.attempt import AttemptOutcome
from herald.webhooks.delivery import Sender, get_engine
from herald.webhooks.events import record_event
from herald.webhooks.repository import AttemptResult
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import HttpsReceiver, Reply


def configure(client: TestClient, auth: dict[str, str], url: str) -> None:
    response = client.put("/v1/webhooks", json={"url": url}, headers=auth)
    assert response.status_code == 200, response.text


def record(runtime: Runtime, team_id: str) -> None:
    with runtime.sessions.write() as session:
        event_id = record_event(
            session,
            team_id=team_id,
            event_type="monitor.run.failed",
            data={"monitor_id": "mon_1"},
            clock=runtime.clock,
        )
    assert event_id is not None


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply(500, b"broken\x00body"), "http_status: HTTP 500: broken\ufffdbody"),
        (Reply(302, b"", headers=[("Location", "https://x.test/\x00a")]), "redirect: HTTP 302"),
    ],
    ids=["nul-in-body", "nul-in-location"],
)
def test_a_nul_byte_in_the_answer_is_recorded_without_it_and_others_still_record(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    make_key: Callable[..., CreatedKey],
    receiver: HttpsReceiver,
    ca: trustme.CA,
    sender: object,
    deliver: Callable[[], None],
    reply: Reply,
    kind: str,
) -> None:
    other_key = make_key("globex", "member")
    other_auth = {"x-api-key": other_key.api_key}
    receiver.script(reply)
    configure(client, auth, receiver.url(host="127.0.0.1"))
    with HttpsReceiver(ca) as healthy:
        configure(client, other_auth, healthy.url(host="127.0.0.1"))
        record(runtime, member_key.team_id)
        record(runtime, other_key.team_id)
        deliver()
        assert (len(receiver.requests), len(healthy.requests)) == (1, 1)

    with runtime.sessions.read() as session:
        rows = {
            team: (status, count, error)
            for team, status, count, error in session.execute(
                select(
                    WebhookDelivery.team_id,
                    WebhookDelivery.status,
                    WebhookDelivery.attempt_count,
                    WebhookDelivery.last_error,
                )
            )
        }
        logged = session.scalars(
            select(WebhookAttempt.error).where(WebhookAttempt.team_id == member_key.team_id)
        ).all()
    assert rows[other_key.team_id] == ("succeeded", 1, None)
    status, count, error = rows[member_key.team_id]
    assert (status, count) == ("retrying", 1)
    assert error is not None
    assert error.startswith(kind)
    assert "\x00" not in error
    assert logged == [error]
    events = client.get("/v1/webhooks/events", headers=auth).json()["events"]
    assert [e["error"] for e in events] == [error]


def test_an_attempt_the_database_refuses_does_not_sink_the_others_of_its_batch(
    runtime: Runtime,
    client: TestClient,
    auth: dict[str, str],
    member_key: CreatedKey,
    make_key: Callable[..., CreatedKey],
    receiver: HttpsReceiver,
    sender: Sender,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The recorder stores attempts in batches. When a batch keeps failing, each attempt is
    stored alone, so one the database refuses loses only itself, not other workspaces'."""
    other_key = make_key("globex", "member")
    configure(client, auth, receiver.url(host="127.0.0.1"))
    configure(client, {"x-api-key": other_key.api_key}, receiver.url(host="127.0.0.1"))
    record(runtime, member_key.team_id)
    record(runtime, other_key.team_id)
    engine = get_engine(runtime)
    now = runtime.clock.now()
    with runtime.sessions.write() as session:
        leased = engine.lease(session, [member_key.team_id, other_key.team_id])
    assert len(leased) == 2
    ok = AttemptOutcome(True, 204, None, 3)
    bad, good = (
        AttemptResult(d, ok, None if d.team_id == member_key.team_id else now, now)  # type: ignore[arg-type]
        for d in leased
    )
    with engine._lock:
        engine._unrecorded += 2  # as submit() counts them
    caplog.set_level(logging.ERROR, "herald.webhooks.delivery")
    engine._record([bad, good])
    assert engine.wait_idle(5)

    with runtime.sessions.read() as session:
        rows = dict(session.execute(select(WebhookDelivery.team_id, WebhookDelivery.status)).all())
    assert rows == {member_key.team_id: "pending", other_key.team_id: "succeeded"}
    assert "recording a webhook attempt failed" in caplog.text
