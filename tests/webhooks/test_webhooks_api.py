"""The webhook endpoints: every pinned shape, error code and workspace boundary."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest
import stripe
from fastapi.testclient import TestClient

from herald.core.clock import FrozenClock
from herald.db.models.webhooks import WebhookAttempt
from herald.runtime import Runtime
from herald.webhooks.delivery import Sender
from herald.webhooks.events import create_event
from herald.workspaces.service import CreatedKey
from tests.webhooks.webhook_receiver import FakeResolver, HttpsReceiver, Reply

PUBLIC_URL = "https://93.184.215.14/herald"  # a public literal: no DNS needed


def put(client: TestClient, auth: dict[str, str], **body: object) -> dict[str, object]:
    response = client.put("/v1/webhooks", json=body, headers=auth)
    assert response.status_code == 200, response.text
    data: dict[str, object] = response.json()
    return data


def test_configuration_lifecycle(client: TestClient, auth: dict[str, str], sender: Sender) -> None:
    empty = client.get("/v1/webhooks", headers=auth).json()
    assert empty["webhook"] == {
        "configured": False,
        "url": None,
        "enabled": False,
        "signing_secret": None,
    }
    assert empty["meta"]["request_id"]

    created = put(client, auth, url=PUBLIC_URL)
    secret = created["new_signing_secret"]
    assert isinstance(secret, str)
    assert secret.startswith("whsec_")
    assert created["webhook"] == {
        "configured": True,
        "url": PUBLIC_URL,
        "enabled": True,
        "signing_secret": {"version": 1, "preview": "whsec_…" + secret[-4:]},
    }

    read = client.get("/v1/webhooks", headers=auth).json()
    assert read["webhook"] == created["webhook"]
    assert "new_signing_secret" not in read
    assert secret not in client.get("/v1/webhooks", headers=auth).text

    updated = put(client, auth, enabled=False)
    assert "new_signing_secret" not in updated  # shown once, at creation
    assert updated["webhook"]["enabled"] is False  # type: ignore[index]
    assert updated["webhook"]["url"] == PUBLIC_URL  # type: ignore[index]
    moved = put(client, auth, url="https://93.184.215.15/other")
    assert moved["webhook"]["enabled"] is False  # type: ignore[index]  # kept

    rotated = client.post("/v1/webhooks/rotate-signing-secret", headers=auth).json()
    new_secret = rotated["new_signing_secret"]
    assert new_secret != secret
    assert rotated["webhook"]["signing_secret"] == {
        "version": 2,
        "preview": "whsec_…" + new_secret[-4:],
    }
    assert "new_signing_secret" not in client.get("/v1/webhooks", headers=auth).json()


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "webhook_url_required"),
        ({"enabled": True}, "webhook_url_required"),
        ({"url": "http://93.184.215.14/"}, "invalid_webhook_url"),
        ({"url": "https://user:pw@93.184.215.14/"}, "invalid_webhook_url"),
        ({"url": "https://127.0.0.1/"}, "invalid_webhook_url"),  # loopback is allowed here, but
        ({"url": "https://169.254.169.254/"}, "invalid_webhook_url"),
        ({"url": "https://localhost/"}, "invalid_webhook_url"),
        ({"url": "https://2130706433/"}, "invalid_webhook_url"),
        ({"url": "https://10.0.0.1/"}, "invalid_webhook_url"),
        ({"url": PUBLIC_URL, "secret": "x"}, "invalid_request"),
        ({"url": 42}, "invalid_request"),
        ({"url": PUBLIC_URL, "enabled": "yes"}, "invalid_request"),
    ],
)
def test_put_errors(
    client: TestClient, auth: dict[str, str], sender: Sender, body: dict[str, object], code: str
) -> None:
    if body.get("url") == "https://127.0.0.1/":
        # The test settings admit 127.0.0.0/8: this one is accepted, proving the allow-list works.
        assert client.put("/v1/webhooks", json=body, headers=auth).status_code == 200
        return
    response = client.put("/v1/webhooks", json=body, headers=auth)
    assert response.status_code == 400, response.text
    assert response.json()["error"] == code
    assert response.json()["meta"]["request_id"]


def test_rotation_without_a_target_is_404(client: TestClient, auth: dict[str, str]) -> None:
    response = client.post("/v1/webhooks/rotate-signing-secret", headers=auth)
    assert (response.status_code, response.json()["error"]) == (404, "not_found")


def test_post_test_attempts_at_once_and_can_be_read_back(
    client: TestClient, auth: dict[str, str], receiver: HttpsReceiver, sender: Sender
) -> None:
    secret = put(client, auth, url=receiver.url(host="127.0.0.1"))["new_signing_secret"]
    response = client.post("/v1/webhooks/test", headers=auth)
    assert response.status_code == 200, response.text
    delivery = response.json()["delivery"]
    assert delivery == {
        "id": delivery["id"],
        "event_id": delivery["event_id"],
        "event_type": "webhook.test",
        "delivery_status": "succeeded",
        "attempt_count": 1,
        "last_http_status": 200,
        "last_error": None,
        "created_at": "2026-11-25T12:00:00Z",
        "last_attempt_at": "2026-11-25T12:00:00Z",
        "next_attempt_at": None,
    }
    assert delivery["id"].isdigit()
    (request,) = receiver.requests
    assert isinstance(secret, str)
    stripe.WebhookSignature.verify_header(
        request.body, request.headers["x-service-signature"], secret
    )

    one = client.get(f"/v1/webhooks/test?id={delivery['id']}", headers=auth).json()
    assert one["delivery"] == delivery
    receiver.script(Reply(500, b"nope"))
    failed = client.post("/v1/webhooks/test", headers=auth).json()["delivery"]
    assert (failed["delivery_status"], failed["last_http_status"]) == ("retrying", 500)
    assert failed["next_attempt_at"] == "2026-11-25T12:05:00Z"
    recent = client.get("/v1/webhooks/test", headers=auth).json()
    assert [d["id"] for d in recent["deliveries"]] == [failed["id"], delivery["id"]]


def test_test_endpoint_errors(client: TestClient, auth: dict[str, str], sender: Sender) -> None:
    assert client.post("/v1/webhooks/test", headers=auth).status_code == 404
    put(client, auth, url=PUBLIC_URL, enabled=False)
    disabled = client.post("/v1/webhooks/test", headers=auth)
    assert (disabled.status_code, disabled.json()["error"]) == (400, "invalid_request")
    assert client.get("/v1/webhooks/test?id=999", headers=auth).status_code == 404
    bad = client.get("/v1/webhooks/test?id=abc", headers=auth)
    assert (bad.status_code, bad.json()["error"]) == (400, "invalid_request")
    # Larger than any database integer: a clear 400, not a 500 from the driver (found by fuzzing).
    huge = client.get(f"/v1/webhooks/test?id={2**64}", headers=auth)
    assert (huge.status_code, huge.json()["error"]) == (400, "invalid_request")
    assert client.get("/v1/webhooks/test", headers=auth).json()["deliveries"] == []


def test_another_workspace_sees_nothing(
    client: TestClient,
    auth: dict[str, str],
    other_auth: dict[str, str],
    receiver: HttpsReceiver,
    sender: Sender,
) -> None:
    put(client, auth, url=receiver.url(host="127.0.0.1"))
    delivery = client.post("/v1/webhooks/test", headers=auth).json()["delivery"]
    theirs = client.get(f"/v1/webhooks/test?id={delivery['id']}", headers=other_auth)
    assert (theirs.status_code, theirs.json()["error"]) == (404, "not_found")
    assert client.get("/v1/webhooks/test", headers=other_auth).json()["deliveries"] == []
    assert client.get("/v1/webhooks", headers=other_auth).json()["webhook"]["configured"] is False
    assert client.get("/v1/webhooks/events", headers=other_auth).json()["events"] == []
    assert client.get("/v1/webhooks/stats", headers=other_auth).json()["stats"] == []
    assert client.post("/v1/webhooks/rotate-signing-secret", headers=other_auth).status_code == 404
    assert len(client.get("/v1/webhooks/events", headers=auth).json()["events"]) == 1


def test_endpoints_need_a_key(client: TestClient) -> None:
    for method, path in [
        ("GET", "/v1/webhooks"),
        ("PUT", "/v1/webhooks"),
        ("POST", "/v1/webhooks/rotate-signing-secret"),
        ("POST", "/v1/webhooks/test"),
        ("GET", "/v1/webhooks/test"),
        ("GET", "/v1/webhooks/events"),
        ("GET", "/v1/webhooks/stats"),
    ]:
        response = client.request(method, path, json={} if method == "PUT" else None)
        assert (response.status_code, response.json()["error"]) == (401, "unauthorized"), path


def add_attempts(
    runtime: Runtime, team_id: str, times: list[datetime], statuses: list[str]
) -> None:
    """Attempt rows at chosen instants (a factory: the engine's own tests cover how they arise)."""
    with runtime.sessions.write() as session:
        _, delivery_id = create_event(
            session, team_id=team_id, event_type="monitor.run.failed", data={}, clock=runtime.clock
        )
        for number, (at, status) in enumerate(zip(times, statuses, strict=True), start=1):
            session.add(
                WebhookAttempt(
                    team_id=team_id,
                    delivery_id=delivery_id,
                    event_id="evt_x",
                    event_type="monitor.run.failed",
                    attempt_number=number,
                    delivery_status=status,
                    http_status=500 if status != "succeeded" else 200,
                    error=None,
                    duration_ms=12,
                    attempted_at=at,
                )
            )


def test_events_pages_newest_first_within_the_window(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    member_key: CreatedKey,
    clock: FrozenClock,
) -> None:
    now = clock.now()
    times = [now - timedelta(minutes=i) for i in range(60)] + [now - timedelta(days=8)]
    add_attempts(runtime, member_key.team_id, times, ["retrying"] * 61)
    first = client.get("/v1/webhooks/events", headers=auth).json()
    assert (first["page"], first["page_size"], first["has_more"]) == (1, 50, True)
    assert len(first["events"]) == 50
    stamps = [e["attempted_at"] for e in first["events"]]
    assert stamps == sorted(stamps, reverse=True)
    assert set(first["events"][0]) == {
        "id",
        "delivery_id",
        "event_id",
        "event_type",
        "attempt_number",
        "delivery_status",
        "http_status",
        "error",
        "duration_ms",
        "attempted_at",
    }
    second = client.get("/v1/webhooks/events?page=2", headers=auth).json()
    assert (len(second["events"]), second["has_more"]) == (10, False)  # the 8-day-old one is out
    wide = client.get("/v1/webhooks/events?page=2&start=2026-11-01", headers=auth).json()
    assert len(wide["events"]) == 11
    day = client.get(
        "/v1/webhooks/events?start=2026-11-25T11:30:00Z&end=2026-11-25T11:39:59Z", headers=auth
    ).json()
    assert len(day["events"]) == 10
    for query in ("page=0", "page=x", "start=yesterday"):
        response = client.get(f"/v1/webhooks/events?{query}", headers=auth)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_request"), query
    after = client.get("/v1/webhooks/events?start=2026-11-26&end=2026-11-25", headers=auth)
    assert (after.status_code, after.json()["error"]) == (400, "date_window_too_long")


def test_stats_buckets(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    member_key: CreatedKey,
    clock: FrozenClock,
) -> None:
    now = clock.now()  # 12:00Z
    times = [
        now - timedelta(minutes=1),  # 11:59 -> bucket 11:00 (60) / 11:55 (5)
        now - timedelta(minutes=2),
        now - timedelta(minutes=7),  # 11:53 -> 11:50 (5)
        now - timedelta(hours=2),  # 10:00
        now - timedelta(days=2),  # outside the default 24 h
    ]
    add_attempts(
        runtime,
        member_key.team_id,
        times,
        ["succeeded", "retrying", "retrying", "failed", "succeeded"],
    )
    body = client.get("/v1/webhooks/stats", headers=auth).json()
    assert body["bucket_minutes"] == 60
    assert (body["start_at"], body["end_at"]) == ("2026-11-24T12:00:00Z", "2026-11-25T12:00:00Z")
    assert body["stats"] == [
        {"bucket_start": "2026-11-25T10:00:00Z", "delivery_status": "failed", "attempt_count": 1},
        {"bucket_start": "2026-11-25T11:00:00Z", "delivery_status": "retrying", "attempt_count": 2},
        {
            "bucket_start": "2026-11-25T11:00:00Z",
            "delivery_status": "succeeded",
            "attempt_count": 1,
        },
    ]
    five = client.get(
        "/v1/webhooks/stats?bucket_minutes=5&start=2026-11-25T11:00:00Z", headers=auth
    )
    assert [
        (s["bucket_start"][11:16], s["delivery_status"], s["attempt_count"])
        for s in five.json()["stats"]
    ] == [
        ("11:50", "retrying", 1),
        ("11:55", "retrying", 1),
        ("11:55", "succeeded", 1),
    ]
    daily = client.get("/v1/webhooks/stats?bucket_minutes=1440&start=2026-11-20", headers=auth)
    assert [(s["bucket_start"], s["attempt_count"]) for s in daily.json()["stats"]] == [
        ("2026-11-23T00:00:00Z", 1),
        ("2026-11-25T00:00:00Z", 1),
        ("2026-11-25T00:00:00Z", 2),
        ("2026-11-25T00:00:00Z", 1),
    ]
    for query in ("bucket_minutes=7", "bucket_minutes=x"):
        response = client.get(f"/v1/webhooks/stats?{query}", headers=auth)
        assert (response.status_code, response.json()["error"]) == (400, "invalid_request"), query
    for query in ("start=2026-11-26&end=2026-11-20", "start=2026-11-26"):  # after now, the end
        response = client.get(f"/v1/webhooks/stats?{query}", headers=auth)
        assert (response.status_code, response.json()["error"]) == (400, "date_window_too_long")


def test_an_attempt_in_the_last_moment_of_a_bucket_counts_in_that_bucket(
    client: TestClient,
    auth: dict[str, str],
    runtime: Runtime,
    member_key: CreatedKey,
    clock: FrozenClock,
) -> None:
    """Buckets hold whole instants [start, start + width): 11:59:59.9999 is in 11:00's, on both
    databases (SQLite's strftime('%s') rounds to the millisecond, which moved it to 12:00)."""
    now = clock.now()  # 12:00Z
    add_attempts(runtime, member_key.team_id, [now - timedelta(microseconds=100)], ["failed"])
    body = client.get("/v1/webhooks/stats", headers=auth).json()
    assert [(s["bucket_start"], s["attempt_count"]) for s in body["stats"]] == [
        ("2026-11-25T11:00:00Z", 1)
    ]


def test_put_checks_names_by_resolving_them(
    client: TestClient, auth: dict[str, str], sender: Sender, make_key: Callable[..., CreatedKey]
) -> None:
    resolver = sender.client._resolver  # the fixture's scripted DNS
    assert callable(resolver)
    resolver.answer("hooks.example.org", ["93.184.215.14"])  # type: ignore[attr-defined]
    resolver.answer("intranet.example.org", ["192.168.10.4"])  # type: ignore[attr-defined]
    assert put(client, auth, url="https://hooks.example.org/x")["webhook"]["url"] == (  # type: ignore[index]
        "https://hooks.example.org/x"
    )
    refused = client.put(
        "/v1/webhooks", json={"url": "https://intranet.example.org/"}, headers=auth
    )
    assert refused.status_code == 400
    assert "not allowed" in refused.json()["message"]
    assert "192.168.10.4" not in refused.json()["message"]  # internal addresses stay unsaid


def test_put_gives_up_on_a_name_server_that_never_answers(
    client: TestClient,
    auth: dict[str, str],
    sender: Sender,
    resolver: FakeResolver,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading
    import time

    from herald.webhooks import service

    monkeypatch.setattr(service, "SAVE_DNS_SECONDS", 0.3)
    answered = threading.Event()
    original = resolver.__call__

    def stalling(host: str) -> list[Any]:
        if host.startswith("never."):
            answered.wait(30)
        return original(host)

    monkeypatch.setattr(type(resolver), "__call__", lambda self, host: stalling(host))
    try:
        started = time.monotonic()
        response = client.put(
            "/v1/webhooks", json={"url": "https://never.example.org/"}, headers=auth
        )
        assert time.monotonic() - started < 3
        assert response.status_code == 400
        assert response.json()["error"] == "invalid_webhook_url"
        assert "could not be resolved within" in response.json()["message"]
    finally:
        answered.set()
