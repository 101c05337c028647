"""What one process exposes at ``/metrics`` and ``/metrics/shared``, and who may read it."""

from __future__ import annotations

import hmac
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from prometheus_client import REGISTRY, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from herald import __version__
from herald.metrics.merge import Merged, Source
from herald.metrics.shared import SharedState

if TYPE_CHECKING:
    from herald.runtime import Runtime


class ProcessInfo:
    """This process's version and the room left where its ``HERALD_HOME`` lives."""

    def __init__(self, home: Path) -> None:
        self.home = home

    def collect(self) -> Iterator[Metric]:
        build = GaugeMetricFamily("herald_build_info", "The running version", labels=["version"])
        build.add_metric([__version__], 1)
        yield build
        try:
            usage = shutil.disk_usage(self.home)
        except OSError:
            return
        yield GaugeMetricFamily(
            "herald_home_filesystem_avail_bytes",
            "Bytes free for Herald on the filesystem of HERALD_HOME",
            value=usage.free,
        )
        yield GaugeMetricFamily(
            "herald_home_filesystem_size_bytes",
            "Size of the filesystem of HERALD_HOME",
            value=usage.total,
        )


class Metrics:
    """The expositions of one process (one per runtime: :func:`metrics_for`)."""

    def __init__(self, runtime: Runtime) -> None:
        self._token = runtime.settings.metrics_token
        self._sources: list[Source] = [REGISTRY, ProcessInfo(runtime.settings.home)]
        self._shared = SharedState(runtime)

    def add_source(self, source: Source) -> None:
        """Add metrics of other processes this one stands for (its worker children)."""
        self._sources.append(source)

    def per_process(self) -> bytes:
        return generate_latest(Merged(self._sources))

    def shared(self) -> bytes:
        return generate_latest(Merged([self._shared]))

    def authorised(self, authorization: str) -> bool:
        """No token configured, or ``Authorization: Bearer <HERALD_METRICS_TOKEN>``."""
        if not self._token:
            return True
        scheme, _, token = authorization.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            token.strip().encode(), self._token.encode()
        )


def metrics_for(runtime: Runtime) -> Metrics:
    return runtime.service("metrics", lambda: Metrics(runtime))
