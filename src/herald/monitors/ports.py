"""The two services monitors use from other areas: the search port and webhook events.

Both are reached through the runtime (the composition root), never imported at module load, so
the monitors area does not depend on how the search index or the webhook outbox are built:

- search: ``runtime.service("monitors.search", ...)`` defaults to the search area's
  ``herald.search.service.get_search(runtime)``; a test or a benchmark may register another
  implementation of :class:`ResultSearch` under that name before first use.
- events: ``herald.webhooks.events.record_event(session, *, team_id, event_type, data, clock)``
  (a signature other areas rely on), called inside the caller's transaction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.search.types import SearchHit, SearchRequest
from herald.webhooks import events as webhook_events
from herald.webhooks import repository as webhook_repository

if TYPE_CHECKING:
    from herald.runtime import Runtime

SEARCH_SERVICE = "monitors.search"


class ResultSearch(Protocol):
    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]: ...


def monitor_search(runtime: Runtime) -> ResultSearch:
    return runtime.service(SEARCH_SERVICE, lambda: _default_search(runtime))


def _default_search(runtime: Runtime) -> ResultSearch:
    # Imported on first use: the search service pulls in the index and embedding stacks.
    from herald.search.service import get_search

    return get_search(runtime)


def notifies(session: Session, team_id: str) -> bool:
    """Whether the workspace has an enabled webhook target (``record_event`` records nothing
    otherwise): lets a batch skip building payloads nobody receives."""
    return bool(webhook_repository.target_enabled(session, team_id))


def record_event(
    session: Session, *, team_id: str, event_type: str, data: dict[str, Any], clock: Clock
) -> str | None:
    """Record a monitor event in the caller's transaction; the event id, or None if none made."""
    return webhook_events.record_event(
        session, team_id=team_id, event_type=event_type, data=data, clock=clock
    )
