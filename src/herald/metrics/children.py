"""The metrics of ``herald serve --worker-processes N``'s worker children, in the server's own.

The children run with ``PROMETHEUS_MULTIPROC_DIR`` set to a folder the server made: the Prometheus
client then keeps their counters and histograms in files there, one per process. The server adds
them, summed over children, to its own ``/metrics`` (a child that died and was replaced still
counts, so the totals never go back), together with each child's resident memory. A gauge is a
level of one process, not a total: a child's gauges go with it (:func:`forget_gauges`). Its
counters and histograms are totals: they are added into one file per type (``counter_folded.db``,
...) and its own files deleted (:func:`fold_totals`), so however many children die (a
replacement every few seconds while the database is unreachable) the folder holds the running
children's files and those few, and the totals stay exact.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

ENVIRONMENT = "PROMETHEUS_MULTIPROC_DIR"
# The kinds of file that hold totals (a gauge's hold levels); the client names them <kind>_<pid>.
TOTALS = ("counter", "histogram", "summary")
FOLDED = "folded"


class ChildMetrics(Collector):
    def __init__(self, directory: Path, pids: Callable[[], list[int]]) -> None:
        self.directory = directory
        self.pids = pids
        # A scrape reads the files a fold replaces and deletes: never both at once (a scrape
        # between the two would count a dead child twice, or miss a file it listed).
        self._files = threading.Lock()

    def child_exited(self, pid: int) -> None:
        """Forget the gauges of ``pid``, a child that exited, and fold its totals."""
        with self._files:
            forget_gauges(self.directory, pid)
            fold_totals(self.directory, pid)

    def collect(self) -> Iterator[Metric]:
        with self._files:
            files = sorted(str(path) for path in self.directory.glob("*.db"))
            merged = list(MultiProcessCollector.merge(files, accumulate=True))  # type: ignore[no-untyped-call]
        yield from merged
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


def fold_totals(directory: Path, pid: int) -> int:
    """Add the counters and histograms of ``pid``, a child that exited, into the folded file of
    each kind, and delete its own; how many files were folded.

    The new folded file is written beside the old one and renamed over it before the child's
    file is deleted: interrupted, nothing is lost (a child's file is never deleted before its
    values are in place)."""
    folded_files = 0
    for kind in TOTALS:
        dead = directory / f"{kind}_{pid}.db"
        if not dead.exists():
            continue
        folded = directory / f"{kind}_{FOLDED}.db"
        totals: dict[str, float] = {}
        for path in (folded, dead):
            if path.exists():
                for key, value, _, _ in MmapedDict.read_all_values_from_file(str(path)):  # type: ignore[no-untyped-call]
                    totals[key] = totals.get(key, 0.0) + value
        partial = directory / f"{kind}_{FOLDED}.partial"  # not *.db: no scrape reads it
        partial.unlink(missing_ok=True)
        written = MmapedDict(str(partial))  # type: ignore[no-untyped-call]
        try:
            for key, value in totals.items():
                written.write_value(key, value, 0.0)  # type: ignore[no-untyped-call]
        finally:
            written.close()  # type: ignore[no-untyped-call]
        os.replace(partial, folded)
        dead.unlink()
        folded_files += 1
    return folded_files
