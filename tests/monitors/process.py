"""A monitors worker or scheduler process for the crash and concurrency tests.

``python -m tests.monitors.process worker|scheduler``: the real ``Worker`` (claims, leases,
heartbeats, retries) or the real periodic claim ``schedule_monitors``, on the database named by
``HERALD_DATABASE_URL``, with the plain ``WordSearch`` port. Stops on SIGTERM; the crash test
kills it with SIGKILL instead.

The clock is the only fake: ``"<start ISO>,<wall seconds>,<scale>"`` (in ``HERALD_TEST_CLOCK``
or the file ``HERALD_TEST_CLOCK_FILE``) makes every process of a test read the same instant,
``start + (time.time() - wall) * scale``, so hours of schedule pass in seconds.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import time
from datetime import datetime, timedelta
from pathlib import Path

from herald.config import Settings
from herald.jobs.registry import load_handlers
from herald.jobs.worker import Worker
from herald.monitors.tasks import schedule_monitors
from herald.runtime import Runtime
from tests.monitors.support import WordSearch, use_word_search


class SharedClock:
    """Instants on a shared, possibly accelerated, timeline (same in every test process)."""

    def __init__(self, start: datetime, wall: float, scale: float) -> None:
        self.start, self.wall, self.scale = start, wall, scale

    def now(self) -> datetime:
        return self.start + timedelta(seconds=(time.time() - self.wall) * self.scale)

    def monotonic(self) -> float:
        return time.monotonic() * self.scale

    def sleep(self, seconds: float) -> None:
        time.sleep(max(seconds, 0) / self.scale)

    @classmethod
    def from_env(cls, value: str) -> SharedClock:
        start, wall, scale = value.split(",")
        return cls(datetime.fromisoformat(start), float(wall), float(scale))

    def env(self) -> str:
        return f"{self.start.isoformat()},{self.wall},{self.scale}"


def shared_clock() -> SharedClock:
    """The clock from ``HERALD_TEST_CLOCK``, or, with ``HERALD_TEST_CLOCK_FILE``, from that file
    once the test writes it (after every process said it was ready: startup time then does not
    eat into an accelerated schedule)."""
    path = os.environ.get("HERALD_TEST_CLOCK_FILE")
    if path is None:
        return SharedClock.from_env(os.environ["HERALD_TEST_CLOCK"])
    ready = Path(path).with_name(f"ready-{os.getpid()}")
    ready.write_text("ready")
    while not Path(path).exists():
        time.sleep(0.05)
    return SharedClock.from_env(Path(path).read_text())


def main(role: str) -> None:
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    load_handlers()
    settings = Settings()
    marker = os.environ.get("HERALD_TEST_STALL_MARKER")
    search = WordSearch(stall_marker=Path(marker) if marker else None)
    runtime = Runtime(settings, clock=shared_clock())
    use_word_search(runtime, search)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    if role == "worker":
        worker = Worker(runtime, lane_threads={"default": 1})
        worker.start()
        stop.wait()
        worker.stop()
    elif role == "scheduler":
        while not stop.is_set():
            schedule_monitors(runtime)
            stop.wait(0.1)
    else:
        raise SystemExit(f"unknown role {role!r}")
    runtime.close()


if __name__ == "__main__":
    main(sys.argv[1])
