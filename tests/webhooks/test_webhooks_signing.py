"""Signatures checked by independent implementations: Stripe's library and standardwebhooks."""

from __future__ import annotations

import base64
from datetime import UTC, datetime, timedelta

import pytest
import standardwebhooks
import stripe
from hypothesis import given
from hypothesis import strategies as st

from herald.core.clock import SystemClock
from herald.webhooks.signing import (
    ROTATION_OVERLAP,
    SigningSecret,
    active_secrets,
    delivery_headers,
    new_signing_secret,
    secret_preview,
    service_signature_header,
    standard_signature_header,
)

BODY = (
    b'{"id":"evt_0123456789abcdefghij","type":"webhook.test","created_at":"2026-11-25T12:00:00Z",'
    b'"team_id":"team_x","data":{"note":"caf\xc3\xa9 \xe2\x80\x94 ok"}}'
)
ROTATED_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


def now_unix() -> int:
    # standardwebhooks checks its 5-minute window against the real clock, so sign with it.
    return int(SystemClock().now().timestamp())


def rotated_pair() -> tuple[str, str, list[SigningSecret]]:
    old, new = new_signing_secret(), new_signing_secret()
    stored = [
        SigningSecret(old, 1, ROTATED_AT - timedelta(days=30), retired_at=ROTATED_AT),
        SigningSecret(new, 2, ROTATED_AT),
    ]
    return old, new, stored


def test_secret_format_and_preview() -> None:
    secret = new_signing_secret()
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret[6:], validate=True)) == 32
    assert new_signing_secret() != secret
    preview = secret_preview(secret)
    assert preview == "whsec_…" + secret[-4:]
    assert secret[6:-4] not in preview


def test_headers_carry_ids_and_both_signature_families() -> None:
    secret, t = new_signing_secret(), now_unix()
    headers = delivery_headers(
        secrets_newest_first=[secret], event_id="evt_1", delivery_id="42", timestamp=t, body=BODY
    )
    assert headers["X-Service-Event-Id"] == headers["webhook-id"] == "evt_1"
    assert headers["X-Service-Delivery-Id"] == "42"
    assert headers["webhook-timestamp"] == str(t)
    assert headers["X-Service-Signature"].startswith(f"t={t},v1=")
    assert headers["webhook-signature"].startswith("v1,")
    assert headers["Content-Type"] == "application/json"


def test_stripe_verifies_the_service_signature() -> None:
    secret = new_signing_secret()
    header = service_signature_header([secret], now_unix(), BODY)
    stripe.WebhookSignature.verify_header(BODY, header, secret, tolerance=300)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(BODY + b" ", header, secret, tolerance=300)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(BODY, header, new_signing_secret(), tolerance=300)


def test_standardwebhooks_verifies_the_standard_headers() -> None:
    secret = new_signing_secret()
    headers = delivery_headers(
        secrets_newest_first=[secret],
        event_id="evt_abc",
        delivery_id="7",
        timestamp=now_unix(),
        body=BODY,
    )
    event = standardwebhooks.Webhook(secret).verify(BODY, headers)
    assert event["id"] == "evt_0123456789abcdefghij"
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(new_signing_secret()).verify(BODY, headers)
    tampered = dict(headers, **{"webhook-id": "evt_other"})
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(secret).verify(BODY, tampered)


def test_during_the_rotation_overlap_both_secrets_verify_with_both_libraries() -> None:
    old, new, stored = rotated_pair()
    during = ROTATED_AT + ROTATION_OVERLAP - timedelta(seconds=1)
    signing = active_secrets(stored, during)
    assert signing == [new, old]  # new first
    t = now_unix()
    headers = delivery_headers(
        secrets_newest_first=signing, event_id="evt_r", delivery_id="9", timestamp=t, body=BODY
    )
    entries = headers["X-Service-Signature"].split(",")
    assert [e.split("=")[0] for e in entries] == ["t", "v1", "v1"]
    assert len(headers["webhook-signature"].split(" ")) == 2
    for secret in (new, old):
        stripe.WebhookSignature.verify_header(
            BODY, headers["X-Service-Signature"], secret, tolerance=300
        )
        standardwebhooks.Webhook(secret).verify(BODY, headers)
    # The first entry is the new secret's, as pinned.
    assert entries[1] == service_signature_header([new], t, BODY).split(",")[1]
    assert headers["webhook-signature"].split(" ")[0] == standard_signature_header(
        [new], "evt_r", t, BODY
    )


def test_after_the_overlap_only_the_new_secret_signs() -> None:
    old, new, stored = rotated_pair()
    after = ROTATED_AT + ROTATION_OVERLAP
    assert active_secrets(stored, after) == [new]
    headers = delivery_headers(
        secrets_newest_first=active_secrets(stored, after),
        event_id="evt_r",
        delivery_id="9",
        timestamp=now_unix(),
        body=BODY,
    )
    stripe.WebhookSignature.verify_header(BODY, headers["X-Service-Signature"], new, tolerance=300)
    with pytest.raises(stripe.SignatureVerificationError):
        stripe.WebhookSignature.verify_header(
            BODY, headers["X-Service-Signature"], old, tolerance=300
        )
    with pytest.raises(standardwebhooks.WebhookVerificationError):
        standardwebhooks.Webhook(old).verify(BODY, headers)


def test_active_secrets_needs_exactly_one_current_secret() -> None:
    _, _, stored = rotated_pair()
    with pytest.raises(ValueError, match="exactly one current"):
        active_secrets(stored[:1], ROTATED_AT)


@given(
    st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=6, unique=True),
    st.integers(min_value=0, max_value=72 * 3600),
)
def test_rotation_overlap_property(retire_offsets: list[int], seconds_after: int) -> None:
    """Newest first; only the latest retired secret signs, exactly while now < retired_at + 24 h."""
    now = ROTATED_AT + timedelta(seconds=seconds_after)
    retired = [
        SigningSecret(f"whsec_old{i}", i + 1, ROTATED_AT, ROTATED_AT - timedelta(seconds=off))
        for i, off in enumerate(sorted(retire_offsets, reverse=True))
    ]
    current = SigningSecret("whsec_current", len(retired) + 1, ROTATED_AT)
    signing = active_secrets([*retired, current], now)
    assert signing[0] == "whsec_current"
    latest = max(retired, key=lambda s: s.version)
    assert latest.retired_at is not None
    expected = [latest.value] if now < latest.retired_at + ROTATION_OVERLAP else []
    assert signing[1:] == expected


@given(st.text(max_size=300), st.integers(min_value=1, max_value=2**33))
def test_stripe_agrees_on_arbitrary_bodies(text: str, timestamp: int) -> None:
    secret = "whsec_" + base64.b64encode(b"k" * 32).decode()
    body = text.encode("utf-8")
    header = service_signature_header([secret], timestamp, body)
    expected = stripe.WebhookSignature._compute_signature(f"{timestamp}.{text}", secret)
    assert header == f"t={timestamp},v1={expected}"
