"""Verify Herald webhook deliveries in your receiver.

::

    from herald_client.webhooks import WebhookVerificationError, verify

    try:
        event = verify(raw_body, request_headers, "whsec_...")
    except WebhookVerificationError:
        ...  # answer 400, do not process

The scheme (stable): ``X-Service-Signature: t=<unix seconds>,v1=<hex>`` where ``v1`` is the
lower-case hex HMAC-SHA256, keyed with the whole secret string (``whsec_...``, UTF-8), of the
bytes ``f"{t}." + raw_body``. For 24 hours after a rotation a delivery carries two ``v1``
entries (new secret first). It is the scheme Stripe's verifiers check.

Checks, in order: the header parses; ``t`` is within ``tolerance`` seconds of now in either
direction (a captured delivery cannot be replayed later); one ``v1`` entry matches one of your
secrets, compared in constant time. Always pass the *raw* body bytes, before any JSON parsing.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence

from pydantic import ValidationError

from herald_client._exceptions import HeraldError
from herald_client.models import WebhookEvent

__all__ = [
    "DEFAULT_TOLERANCE",
    "EVENT_ID_HEADER",
    "SIGNATURE_HEADER",
    "WebhookEvent",
    "WebhookVerificationError",
    "sign",
    "verify",
    "verify_signature",
]

DEFAULT_TOLERANCE = 300
SIGNATURE_HEADER = "X-Service-Signature"
EVENT_ID_HEADER = "X-Service-Event-Id"
# A real header has one t and one or two v1 entries; anything much longer is not Herald's.
_MAX_ENTRIES = 16


class WebhookVerificationError(HeraldError):
    """The delivery is not authentic, not fresh, or not a Herald event: reject it (400)."""


def _as_bytes(payload: bytes | bytearray | memoryview | str) -> bytes:
    return payload.encode("utf-8") if isinstance(payload, str) else bytes(payload)


def _secrets(secret: str | Sequence[str]) -> list[str]:
    keys = [secret] if isinstance(secret, str) else list(secret)
    if not keys or any(not isinstance(k, str) or not k for k in keys):
        raise ValueError("pass one signing secret or a list of them (non-empty strings)")
    return keys


def _parse(header: str | None) -> tuple[int, list[str]]:
    if not header:
        raise WebhookVerificationError(f"missing {SIGNATURE_HEADER} header")
    entries = header.split(",")
    if len(entries) > _MAX_ENTRIES:
        raise WebhookVerificationError(f"{SIGNATURE_HEADER} has too many entries")
    timestamps: list[str] = []
    signatures: list[str] = []
    for entry in entries:
        key, sep, value = entry.strip().partition("=")
        if not sep:
            raise WebhookVerificationError(f"malformed {SIGNATURE_HEADER} entry {entry!r}")
        if key == "t":
            timestamps.append(value)
        elif key == "v1":
            signatures.append(value)
        # Other schemes (a future v2) are ignored, as Stripe's verifiers do.
    if len(timestamps) != 1 or not timestamps[0].isdigit() or not timestamps[0].isascii():
        raise WebhookVerificationError(f"{SIGNATURE_HEADER} needs exactly one numeric t=")
    if not signatures:
        raise WebhookVerificationError(f"{SIGNATURE_HEADER} has no v1= signature")
    return int(timestamps[0]), signatures


def _hmac_hex(secret: str, timestamp: int, payload: bytes) -> str:
    signed = f"{timestamp}.".encode("ascii") + payload
    return hmac.new(secret.encode("utf-8"), signed, hashlib.sha256).hexdigest()


def sign(payload: bytes | str, secret: str | Sequence[str], *, timestamp: int | None = None) -> str:
    """The ``X-Service-Signature`` value Herald would send (one ``v1`` per secret, in order).

    For testing your receiver; Herald signs real deliveries itself.
    """
    moment = int(time.time()) if timestamp is None else int(timestamp)
    body = _as_bytes(payload)
    parts = [f"t={moment}"] + [f"v1={_hmac_hex(s, moment, body)}" for s in _secrets(secret)]
    return ",".join(parts)


def verify_signature(
    payload: bytes | str,
    signature_header: str | None,
    secret: str | Sequence[str],
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> int:
    """Check the signature header against the raw body; return its timestamp (unix seconds).

    ``secret`` may be a list (both secrets during a rotation). ``now`` overrides the clock.
    Raises ``WebhookVerificationError``.
    """
    if tolerance <= 0:
        raise ValueError("tolerance must be a positive number of seconds")
    keys = _secrets(secret)
    timestamp, candidates = _parse(signature_header)
    current = time.time() if now is None else now
    age = current - timestamp
    if abs(age) > tolerance:
        raise WebhookVerificationError(
            f"signature timestamp is {abs(age):.0f} s {'old' if age > 0 else 'in the future'} "
            f"(tolerance {tolerance} s): stale, replayed, or a clock out of sync"
        )
    body = _as_bytes(payload)
    # Every pair is compared, so the time taken does not tell which secret or entry matched.
    matched = False
    for key in keys:
        expected = _hmac_hex(key, timestamp, body)
        for candidate in candidates:
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise WebhookVerificationError("no v1 signature matches this body and secret")
    return timestamp


def _header(headers: Mapping[str, str], name: str) -> str | None:
    wanted = name.lower()
    for key, value in headers.items():
        if key.lower() == wanted:
            return value
    return None


def verify(
    payload: bytes | str,
    headers: Mapping[str, str],
    secret: str | Sequence[str],
    *,
    tolerance: int = DEFAULT_TOLERANCE,
    now: float | None = None,
) -> WebhookEvent:
    """Verify a delivery and return its event (``id``, ``type``, ``created_at``, ``team_id``,
    ``data``).

    ``headers``: the request's headers (any mapping; names are matched case-insensitively).
    Besides the signature, the unsigned ``X-Service-Event-Id`` header must name the signed
    event. Raises ``WebhookVerificationError``.
    """
    body = _as_bytes(payload)
    verify_signature(body, _header(headers, SIGNATURE_HEADER), secret, tolerance=tolerance, now=now)
    try:
        event = WebhookEvent.model_validate(json.loads(body))
    except (ValueError, ValidationError) as exc:
        raise WebhookVerificationError(f"signed body is not a Herald event: {exc}") from exc
    event_id = _header(headers, EVENT_ID_HEADER)
    if event_id is not None and event_id != event.id:
        raise WebhookVerificationError(
            f"{EVENT_ID_HEADER} {event_id!r} does not match the signed event {event.id!r}"
        )
    return event
