"""Fetching a feed teaser's article page again after a failed try.

When the article page of a teaser could not be had, the teaser is stored as the body and the
item's ``page_fetch_failures`` counts the failed try. Later polls that still list the entry fetch
the page again while the item has fewer than ``PAGE_FETCH_TRIES`` failures and was first stored
less than ``PAGE_RETRY_WINDOW`` ago; then it is left as a teaser. A fetched page sets the count
back to 0 and the item is updated with the page's text like any other update.

A failure that another try would not fix (HTTP 404 or 410 and other client errors, a page with
no main text, a page too large, not HTML, behind too many redirects or at a forbidden address)
uses up every try at once: the page is not fetched again. Timeouts, network errors, HTTP 5xx,
408 and 429 are transient.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Literal

from herald.ingest.fetch import FetchError

__all__ = [
    "PAGE_FETCH_TRIES",
    "PAGE_RETRY_WINDOW",
    "PageFetch",
    "failure_of",
    "failures_after",
    "may_fetch_again",
]

PAGE_FETCH_TRIES = 4  # the first fetch and up to 3 more polls
PAGE_RETRY_WINDOW = timedelta(days=3)

# How a try of the article page went; an item that none was tried for carries None.
PageFetch = Literal["fetched", "transient", "permanent"]

_TRANSIENT_KINDS = frozenset({"timeout", "network"})
_TRANSIENT_STATUSES = frozenset({408, 429})


def failure_of(exc: FetchError) -> PageFetch:
    """Whether another try could fetch the page that ``exc`` failed on."""
    if exc.kind in _TRANSIENT_KINDS:
        return "transient"
    status = exc.http_status
    if exc.kind == "http_status" and (
        status is None or status >= 500 or status in _TRANSIENT_STATUSES
    ):
        return "transient"
    return "permanent"


def failures_after(page_fetch: PageFetch | None, stored: int) -> int:
    """The item's count once this try is stored (``stored``: the count before it; no try, as
    from a file imported without fetching, keeps it)."""
    if page_fetch is None:
        return stored
    if page_fetch == "fetched":
        return 0
    if page_fetch == "permanent":
        return PAGE_FETCH_TRIES
    return min(stored + 1, PAGE_FETCH_TRIES)


def may_fetch_again(failures: int, first_stored: datetime, now: datetime) -> bool:
    """Whether a poll fetches the article page of a stored item again."""
    return 0 < failures < PAGE_FETCH_TRIES and now - first_stored < PAGE_RETRY_WINDOW
