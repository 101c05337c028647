"""The scheduler thread: runs each registered periodic task on its interval.

Periodic tasks must be safe to run in several schedulers at once (they claim their work in the
database); the scheduler only decides *when* to look.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from herald.jobs.registry import periodic_tasks

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)


class Scheduler:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self.stop_event = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_run: dict[str, float] = {}

    def tick(self) -> int:
        """Run every periodic task that is due; returns how many ran."""
        ran = 0
        now = self.runtime.clock.monotonic()
        for task in periodic_tasks():
            last = self._last_run.get(task.name)
            if last is not None and now - last < task.interval_seconds:
                continue
            self._last_run[task.name] = now
            try:
                task.run(self.runtime)
            except Exception:
                log.exception("periodic task failed", extra={"task": task.name})
            ran += 1
        return ran

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        self.stop_event.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _loop(self) -> None:
        interval = self.runtime.settings.scheduler_tick_seconds
        while not self.stop_event.is_set():
            self.tick()
            self.stop_event.wait(interval)
