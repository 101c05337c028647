"""The composition root: settings, clock, database and the heavy services, built once.

The API, the workers, the scheduler and the CLI all run on a Runtime. Heavy services (embedding
model, NLP pipeline, search index) are built lazily on first use and shared by every thread;
areas add theirs as ``_lazy`` properties here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine, text

from herald.config import Settings
from herald.core.clock import Clock, SystemClock
from herald.db.engine import make_engine
from herald.db.replica import ReadRouter
from herald.db.session import SessionFactory

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, *, clock: Clock | None = None) -> None:
        self.settings = settings
        self.clock: Clock = clock or SystemClock()
        settings.home.mkdir(parents=True, exist_ok=True)
        self.engine: Engine = make_engine(settings.resolved_database_url)
        self.sessions = SessionFactory(self.engine)
        # Reads that may be answered by a streaming replica (docs/operations.md, "Read replicas").
        self.reads = ReadRouter(
            self.sessions,
            settings.database_read_url,
            max_lag_seconds=settings.database_read_max_lag_seconds,
            wait_seconds=settings.database_read_wait_ms / 1000,
        )
        # Set after a commit that enqueued jobs, so local workers start at once instead of polling.
        self.job_signal = threading.Event()
        self.sessions.add_commit_listener(self.job_signal.set)
        self._services: dict[str, Any] = {}
        self._services_lock = threading.RLock()
        self._closers: list[Callable[[], None]] = []

    @property
    def backend(self) -> str:
        return self.engine.dialect.name

    def service(self, name: str, build: Callable[[], T]) -> T:
        """The shared instance of a lazily built service (built once, thread-safe)."""
        existing = self._services.get(name)
        if existing is not None:
            return existing  # type: ignore[no-any-return]
        with self._services_lock:
            if name not in self._services:
                self._services[name] = build()
            return self._services[name]  # type: ignore[no-any-return]

    def on_close(self, closer: Callable[[], None]) -> None:
        self._closers.append(closer)

    def check_database(self) -> None:
        with self.engine.connect() as connection:
            connection.execute(text("SELECT 1"))

    def close(self) -> None:
        for closer in reversed(self._closers):
            closer()
        self.reads.close()
        self.engine.dispose()
