"""``client.webhooks`` against the real app, delivering to a real HTTPS receiver on loopback,
and the deliveries verified with ``herald_client.webhooks.verify``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import herald_client
import pytest
import trustme
from herald_client.models import WebhookConfiguration, WebhookDelivery
from herald_client.webhooks import WebhookVerificationError, verify

from herald.core.clock import FrozenClock
from herald.webhooks.delivery import Sender
from tests.webhooks.webhook_receiver import HttpsReceiver


@pytest.fixture
def receiver(ca: trustme.CA) -> Iterator[HttpsReceiver]:
    with HttpsReceiver(ca, names=("127.0.0.1",)) as server:
        yield server


def test_target_lifecycle_test_deliveries_and_verification(
    herald: herald_client.Client,
    herald_other: herald_client.Client,
    receiver: HttpsReceiver,
    trusting_sender: Sender,
    clock: FrozenClock,
) -> None:
    empty = herald.webhooks.get()
    assert isinstance(empty, WebhookConfiguration)
    assert empty.configured is False
    assert empty.signing_secret is None
    with pytest.raises(herald_client.NotFoundError):
        herald.webhooks.test()

    url = receiver.url(host="127.0.0.1")
    created = herald.webhooks.put(url=url)
    secret = created.new_signing_secret
    assert secret is not None
    assert secret.startswith("whsec_")
    assert created.webhook.url == url
    assert created.webhook.enabled is True
    assert created.webhook.signing_secret is not None
    assert created.webhook.signing_secret.preview == "whsec_…" + secret[-4:]
    assert created.meta is not None
    assert created.meta.request_id == created.request_id

    read = herald.webhooks.get()
    assert read.configured is True
    assert read.request_id is not None
    assert "new_signing_secret" not in herald.webhooks.put(enabled=True).model_fields_set

    delivery = herald.webhooks.test()
    assert isinstance(delivery, WebhookDelivery)
    assert (delivery.event_type, delivery.delivery_status) == ("webhook.test", "succeeded")
    assert (delivery.attempt_count, delivery.last_http_status) == (1, 200)
    arrived = receiver.requests[-1]
    now = clock.now().timestamp()
    event = verify(arrived.body, arrived.headers, secret, now=now)
    assert event.id == delivery.event_id
    assert event.type == "webhook.test"
    with pytest.raises(WebhookVerificationError):
        verify(arrived.body, arrived.headers, secret, now=now + 301)

    assert herald.webhooks.get_test(delivery.id).model_dump() == delivery.model_dump()
    assert [d.id for d in herald.webhooks.list_tests().deliveries] == [delivery.id]
    with pytest.raises(herald_client.NotFoundError):
        herald.webhooks.get_test(999_999)
    with pytest.raises(herald_client.NotFoundError):
        herald_other.webhooks.get_test(delivery.id)
    assert herald_other.webhooks.get().configured is False

    rotated = herald.webhooks.rotate_signing_secret()
    new_secret = rotated.new_signing_secret
    assert new_secret is not None
    assert new_secret != secret
    assert rotated.webhook.signing_secret is not None
    assert rotated.webhook.signing_secret.version == created.webhook.signing_secret.version + 1
    clock.advance(timedelta(minutes=1))
    second = herald.webhooks.test()
    arrived = receiver.requests[-1]
    assert arrived.headers["x-service-signature"].count("v1=") == 2  # the 24 h overlap
    now = clock.now().timestamp()
    assert verify(arrived.body, arrived.headers, new_secret, now=now).id == second.event_id
    assert verify(arrived.body, arrived.headers, secret, now=now).id == second.event_id

    attempts = herald.webhooks.events()
    assert (attempts.page, attempts.page_size, attempts.has_more) == (1, 50, False)
    assert [a.delivery_id for a in attempts.events] == [second.id, delivery.id]  # newest first
    assert attempts.events[0].http_status == 200
    assert [a.id for a in herald.webhooks.events_all()] == [a.id for a in attempts.events]
    assert herald_other.webhooks.events().events == []

    stats = herald.webhooks.stats(bucket_minutes=15)
    assert stats.bucket_minutes == 15
    assert sum(s.attempt_count for s in stats.stats) == 2
    assert {s.delivery_status for s in stats.stats} == {"succeeded"}


def test_target_rules_and_other_errors(herald: herald_client.Client) -> None:
    with pytest.raises(herald_client.WebhookUrlRequiredError) as required:
        herald.webhooks.put(enabled=True)
    assert required.value.status_code == 400
    for bad in (
        "http://hooks.example.com/h",  # not HTTPS
        "https://user:pw@hooks.example.com/h",  # credentials
        "https://10.0.0.8/h",  # private (only 127.0.0.0/8 is admitted here)
        "https://localhost/h",
    ):
        with pytest.raises(herald_client.InvalidWebhookUrlError) as info:
            herald.webhooks.put(url=bad)
        assert info.value.code == "invalid_webhook_url"
    assert herald.webhooks.get().configured is False
    with pytest.raises(herald_client.InvalidRequestError):
        herald.webhooks.events(start="not a date")
    with pytest.raises(herald_client.InvalidRequestError):
        herald.webhooks.events(page=0)
    with pytest.raises(herald_client.InvalidRequestError):
        herald.webhooks.stats(start="2026-11-25T12:00:00Z", end="2026-11-20T12:00:00Z")
    assert herald.webhooks.stats().stats == []
    assert herald.webhooks.list_tests().deliveries == []


@pytest.mark.anyio
async def test_the_async_client_drives_webhooks(
    aherald: herald_client.AsyncClient, receiver: HttpsReceiver, trusting_sender: Sender
) -> None:
    assert (await aherald.webhooks.get()).configured is False
    created = await aherald.webhooks.put(url=receiver.url(host="127.0.0.1"))
    assert created.new_signing_secret is not None
    delivery = await aherald.webhooks.test()
    assert delivery.delivery_status == "succeeded"
    assert (await aherald.webhooks.get_test(delivery.id)).id == delivery.id
    assert len((await aherald.webhooks.list_tests()).deliveries) == 1
    assert [a.delivery_id async for a in aherald.webhooks.events_all()] == [delivery.id]
    assert (await aherald.webhooks.stats()).bucket_minutes == 60
    rotated = await aherald.webhooks.rotate_signing_secret()
    assert rotated.new_signing_secret != created.new_signing_secret
    with pytest.raises(herald_client.InvalidWebhookUrlError):
        await aherald.webhooks.put(url="http://insecure.example.com/h")
