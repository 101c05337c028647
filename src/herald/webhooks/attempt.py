"""One delivery attempt: POST the signed body and judge the outcome (stable rules).

An attempt succeeds only on a 2xx within the 10 s deadline. A 3xx is a failure (redirects are
never followed), as is a target that now resolves to a forbidden address: the rules are checked
again at every attempt, not only when the URL was saved.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from prometheus_client import Counter

from herald.core.net import HttpsResponse, RequestFailed, SafeHttpsClient
from herald.core.storable import storable
from herald.errors import InvalidWebhookUrl

ATTEMPTS = Counter(
    "herald_webhook_attempts_total",
    "Webhook delivery attempts made by this process (test events included), by outcome",
    ["outcome"],
)
MAX_ERROR_LENGTH = 500
_BODY_SNIPPET = 200


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    succeeded: bool
    http_status: int | None
    error: str | None  # "<kind>: <detail>", None on success
    duration_ms: int
    response_body: bytes = b""  # bounded by the client (64 KiB kept)

    @property
    def error_kind(self) -> str | None:
        return None if self.error is None else self.error.split(":", 1)[0]


def send_attempt(
    client: SafeHttpsClient,
    url: str,
    *,
    body: bytes,
    headers: Mapping[str, str],
    partition: str = "",
) -> AttemptOutcome:
    outcome = _send(client, url, body=body, headers=headers, partition=partition)
    ATTEMPTS.labels("succeeded" if outcome.succeeded else "failed").inc()
    return outcome


def _send(
    client: SafeHttpsClient,
    url: str,
    *,
    body: bytes,
    headers: Mapping[str, str],
    partition: str,
) -> AttemptOutcome:
    started = time.monotonic()  # a real duration, whatever the injected clock says

    def failed(
        kind: str, detail: str, status: int | None = None, kept: bytes = b""
    ) -> AttemptOutcome:
        error = _error(kind, detail)
        elapsed = round((time.monotonic() - started) * 1000)
        return AttemptOutcome(False, status, error, elapsed, kept)

    try:
        response = client.post(url, content=body, headers=headers, partition=partition)
    except InvalidWebhookUrl as exc:
        return failed("invalid_webhook_url", exc.message)
    except RequestFailed as exc:
        return failed(exc.kind, str(exc))
    return judge(response)


def judge(response: HttpsResponse) -> AttemptOutcome:
    status = response.status
    if 200 <= status < 300:
        return AttemptOutcome(True, status, None, response.duration_ms, response.body)
    if 300 <= status < 400:
        location = (response.header("location") or "no location")[:200]
        detail = f"HTTP {status} redirect to {location} (redirects are not followed)"
        kind = "redirect"
    else:
        snippet = response.body[:_BODY_SNIPPET].decode("utf-8", "replace")
        detail = f"HTTP {status}" + (f": {snippet}" if snippet else "")
        kind = "http_status"
    return AttemptOutcome(False, status, _error(kind, detail), response.duration_ms, response.body)


def _error(kind: str, detail: str) -> str:
    """``"<kind>: <detail>"`` as stored and shown. The detail may quote the receiver's answer,
    which may hold any bytes: a NUL becomes U+FFFD (PostgreSQL text cannot store it, and one
    would fail the recording of the whole batch of attempts)."""
    return storable(f"{kind}: {detail}")[:MAX_ERROR_LENGTH]
