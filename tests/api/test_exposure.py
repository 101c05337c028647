"""What unauthenticated callers learn: readiness without reasons, metrics behind a token."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from herald import readiness
from herald.api.app import create_app
from herald.config import Settings
from herald.core.clock import FrozenClock
from herald.runtime import Runtime


@pytest.fixture
def failing_check() -> Iterator[None]:
    @readiness.readiness_check("secret_store")
    def _fails(runtime: Runtime) -> None:
        raise RuntimeError("could not connect to postgres://herald:hunter2@10.9.8.7/prod")

    yield
    readiness._checks.pop("secret_store")


@pytest.mark.usefixtures("failing_check")
def test_readyz_names_the_failing_check_without_its_reason(client: TestClient) -> None:
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["secret_store"]["ok"] is False
    assert body["checks"]["database"]["ok"] is True
    for secret in ("hunter2", "10.9.8.7", "postgres://", "RuntimeError"):
        assert secret not in response.text


@pytest.fixture
def token_client(home: Path, database_url: str, clock: FrozenClock) -> Iterator[TestClient]:
    settings = Settings(
        home=home, database_url=database_url, log_format="text", metrics_token="s3cret-token"
    )
    runtime = Runtime(settings, clock=clock)
    try:
        with TestClient(create_app(runtime), raise_server_exceptions=False) as client:
            yield client
    finally:
        runtime.close()


def test_metrics_can_require_a_token(token_client: TestClient) -> None:
    refused = token_client.get("/metrics")
    assert refused.status_code == 401
    assert refused.json()["error"] == "unauthorized"
    wrong = token_client.get("/metrics", headers={"authorization": "Bearer nope"})
    assert wrong.status_code == 401
    allowed = token_client.get("/metrics", headers={"authorization": "Bearer s3cret-token"})
    assert allowed.status_code == 200
    assert "herald_http_requests_total" in allowed.text


def test_metrics_are_open_without_a_token_setting(client: TestClient) -> None:
    assert client.get("/metrics").status_code == 200
