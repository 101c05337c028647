"""Fixtures for the webhooks area: a test CA, HTTPS receivers on loopback, a scripted resolver."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trustme

from herald.config import Settings
from herald.core.net import SafeHttpsClient, TargetPolicy
from herald.jobs.worker import Worker
from herald.runtime import Runtime
from herald.webhooks.delivery import Sender, get_engine
from tests.webhooks.webhook_receiver import RECEIVER_HOST, FakeResolver, HttpsReceiver

# Loopback is admitted the way a self-hoster would do it for local development.
LOOPBACK_ALLOWED = TargetPolicy.from_setting("127.0.0.0/8,::1/128")


@pytest.fixture(scope="session")
def ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture(scope="session")
def ca_file(ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory) -> str:
    path: Path = tmp_path_factory.mktemp("ca") / "test-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return str(path)


@pytest.fixture
def receiver(ca: trustme.CA) -> Iterator[HttpsReceiver]:
    with HttpsReceiver(ca) as server:
        yield server


@pytest.fixture
def resolver() -> FakeResolver:
    return FakeResolver({RECEIVER_HOST: [["127.0.0.1"]]})


@pytest.fixture
def make_client(ca_file: str, resolver: FakeResolver) -> Iterator[Callable[..., SafeHttpsClient]]:
    clients: list[SafeHttpsClient] = []

    def make(**overrides: object) -> SafeHttpsClient:
        options: dict[str, object] = {
            "resolver": resolver,
            "ca_file": ca_file,
            "timeout": 5.0,
        }
        options.update(overrides)
        policy = options.pop("policy", LOOPBACK_ALLOWED)
        client = SafeHttpsClient(policy, **options)  # type: ignore[arg-type]
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


# -- delivery engine and API fixtures (real SQLite and PostgreSQL via the shared conftest) --------


@pytest.fixture
def settings(home: Path, database_url: str) -> Settings:
    """Loopback receivers are admitted the way an operator would for local development."""
    return Settings(
        home=home,
        database_url=database_url,
        log_format="text",
        webhook_allow_networks="127.0.0.0/8,::1/128",
    )


@pytest.fixture
def sender_timeout() -> float:
    """Seconds before an attempt times out. Loopback deliveries take milliseconds, but a loaded
    test run can stall one for more than a second, which then counts as a failed attempt: so
    ample by default; a test about timeouts parametrizes a short one."""
    return 15.0


@pytest.fixture
def sender(
    runtime: Runtime,
    ca_file: str,
    resolver: FakeResolver,
    monkeypatch: pytest.MonkeyPatch,
    sender_timeout: float,
) -> Sender:
    """The process's sender, trusting the test CA through SSL_CERT_FILE as an operator would,
    with a ``sender_timeout`` timeout."""
    monkeypatch.setenv("SSL_CERT_FILE", ca_file)
    policy = TargetPolicy(runtime.settings.allowed_webhook_networks)
    client = SafeHttpsClient(policy, resolver=resolver, timeout=sender_timeout)
    runtime.on_close(client.close)
    built = Sender(client, runtime.clock)
    assert runtime.service("webhooks.sender", lambda: built) is built
    assert runtime.service("webhooks.resolver", lambda: resolver) is resolver
    return built


@pytest.fixture
def deliver(runtime: Runtime, sender: Sender) -> Callable[[], None]:
    """Run dispatch jobs and wait for their attempts, until nothing is left to do."""

    def run() -> None:
        worker = Worker(runtime)
        engine = get_engine(runtime)
        for _ in range(200):
            ran = worker.drain()
            assert engine.wait_idle(30), "attempts did not finish"
            if ran == 0:
                return
        raise AssertionError("deliveries kept coming")

    return run
