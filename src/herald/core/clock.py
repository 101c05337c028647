"""The one source of "now" in Herald.

No module reads ``datetime.now()`` on its own: services take a :class:`Clock`, so schedules,
windows, retries and the 72-hour rule are testable to the second with :class:`FrozenClock`.
"""

from __future__ import annotations

import threading
import time
from datetime import UTC, date, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current instant, timezone-aware in UTC."""
        ...

    def monotonic(self) -> float:
        """Seconds from an arbitrary origin, for measuring durations."""
        ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)

    def monotonic(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)


class FrozenClock:
    """A clock that moves only when told to; ``sleep`` advances it instantly.

    Shipped in the package (not only in tests) because it is a fake of a port we own.
    """

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FrozenClock needs a timezone-aware start")
        self._now = start.astimezone(UTC)
        self._mono = 0.0
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def monotonic(self) -> float:
        with self._lock:
            return self._mono

    def sleep(self, seconds: float) -> None:
        self.advance(timedelta(seconds=max(seconds, 0)))

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self._now += delta
            self._mono += delta.total_seconds()

    def set(self, instant: datetime) -> None:
        with self._lock:
            new = instant.astimezone(UTC)
            self._mono += max((new - self._now).total_seconds(), 0.0)
            self._now = new


def utc_today(clock: Clock) -> date:
    return clock.now().date()


def isoformat_z(value: datetime) -> str:
    """Render an instant as ISO 8601 UTC with ``Z`` (the API's only timestamp format).

    Years below 1000 are zero-padded (``0999-...``), which ``strftime("%Y")`` does not do.
    """
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    naive = value.astimezone(UTC).replace(tzinfo=None)
    timespec = "milliseconds" if naive.microsecond // 1000 else "seconds"
    return naive.isoformat(timespec=timespec) + "Z"
