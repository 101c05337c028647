"""Counting what one piece of work really sends to the database.

PostgreSQL: libpq's own protocol trace of every connection the engine opens, and in it each
``ReadyForQuery`` the server sends: one per round trip (a query, a BEGIN, a COMMIT or ROLLBACK,
the pool's liveness ping), whatever issued it (SQLAlchemy, the driver or the pool). SQLite has no
wire: there each statement the connection executes is counted (BEGIN included).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from psycopg.pq import ConnStatus, Trace
from sqlalchemy import Engine, event

_SENT = re.compile(r"^F\t\d+\t(?:Query|Parse)\t (?:\"\" )?\"?(.*?)\"?$")


@dataclass
class RoundTrips:
    count: int = 0
    # What the client sent, one line per query or statement: the failure message of a test.
    sent: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.count} round trips:\n" + "\n".join(self.sent)


class RoundTripCounter:
    """Traces every connection ``engine`` opens from now on (the pool is emptied first, so
    pooled connections, with their liveness pings, are traced too); :meth:`counted` counts the
    round trips of the work inside its block. Use between requests, with every connection idle."""

    def __init__(self, engine: Engine, trace_path: Path) -> None:
        self.engine = engine
        self.path = trace_path
        self.on_postgresql = engine.dialect.name == "postgresql"
        self._traced: list[Any] = []
        self._fd = os.open(trace_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        engine.dispose()
        if self.on_postgresql:
            event.listen(engine, "connect", self._trace)

    def close(self) -> None:
        if self.on_postgresql:
            event.remove(self.engine, "connect", self._trace)
            self._flush(retrace=False)
        self.engine.dispose()  # no traced connection stays in the pool
        os.close(self._fd)

    @contextmanager
    def counted(self) -> Iterator[RoundTrips]:
        found = RoundTrips()
        if not self.on_postgresql:
            with _statements_counted(self.engine, found):
                yield found
            return
        self._flush(retrace=True)
        start = self.path.stat().st_size
        yield found
        self._flush(retrace=True)
        with self.path.open("rb") as trace:
            trace.seek(start)
            lines = trace.read().decode("utf-8", "replace").splitlines()
        found.count = sum(1 for line in lines if line.startswith("B\t5\tReadyForQuery"))
        found.sent = [m.group(1)[:120] for line in lines if (m := _SENT.match(line))]

    def _trace(self, dbapi_connection: Any, _record: Any) -> None:
        self._start(dbapi_connection.pgconn)
        self._traced.append(dbapi_connection.pgconn)

    def _start(self, pgconn: Any) -> None:
        pgconn.trace(self._fd)
        pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)

    def _flush(self, *, retrace: bool) -> None:
        """Write out libpq's buffered trace lines (untracing flushes them)."""
        self._traced = [c for c in self._traced if c.status == ConnStatus.OK]
        for pgconn in self._traced:
            pgconn.untrace()
            if retrace:
                self._start(pgconn)


@contextmanager
def _statements_counted(engine: Engine, found: RoundTrips) -> Iterator[None]:
    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        found.count += 1
        found.sent.append(statement.split("\n")[0][:120])

    event.listen(engine, "before_cursor_execute", count)
    try:
        yield
    finally:
        event.remove(engine, "before_cursor_execute", count)
