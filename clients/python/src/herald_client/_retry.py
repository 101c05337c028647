"""When to send a request again, and how long to wait first."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from time import time

import httpx

__all__ = ["RetryPolicy", "parse_retry_after"]

# 408 and 409 are not here: Herald's 409 (monitor_disabled) does not clear by waiting.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a ``retry-after`` header (delta-seconds or an HTTP date); None if absent."""
    if value is None:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time() if now is None else now))


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for retryable endpoints.

    Attempt ``n`` (0-based) waits ``min(max_delay, initial_delay * 2**n)`` scaled by a random
    factor in [0.75, 1] (so clients that failed together do not retry together). A 429 with
    ``retry-after`` waits exactly that long, unless it is over ``max_retry_after``: then the
    ``RateLimitError`` is raised at once instead of blocking the caller for minutes.
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    rng: random.Random = field(default_factory=random.Random, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if self.initial_delay < 0 or self.max_delay < 0:
            raise ValueError("retry delays must be >= 0")

    def backoff(self, attempt: int) -> float:
        base = min(self.max_delay, self.initial_delay * (2**attempt))
        return float(base * (1 - 0.25 * self.rng.random()))

    def delay_after_response(self, attempt: int, response: httpx.Response) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up now."""
        if attempt >= self.max_retries or response.status_code not in RETRY_STATUSES:
            return None
        retry_after = parse_retry_after(response.headers.get("retry-after"))
        if retry_after is not None and response.status_code in (429, 503):
            return retry_after if retry_after <= self.max_retry_after else None
        return self.backoff(attempt)

    def delay_after_error(self, attempt: int, error: httpx.TransportError) -> float | None:
        if attempt >= self.max_retries:
            return None
        return self.backoff(attempt)
