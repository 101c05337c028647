"""What the delivery tests share: a workspace's webhook configured through the API, an event
recorded for it, and the deliveries and attempts as stored."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy import select

from herald.db.models.webhooks import WebhookAttempt, WebhookDelivery
from herald.runtime import Runtime
from herald.webhooks.events import record_event

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
