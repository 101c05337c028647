"""A PostgreSQL 15 primary and a streaming standby of it, made for one test module and removed.

Both clusters are new (``initdb`` and ``pg_basebackup -R``) in temporary folders owned by the
``postgres`` user, on free loopback ports, with their sockets in those folders: the machine's own
server is never touched. PostgreSQL refuses to run as root, so as root every binary runs as
``postgres`` (``runuser``); as another user it runs as that user. Without the binaries the tests
are skipped, unless HERALD_REQUIRE_POSTGRES=1.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

PG_BIN = Path(os.environ.get("HERALD_TEST_PG_BIN", "/usr/lib/postgresql/15/bin"))
REQUIRE_PG = os.environ.get("HERALD_REQUIRE_POSTGRES") == "1"
PG_USER = "postgres"
READY_TRIES = 600  # x 0.1 s: how long a cluster may take to accept connections or to stream


@dataclass
class Cluster:
    data: Path
    port: int
    log: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{self.port}/{database}"

    def dsn(self, database: str = "postgres") -> str:
        return f"postgresql://{PG_USER}@127.0.0.1:{self.port}/{database}"


@dataclass
class Pair:
    primary: Cluster
    standby: Cluster

    def stop_standby(self) -> None:
        _pg_ctl(self.standby, "stop", "-m", "fast", "-w")

    def start_standby(self) -> None:
        _start(self.standby)
        wait_streaming(self)

    def pause_replay(self) -> None:
        """Hold the standby where it is: it receives WAL but replays none until resumed."""
        with psycopg.connect(self.standby.dsn(), autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_pause()")
            for _ in range(READY_TRIES):
                state = conn.execute("SELECT pg_get_wal_replay_pause_state()").fetchone()
                if state and state[0] == "paused":
                    return
                time.sleep(0.1)
        raise RuntimeError("the standby's replay never paused")

    def resume_replay(self) -> None:
        with psycopg.connect(self.standby.dsn(), autocommit=True) as conn:
            conn.execute("SELECT pg_wal_replay_resume()")
        wait_replayed(self)


def binaries_problem() -> str | None:
    needed = ("initdb", "pg_ctl", "pg_basebackup", "postgres")
    missing = [name for name in needed if not (PG_BIN / name).exists()]
    if missing:
        return f"PostgreSQL 15 binaries missing in {PG_BIN}: {', '.join(missing)}"
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(PG_USER)
    except KeyError:
        return f"no {PG_USER!r} user to run PostgreSQL as (PostgreSQL refuses to run as root)"
    if shutil.which("runuser") is None:
        return "runuser is missing (needed to run PostgreSQL as the postgres user)"
    return None


def _as_postgres(*args: str) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", PG_USER, "--", *args]
    return list(args)


def _run(*args: str) -> None:
    done = subprocess.run(_as_postgres(*args), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _pg_ctl(cluster: Cluster, *args: str) -> None:
    _run(str(PG_BIN / "pg_ctl"), "-D", str(cluster.data), *args)


def _start(cluster: Cluster) -> None:
    options = f"-p {cluster.port} -k {cluster.data.parent} -c listen_addresses=127.0.0.1"
    _pg_ctl(cluster, "start", "-w", "-t", "60", "-l", str(cluster.log), "-o", options)


def _owned_dir(parent: Path, name: str) -> Path:
    path = parent / name
    path.mkdir(mode=0o700)
    _give_to_postgres(path)
    return path


def _give_to_postgres(path: Path) -> None:
    if os.geteuid() == 0:  # otherwise PostgreSQL runs as the user running the tests
        shutil.chown(path, PG_USER, PG_USER)


def _make_primary(root: Path) -> Cluster:
    cluster = Cluster(_owned_dir(root, "primary") / "data", _free_port(), root / "primary.log")
    initdb = str(PG_BIN / "initdb")
    _run(initdb, "-D", str(cluster.data), "-U", PG_USER, "-A", "trust", "-E", "UTF8")
    with (cluster.data / "postgresql.conf").open("a") as conf:
        conf.write("wal_level = replica\nmax_wal_senders = 5\nfsync = off\n")
        conf.write("hot_standby = on\nhot_standby_feedback = on\n")
    with (cluster.data / "pg_hba.conf").open("a") as hba:
        hba.write("host replication postgres 127.0.0.1/32 trust\n")
    _touch_log(cluster.log)
    _start(cluster)
    return cluster


def _make_standby(root: Path, primary: Cluster) -> Cluster:
    cluster = Cluster(_owned_dir(root, "standby") / "data", _free_port(), root / "standby.log")
    _run(
        str(PG_BIN / "pg_basebackup"),
        *("-h", "127.0.0.1", "-p", str(primary.port), "-U", PG_USER),
        *("-D", str(cluster.data), "-R", "-X", "stream", "-c", "fast"),
    )
    _touch_log(cluster.log)
    _start(cluster)
    return cluster


def _touch_log(path: Path) -> None:
    path.touch()
    _give_to_postgres(path)


def wait_streaming(pair: Pair) -> None:
    """Wait until the standby is in recovery and the primary sees it streaming."""
    for _ in range(READY_TRIES):
        try:
            with psycopg.connect(pair.standby.dsn(), connect_timeout=2) as conn:
                row = conn.execute("SELECT pg_is_in_recovery()").fetchone()
            with psycopg.connect(pair.primary.dsn(), connect_timeout=2) as conn:
                streaming = conn.execute(
                    "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'"
                ).fetchone()
            if row and row[0] and streaming and streaming[0] >= 1:
                return
        except psycopg.OperationalError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the standby never streamed; see {pair.standby.log}")


def wait_replayed(pair: Pair) -> None:
    """Wait until the standby has replayed everything the primary had written when called."""
    with psycopg.connect(pair.primary.dsn()) as conn:
        row = conn.execute("SELECT pg_current_wal_lsn()::text").fetchone()
    assert row is not None
    target = row[0]
    with psycopg.connect(pair.standby.dsn()) as conn:
        for _ in range(READY_TRIES):
            done = conn.execute(
                "SELECT pg_wal_lsn_diff(pg_last_wal_replay_lsn(), %s::pg_lsn) >= 0", (target,)
            ).fetchone()
            if done and done[0]:
                return
            time.sleep(0.1)
    raise RuntimeError("the standby never caught up")


@pytest.fixture(scope="module")
def standby_pair() -> Iterator[Pair]:
    problem = binaries_problem()
    if problem is not None:
        if REQUIRE_PG:
            pytest.fail(problem + " and HERALD_REQUIRE_POSTGRES=1")
        pytest.skip(problem)
    root = Path(tempfile.mkdtemp(prefix="herald-standby-"))
    os.chmod(root, 0o755)  # the postgres user must reach its folders inside
    clusters: list[Cluster] = []
    try:
        primary = _make_primary(root)
        clusters.append(primary)
        standby = _make_standby(root, primary)
        clusters.append(standby)
        pair = Pair(primary, standby)
        wait_streaming(pair)
        yield pair
    finally:
        for cluster in reversed(clusters):
            if (cluster.data / "postmaster.pid").exists():
                stop = (str(PG_BIN / "pg_ctl"), "-D", str(cluster.data), "stop", "-m", "fast")
                subprocess.run(
                    _as_postgres(*stop, "-w"),
                    capture_output=True,
                    check=False,
                )
        shutil.rmtree(root, ignore_errors=True)
