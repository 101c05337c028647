"""Monitor additions: preview a saved search before saving it; publish results as Atom."""

from __future__ import annotations

from fastapi import APIRouter

from herald.api.deps import PrincipalDep, RuntimeDep
from herald.api.schemas.common import current_meta
from herald.api.schemas.content import SearchResult, search_form
from herald.api.schemas.monitor_extras import PreviewDayOut, PreviewRequest, PreviewResponse
from herald.monitors.ports import monitor_search
from herald.monitors.preview import check_days, preview, preview_dates
from herald.monitors.saved_search import parse_saved_search

router = APIRouter(prefix="/v1/monitors", tags=["monitors"])


@router.post(
    "/preview",
    summary="Preview what a saved search would capture, saving nothing",
    description=(
        "Runs, for today (UTC) and each past day up to `days`, exactly the search a monitor's "
        "dated job runs (same threshold, same internal limit of 1000) and returns per published "
        "date the number of items it would capture and the best of them with their scores."
    ),
    response_model_exclude_unset=True,
)
def preview_search(
    body: PreviewRequest, principal: PrincipalDep, runtime: RuntimeDep
) -> PreviewResponse:
    search = parse_saved_search(body.search)
    days = check_days(body.days)
    dates = preview_dates(runtime.clock.now(), days)
    port = monitor_search(runtime)
    with runtime.sessions.read() as session:
        found = preview(session, port, search, dates)
        out = [
            PreviewDayOut(
                published_date=day.published_date,
                count=day.count,
                top=[SearchResult(score=s, content_item=search_form(i)) for i, s in day.top],
            )
            for day in found
        ]
    return PreviewResponse(days=out, total=sum(d.count for d in found), meta=current_meta())
