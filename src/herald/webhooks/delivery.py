"""The delivery engine: dispatch due deliveries, attempt them concurrently, record every attempt.

How a delivery travels (and why nothing is lost):

1. ``record_event`` writes the event, a ``pending`` delivery and a ``webhooks.dispatch`` job for
   the workspace in the caller's transaction (a rolled-back caller sends nothing).
2. The dispatch job (a fast handler on the durable job queue) *leases* the workspace's due
   deliveries and completes itself in one transaction; the delivery row, not the job, is now the
   durable record of the work. The attempts run in this engine's own thread pool, so a slow or
   dead target never occupies a job-queue thread.
3. Each workspace has at most :data:`PER_WORKSPACE_IN_FLIGHT` attempts in flight and the process
   at most :data:`MAX_IN_FLIGHT`; a target that hangs for its full 10 s uses only its own
   workspace's slots, and other workspaces' deliveries go out meanwhile.
4. A recorder thread stores results in batches: one attempt row per try, the delivery's new
   status, and the next attempt time from the retry schedule. Only the lease holder may record.
   A batch that keeps failing is stored one result at a time, so a result the database refuses
   costs only its own record.
   In the same transaction it leases the next due deliveries of workspaces that had more work
   than slots, so a backlog drains without a job-queue round trip per batch.
5. A periodic sweep (every 5 s, in each process running the scheduler) leases what is due:
   retries whose time has come, and deliveries whose lease expired because a process died
   mid-attempt (at-least-once: the receiver may see such an attempt twice; the attempt that was
   cut off leaves no record).
"""

from __future__ import annotations

import logging
import queue as stdlib_queue
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.ids import new_uuid
from herald.core.net import SafeHttpsClient, TargetPolicy
from herald.webhooks import leasing
from herald.webhooks.attempt import send_attempt
from herald.webhooks.repository import AttemptResult, LeasedDelivery
from herald.webhooks.signing import active_secrets, delivery_headers

if TYPE_CHECKING:
    from herald.runtime import Runtime

log = logging.getLogger(__name__)

PER_WORKSPACE_IN_FLIGHT = 8
MAX_IN_FLIGHT = 64
_RECORD_BATCH = 256


class Sender:
    """Signs and sends one attempt; shared by the engine and the synchronous test endpoint."""

    def __init__(self, client: SafeHttpsClient, clock: Clock) -> None:
        self.client = client
        self.clock = clock

    @property
    def lease_seconds(self) -> float:
        # Longer than any attempt can take, so a live attempt keeps its lease; short enough that
        # a crashed process's deliveries go out again within seconds.
        return self.client.timeout + 5.0

    def attempt(self, leased: LeasedDelivery) -> AttemptResult:
        started = self.clock.now()
        headers = delivery_headers(
            secrets_newest_first=active_secrets(leased.secrets, started),
            event_id=leased.event_id,
            delivery_id=str(leased.id),
            timestamp=int(started.timestamp()),
            body=leased.body,
        )
        outcome = send_attempt(
            self.client, leased.url, body=leased.body, headers=headers, partition=leased.team_id
        )
        return AttemptResult(leased, outcome, attempted_at=started, finished_at=self.clock.now())


def get_sender(runtime: Runtime) -> Sender:
    """The process's sender (tests may build it first with their own client)."""

    def build() -> Sender:
        policy = TargetPolicy(runtime.settings.allowed_webhook_networks)
        # Room for the engine's slots plus synchronous test deliveries of the same workspace.
        client = SafeHttpsClient(policy, max_connections_per_target=PER_WORKSPACE_IN_FLIGHT + 2)
        runtime.on_close(client.close)
        return Sender(client, runtime.clock)

    return runtime.service("webhooks.sender", build)


def get_engine(runtime: Runtime) -> DeliveryEngine:
    def build() -> DeliveryEngine:
        engine = DeliveryEngine(runtime, get_sender(runtime))
        runtime.on_close(engine.close)
        return engine

    return runtime.service("webhooks.engine", build)


class DeliveryEngine:
    def __init__(
        self,
        runtime: Runtime,
        sender: Sender,
        *,
        per_workspace: int = PER_WORKSPACE_IN_FLIGHT,
        max_in_flight: int = MAX_IN_FLIGHT,
    ) -> None:
        self.runtime = runtime
        self.sender = sender
        self.per_workspace = per_workspace
        self.max_in_flight = max_in_flight
        self._pool = ThreadPoolExecutor(max_in_flight, thread_name_prefix="webhook-attempt")
        self._results: stdlib_queue.Queue[AttemptResult | LeasedDelivery] = stdlib_queue.Queue()
        self._lock = threading.Condition()
        self._in_flight: Counter[str] = Counter()  # slots taken, per workspace
        self._unrecorded = 0  # submitted attempts whose result is not stored yet
        self._backlogged: set[str] = set()  # workspaces with more due work than they got slots
        self._closed = False
        self._drained = threading.Event()  # set at close, once no attempt can add a result
        self._recorder = threading.Thread(
            target=self._record_loop, name="webhook-recorder", daemon=True
        )
        self._recorder.start()

    # -- dispatch (called by the job handler, inside its transaction) ---------------------------
    def lease(self, session: Session, team_ids: Iterable[str]) -> list[LeasedDelivery]:
        """Lease, in the caller's transaction, as many due deliveries of each workspace as it
        has free slots. The slots are taken at once; if the transaction does not commit, the
        caller hands the result to :meth:`release`, else to :meth:`submit`."""
        with self._lock:
            free = self.max_in_flight - sum(self._in_flight.values())
            rooms: dict[str, int] = {}
            for team_id in dict.fromkeys(team_ids):
                rooms[team_id] = max(min(self.per_workspace - self._in_flight[team_id], free), 0)
                free -= rooms[team_id]
                self._in_flight[team_id] += rooms[team_id]  # reserved while we look
        got: Counter[str] = Counter()
        try:
            leased = leasing.lease_due_deliveries(
                session,
                rooms,
                owner=new_uuid(),  # a token per lease: only this dispatch may record them
                now=self.runtime.clock.now(),
                lease_seconds=self.sender.lease_seconds,
            )
            got.update(d.team_id for d in leased)
        finally:
            with self._lock:
                for team_id, room in rooms.items():
                    self._free_slots(team_id, room - got[team_id])
                # Maybe more is due: look again when a slot frees up.
                self._backlogged.update(t for t, room in rooms.items() if got[t] >= room)
        return leased

    def release(self, leased: Sequence[LeasedDelivery]) -> None:
        """Give back the slots of a lease whose transaction did not commit."""
        with self._lock:
            for delivery in leased:
                self._free_slots(delivery.team_id, 1)

    def _free_slots(self, team_id: str, count: int) -> None:
        self._in_flight[team_id] -= count
        if self._in_flight[team_id] <= 0:
            del self._in_flight[team_id]

    def submit(self, leased: Sequence[LeasedDelivery]) -> None:
        """Start the attempts (after the leasing transaction committed)."""
        with self._lock:
            if self._closed:  # the leases expire and the sweep hands them to a live process
                for delivery in leased:
                    self._free_slots(delivery.team_id, 1)
                return
            self._unrecorded += len(leased)
        for delivery in leased:
            try:
                self._pool.submit(self._attempt, delivery)
            except RuntimeError:  # closing: the lease expires and a live process takes it
                self._results.put(delivery)

    def _attempt(self, leased: LeasedDelivery) -> None:
        try:
            if self.runtime.clock.now() >= leased.lease_expires_at:
                self._results.put(leased)  # too late: someone else may hold it now
                return
            self._results.put(self.sender.attempt(leased))
        except Exception:
            log.exception("webhook attempt crashed", extra={"delivery_id": leased.id})
            self._results.put(leased)

    # -- recording ---------------------------------------------------------------------------
    def _record_loop(self) -> None:
        while True:
            try:
                first = self._results.get(timeout=0.2)
            except stdlib_queue.Empty:
                if self._drained.is_set():
                    return
                continue
            batch = [first]
            while len(batch) < _RECORD_BATCH:
                try:
                    batch.append(self._results.get_nowait())
                except stdlib_queue.Empty:
                    break
            self._record(batch)

    def _record(self, batch: list[AttemptResult | LeasedDelivery]) -> None:
        """Store a batch of results and, in the same transaction, lease the next due deliveries
        of the workspaces that were waiting for a free slot (no job-queue round trip)."""
        results = [item for item in batch if isinstance(item, AttemptResult)]
        # Free the slots first so the leasing below finds room. (These deliveries stay leased
        # to us until this transaction commits, so nobody else takes them meanwhile.)
        with self._lock:
            for item in batch:
                self._free_slots(_team(item), 1)
            waiting = sorted(self._backlogged)
            self._backlogged.clear()
        follow_up: list[LeasedDelivery] = []
        for tries in range(5):
            try:
                with self.runtime.sessions.write() as session:
                    for lost in leasing.record_attempts(session, results):
                        log.warning(
                            "webhook lease lost before recording",
                            extra={"delivery_id": lost.delivery.id},
                        )
                    follow_up = self.lease(session, waiting)
                break
            except Exception:
                self.release(follow_up)
                follow_up = []
                log.exception("recording webhook attempts failed", extra={"try": tries + 1})
                threading.Event().wait(0.2 * (tries + 1))
        else:
            # Maybe one result is what the database refuses: store each alone, so it loses
            # only its own record, not the rest of the batch (other workspaces' included).
            self._record_each(results)
            with self._lock:  # the sweep will find them; keep them marked meanwhile
                self._backlogged.update(waiting)
        # An attempt that could not be recorded keeps its lease until it expires; the sweep
        # then dispatches it again.
        self.submit(follow_up)
        with self._lock:
            self._unrecorded -= len(batch)
            self._lock.notify_all()

    def _record_each(self, results: list[AttemptResult]) -> None:
        for result in results:
            try:
                with self.runtime.sessions.write() as session:
                    leasing.record_attempts(session, [result])
            except Exception:
                log.exception(
                    "recording a webhook attempt failed",
                    extra={"delivery_id": result.delivery.id},
                )

    # -- lifecycle ---------------------------------------------------------------------------
    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Wait until every submitted attempt has been recorded (tests, benchmarks, shutdown)."""
        with self._lock:
            return self._lock.wait_for(lambda: not self._unrecorded, timeout)

    def close(self, timeout: float = 15.0) -> None:
        """Let running attempts finish and be recorded; attempts not started yet are dropped
        (their leases expire and a live process takes them over)."""
        self.wait_idle(timeout)
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._drained.set()  # every started attempt has queued its result by now
        self._recorder.join(timeout)


def _team(item: AttemptResult | LeasedDelivery) -> str:
    return item.delivery.team_id if isinstance(item, AttemptResult) else item.team_id
