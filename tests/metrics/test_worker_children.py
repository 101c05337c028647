"""The job metrics of `herald serve --worker-processes N`'s children reach the server's /metrics:
summed with the server's own, in one family per metric, and still counted after a child exits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prometheus_client import REGISTRY, generate_latest

from herald.cli import worker_processes
from herald.cli.worker_processes import WorkerProcesses
from herald.jobs.worker import JOB_SECONDS, JOBS_DONE
from herald.metrics.children import ENVIRONMENT, ChildMetrics
from herald.metrics.merge import Merged
from tests.metrics.scrape import value

CHILD = """
from herald.jobs.worker import JOB_SECONDS, JOBS_DONE
JOBS_DONE.labels("test.child", "succeeded").inc(3)
JOBS_DONE.labels("test.child", "failed").inc()
JOB_SECONDS.labels("test.child", "succeeded").observe(0.2)
"""


def _run_child(directory: Path) -> None:
    env = dict(os.environ) | {ENVIRONMENT: str(directory)}
    subprocess.run([sys.executable, "-c", CHILD], env=env, check=True, timeout=120)


def test_children_counts_add_to_the_server_own(tmp_path: Path) -> None:
    JOBS_DONE.labels("test.child", "succeeded").inc(2)  # the server's own worker
    JOB_SECONDS.labels("test.child", "succeeded").observe(0.1)
    before = generate_latest(REGISTRY).decode()
    own = value(before, "herald_jobs_total", kind="test.child", outcome="succeeded") or 0.0

    _run_child(tmp_path)
    _run_child(tmp_path)  # a second child, or the same slot after a restart: both still count
    merged = Merged([REGISTRY, ChildMetrics(tmp_path, lambda: [os.getpid()])])
    text = generate_latest(merged).decode()

    assert value(text, "herald_jobs_total", kind="test.child", outcome="succeeded") == own + 6
    assert value(text, "herald_jobs_total", kind="test.child", outcome="failed") == 2
    count = value(text, "herald_job_seconds_count", kind="test.child", outcome="succeeded")
    own_count = value(before, "herald_job_seconds_count", kind="test.child", outcome="succeeded")
    assert count == (own_count or 0) + 2
    # One family per metric: an exposition with two TYPE lines for a name is refused by Prometheus.
    assert text.count("# TYPE herald_jobs_total counter") == 1
    assert text.count("# TYPE herald_job_seconds histogram") == 1
    assert (value(text, "herald_worker_child_resident_memory_bytes", child="1") or 0) > 0


def test_a_child_that_is_gone_reports_no_memory(tmp_path: Path) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    text = generate_latest(ChildMetrics(tmp_path, lambda: [int(gone)])).decode()
    assert value(text, "herald_worker_child_resident_memory_bytes", child="1") is None


WORKS_THEN_WAITS = """
import sys, time
from pathlib import Path
from herald.jobs.worker import JOB_SECONDS, JOBS_DONE
JOBS_DONE.labels("test.folded", "succeeded").inc(3)
JOB_SECONDS.labels("test.folded", "succeeded").observe(0.2)
Path(sys.argv[1], f"worked-{__import__('os').getpid()}").touch()
time.sleep(600)
"""


def test_children_killed_after_working_leave_a_bounded_folder_and_exact_totals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each child counts 3 jobs and one duration, then is killed with SIGKILL and replaced.
    Every child used to leave its counter and histogram files for as long as the server ran."""
    marks = tmp_path / "marks"
    marks.mkdir()
    command = (sys.executable, "-c", WORKS_THEN_WAITS, str(marks))
    monkeypatch.setattr(worker_processes, "COMMAND", command)
    monkeypatch.setattr(WorkerProcesses, "RESTART_DELAY", 0.1)
    monkeypatch.setattr(WorkerProcesses, "CHECK_EVERY", 0.1)
    children = WorkerProcesses(1, grace_seconds=5.0)
    metrics = children.metrics()
    killed: list[int] = []
    children.start()
    try:
        for _ in range(KILLS + 1):
            pid = _next_worker(children, marks, killed)
            if len(killed) < KILLS:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
        # The running child has worked too (and does nothing more): KILLS + 1 children in all.
        text = generate_latest(metrics).decode()
        files = sorted(path.name for path in metrics.directory.iterdir())
    finally:
        children.stop()
    worked = len(list(marks.iterdir()))
    assert worked == KILLS + 1
    assert value(text, "herald_jobs_total", kind="test.folded", outcome="succeeded") == 3 * worked
    count = value(text, "herald_job_seconds_count", kind="test.folded", outcome="succeeded")
    assert count == worked
    bucket = value(
        text, "herald_job_seconds_bucket", kind="test.folded", outcome="succeeded", le="+Inf"
    )
    assert bucket == worked
    # The folded totals and the running child's files, however many children died.
    assert {name for name in files if name.startswith(("counter_", "histogram_"))} == {
        "counter_folded.db",
        f"counter_{pid}.db",
        "histogram_folded.db",
        f"histogram_{pid}.db",
    }


KILLS = 5


def _next_worker(children: WorkerProcesses, marks: Path, killed: list[int]) -> int:
    """The running child, once it has done its work (not one already killed)."""
    deadline = time.monotonic() + 60
    while True:
        assert time.monotonic() < deadline, "no child did its work"
        for pid in children.pids():
            if pid not in killed and (marks / f"worked-{pid}").exists():
                return pid
        time.sleep(0.05)
