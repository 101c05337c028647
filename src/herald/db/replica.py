"""Reads sent to a PostgreSQL streaming replica (``HERALD_DATABASE_READ_URL``), with fallback.

Only work handed to :meth:`ReadRouter.run` may run on the replica; everything else (writes,
jobs, claims, authentication) uses the primary through :class:`~herald.db.session.SessionFactory`.
That work only reads, so it runs outside a transaction (``sessions.autocommit()``) on both.
``run`` takes the work as a function of a session so that it can run it again on the primary:

- the replica is not configured, is down, or lags more than ``HERALD_DATABASE_READ_MAX_LAG_SECONDS``
  (checked at most once a second, by one thread while the others keep the last answer);
- the caller asks for the primary (``primary=True``: reads that must see their caller's writes),
  unless ``HERALD_DATABASE_READ_WAIT_MS`` is set: then such a read waits up to that long for the
  replica to replay everything the primary had written when the read began (its WAL position,
  ``pg_current_wal_lsn()``, which every write acknowledged before has reached), and reads the
  replica once it has; a replica still behind then leaves the read to the primary
  (``wait_timeout``);
- the work failed on the replica with a database error (a dropped connection, a query cancelled
  by replay, no pooled connection free in time): it runs again on the primary, and an error
  there is the one the client gets;
- the work raised :class:`~herald.errors.NotFound` on the replica: a row written a moment ago
  may not have been replayed yet, so the primary is asked before anyone is told 404.

Each fallback is counted in ``herald_read_replica_fallbacks_total{reason}`` and logged (at most
one warning a minute per reason); ``herald_read_replica_lag_seconds`` is the last lag measured.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from prometheus_client import Counter, Gauge
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from herald.db.engine import make_engine
from herald.db.session import SessionFactory
from herald.errors import NotFound

log = logging.getLogger(__name__)

T = TypeVar("T")

CHECK_SECONDS = 1.0  # how often a healthy replica's lag is measured
DOWN_RETRY_SECONDS = 5.0  # how long an unreachable replica is left alone before trying again
CONNECT_TIMEOUT_SECONDS = 2  # a replica that does not answer costs one request this much
WARN_EVERY_SECONDS = 60.0

READS = Counter(
    "herald_read_replica_reads_total",
    "Replica-eligible reads of this process, by the database that answered",
    ["target"],
)
FALLBACKS = Counter(
    "herald_read_replica_fallbacks_total",
    "Replica-eligible reads that ran on the primary instead, by reason",
    ["reason"],
)
LAG = Gauge(
    "herald_read_replica_lag_seconds",
    "Replay lag of the read replica at its last check (-1: unreachable)",
)
REASONS = ("down", "lag", "error", "not_found", "wait_timeout")
WAIT_POLL_SECONDS = 0.002  # how often a read waiting for replay asks the replica again

_PRIMARY_POSITION = text("SELECT pg_current_wal_lsn()")
# NULL (a server that never replayed WAL) is not caught up: its data is not the primary's.
_REPLAYED = text(
    "SELECT COALESCE(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), CAST(:lsn AS pg_lsn)) >= 0, false)"
)

_REPLICA_STATE = text(
    "SELECT pg_is_in_recovery(), "
    "pg_last_wal_replay_lsn() IS NULL OR pg_wal_lsn_diff(pg_last_wal_replay_lsn(), "
    "CAST(:lsn AS pg_lsn)) >= 0, "
    "COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0)"
)


class ReadRouter:
    """Where a read-only unit of work runs: the replica when it is healthy, else the primary."""

    def __init__(
        self,
        primary: SessionFactory,
        read_url: str | None,
        *,
        max_lag_seconds: float,
        wait_seconds: float = 0.0,
    ) -> None:
        self.primary = primary
        self.max_lag_seconds = max_lag_seconds
        self.wait_seconds = wait_seconds  # how long a read may wait for its writes' replay
        self.check_seconds = CHECK_SECONDS
        self.engine: Engine | None = None
        self._sessions: sessionmaker[Session] | None = None
        if read_url:
            connect_args = {}
            if "connect_timeout" not in make_url(read_url).query:
                connect_args["connect_timeout"] = CONNECT_TIMEOUT_SECONDS
            self.engine = make_engine(read_url, connect_args=connect_args)
            # Outside a transaction, as on the primary: a replica takes no writes anyway.
            self._sessions = sessionmaker(
                bind=self.engine.execution_options(isolation_level="AUTOCOMMIT"),
                expire_on_commit=False,
            )
            for reason in REASONS:
                FALLBACKS.labels(reason)  # exported from the start, at 0
        self._usable = False
        self._reason = "down"
        self._next_check = 0.0
        self._check_lock = threading.Lock()
        self._last_warning: dict[str, float] = {}

    @property
    def configured(self) -> bool:
        return self._sessions is not None

    def run(
        self,
        work: Callable[[Session], T],
        *,
        primary: bool = False,
        session: Session | None = None,
    ) -> T:
        """``work(session)`` on the replica when it may answer, otherwise on the primary.
        ``primary=True``: the work must see every write made before it began. ``session``: a
        primary session of the caller's (from ``sessions.autocommit()``) that work on the
        primary runs in, instead of checking out a connection of its own; left open."""
        if self._sessions is None or (primary and self.wait_seconds <= 0):
            return self._on_primary(work, session)
        if session is not None:
            session.close()  # its connection back to the pool; a fall-back checks one out again
        if not self._replica_usable():
            return self._fall_back(work, self._reason, session)
        if primary:
            reason = self._replay_awaited()
            if reason is not None:
                return self._fall_back(work, reason, session)
        try:
            result = self._on_replica(work)
        except NotFound:
            return self._fall_back(work, "not_found", session)
        except SQLAlchemyError as exc:  # a database error, or no connection free in time
            self._next_check = 0.0  # the next read measures the replica again (down? lagging?)
            self._warn("error", f"a read failed on the replica ({type(exc).__name__}: {exc})")
            return self._fall_back(work, "error", session)
        READS.labels("replica").inc()
        return result

    def check(self) -> None:
        """Measure the replica now: reachable, and how far its replay is behind the primary."""
        assert self.engine is not None
        try:
            with self.primary.engine.connect() as connection:
                primary_lsn = connection.execute(text("SELECT pg_current_wal_lsn()")).scalar_one()
        except SQLAlchemyError:
            # Nothing to compare with: the last answer stands (and reads that fall back to an
            # unreachable primary fail as they would without a replica).
            self._next_check = time.monotonic() + self.check_seconds
            return
        try:
            with self.engine.connect() as connection:
                row = connection.execute(_REPLICA_STATE, {"lsn": str(primary_lsn)}).one()
        except SQLAlchemyError as exc:
            self._mark_down(exc)
            return
        in_recovery, caught_up, behind_seconds = bool(row[0]), bool(row[1]), float(row[2])
        # Caught up with what the primary had written a moment ago: no lag, however long ago
        # its last transaction was. Otherwise the age of the last transaction replayed.
        lag = 0.0 if caught_up or not in_recovery else max(behind_seconds, 0.0)
        LAG.set(lag)
        self._next_check = time.monotonic() + self.check_seconds
        if lag > self.max_lag_seconds:
            self._usable, self._reason = False, "lag"
            self._warn("lag", f"the read replica is {lag:.1f} s behind; reading from the primary")
        else:
            self._usable = True

    def _replay_awaited(self) -> str | None:
        """None once the replica has replayed the primary's writes (within ``wait_seconds``),
        else why the read goes to the primary."""
        try:
            if self._wait_for_replay():
                return None
        except SQLAlchemyError as exc:
            self._next_check = 0.0  # the next read measures the replica again
            self._warn("error", f"waiting for the replica's replay failed ({exc})")
            return "error"
        self._warn(
            "wait_timeout",
            f"the read replica had not replayed the primary's writes within "
            f"{self.wait_seconds * 1000:.0f} ms; reading from the primary",
        )
        return "wait_timeout"

    def _wait_for_replay(self) -> bool:
        """Whether the replica replays, within ``wait_seconds``, everything the primary had
        written when this was called (the caller's own writes among them)."""
        assert self.engine is not None
        deadline = time.monotonic() + self.wait_seconds
        with self.primary.engine.connect() as connection:
            position = str(connection.execute(_PRIMARY_POSITION).scalar_one())
        with self.engine.connect() as connection:
            while not connection.execute(_REPLAYED, {"lsn": position}).scalar_one():
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                time.sleep(min(WAIT_POLL_SECONDS, left))
        return True

    def close(self) -> None:
        if self.engine is not None:
            self.engine.dispose()

    def _replica_usable(self) -> bool:
        if time.monotonic() >= self._next_check and self._check_lock.acquire(blocking=False):
            try:
                if time.monotonic() >= self._next_check:
                    self.check()
            finally:
                self._check_lock.release()
        return self._usable

    def _mark_down(self, exc: BaseException) -> None:
        self._usable, self._reason = False, "down"
        self._next_check = time.monotonic() + DOWN_RETRY_SECONDS
        LAG.set(-1)
        self._warn("down", f"the read replica is unreachable ({exc}); reading from the primary")

    def _on_replica(self, work: Callable[[Session], T]) -> T:
        assert self._sessions is not None
        session = self._sessions()
        try:
            return work(session)
        finally:
            session.close()

    def _on_primary(self, work: Callable[[Session], T], session: Session | None) -> T:
        if session is not None:
            result = work(session)
        else:
            with self.primary.autocommit() as own:
                result = work(own)
        if self._sessions is not None:
            READS.labels("primary").inc()
        return result

    def _fall_back(self, work: Callable[[Session], T], reason: str, session: Session | None) -> T:
        FALLBACKS.labels(reason).inc()
        return self._on_primary(work, session)

    def _warn(self, reason: str, message: str) -> None:
        now = time.monotonic()
        if now - self._last_warning.get(reason, -WARN_EVERY_SECONDS) >= WARN_EVERY_SECONDS:
            self._last_warning[reason] = now
            log.warning(message, extra={"replica_fallback": reason})
