"""Workers: threads that claim due jobs of a lane, run their handlers, finish or fail them.

A handler does its slow work outside any transaction and then, in one write unit of work, stores
its results and calls ``ctx.finish(session, jobs)``: results and job completion commit together.
A handler that returns without finishing its jobs has them finished for it. A batch that raises
is retried job by job at once, so one bad item cannot sink its neighbours.

A watchdog (the lease heartbeat thread) stops waiting for an attempt that runs longer than its
kind's ``max_run_seconds``: its jobs fail with ``JobTimeout`` and follow the kind's retry policy,
their leases are no longer renewed, the stuck thread is interrupted (a ``JobTimeout`` raised in
it, which ends Python-level loops at once and a blocking call when it returns) and retired, and a
fresh thread takes its place in the lane. Whatever the stuck attempt does later cannot commit:
its jobs are no longer leased to it (``LeaseLost``).
"""

from __future__ import annotations

import ctypes
import logging
import os
import socket
import threading
import traceback
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prometheus_client import Counter, Histogram
from sqlalchemy.orm import Session

from herald.jobs import queue
from herald.jobs.queue import ClaimedJob, LeaseLost
from herald.jobs.registry import get_kind, kinds_in_lane

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

JOBS_DONE = Counter("herald_jobs_total", "Jobs processed, by kind and outcome", ["kind", "outcome"])
JOB_SECONDS = Histogram(
    "herald_job_seconds",
    "Time spent in job handlers, by kind and outcome (succeeded: the handler returned)",
    ["kind", "outcome"],
)


class PermanentJobError(Exception):
    """A failure that retrying cannot fix (bad payload, missing row): fail at once."""


class JobTimeout(Exception):
    """An attempt ran longer than its kind's maximum run time (the kind's retry policy applies)."""


@dataclass
class _Attempt:
    """A batch being run by one worker thread, as the watchdog sees it."""

    lane: str
    batch: list[ClaimedJob]
    started: float  # clock.monotonic()
    thread_id: int
    timed_out: bool = False


@dataclass
class JobContext:
    runtime: Runtime
    worker_id: str
    _finished: set[int] = field(default_factory=set)

    def finish(self, session: Session, jobs: Sequence[ClaimedJob]) -> None:
        """Mark ``jobs`` done inside ``session``'s transaction (the one holding their results)."""
        queue.finish(session, jobs)
        self._finished.update(job.id for job in jobs)


def new_worker_id(name: str = "worker") -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{name}:{uuid.uuid4().hex[:8]}"


class Worker:
    """Runs ``threads`` loops per lane until ``stop`` is set."""

    def __init__(self, runtime: Runtime, *, lane_threads: dict[str, int] | None = None) -> None:
        self.runtime = runtime
        self.lane_threads = lane_threads or {"default": runtime.settings.worker_threads}
        self.stop_event = threading.Event()
        self._threads: list[threading.Thread] = []
        self._in_flight: dict[str, set[int]] = {}
        self._in_flight_lock = threading.Lock()
        self._attempts: dict[str, _Attempt] = {}  # by worker id; guarded by _in_flight_lock
        self._retired: set[str] = set()  # worker ids whose thread hung and was replaced

    # -- lifecycle -----------------------------------------------------------------------------
    def start(self) -> None:
        for lane, count in self.lane_threads.items():
            for index in range(count):
                self._start_loop(lane, new_worker_id(f"{lane}-{index}"))
        heartbeat = threading.Thread(
            target=self._heartbeat, args=(self.stop_event,), name="lease-heartbeat", daemon=True
        )
        heartbeat.start()
        self._threads.append(heartbeat)

    @contextmanager
    def renewing_leases(self) -> Iterator[None]:
        """Renew the leases of the jobs run from the caller's thread (:meth:`drain`,
        :meth:`run_once`) while the block runs, as :meth:`start` does for its loops: without
        it a job that runs longer than its lease is taken over and run again by a worker
        process beside this one (``herald ingest`` waiting for its items, ``herald enrich``)."""
        stop = threading.Event()
        heartbeat = threading.Thread(
            target=self._heartbeat,
            args=(stop,),
            kwargs={"watchdog": False},
            name="lease-heartbeat",
            daemon=True,
        )
        heartbeat.start()
        try:
            yield
        finally:
            stop.set()
            heartbeat.join()

    def _start_loop(self, lane: str, worker_id: str) -> None:
        thread = threading.Thread(
            target=self._loop, args=(lane, worker_id), name=worker_id, daemon=True
        )
        thread.start()
        self._threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        self.stop_event.set()
        self.runtime.job_signal.set()
        for thread in list(self._threads):
            if thread.name in self._retired:
                continue  # stuck in a handler that overran; a daemon thread, it dies with us
            thread.join(timeout)

    # -- work ------------------------------------------------------------------------------------
    def run_once(self, lane: str = "default", worker_id: str | None = None) -> int:
        """Claim and process one batch of due jobs; returns how many jobs were attempted."""
        worker_id = worker_id or new_worker_id("once")
        if not kinds_in_lane(lane):
            return 0
        settings = self.runtime.settings
        with self.runtime.sessions.read() as session:
            if not queue.lane_has_jobs(session, lane):
                return 0  # an idle lane's poll takes no write lock
        with self.runtime.sessions.write() as session:
            first = queue.claim(
                session,
                lane=lane,
                worker_id=worker_id,
                clock=self.runtime.clock,
                lease_seconds=settings.job_lease_seconds,
            )
            if not first:
                return 0
            spec = get_kind(first[0].kind)
            batch = first
            if spec.batch_size > 1:
                batch = first + queue.claim(
                    session,
                    lane=lane,
                    worker_id=worker_id,
                    clock=self.runtime.clock,
                    lease_seconds=settings.job_lease_seconds,
                    limit=spec.batch_size - 1,
                    kind=spec.name,
                )
        self._track(worker_id, batch, add=True, lane=lane)
        try:
            self._process(batch, worker_id)
        finally:
            self._track(worker_id, batch, add=False, lane=lane)
        return len(batch)

    def drain(self, lane: str = "default", *, max_jobs: int = 1_000_000) -> int:
        """Process due jobs until none is left (tests, ``herald ingest``), their leases renewed."""
        done = 0
        with self.renewing_leases():
            while done < max_jobs:
                count = self.run_once(lane)
                if count == 0:
                    return done
                done += count
        return done

    def _process(self, batch: list[ClaimedJob], worker_id: str) -> None:
        try:
            self._run_handler(batch, worker_id)
        except LeaseLost as exc:
            log.warning("job lease lost", extra={"error": str(exc)})
        except JobTimeout:
            # The watchdog already failed these jobs (and queued their retry).
            log.warning("overrunning job interrupted", extra={"kind": batch[0].kind})
        except Exception as exc:  # noqa: BLE001 - any handler failure is recorded and retried
            if len(batch) > 1:
                log.warning(
                    "batch failed; retrying its jobs one by one",
                    extra={"kind": batch[0].kind, "size": len(batch), "error": repr(exc)},
                )
                for job in batch:
                    self._process([job], worker_id)
                return
            self._record_failure(batch[0], exc)

    def _run_handler(self, batch: list[ClaimedJob], worker_id: str) -> None:
        spec = get_kind(batch[0].kind)
        ctx = JobContext(runtime=self.runtime, worker_id=worker_id)
        started = self.runtime.clock.monotonic()
        try:
            spec.handler(ctx, batch)
        except BaseException:
            JOB_SECONDS.labels(spec.name, "failed").observe(self._since(started))
            raise
        JOB_SECONDS.labels(spec.name, "succeeded").observe(self._since(started))
        leftover = [job for job in batch if job.id not in ctx._finished]
        if leftover:
            with self.runtime.sessions.write() as session:
                queue.finish(session, leftover)
        JOBS_DONE.labels(spec.name, "succeeded").inc(len(batch))

    def _since(self, started: float) -> float:
        return max(0.0, self.runtime.clock.monotonic() - started)

    def _record_failure(self, job: ClaimedJob, exc: Exception) -> None:
        permanent = isinstance(exc, PermanentJobError)
        error = f"{type(exc).__name__}: {exc}"
        log.error(
            "job failed",
            extra={
                "job_id": job.id,
                "kind": job.kind,
                "attempt": job.attempts,
                "error": error,
                "traceback": "".join(traceback.format_exception(exc))[-4000:],
            },
        )
        spec = get_kind(job.kind)
        with self.runtime.sessions.write() as session:
            gave_up = queue.fail(session, job, error, clock=self.runtime.clock, permanent=permanent)
            if gave_up and spec.on_give_up is not None:
                spec.on_give_up(session, job, error)
        JOBS_DONE.labels(job.kind, "failed" if gave_up else "retried").inc()

    def _loop(self, lane: str, worker_id: str) -> None:
        poll = self.runtime.settings.job_poll_seconds
        while not self.stop_event.is_set() and worker_id not in self._retired:
            try:
                count = self.run_once(lane, worker_id)
            except Exception:
                log.exception("worker loop error", extra={"lane": lane})
                count = 0
            if count == 0:
                self.runtime.job_signal.wait(poll)
                self.runtime.job_signal.clear()

    # -- leases ----------------------------------------------------------------------------------
    def _track(
        self, worker_id: str, batch: list[ClaimedJob], *, add: bool, lane: str = "default"
    ) -> None:
        with self._in_flight_lock:
            ids = self._in_flight.setdefault(worker_id, set())
            for job in batch:
                (ids.add if add else ids.discard)(job.id)
            if add:
                self._attempts[worker_id] = _Attempt(
                    lane, batch, self.runtime.clock.monotonic(), threading.get_ident()
                )
            else:
                self._attempts.pop(worker_id, None)

    def stop_overrunning(self) -> int:
        """Fail, interrupt and replace attempts past their kind's maximum run time (watchdog).

        Returns how many attempts were stopped. Called by the heartbeat thread; tests call it.
        """
        now = self.runtime.clock.monotonic()
        overrunning: list[tuple[str, _Attempt]] = []
        with self._in_flight_lock:
            for worker_id, attempt in self._attempts.items():
                limit = get_kind(attempt.batch[0].kind).max_run_seconds
                if not attempt.timed_out and now - attempt.started > limit:
                    attempt.timed_out = True
                    self._in_flight.pop(worker_id, None)  # its leases are no longer renewed
                    overrunning.append((worker_id, attempt))
        for worker_id, attempt in overrunning:
            kind = attempt.batch[0].kind
            limit = get_kind(kind).max_run_seconds
            error = JobTimeout(f"ran longer than the {limit:g} s maximum run time of {kind}")
            for job in attempt.batch:
                try:
                    self._record_failure(job, error)
                except Exception:
                    log.exception("could not record an overrunning job", extra={"job_id": job.id})
            with self._in_flight_lock:
                still_there = self._attempts.get(worker_id) is attempt
                if still_there:
                    self._retired.add(worker_id)
                    _raise_in_thread(attempt.thread_id, JobTimeout)
            is_loop = any(t.name == worker_id for t in self._threads)
            if still_there and is_loop and not self.stop_event.is_set():
                self._start_loop(attempt.lane, new_worker_id(f"{attempt.lane}-r"))
        return len(overrunning)

    def _heartbeat(self, stop: threading.Event, *, watchdog: bool = True) -> None:
        lease = self.runtime.settings.job_lease_seconds
        while not stop.wait(max(lease / 3, 1.0)):
            if watchdog:
                try:
                    self.stop_overrunning()
                except Exception:
                    log.exception("job watchdog failed")
            with self._in_flight_lock:
                snapshot = {w: sorted(ids) for w, ids in self._in_flight.items() if ids}
            for worker_id, ids in snapshot.items():
                try:
                    with self.runtime.sessions.write() as session:
                        queue.extend_leases(
                            session,
                            ids,
                            worker_id=worker_id,
                            clock=self.runtime.clock,
                            lease_seconds=lease,
                        )
                except Exception:
                    log.exception("lease heartbeat failed")


def _raise_in_thread(thread_id: int, exc_type: type[BaseException]) -> None:
    """Raise ``exc_type`` in another thread at its next Python instruction (CPython's API)."""
    set_async_exc = ctypes.pythonapi.PyThreadState_SetAsyncExc
    set_async_exc(ctypes.c_ulong(thread_id), ctypes.py_object(exc_type))
