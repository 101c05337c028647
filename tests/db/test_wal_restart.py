"""SQLite's write-ahead log stays bounded while readers are always open.

The automatic checkpoints copy the log into the database but start it over only when no reader
is open; readers whose transactions overlap (API requests, the workers' reads) keep one open at
every moment, and the file then grew with every write, for good. The scheduler now starts it
over regularly. Real SQLite file, real threads; only the clock that paces the scheduler is fake.
"""

from __future__ import annotations

import os
import threading
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import text

from herald.core.clock import FrozenClock
from herald.db.engine import SQLITE_WAL_RESTART_BYTES, restart_wal
from herald.jobs.maintenance import WAL_RESTART_SECONDS
from herald.jobs.registry import load_handlers
from herald.jobs.scheduler import Scheduler
from herald.runtime import Runtime

WRITES = 6000
ROW = os.urandom(4000)  # about one page: each write adds a few pages to the log
MiB = 1024 * 1024


def _read_forever(runtime: Runtime, stop: threading.Event, offset: float) -> None:
    time.sleep(offset)
    while not stop.is_set():
        with runtime.sessions.read() as session:
            session.execute(text("SELECT count(*) FROM wal_probe")).scalar()
            time.sleep(0.02)  # a 20 ms read: three of them staggered always overlap


def test_the_log_starts_over_while_readers_overlap(runtime: Runtime, clock: FrozenClock) -> None:
    load_handlers()
    scheduler = Scheduler(runtime)
    if runtime.engine.dialect.name != "sqlite":
        scheduler.tick()  # the task runs everywhere and does nothing on PostgreSQL
        return
    wal = Path(runtime.engine.url.database or "").with_name("herald.db-wal")
    with runtime.sessions.write() as session:
        session.execute(text("CREATE TABLE wal_probe (id INTEGER PRIMARY KEY, body BLOB)"))
    stop = threading.Event()
    readers = [
        threading.Thread(target=_read_forever, args=(runtime, stop, index * 0.007))
        for index in range(3)
    ]
    for reader in readers:
        reader.start()
    sizes = []
    try:
        time.sleep(0.05)
        for index in range(1, WRITES + 1):
            with runtime.sessions.write() as session:
                session.execute(text("INSERT INTO wal_probe (body) VALUES (:b)"), {"b": ROW})
            if index % 500 == 0:
                sizes.append(wal.stat().st_size)
                clock.advance(timedelta(seconds=WAL_RESTART_SECONDS + 1))
                scheduler.tick()
    finally:
        stop.set()
        for reader in readers:
            reader.join()
    # 500 writes add about 6 MiB to the log; all 6,000 without a restart, about 70. The log is
    # started over once past 16 MiB, so it never holds much more than that and a turn's writes.
    shown = [round(size / MiB, 1) for size in sizes]
    assert max(sizes) < SQLITE_WAL_RESTART_BYTES + 2 * 6 * MiB, shown


def test_a_small_log_is_left_alone(runtime: Runtime) -> None:
    # Writers wait while the log starts over: under the size, nobody waits for it.
    if runtime.engine.dialect.name != "sqlite":
        assert restart_wal(runtime.engine) is None
        return
    with runtime.sessions.write() as session:
        session.execute(text("CREATE TABLE wal_probe (id INTEGER PRIMARY KEY, body BLOB)"))
        session.execute(text("INSERT INTO wal_probe (body) VALUES (:b)"), {"b": ROW})
    left = restart_wal(runtime.engine)
    assert left is not None
    assert (left.restarted, left.frames) == (False, 0)
    done = restart_wal(runtime.engine, min_bytes=0)
    assert done is not None
    assert done.restarted
    assert done.frames > 0
