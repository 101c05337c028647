"""Signing secrets and delivery signatures (a stable scheme receivers rely on; docs/webhooks.md).

* ``X-Service-Signature: t=<unix>,v1=<hex>``: HMAC-SHA256 keyed with the whole secret string
  (UTF-8, ``whsec_`` prefix included) over ``f"{t}." + raw_body`` — what Stripe's verifiers check.
* Standard Webhooks: ``webhook-id`` (the event id), ``webhook-timestamp`` and
  ``webhook-signature: v1,<base64>`` over ``f"{id}.{t}." + raw_body``, keyed with the
  base64-decoded part after ``whsec_`` — what the ``standardwebhooks`` libraries check.

For :data:`ROTATION_OVERLAP` after a rotation both signatures are sent, the new secret first, so
receivers can switch secrets without losing a delivery.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

SECRET_PREFIX = "whsec_"  # noqa: S105 (a format prefix, not a secret)
SECRET_BYTES = 32
ROTATION_OVERLAP = timedelta(hours=24)

SERVICE_SIGNATURE_HEADER = "X-Service-Signature"
SERVICE_EVENT_ID_HEADER = "X-Service-Event-Id"
SERVICE_DELIVERY_ID_HEADER = "X-Service-Delivery-Id"


def new_signing_secret() -> str:
    """``whsec_`` + standard base64 of 32 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode("ascii")


def secret_preview(secret: str) -> str:
    """The only form of a secret that reads return: ``whsec_…`` and the last four characters."""
    return f"{SECRET_PREFIX}…{secret[-4:]}"


def standard_webhooks_key(secret: str) -> bytes:
    """The HMAC key Standard Webhooks libraries derive from a ``whsec_`` secret."""
    if not secret.startswith(SECRET_PREFIX):
        raise ValueError("signing secrets start with whsec_")
    try:
        return base64.b64decode(secret[len(SECRET_PREFIX) :], validate=True)
    except binascii.Error as exc:
        raise ValueError(f"signing secret is not valid base64: {exc}") from None


def service_signature(secret: str, timestamp: int, body: bytes) -> str:
    """Lower-case hex HMAC-SHA256 of ``"{t}." + body`` keyed with the whole secret string."""
    signed = f"{timestamp}.".encode("ascii") + body
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def service_signature_header(
    secrets_newest_first: Sequence[str], timestamp: int, body: bytes
) -> str:
    """``t=<unix>,v1=<hex>[,v1=<hex>]``: one ``v1`` entry per active secret, newest first."""
    _require(secrets_newest_first)
    entries = [f"v1={service_signature(s, timestamp, body)}" for s in secrets_newest_first]
    return ",".join([f"t={timestamp}", *entries])


def standard_signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    signed = f"{message_id}.{timestamp}.".encode() + body
    digest = hmac.new(standard_webhooks_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def standard_signature_header(
    secrets_newest_first: Sequence[str], message_id: str, timestamp: int, body: bytes
) -> str:
    """``v1,<base64> [v1,<base64>]``: space-separated, as the Standard Webhooks spec lists them."""
    _require(secrets_newest_first)
    return " ".join(
        standard_signature(s, message_id, timestamp, body) for s in secrets_newest_first
    )


def delivery_headers(
    *,
    secrets_newest_first: Sequence[str],
    event_id: str,
    delivery_id: str,
    timestamp: int,
    body: bytes,
) -> dict[str, str]:
    """Every header a delivery attempt carries besides ``Host`` and ``User-Agent``."""
    return {
        "Content-Type": "application/json",
        SERVICE_SIGNATURE_HEADER: service_signature_header(secrets_newest_first, timestamp, body),
        SERVICE_EVENT_ID_HEADER: event_id,
        SERVICE_DELIVERY_ID_HEADER: delivery_id,
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": standard_signature_header(
            secrets_newest_first, event_id, timestamp, body
        ),
    }


@dataclass(frozen=True, slots=True)
class SigningSecret:
    """One stored secret. ``retired_at`` is set when a newer secret replaced it."""

    value: str
    version: int
    created_at: datetime
    retired_at: datetime | None = None


def active_secrets(stored: Sequence[SigningSecret], now: datetime) -> list[str]:
    """The secrets that sign a delivery made at ``now``, newest first.

    The current secret always signs; the one it replaced keeps signing for
    :data:`ROTATION_OVERLAP` after the rotation, so receivers that still hold it keep verifying.
    At most two secrets sign: after two rotations within 24 hours only the latest
    previous secret overlaps.
    """
    current = [s for s in stored if s.retired_at is None]
    if len(current) != 1:
        raise ValueError(f"expected exactly one current signing secret, found {len(current)}")
    retired = [s for s in stored if s.retired_at is not None]
    previous = max(retired, key=lambda s: s.version, default=None)
    retired_at = previous.retired_at if previous is not None else None
    if previous is not None and retired_at is not None and now < retired_at + ROTATION_OVERLAP:
        return [current[0].value, previous.value]
    return [current[0].value]


def _require(values: Sequence[str]) -> None:
    if not values:
        raise ValueError("a delivery needs at least one signing secret")
