"""Errors every endpoint shares, from the real app: keys, body size, rate limits and retries."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import herald_client
import httpx
import pytest

from herald.api.app import create_app
from herald.config import Settings
from herald.runtime import Runtime
from herald.workspaces.service import create_key, revoke_key
from tests.client.conftest import BASE_URL, SyncASGITransport


def test_a_wrong_or_revoked_key_is_an_authentication_error(
    herald: herald_client.Client, runtime: Runtime, app: object
) -> None:
    with (
        herald_client.Client(
            base_url=BASE_URL, api_key="not-a-key", transport=SyncASGITransport(app)
        ) as stranger,
        pytest.raises(herald_client.AuthenticationError) as info,
    ):
        stranger.monitors.list()
    assert (info.value.status_code, info.value.code) == (401, "unauthorized")
    assert info.value.request_id == info.value.response.headers["x-request-id"]

    with runtime.sessions.write() as session:
        created = create_key(session, workspace="acme", role="member", clock=runtime.clock)
    with herald_client.Client(
        base_url=BASE_URL, api_key=created.api_key, transport=SyncASGITransport(app)
    ) as client:
        assert client.webhooks.get().configured is False
        with runtime.sessions.write() as session:
            revoke_key(session, created.key_id, runtime.clock)
        with pytest.raises(herald_client.AuthenticationError):
            client.webhooks.get()


def test_a_body_over_one_mebibyte_is_payload_too_large(herald: herald_client.Client) -> None:
    with pytest.raises(herald_client.PayloadTooLargeError) as info:
        herald.monitors.create(
            name="big", description="x" * (1024 * 1024 + 1), search={"query": "q"}
        )
    assert (info.value.status_code, info.value.code) == (413, "payload_too_large")
    assert herald.monitors.list().monitors == []


@pytest.fixture
def limited_app(home: Path, database_url: str) -> Iterator[tuple[object, str]]:
    """An app whose keys may make 30 requests a minute (a bucket of 30, refilled 0.5/s)."""
    settings = Settings(
        home=home, database_url=database_url, log_format="text", rate_limit_per_minute=30
    )
    runtime = Runtime(settings)
    with runtime.sessions.write() as session:
        key = create_key(session, workspace="acme", role="member", clock=runtime.clock)
    yield create_app(runtime), key.api_key
    runtime.close()


class CountingTransport(httpx.BaseTransport):
    """Records every status; shared by two clients, so closing it is left to the test."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self.inner = inner
        self.statuses: list[int] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = self.inner.handle_request(request)
        self.statuses.append(response.status_code)
        return response


def test_rate_limits_are_retried_after_retry_after(limited_app: tuple[object, str]) -> None:
    app, key = limited_app
    inner = SyncASGITransport(app)
    try:
        _check_rate_limits(CountingTransport(inner), key)
    finally:
        inner.close()


def _check_rate_limits(transport: CountingTransport, key: str) -> None:
    with herald_client.Client(
        base_url=BASE_URL, api_key=key, transport=transport, max_retries=0
    ) as impatient:
        with pytest.raises(herald_client.RateLimitError) as info:
            for _ in range(400):  # the bucket refills while we drain it
                impatient.webhooks.get()
        assert info.value.code == "rate_limited"
        assert info.value.retry_after is not None
        assert 1 <= info.value.retry_after <= 3
    assert transport.statuses[-1] == 429
    # The default client waits retry-after (1-3 s) and then succeeds: every call returns.
    transport.statuses.clear()
    with herald_client.Client(base_url=BASE_URL, api_key=key, transport=transport) as patient:
        for _ in range(3):
            assert patient.webhooks.get().configured is False
    assert transport.statuses.count(200) == 3
    assert 429 in transport.statuses
    assert all(
        after == 200 for before, after in itertools.pairwise(transport.statuses) if before == 429
    )
