"""Two transactions at once, in a known order: hold one open, start the other, wait until the
database (or SQLite's single writer) makes it wait, then let the first commit."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import psycopg

from herald.runtime import Runtime


def waiting_on_locks(runtime: Runtime) -> int:
    """How many of this database's sessions wait for a lock (PostgreSQL)."""
    url = runtime.settings.database_url.replace("postgresql+psycopg://", "postgresql://")
    with psycopg.connect(url, autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*) FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchone()
    return int(row[0]) if row else 0


def wait_until_blocked(runtime: Runtime, *, timeout: float = 10.0) -> None:
    """Return once another transaction waits for one this test holds open.

    SQLite: a second writer of this process waits on the runtime's write lock; there is nothing
    to observe, so this gives it time to get there."""
    if runtime.settings.database_url.startswith("sqlite"):
        time.sleep(0.5)
        return
    deadline = time.monotonic() + timeout
    while waiting_on_locks(runtime) == 0:
        if time.monotonic() > deadline:
            raise AssertionError("the second transaction never waited for the first")
        time.sleep(0.02)


class Background(threading.Thread):
    """Runs ``work`` in a thread and keeps its result or exception for :meth:`outcome`."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__(daemon=True)
        self._work = work
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self._work()
        except BaseException as exc:  # re-raised in outcome()
            self.error = exc

    def outcome(self, timeout: float = 30.0) -> Any:
        self.join(timeout)
        assert not self.is_alive(), "the background transaction did not finish"
        if self.error is not None:
            raise self.error
        return self.result


@contextmanager
def held_open(runtime: Runtime, work: Callable[[Any], Any]) -> Iterator[Background]:
    """Run ``work(session)`` in a write transaction in a thread and keep it open (uncommitted)
    until the block ends; then it commits. Yields the thread (its ``result`` is ``work``'s)."""
    done = threading.Event()
    release = threading.Event()

    def run() -> Any:
        with runtime.sessions.write() as session:
            result = work(session)
            done.set()
            release.wait(30)
        return result

    thread = Background(run)
    thread.start()
    if not done.wait(30):
        thread.outcome()  # raises what stopped it
        raise AssertionError("the held transaction did not get there")
    try:
        yield thread
    finally:
        release.set()
        thread.outcome()
