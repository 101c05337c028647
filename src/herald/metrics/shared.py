"""Gauges of the state every process shares, read from the database at each scrape.

Served at ``/metrics/shared`` only: each process would report the same values, so summing them
over processes (as ``/metrics`` is meant to be summed) would multiply them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.metrics_core import Metric

from herald.db.identity import read_backed_up_at
from herald.db.size import database_size_bytes, wal_size_bytes
from herald.ingest.repository import source_health
from herald.jobs.queue import counts_by_kind_and_status, oldest_due_by_kind
from herald.webhooks.repository import delivery_counts_by_status

if TYPE_CHECKING:
    from herald.runtime import Runtime


class SharedState:
    """The collector of ``/metrics/shared``; a database error propagates (the scrape fails)."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def collect(self) -> Iterator[Metric]:
        now = self.runtime.clock.now()
        with self.runtime.sessions.read() as session:
            counts = counts_by_kind_and_status(session)
            oldest = oldest_due_by_kind(session, now=now)
            deliveries = delivery_counts_by_status(session)
            size = database_size_bytes(session)
            wal = wal_size_bytes(session)
            sources = source_health(session)
            backed_up_at = read_backed_up_at(session)
        jobs = GaugeMetricFamily(
            "herald_queue_jobs",
            "Jobs in the queue by kind and status (succeeded jobs leave the queue)",
            labels=["kind", "status"],
        )
        for kind, status, count in counts:
            jobs.add_metric([kind, status], count)
        age = GaugeMetricFamily(
            "herald_queue_oldest_due_seconds",
            "Seconds the oldest due, queued job of each kind has waited (kinds with one waiting)",
            labels=["kind"],
        )
        for kind, due in oldest:
            age.add_metric([kind], max(0.0, (now - due).total_seconds()))
        waiting = GaugeMetricFamily(
            "herald_webhook_deliveries",
            "Webhook deliveries waiting (pending, retrying) or given up (failed)",
            labels=["status"],
        )
        for status, count in sorted(deliveries.items()):
            waiting.add_metric([status], count)
        database = GaugeMetricFamily(
            "herald_database_size_bytes", "Size of the state database", value=size
        )
        polled = GaugeMetricFamily(
            "herald_sources",
            "Polled sources by state: ok (the last poll worked, or none ran yet) or failing",
            labels=["state"],
        )
        polled.add_metric(["ok"], sources.ok)
        polled.add_metric(["failing"], sources.failing)
        since = sources.failing_since
        failing = GaugeMetricFamily(
            "herald_sources_longest_failing_seconds",
            "Seconds the source failing longest has failed (since the poll after its last "
            "success was due, or since it was added); 0 when none fails",
            value=0.0 if since is None else max(0.0, (now - since).total_seconds()),
        )
        # No sample until a backup is recorded: an install backed up by other means raises no
        # alert on it.
        backup = GaugeMetricFamily(
            "herald_database_backed_up_timestamp_seconds",
            "When `herald db backup` last backed the database up (Unix time; no sample until "
            "one is recorded)",
        )
        if backed_up_at is not None:
            backup.add_metric([], backed_up_at.timestamp())
        yield from (jobs, age, waiting, polled, failing, database, backup)
        if wal is not None:
            yield GaugeMetricFamily(
                "herald_database_wal_bytes",
                "Size of SQLite's write-ahead log file (herald.db-wal)",
                value=wal,
            )
