"""The receiver helper herald.webhooks.verify: signature, replay window, rotation, envelope."""

from __future__ import annotations

import contextlib
import json
from datetime import UTC, datetime, timedelta

import pytest
import stripe
from hypothesis import given
from hypothesis import strategies as st

from herald.core.clock import FrozenClock
from herald.webhooks.signing import delivery_headers, new_signing_secret, service_signature_header
from herald.webhooks.verify import WebhookVerificationError, verify_delivery, verify_signature

SENT_AT = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
T = int(SENT_AT.timestamp())
EVENT = {
    "id": "evt_abc",
    "type": "webhook.test",
    "created_at": "2026-11-25T12:00:00Z",
    "team_id": "team_1",
    "data": {},
}
BODY = json.dumps(EVENT, separators=(",", ":")).encode()


def clock_at(seconds_after_sending: int) -> FrozenClock:
    return FrozenClock(SENT_AT + timedelta(seconds=seconds_after_sending))


def signed(secrets: list[str], body: bytes = BODY, event_id: str = "evt_abc") -> dict[str, str]:
    return delivery_headers(
        secrets_newest_first=secrets, event_id=event_id, delivery_id="1", timestamp=T, body=body
    )


def test_a_genuine_delivery_verifies_and_returns_the_event() -> None:
    secret = new_signing_secret()
    headers = {k.upper(): v for k, v in signed([secret]).items()}  # any header case works
    assert verify_delivery(BODY, headers, secret, clock=clock_at(3)) == EVENT


@pytest.mark.parametrize(("offset", "ok"), [(300, True), (-300, True), (301, False), (-301, False)])
def test_the_replay_window_is_300_seconds_either_way(offset: int, ok: bool) -> None:
    secret = new_signing_secret()
    header = service_signature_header([secret], T, BODY)
    if ok:
        assert verify_signature(BODY, header, secret, clock=clock_at(offset)) == T
    else:
        with pytest.raises(WebhookVerificationError, match="stale or replayed"):
            verify_signature(BODY, header, secret, clock=clock_at(offset))


def test_either_secret_verifies_during_a_rotation_overlap() -> None:
    old, new = new_signing_secret(), new_signing_secret()
    headers = signed([new, old])
    assert verify_delivery(BODY, headers, old, clock=clock_at(0))["id"] == "evt_abc"
    assert verify_delivery(BODY, headers, new, clock=clock_at(0))["id"] == "evt_abc"
    assert verify_delivery(BODY, headers, [old, new], clock=clock_at(0))["id"] == "evt_abc"
    with pytest.raises(WebhookVerificationError, match="no v1 signature matches"):
        verify_delivery(BODY, headers, new_signing_secret(), clock=clock_at(0))


def test_it_accepts_what_stripes_reference_signer_produces() -> None:
    secret = new_signing_secret()
    header = stripe.WebhookSignature.generate_signature_header(BODY.decode(), secret, timestamp=T)
    assert verify_signature(BODY, header, secret, clock=clock_at(10)) == T


@pytest.mark.parametrize(
    ("header", "message"),
    [
        (None, "missing"),
        ("", "missing"),
        ("garbage", "malformed"),
        (f"v1={'0' * 64}", "exactly one numeric t="),
        (f"t={T},t={T},v1={'0' * 64}", "exactly one numeric t="),
        (f"t=12a,v1={'0' * 64}", "exactly one numeric t="),
        (f"t=\u00b2,v1={'0' * 64}", "exactly one numeric t="),
        (f"t={T}", "no v1 signature"),
        (f"t={T},v0={'0' * 64}", "no v1 signature"),
        (f"t={T},v1={'0' * 64}", "no v1 signature matches"),
    ],
)
def test_malformed_or_forged_headers_are_refused(header: str | None, message: str) -> None:
    with pytest.raises(WebhookVerificationError, match=message):
        verify_signature(BODY, header, new_signing_secret(), clock=clock_at(0))


def test_envelope_checks() -> None:
    secret = new_signing_secret()
    with pytest.raises(WebhookVerificationError, match="does not match the signed event id"):
        verify_delivery(BODY, signed([secret], event_id="evt_other"), secret, clock=clock_at(0))
    for body, message in ((b"not json", "not JSON"), (b"[1,2]", "not a Herald event")):
        with pytest.raises(WebhookVerificationError, match=message):
            verify_delivery(body, signed([secret], body=body), secret, clock=clock_at(0))


def test_bad_arguments_are_programming_errors() -> None:
    header = service_signature_header(["whsec_x"], T, BODY)
    with pytest.raises(ValueError, match="tolerance"):
        verify_signature(BODY, header, "whsec_x", tolerance_seconds=0)
    with pytest.raises(ValueError, match="secret"):
        verify_signature(BODY, header, [], clock=clock_at(0))


@given(st.binary(max_size=500), st.integers(min_value=0, max_value=499), st.integers(1, 255))
def test_any_change_to_the_body_breaks_the_signature(body: bytes, index: int, flip: int) -> None:
    secret = "whsec_" + "A" * 43 + "="
    header = service_signature_header([secret], T, body)
    assert verify_signature(body, header, secret, clock=clock_at(0)) == T
    if body:
        i = index % len(body)
        changed = body[:i] + bytes([body[i] ^ flip]) + body[i + 1 :]
        with pytest.raises(WebhookVerificationError):
            verify_signature(changed, header, secret, clock=clock_at(0))


@pytest.mark.parametrize("forged", ["\u00e9" * 64, "\u00ff", "0" * 63 + "\u0660"])
def test_a_non_ascii_signature_is_refused_not_a_crash(forged: str) -> None:
    """Headers are attacker-controlled text (a server decodes them as Latin-1): a v1 entry that
    is not ASCII is a forged signature like any other, never a TypeError out of the helper."""
    header = f"t={T},v1={forged}"
    with pytest.raises(WebhookVerificationError, match="no v1 signature matches"):
        verify_signature(BODY, header, new_signing_secret(), clock=clock_at(0))


@given(st.text(max_size=200))
def test_any_signature_header_is_verified_or_refused(tail: str) -> None:
    secret = new_signing_secret()
    with contextlib.suppress(WebhookVerificationError):
        verify_signature(BODY, f"t={T},{tail}", secret, clock=clock_at(0))
