"""The job metrics of `herald serve --worker-processes N`'s children reach the server's /metrics:
summed with the server's own, in one family per metric, and still counted after a child exits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from prometheus_client import REGISTRY, generate_latest

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
