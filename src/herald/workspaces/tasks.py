"""The durable ``workspaces.delete`` job (payload ``{"team_id"}``), queued by
``herald workspaces delete`` in the transaction that shuts the workspace.

It deletes the workspace's rows in batches (:func:`herald.workspaces.deletion.delete_workspace`);
a crash or a retry resumes where the rows say it stopped, and a workspace already gone makes it
a no-op.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from herald.jobs.queue import ClaimedJob
from herald.jobs.registry import RetryPolicy, job_handler
from herald.jobs.worker import JobContext, PermanentJobError
from herald.workspaces.deletion import DELETE_KIND, delete_workspace

log = logging.getLogger(__name__)


@job_handler(
    DELETE_KIND,
    retry=RetryPolicy(max_attempts=10, delays=(30.0, 120.0, 600.0)),
    max_run_seconds=6 * 3600.0,
)
def handle_delete(ctx: JobContext, jobs: Sequence[ClaimedJob]) -> None:
    for job in jobs:
        team_id = job.payload.get("team_id")
        if not isinstance(team_id, str) or not team_id:
            raise PermanentJobError(f"job {job.id}: payload needs a team_id")
        deleted = delete_workspace(ctx.runtime.sessions, team_id)
        log.info("workspace deleted", extra={"team_id": team_id, "rows": deleted})
