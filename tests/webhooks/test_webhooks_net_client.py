"""SafeHttpsClient against real HTTPS servers on loopback (test CA, loopback allow-listed)."""

from __future__ import annotations

import socket
from collections.abc import Callable

import pytest
import trustme

from herald.core.net import (
    ConnectFailed,
    ResolutionFailed,
    SafeHttpsClient,
    TargetPolicy,
    TimedOut,
    TlsFailed,
    check_target_url,
)
from herald.errors import InvalidWebhookUrl
from herald.webhooks.attempt import send_attempt
from tests.webhooks.webhook_receiver import RECEIVER_HOST, FakeResolver, HttpsReceiver, Reply

MakeClient = Callable[..., SafeHttpsClient]
BODY = b'{"id":"evt_1","type":"webhook.test"}'


def test_connects_to_the_checked_address_and_uses_the_name_for_sni_cert_and_host(
    receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    client = make_client()
    response = client.post(
        receiver.url("/hook?x=1"), content=BODY, headers={"Content-Type": "application/json"}
    )
    assert response.status == 200
    assert response.body == b"ok"
    assert response.remote_address == "127.0.0.1"
    # .test names never resolve: reaching the server proves the socket layer did not resolve.
    assert resolver.calls == [RECEIVER_HOST]
    (request,) = receiver.requests
    assert request.path == "/hook?x=1"
    assert request.body == BODY
    assert request.headers["host"] == f"{RECEIVER_HOST}:{receiver.port}"
    assert request.headers["content-type"] == "application/json"
    assert receiver.sni_names == [RECEIVER_HOST]


def test_connections_are_reused_while_the_resolution_is_unchanged(
    receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    client = make_client()
    for _ in range(3):
        assert client.post(receiver.url(), content=BODY, headers={}).status == 200
    assert len(receiver.requests) == 3
    assert receiver.connection_count == 1
    assert resolver.calls == [RECEIVER_HOST] * 3  # checked again on every request


def test_certificate_for_another_name_is_refused(
    receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    resolver.answer("impostor.herald.test", ["127.0.0.1"])
    with pytest.raises(TlsFailed, match="TLS handshake"):
        make_client().post(receiver.url(host="impostor.herald.test"), content=BODY, headers={})
    assert receiver.requests == []


def test_certificate_from_an_untrusted_ca_is_refused(
    receiver: HttpsReceiver, make_client: MakeClient, tmp_path: object
) -> None:
    other = trustme.CA()
    path = f"{tmp_path}/other-ca.pem"
    other.cert_pem.write_to_path(path)
    with pytest.raises(TlsFailed):
        make_client(ca_file=path).post(receiver.url(), content=BODY, headers={})
    assert receiver.requests == []


def test_ssl_cert_file_is_trusted_when_set(
    receiver: HttpsReceiver, make_client: MakeClient, ca_file: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    with pytest.raises(TlsFailed):  # the default trust store does not know the test CA
        make_client(ca_file=None).post(receiver.url(), content=BODY, headers={})
    monkeypatch.setenv("SSL_CERT_FILE", ca_file)
    assert make_client(ca_file=None).post(receiver.url(), content=BODY, headers={}).status == 200


@pytest.mark.parametrize(
    "answers",
    [["10.0.0.7"], ["93.184.215.14", "192.168.1.20"], ["::ffff:169.254.169.254"], ["fd12::1"]],
)
def test_a_name_resolving_to_a_forbidden_address_is_refused_before_connecting(
    answers: list[str], receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    resolver.answer(RECEIVER_HOST, answers)
    with pytest.raises(InvalidWebhookUrl, match="resolves to"):
        make_client().post(receiver.url(), content=BODY, headers={})
    assert receiver.requests == []
    assert receiver.connection_count == 0


def test_rebinding_to_a_private_address_after_the_check_is_refused(
    receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    # Saved while the name pointed at a public address ...
    resolver.answer(RECEIVER_HOST, ["93.184.215.14"], ["127.0.0.1"], ["10.9.8.7"])
    target, addresses = check_target_url(receiver.url(), TargetPolicy(), resolver)
    assert [str(a) for a in addresses] == ["93.184.215.14"]
    client = make_client()
    # ... delivered while it points at an (allow-listed) loopback receiver: one lookup, that
    # address, and the connection goes to exactly it ...
    assert client.post(target, content=BODY, headers={}).remote_address == "127.0.0.1"
    # ... and refused once the name rebinds to a private address, with no new connection.
    with pytest.raises(InvalidWebhookUrl, match="outside the public internet"):
        client.post(target, content=BODY, headers={})
    assert resolver.calls == [RECEIVER_HOST] * 3
    assert len(receiver.requests) == 1
    assert receiver.connection_count == 1


def test_a_redirect_to_a_private_address_is_not_followed(
    ca: trustme.CA, receiver: HttpsReceiver, make_client: MakeClient
) -> None:
    with HttpsReceiver(ca) as inner:  # reachable, trusted and allow-listed: still never visited
        receiver.script(
            Reply(302, b"", headers=[("Location", inner.url("/stolen", host="127.0.0.1"))]),
            Reply(307, b"", headers=[("Location", "https://169.254.169.254/latest/meta-data/")]),
        )
        client = make_client()
        first = client.post(receiver.url(), content=BODY, headers={})
        outcome = send_attempt(client, receiver.url(), body=BODY, headers={})
        assert first.status == 302
        assert outcome.succeeded is False
        assert outcome.http_status == 307
        assert outcome.error_kind == "redirect"
        assert "169.254.169.254" in (outcome.error or "")
        assert inner.requests == []
        assert len(receiver.requests) == 2


def test_the_kept_response_body_is_bounded(
    receiver: HttpsReceiver, make_client: MakeClient
) -> None:
    receiver.script(Reply(200, b"x" * (1024 * 1024)), Reply(200, b"small"))
    client = make_client(max_response_bytes=64 * 1024)
    big = client.post(receiver.url(), content=BODY, headers={})
    assert (len(big.body), big.truncated) == (64 * 1024, True)
    small = client.post(receiver.url(), content=BODY, headers={})
    assert (small.body, small.truncated) == (b"small", False)


def test_a_target_that_never_answers_times_out(
    receiver: HttpsReceiver, make_client: MakeClient
) -> None:
    receiver.script(Reply(200, delay=30))
    with pytest.raises(TimedOut, match=r"within 0\.5 s"):
        make_client(timeout=0.5).post(receiver.url(), content=BODY, headers={})


def test_the_timeout_is_total_not_per_read(
    receiver: HttpsReceiver, make_client: MakeClient
) -> None:
    # Each byte arrives well within any per-read timeout; only a total deadline stops this.
    receiver.script(Reply(200, b"y" * 40, drip_interval=0.05))
    with pytest.raises(TimedOut):
        make_client(timeout=0.5).post(receiver.url(), content=BODY, headers={})


def test_a_refused_connection_fails_cleanly(
    make_client: MakeClient, resolver: FakeResolver
) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago, nobody listening
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectFailed, match="could not connect"):
        make_client().post(f"https://{RECEIVER_HOST}:{port}/", content=BODY, headers={})


def test_unresolvable_names_fail_as_resolution_errors(make_client: MakeClient) -> None:
    with pytest.raises(ResolutionFailed, match=r"nowhere\.herald\.test"):
        make_client().post("https://nowhere.herald.test/", content=BODY, headers={})


def test_the_rules_are_checked_at_request_time_too(make_client: MakeClient) -> None:
    client = make_client(policy=TargetPolicy())  # no allow-list: loopback is forbidden again
    for url in ("https://127.0.0.1:8443/", "http://example.com/", "https://u:p@example.com/"):
        with pytest.raises(InvalidWebhookUrl):
            client.post(url, content=BODY, headers={})


def test_send_attempt_classifies_outcomes(receiver: HttpsReceiver, make_client: MakeClient) -> None:
    receiver.script(Reply(500, b"boom"), Reply(204, b""))
    client = make_client()
    failed = send_attempt(client, receiver.url(), body=BODY, headers={})
    assert (failed.succeeded, failed.http_status, failed.error) == (
        False,
        500,
        "http_status: HTTP 500: boom",
    )
    ok = send_attempt(client, receiver.url(), body=BODY, headers={})
    assert (ok.succeeded, ok.http_status, ok.error) == (True, 204, None)
    blocked = send_attempt(client, "https://10.0.0.1/", body=BODY, headers={})
    assert blocked.error_kind == "invalid_webhook_url"
    assert blocked.http_status is None


def test_ipv6_loopback_when_available(ca: trustme.CA, make_client: MakeClient) -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        server = HttpsReceiver(ca, names=("::1",), bind="::1")
    except OSError:
        pytest.skip("IPv6 loopback is not configured here")
    with server:
        response = make_client().post(server.url(host="::1"), content=BODY, headers={})
        assert (response.status, response.remote_address) == (200, "::1")
        assert server.requests[0].headers["host"] == f"[::1]:{server.port}"


def test_a_workspaces_unanswered_names_cannot_take_the_lookups_of_others(
    receiver: HttpsReceiver, resolver: FakeResolver, make_client: MakeClient
) -> None:
    import threading
    import time

    answered = threading.Event()

    def stalling(host: str) -> list[object]:
        if host.startswith("never."):
            answered.wait(30)  # a name server that never answers, as the OS resolver sees it
            raise socket.gaierror(socket.EAI_AGAIN, "Temporary failure in name resolution")
        return list(resolver(host))

    client = make_client(timeout=0.5, resolver=stalling)
    try:
        for _ in range(12):
            started = time.monotonic()
            with pytest.raises(TimedOut):
                client.post(
                    "https://never.hostile.test/hook", content=BODY, headers={}, partition="bad"
                )
            assert time.monotonic() - started < 1.5  # the caller is freed at its deadline
        # Only a few lookup threads are charged to the stalling workspace ...
        assert client.dns.outstanding("bad") == 4
        # ... and another workspace resolves and delivers at once.
        started = time.monotonic()
        response = client.post(receiver.url(), content=BODY, headers={}, partition="good")
        assert response.status == 200
        assert time.monotonic() - started < 0.5
    finally:
        answered.set()
    deadline = time.monotonic() + 5
    while client.dns.outstanding("bad") and time.monotonic() < deadline:
        time.sleep(0.01)
    assert client.dns.outstanding("bad") == 0
