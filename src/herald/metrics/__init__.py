"""Prometheus metrics of every Herald process (docs/operations.md, "Metrics").

Two kinds, served at two paths, so that what is summed across processes sums right:

- ``/metrics``: this process's own work (requests, jobs and their time, webhook attempts, memory,
  the free space of its ``HERALD_HOME``). Counters and histograms add up across processes; the
  metrics of ``herald serve --worker-processes N``'s worker children are added into their
  server's (:mod:`herald.metrics.children`).
- ``/metrics/shared``: gauges of the state all processes share, read from the database at each
  scrape (the job queue, webhook deliveries, failing sources, the database's size). Every process
  would report the same value, so they are served apart and scraped from one process (or read
  with ``max``).

API processes serve both on their HTTP port; ``herald worker --metrics-port PORT`` serves both on
a port of its own (:mod:`herald.metrics.server`).
"""
