"""Monitor additions: preview a saved search before saving it; publish results as Atom."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request, Response
from sqlalchemy.orm import Session

from herald.api.deps import PrincipalDep, ReaderDep, RuntimeDep
from herald.api.schemas.common import current_meta
from herald.api.schemas.content import SearchResult, search_form
from herald.api.schemas.match import MatchOut
from herald.api.schemas.monitor_extras import (
    FeedCreated,
    FeedRevoked,
    PreviewDayOut,
    PreviewRequest,
    PreviewResponse,
)
from herald.monitors import feeds
from herald.monitors.match import matches
from herald.monitors.ports import monitor_search
from herald.monitors.preview import check_days, preview, preview_dates
from herald.monitors.saved_search import parse_saved_search

router = APIRouter(prefix="/v1/monitors", tags=["monitors"])
# Outside /v1: an opaque URL for feed readers, not part of the API clients call.
public = APIRouter(prefix="/feeds", tags=["monitors"])
ATOM_TYPE = "application/atom+xml; charset=utf-8"


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
def preview_search(body: PreviewRequest, reader: ReaderDep, runtime: RuntimeDep) -> PreviewResponse:
    search = parse_saved_search(body.search)
    days = check_days(body.days)
    dates = preview_dates(runtime.clock.now(), days)
    port = monitor_search(runtime)

    def read(session: Session) -> list[PreviewDayOut]:
        out = []
        for day in preview(session, port, search, dates):
            top = [SearchResult(score=s, content_item=search_form(i)) for i, s in day.top]
            if body.explain:
                why = matches(
                    session,
                    [i for i, _ in day.top],
                    query=search.query,
                    entity_ids=search.entity_ids,
                    features=day.features,
                )
                for result, (item, _) in zip(top, day.top, strict=True):
                    result.match = MatchOut.model_validate(why[item.id])
            out.append(PreviewDayOut(published_date=day.published_date, count=day.count, top=top))
        return out

    # It reads content only, nothing of the workspace: the read replica may answer it.
    out = reader.run(read)
    return PreviewResponse(days=out, total=sum(d.count for d in out), meta=current_meta())


def _feed_url(request: Request, token: str) -> str:
    return str(request.url_for("monitor_feed", token=token))


@router.post(
    "/{monitor_id}/feed",
    status_code=201,
    summary="Publish the monitor's results as an Atom feed (or rotate its URL)",
    description=(
        "Returns the feed's secret URL once; store it. Anyone holding the URL can read the "
        "feed without an API key. Calling this again replaces the URL (the old one stops "
        "working at once); `DELETE` revokes it."
    ),
    response_model_exclude_unset=True,
)
def create_feed(
    monitor_id: str, request: Request, principal: PrincipalDep, runtime: RuntimeDep
) -> FeedCreated:
    with runtime.sessions.write() as session:
        token = feeds.create_feed(
            session, team_id=principal.team_id, monitor_id=monitor_id, clock=runtime.clock
        )
    return FeedCreated(
        monitor_id=monitor_id,
        feed_url=_feed_url(request, token),
        created_at=runtime.clock.now(),
        meta=current_meta(),
    )


@router.delete(
    "/{monitor_id}/feed",
    summary="Revoke the monitor's feed URL",
    response_model_exclude_unset=True,
)
def revoke_feed(monitor_id: str, principal: PrincipalDep, runtime: RuntimeDep) -> FeedRevoked:
    with runtime.sessions.write() as session:
        revoked = feeds.revoke_feed(session, team_id=principal.team_id, monitor_id=monitor_id)
    return FeedRevoked(monitor_id=monitor_id, revoked=revoked, meta=current_meta())


@public.get(
    "/{token}",
    name="monitor_feed",
    summary="A monitor's results as Atom (the secret URL; no API key)",
    description=(
        "The newest 50 results, newest published first. Send the `ETag` back as "
        "`If-None-Match`: an unchanged feed answers 304 with no body."
    ),
    response_class=Response,
    responses={200: {"content": {"application/atom+xml": {}}}, 304: {"description": "Unchanged"}},
)
def monitor_feed(
    token: str,
    request: Request,
    runtime: RuntimeDep,
    if_none_match: Annotated[str | None, Header()] = None,
) -> Response:
    with runtime.sessions.read() as session:
        monitor = feeds.monitor_for_token(session, token)
        state = feeds.feed_state(session, monitor)
        headers = {"etag": state.etag, "cache-control": "private, max-age=60"}
        if if_none_match is not None and state.etag in {
            tag.strip() for tag in if_none_match.split(",")
        }:
            return Response(status_code=304, headers=headers)
        body = feeds.render_feed(session, monitor, self_url=str(request.url), state=state)
    return Response(body, media_type=ATOM_TYPE, headers=headers)
