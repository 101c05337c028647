"""Units of work: the request or task boundary commits; services never do.

``with sessions.write() as s:`` opens a write transaction (IMMEDIATE on SQLite) and commits on
success, rolls back on error. ``sessions.read()`` is for read-only work. After a write commits,
``on_commit`` callbacks run (the job queue uses one to wake local workers).
``sessions.autocommit()`` runs each statement on its own, outside a transaction, on PostgreSQL:
for work that needs neither one snapshot nor a lock across its statements.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from herald.db.engine import WRITE_OPTION, is_sqlite

AFTER_COMMIT_KEY = "herald_after_commit"


class SessionFactory:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        write_engine = engine.execution_options(**{WRITE_OPTION: True})
        self._read = sessionmaker(bind=engine, expire_on_commit=False, autoflush=True)
        self._write = sessionmaker(bind=write_engine, expire_on_commit=False, autoflush=True)
        self._autocommit = self._read
        if not is_sqlite(engine):
            self._autocommit = sessionmaker(
                bind=engine.execution_options(isolation_level="AUTOCOMMIT"),
                expire_on_commit=False,
                autoflush=True,
            )
        self._commit_listeners: list[Callable[[], None]] = []
        self._lock = threading.Lock()
        # SQLite has one writer. Threads of this process queue on a lock instead of in SQLite's
        # busy handler (which sleeps up to 100 ms between tries); other processes still queue
        # on the database lock. Re-entrant so a nested write fails the same way as before.
        self._write_lock: threading.RLock | None = threading.RLock() if is_sqlite(engine) else None

    def add_commit_listener(self, listener: Callable[[], None]) -> None:
        with self._lock:
            self._commit_listeners.append(listener)

    @contextmanager
    def write(self) -> Iterator[Session]:
        lock: AbstractContextManager[object] = self._write_lock or nullcontext()
        with lock:
            session = self._write()
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise
            finally:
                session.close()
        self._after_commit(session)  # outside the lock: callbacks may write again

    @contextmanager
    def read(self) -> Iterator[Session]:
        session = self._read()
        try:
            yield session
        finally:
            # close() ends the transaction and detaches objects without expiring them, so rows
            # read here stay usable after the block.
            session.close()

    @contextmanager
    def autocommit(self) -> Iterator[Session]:
        """Statements that each stand alone. On PostgreSQL they run outside a transaction: no
        BEGIN and no ROLLBACK, two round trips fewer than :meth:`read`; each statement sees
        every commit made before it began, as it would inside a READ COMMITTED transaction
        (Herald's), and a write commits when its statement ends. For reads that need no single
        snapshot and single-statement writes that need no lock held after them (an API key
        and its rate bucket). On SQLite, whose rate buckets are in memory, this is :meth:`read`.
        """
        session = self._autocommit()
        try:
            yield session
        finally:
            session.close()

    def _after_commit(self, session: Session) -> None:
        callbacks: list[Callable[[], None]] = session.info.pop(AFTER_COMMIT_KEY, [])
        for callback in callbacks:
            callback()
        if session.info.pop("herald_jobs_enqueued", False):
            for listener in list(self._commit_listeners):
                listener()


def after_commit(session: Session, callback: Callable[[], None]) -> None:
    """Run ``callback`` once the unit of work that owns ``session`` has committed."""
    session.info.setdefault(AFTER_COMMIT_KEY, []).append(callback)
