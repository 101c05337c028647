"""Readiness checks: each area that owns an external dependency registers one."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from herald.db.migrate import is_up_to_date

if TYPE_CHECKING:
    from herald.runtime import Runtime

Check = Callable[["Runtime"], None]
_checks: dict[str, Check] = {}
log = logging.getLogger(__name__)


def readiness_check(name: str) -> Callable[[Check], Check]:
    def decorate(fn: Check) -> Check:
        _checks[name] = fn
        return fn

    return decorate


@readiness_check("database")
def _database(runtime: Runtime) -> None:
    runtime.check_database()
    if not is_up_to_date(runtime.engine, runtime.settings.resolved_database_url):
        raise RuntimeError(
            "database schema is not at the latest migration; run `herald db upgrade`"
        )


def readiness_report(runtime: Runtime) -> dict[str, dict[str, Any]]:
    report: dict[str, dict[str, Any]] = {}
    for name, check in _checks.items():
        started = time.perf_counter()
        try:
            check(runtime)
            report[name] = {"ok": True}
        except Exception:  # a failing check is reported, not raised
            # The reason (host names, users, paths) goes to the log, never to the caller:
            # /readyz answers anyone who can reach the port.
            log.exception("readiness check failed", extra={"check": name})
            report[name] = {"ok": False}
        report[name]["ms"] = round((time.perf_counter() - started) * 1000, 2)
    return report


Warmup = Callable[["Runtime"], None]
_warmups: dict[str, Warmup] = {}


def warmup(name: str) -> Callable[[Warmup], Warmup]:
    """Register work `herald serve` does at start-up (e.g. loading a model) off the request path."""

    def decorate(fn: Warmup) -> Warmup:
        _warmups[name] = fn
        return fn

    return decorate


def run_warmups(runtime: Runtime) -> None:
    for fn in list(_warmups.values()):
        fn(runtime)
