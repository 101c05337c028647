"""A job as a worker holds it: what it leased, and the error of a worker whose lease was lost.

Shared by the claim (:mod:`herald.jobs.claiming`, which hands jobs out), the queue
(:mod:`herald.jobs.queue`, which finishes and fails them) and every kind's handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


class LeaseLost(Exception):
    """The job's lease passed to another worker; this worker's results must not be committed."""


@dataclass(frozen=True, slots=True)
class ClaimedJob:
    id: int
    kind: str
    payload: dict[str, Any]
    attempts: int  # including the current one
    max_attempts: int
    team_id: str | None
    unique_key: str | None
    worker_id: str
    created_at: datetime
