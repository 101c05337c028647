"""Worker processes beside `herald serve` (``--worker-processes N``).

One Python process enriches on about one core: spaCy's recogniser holds the interpreter lock.
``herald serve --worker-processes 2`` starts one ``herald worker --no-scheduler`` child next
to the server's own worker, so a single command uses two cores (docs/enrichment.md). Children
inherit the environment, hence the same settings and database; one that exits is started
again after a pause; all are stopped (SIGTERM, then SIGKILL after a grace period) with the
server.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from herald.metrics.children import ENVIRONMENT as METRICS_ENV
from herald.metrics.children import ChildMetrics

log = logging.getLogger(__name__)

# Port 0: a child serves no metrics of its own (HERALD_WORKER_METRICS_PORT would give every child
# the same port); its counters reach the server's /metrics through the files of METRICS_ENV.
COMMAND = (
    sys.executable,
    "-m",
    "herald.cli.main",
    "worker",
    "--no-scheduler",
    "--metrics-port",
    "0",
)


class WorkerProcesses:
    RESTART_DELAY = 5.0  # seconds between a child's exit and its replacement
    CHECK_EVERY = 1.0

    def __init__(self, count: int, *, grace_seconds: float = 30.0) -> None:
        self._count = count
        self._grace = grace_seconds
        self._children: list[subprocess.Popen[bytes]] = []
        self._exited_at: dict[int, float] = {}
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._watcher = threading.Thread(target=self._watch, name="worker-processes", daemon=True)
        # Where the children's Prometheus client keeps their counters (one file per process).
        self._metrics_dir = Path(tempfile.mkdtemp(prefix="herald-worker-metrics-"))
        self._metrics = ChildMetrics(self._metrics_dir, self.pids)

    def metrics(self) -> ChildMetrics:
        """The children's job metrics and memory, to add to the server's /metrics."""
        return self._metrics

    def start(self) -> None:
        with self._lock:
            self._children = [self._spawn() for _ in range(self._count)]
        self._watcher.start()

    def pids(self) -> list[int]:
        with self._lock:
            return [child.pid for child in self._children]

    def stop(self) -> None:
        self._stop.set()
        if self._watcher.is_alive():
            self._watcher.join()
        with self._lock:
            children = list(self._children)
        for child in children:
            if child.poll() is None:
                child.terminate()  # `herald worker` finishes its batch and exits on SIGTERM
        deadline = time.monotonic() + self._grace
        for child in children:
            try:
                child.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                log.warning("worker process did not stop in time: killed", extra={"pid": child.pid})
                child.kill()
                child.wait()
        shutil.rmtree(self._metrics_dir, ignore_errors=True)

    def _spawn(self) -> subprocess.Popen[bytes]:
        env = dict(os.environ) | {METRICS_ENV: str(self._metrics_dir)}
        child = subprocess.Popen(COMMAND, env=env)  # noqa: S603 - our own command
        log.info("worker process started", extra={"pid": child.pid})
        return child

    def _watch(self) -> None:
        while not self._stop.wait(self.CHECK_EVERY):
            with self._lock:
                for index, child in enumerate(self._children):
                    code = child.poll()
                    if code is None:
                        continue
                    exited = self._exited_at.setdefault(index, time.monotonic())
                    if time.monotonic() - exited < self.RESTART_DELAY:
                        continue
                    log.warning(
                        "worker process exited: starting another",
                        extra={"pid": child.pid, "code": code},
                    )
                    del self._exited_at[index]
                    self._metrics.child_exited(child.pid)
                    self._children[index] = self._spawn()
