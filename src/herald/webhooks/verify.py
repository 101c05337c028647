"""Verify a Herald webhook delivery in your receiver (standard library only, no server parts).

    from herald.webhooks.verify import WebhookVerificationError, verify_delivery

    event = verify_delivery(raw_body, request_headers, "whsec_...")  # raises if not authentic

Checks, in order: the ``X-Service-Signature`` header parses; its timestamp is within
``tolerance_seconds`` (300 by default) of now, in either direction, so a captured delivery cannot
be replayed later; one of its ``v1`` entries is the HMAC-SHA256 of ``"{t}." + raw_body`` under one
of your secrets (compared in constant time). During a secret rotation pass both secrets, or keep
the old one: deliveries carry a signature for each for 24 hours.

Always verify the *raw* bytes of the body, before any JSON parsing or re-encoding.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping
from typing import Any

from herald.core.clock import Clock, SystemClock

DEFAULT_TOLERANCE_SECONDS = 300
SIGNATURE_HEADER = "x-service-signature"
EVENT_ID_HEADER = "x-service-event-id"

__all__ = [
    "DEFAULT_TOLERANCE_SECONDS",
    "WebhookVerificationError",
    "verify_delivery",
    "verify_signature",
]


class WebhookVerificationError(Exception):
    """The delivery is not authentic or not fresh: answer 400 and do not process it."""


def verify_signature(
    body: bytes | str,
    signature_header: str | None,
    secrets: str | Iterable[str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    clock: Clock | None = None,
) -> int:
    """Check ``X-Service-Signature`` against ``body``; return its timestamp (unix seconds)."""
    if tolerance_seconds <= 0:
        raise ValueError("tolerance_seconds must be positive")
    keys = [secrets] if isinstance(secrets, str) else list(secrets)
    if not keys or any(not k for k in keys):
        raise ValueError("pass at least one non-empty signing secret")
    raw = body.encode("utf-8") if isinstance(body, str) else bytes(body)
    timestamp, candidates = _parse_header(signature_header)

    now = (clock or SystemClock()).now().timestamp()
    if abs(now - timestamp) > tolerance_seconds:
        raise WebhookVerificationError(
            f"signature timestamp is {abs(now - timestamp):.0f} s away from now "
            f"(tolerance {tolerance_seconds} s): stale or replayed delivery"
        )
    signed = f"{timestamp}.".encode("ascii") + raw
    # Compute every comparison, so timing does not reveal which secret or entry matched.
    matched = False
    for key in keys:
        expected = hmac.new(key.encode("utf-8"), signed, hashlib.sha256).hexdigest()
        for candidate in candidates:
            matched |= hmac.compare_digest(expected, candidate)
    if not matched:
        raise WebhookVerificationError("no v1 signature matches the body and secret")
    return timestamp


def verify_delivery(
    body: bytes | str,
    headers: Mapping[str, str],
    secrets: str | Iterable[str],
    *,
    tolerance_seconds: int = DEFAULT_TOLERANCE_SECONDS,
    clock: Clock | None = None,
) -> dict[str, Any]:
    """Verify a delivery and return its event envelope (``id``, ``type``, ``created_at``,
    ``team_id``, ``data``). ``headers`` may use any letter case."""
    lowered = {k.lower(): v for k, v in headers.items()}
    verify_signature(
        body,
        lowered.get(SIGNATURE_HEADER),
        secrets,
        tolerance_seconds=tolerance_seconds,
        clock=clock,
    )
    try:
        event = json.loads(body)
    except ValueError:
        raise WebhookVerificationError("body is not JSON") from None
    if not isinstance(event, dict) or not isinstance(event.get("id"), str):
        raise WebhookVerificationError("body is not a Herald event envelope")
    header_id = lowered.get(EVENT_ID_HEADER)
    if header_id is not None and header_id != event["id"]:
        raise WebhookVerificationError("X-Service-Event-Id does not match the signed event id")
    return event


def _parse_header(header: str | None) -> tuple[int, list[str]]:
    if not header:
        raise WebhookVerificationError("missing X-Service-Signature header")
    timestamps: list[str] = []
    candidates: list[str] = []
    for item in header.split(","):
        key, sep, value = item.strip().partition("=")
        if not sep:
            raise WebhookVerificationError("malformed X-Service-Signature header")
        if key == "t":
            timestamps.append(value)
        elif key == "v1":
            # A digest is ASCII hex; anything else cannot match (and compare_digest refuses
            # non-ASCII text with a TypeError), so it counts as a wrong signature.
            candidates.append(value.lower() if value.isascii() else "")
        # Unknown schemes are ignored: a future scheme may be sent alongside v1.
    stamp = timestamps[0] if len(timestamps) == 1 else ""
    if not (stamp.isascii() and stamp.isdigit()) or len(stamp) > 12:
        raise WebhookVerificationError("X-Service-Signature needs exactly one numeric t= entry")
    if not candidates:
        raise WebhookVerificationError("X-Service-Signature has no v1 signature")
    return int(stamp), candidates
