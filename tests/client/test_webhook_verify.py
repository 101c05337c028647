"""``herald_client.webhooks``: verification against independent signers (a hand-written HMAC,
Stripe's signer, Herald's own server signer) and every way a delivery must be refused."""

from __future__ import annotations

import hashlib
import hmac
import json
import time

import pytest
import stripe
from herald_client import HeraldError
from herald_client.webhooks import (
    WebhookVerificationError,
    sign,
    verify,
    verify_signature,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from herald.webhooks.signing import delivery_headers, new_signing_secret

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3b0w5n6ZVxg="
OLD_SECRET = "whsec_c2VjcmV0LW9mLXRoZS1wcmV2aW91cy12ZXJzaW9uISE="
NOW = 1_795_000_000
EVENT = {
    "id": "evt_123",
    "type": "webhook.test",
    "created_at": "2026-11-25T12:00:00Z",
    "team_id": "team_1",
    "data": {"message": "hello"},
}
BODY = json.dumps(EVENT, separators=(",", ":")).encode()


def independent_header(secret: str, timestamp: int, body: bytes) -> str:
    """The pinned scheme written out from API-DECISIONS.md, sharing no code with the client."""
    mac = hmac.new(secret.encode("utf-8"), str(timestamp).encode() + b"." + body, hashlib.sha256)
    return f"t={timestamp},v1={mac.hexdigest()}"


def test_a_delivery_signed_by_an_independent_hmac_verifies() -> None:
    headers = {
        "x-service-signature": independent_header(SECRET, NOW, BODY),
        "x-service-event-id": "evt_123",
    }
    event = verify(BODY, headers, SECRET, now=NOW + 10)
    assert (event.id, event.type, event.team_id) == ("evt_123", "webhook.test", "team_1")
    assert event.data == {"message": "hello"}


def test_a_delivery_signed_by_herald_itself_verifies_with_either_secret() -> None:
    new = new_signing_secret()
    headers = delivery_headers(
        secrets_newest_first=[new, OLD_SECRET],
        event_id="evt_123",
        delivery_id="7",
        timestamp=NOW,
        body=BODY,
    )
    assert verify(BODY, headers, new, now=NOW).id == "evt_123"
    assert verify(BODY, headers, OLD_SECRET, now=NOW).id == "evt_123"
    assert verify(BODY, headers, [SECRET, OLD_SECRET], now=NOW).id == "evt_123"
    with pytest.raises(WebhookVerificationError, match="no v1 signature matches"):
        verify(BODY, headers, SECRET, now=NOW)


def test_stripes_signer_and_the_client_agree_both_ways() -> None:
    now = int(time.time())  # Stripe's verifier reads the real clock
    payload = BODY.decode()
    stripe_header = stripe.WebhookSignature.generate_signature_header(payload, SECRET, now)
    assert verify_signature(BODY, stripe_header, SECRET) == now
    ours = sign(BODY, SECRET, timestamp=now)
    assert ours == stripe_header
    assert stripe.WebhookSignature.verify_header(payload, ours, SECRET, tolerance=300)


def test_sign_lists_one_entry_per_secret_newest_first() -> None:
    header = sign(BODY, [SECRET, OLD_SECRET], timestamp=NOW)
    t, first, second = header.split(",")
    assert t == f"t={NOW}"
    assert first == independent_header(SECRET, NOW, BODY).split(",")[1]
    assert second == independent_header(OLD_SECRET, NOW, BODY).split(",")[1]


def test_the_300_second_tolerance_holds_in_both_directions() -> None:
    header = independent_header(SECRET, NOW, BODY)
    assert verify_signature(BODY, header, SECRET, now=NOW + 300) == NOW
    assert verify_signature(BODY, header, SECRET, now=NOW - 300) == NOW
    with pytest.raises(WebhookVerificationError, match="301 s old"):
        verify_signature(BODY, header, SECRET, now=NOW + 301)
    with pytest.raises(WebhookVerificationError, match="in the future"):
        verify_signature(BODY, header, SECRET, now=NOW - 301)
    assert verify_signature(BODY, header, SECRET, now=NOW + 3000, tolerance=3600) == NOW


@pytest.mark.parametrize(
    ("header", "match"),
    [
        (None, "missing"),
        ("", "missing"),
        (f"v1={'0' * 64}", "exactly one numeric t="),
        (f"t=abc,v1={'0' * 64}", "exactly one numeric t="),
        (f"t={NOW},t={NOW},v1={'0' * 64}", "exactly one numeric t="),
        (f"t={NOW}", "no v1"),
        (f"t={NOW},v0=abc", "no v1"),
        (f"t={NOW},garbage", "malformed"),
        (f"t={NOW}," + ",".join(["v1=00"] * 20), "too many"),
        (f"t={NOW},v1={'0' * 64}", "no v1 signature matches"),
    ],
)
def test_malformed_or_wrong_headers_are_refused(header: str | None, match: str) -> None:
    with pytest.raises(WebhookVerificationError, match=match):
        verify_signature(BODY, header, SECRET, now=NOW)


def test_the_signature_covers_the_timestamp_and_the_exact_bytes() -> None:
    header = independent_header(SECRET, NOW, BODY)
    moved = header.replace(f"t={NOW}", f"t={NOW + 1}")
    with pytest.raises(WebhookVerificationError):
        verify_signature(BODY, moved, SECRET, now=NOW)
    reencoded = json.dumps(EVENT).encode()  # same JSON, other bytes
    with pytest.raises(WebhookVerificationError):
        verify_signature(reencoded, header, SECRET, now=NOW)
    # The key is the whole secret string, prefix included (not the base64-decoded bytes).
    with pytest.raises(WebhookVerificationError):
        verify_signature(BODY, header, SECRET.removeprefix("whsec_"), now=NOW)


def test_verify_checks_the_event_id_header_and_the_envelope() -> None:
    header = independent_header(SECRET, NOW, BODY)
    with pytest.raises(WebhookVerificationError, match="does not match the signed event"):
        verify(
            BODY,
            {"X-Service-Signature": header, "X-Service-Event-Id": "evt_other"},
            SECRET,
            now=NOW,
        )
    not_an_event = b'{"hello": "world"}'
    with pytest.raises(WebhookVerificationError, match="not a Herald event"):
        verify(
            not_an_event,
            {"X-Service-Signature": independent_header(SECRET, NOW, not_an_event)},
            SECRET,
            now=NOW,
        )
    assert issubclass(WebhookVerificationError, HeraldError)


def test_secrets_must_be_given() -> None:
    header = independent_header(SECRET, NOW, BODY)
    for bad in ("", [], [SECRET, ""]):
        with pytest.raises(ValueError, match="signing secret"):
            verify_signature(BODY, header, bad, now=NOW)
    with pytest.raises(ValueError, match="tolerance"):
        verify_signature(BODY, header, SECRET, now=NOW, tolerance=0)


@settings(max_examples=60, deadline=None)
@given(
    body=st.binary(max_size=2000),
    secret=st.text(min_size=1, max_size=60),
    timestamp=st.integers(min_value=0, max_value=2**33),
    flip=st.integers(min_value=0),
)
def test_any_signed_body_verifies_and_any_changed_byte_does_not(
    body: bytes, secret: str, timestamp: int, flip: int
) -> None:
    header = sign(body, secret, timestamp=timestamp)
    assert header == independent_header(secret, timestamp, body)
    assert verify_signature(body, header, secret, now=timestamp) == timestamp
    if body:
        index = flip % len(body)
        changed = body[:index] + bytes([body[index] ^ 0x01]) + body[index + 1 :]
        with pytest.raises(WebhookVerificationError):
            verify_signature(changed, header, secret, now=timestamp)
