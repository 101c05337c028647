"""`herald serve --worker-processes 2`: a real server process with a `herald worker` child that
is restarted when it dies and stopped with the server."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from herald.cli import worker_processes
from herald.cli.worker_processes import WorkerProcesses
from tests.serving import migrated_light_home

HERALD = str(Path(sys.executable).with_name("herald"))


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _events(log: Path, message: str) -> list[dict[str, object]]:
    events = []
    for line in log.read_text(errors="replace").splitlines():
        if line.startswith("{"):
            entry = json.loads(line)
            if entry.get("message") == message:
                events.append(entry)
    return events


def _wait_for(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A child that exited but is not reaped yet is a zombie: not running.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def test_serve_runs_restarts_and_stops_a_worker_child(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = migrated_light_home(home)
    log = tmp_path / "serve.log"
    port = str(_free_port())
    with log.open("wb") as out:
        server = subprocess.Popen(
            [HERALD, "serve", "--host", "127.0.0.1", "--port", port, "--worker-processes", "2"],
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for(lambda: len(_events(log, "worker started")) >= 1, "the child worker")
        (started,) = _events(log, "worker process started")
        first = int(str(started["pid"]))
        assert _alive(first)

        # A child that dies is replaced after the restart delay.
        os.kill(first, signal.SIGKILL)
        _wait_for(lambda: len(_events(log, "worker process started")) == 2, "a replacement")
        second = int(str(_events(log, "worker process started")[1]["pid"]))
        assert second != first
        assert _events(log, "worker process exited: starting another")[0]["pid"] == first
        _wait_for(lambda: _alive(second), "the replacement to run")
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    # The server stopped its child with it.
    assert server.returncode == 0, log.read_text()[-3000:]
    _wait_for(lambda: not _alive(second), "the child to stop", timeout=10)


def test_a_child_that_ignores_sigterm_is_killed_after_the_grace_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stubborn = (
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(120)\n"
    )
    monkeypatch.setattr(worker_processes, "COMMAND", (sys.executable, "-c", stubborn))
    children = WorkerProcesses(1, grace_seconds=1.0)
    children.start()
    (pid,) = children.pids()
    time.sleep(0.5)  # let it install its handler
    started = time.monotonic()
    children.stop()
    assert time.monotonic() - started < 10
    assert not _alive(pid)


def test_children_that_keep_dying_leave_no_gauge_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the database is down a child exits at start and is replaced, again and again (a
    long outage: thousands of times). Its replica-lag gauge is a file and a series labelled with
    its pid: each dead child's used to stay in /metrics, and on disk, until the server stopped."""
    port = _free_port()  # nothing listens there: the database is down
    monkeypatch.setenv("HERALD_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HERALD_DATABASE_URL", f"postgresql+psycopg://postgres@127.0.0.1:{port}/x")
    monkeypatch.setattr(WorkerProcesses, "RESTART_DELAY", 0.1)
    monkeypatch.setattr(WorkerProcesses, "CHECK_EVERY", 0.1)
    children = WorkerProcesses(1, grace_seconds=5.0)
    metrics = children.metrics()
    started: set[int] = set()
    children.start()
    try:

        def restarted() -> bool:
            started.update(children.pids())
            return len(started) >= 4

        _wait_for(restarted, "three replacements", timeout=120)
        before = set(children.pids())
        text = generate_latest(metrics).decode()
        files = [path.name for path in metrics.directory.glob("gauge_*.db")]
        after = set(children.pids())
    finally:
        children.stop()
    # Only the running child's gauge, if it wrote it yet (each child writes one at start).
    series = re.findall(r'herald_read_replica_lag_seconds\{pid="(\d+)"\}', text)
    assert {int(pid) for pid in series} <= before | after, (series, sorted(started))
    assert len(files) <= 1, files  # the child's (one that exited keeps it until replaced)
