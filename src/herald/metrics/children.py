"""The metrics of ``herald serve --worker-processes N``'s worker children, in the server's own.

The children run with ``PROMETHEUS_MULTIPROC_DIR`` set to a folder the server made: the Prometheus
client then keeps their counters and histograms in files there, one per process. The server adds
them, summed over children, to its own ``/metrics`` (a child that died and was replaced still
counts, so the totals never go back), together with each child's resident memory. A gauge is a
level of one process, not a total: a child's gauges go with it (:func:`forget_gauges`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

ENVIRONMENT = "PROMETHEUS_MULTIPROC_DIR"


class ChildMetrics(Collector):
    def __init__(self, directory: Path, pids: Callable[[], list[int]]) -> None:
        self.directory = directory
        self.pids = pids

    def collect(self) -> Iterator[Metric]:
        files = sorted(str(path) for path in self.directory.glob("*.db"))
        yield from MultiProcessCollector.merge(files, accumulate=True)  # type: ignore[no-untyped-call]
        memory = GaugeMetricFamily(
            "herald_worker_child_resident_memory_bytes",
            "Resident memory of each worker child of this server (child 1, 2, ...)",
            labels=["child"],
        )
        for index, pid in enumerate(self.pids(), start=1):
            resident = resident_bytes(pid)
            if resident is not None:
                memory.add_metric([str(index)], resident)
        yield memory


def resident_bytes(pid: int) -> int | None:
    """A process's resident memory (Linux ``/proc``), or None when it cannot be read."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def forget_gauges(directory: Path, pid: int) -> int:
    """Delete the gauge files of ``pid``, a child that exited; how many there were.

    The Prometheus client keeps one file per gauge mode and process and reports each file's
    values with a ``pid`` label for good: without this, every child ever started (a replacement
    every few seconds while the database is unreachable) would add a file and a series."""
    files = list(directory.glob(f"gauge_*_{pid}.db"))
    for path in files:
        path.unlink(missing_ok=True)
    return len(files)
