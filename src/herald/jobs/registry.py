"""Job kinds, their handlers and retry policies (as data), and periodic work.

Areas register handlers at import time with :func:`job_handler`; the modules that do so are
listed in :data:`HANDLER_MODULES` (one line per area) and imported by :func:`load_handlers`.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from herald.jobs.queue import ClaimedJob
    from herald.jobs.worker import JobContext
    from herald.runtime import Runtime

HANDLER_MODULES: tuple[str, ...] = (
    "herald.clusters.tasks",
    "herald.content.tasks",
    "herald.enrich.tasks",
    "herald.ingest.tasks",
    "herald.jobs.history",
    "herald.monitors.tasks",
    "herald.search.tasks",
    "herald.webhooks.tasks",
    "herald.webhooks.auto_pause",
    "herald.workspaces.tasks",
)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Attempts in all, and the delay before attempt n+1 after attempt n failed.

    ``delays[i]`` is the wait after the (i+1)-th failure; the last delay repeats if attempts
    outnumber it.
    """

    max_attempts: int = 5
    delays: tuple[float, ...] = (5.0, 30.0, 120.0, 600.0)

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or not self.delays or any(d < 0 for d in self.delays):
            raise ValueError("invalid retry policy")

    def delay_after(self, failed_attempts: int) -> float | None:
        """Seconds to wait after ``failed_attempts`` failures; None means give up."""
        if failed_attempts >= self.max_attempts:
            return None
        return self.delays[min(failed_attempts, len(self.delays)) - 1]


# How long one attempt of a kind may run before the worker stops waiting for it (the attempt
# then counts as failed and the kind's retry policy applies). Kinds that may run longer say so.
DEFAULT_MAX_RUN_SECONDS = 1800.0

Handler = Callable[["JobContext", Sequence["ClaimedJob"]], None]
GiveUpHook = Callable[["Session", "ClaimedJob", str], None]


@dataclass(frozen=True, slots=True)
class JobKind:
    name: str
    handler: Handler
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    batch_size: int = 1
    lane: str = "default"
    # Runs in the transaction that marks the job failed for good (e.g. a monitor records the
    # failure and its event atomically).
    on_give_up: GiveUpHook | None = None
    # One attempt (of a whole batch) running longer than this has hung: it is failed and retried.
    max_run_seconds: float = DEFAULT_MAX_RUN_SECONDS

    def __post_init__(self) -> None:
        if self.max_run_seconds <= 0:
            raise ValueError("max_run_seconds must be positive")


@dataclass(frozen=True, slots=True)
class PeriodicTask:
    name: str
    interval_seconds: float
    run: Callable[[Runtime], Any]


_kinds: dict[str, JobKind] = {}
_periodic: dict[str, PeriodicTask] = {}
_lock = threading.Lock()
_loaded = False


def register(kind: JobKind) -> JobKind:
    with _lock:
        _kinds[kind.name] = kind
    return kind


def job_handler(
    name: str,
    *,
    retry: RetryPolicy | None = None,
    batch_size: int = 1,
    lane: str = "default",
    on_give_up: GiveUpHook | None = None,
    max_run_seconds: float = DEFAULT_MAX_RUN_SECONDS,
) -> Callable[[Handler], Handler]:
    """Decorator registering ``fn(ctx, jobs)`` as the handler of job kind ``name``."""

    def decorate(fn: Handler) -> Handler:
        register(
            JobKind(
                name=name,
                handler=fn,
                retry=retry or RetryPolicy(),
                batch_size=batch_size,
                lane=lane,
                on_give_up=on_give_up,
                max_run_seconds=max_run_seconds,
            )
        )
        return fn

    return decorate


def periodic(name: str, interval_seconds: float) -> Callable[[Callable[[Runtime], Any]], Any]:
    """Decorator registering ``fn(runtime)`` to run every ``interval_seconds`` in the scheduler."""

    def decorate(fn: Callable[[Runtime], Any]) -> Callable[[Runtime], Any]:
        with _lock:
            _periodic[name] = PeriodicTask(name, interval_seconds, fn)
        return fn

    return decorate


def load_handlers() -> None:
    global _loaded
    if _loaded:
        return
    importlib.import_module("herald.jobs.maintenance")
    for module in HANDLER_MODULES:
        importlib.import_module(module)
    _loaded = True


def get_kind(name: str) -> JobKind:
    load_handlers()
    try:
        return _kinds[name]
    except KeyError:
        raise LookupError(f"no handler registered for job kind {name!r}") from None


def known_kinds() -> set[str]:
    """The kinds this process can run; jobs of other kinds are left to processes that can."""
    load_handlers()
    return set(_kinds)


def kinds_in_lane(lane: str) -> list[JobKind]:
    load_handlers()
    return [k for k in _kinds.values() if k.lane == lane]


def lanes() -> set[str]:
    load_handlers()
    return {k.lane for k in _kinds.values()} | {"default"}


def periodic_tasks() -> list[PeriodicTask]:
    load_handlers()
    return list(_periodic.values())


def unregister(name: str) -> None:
    """For tests that register throwaway kinds."""
    with _lock:
        _kinds.pop(name, None)
        _periodic.pop(name, None)
