"""Test support for monitors: a content factory and a plain search over the database.

``WordSearch`` implements the search port (``search(session, SearchRequest) -> [SearchHit]``)
honestly but simply: the request's window, media types, domains, entity ids and store
restriction are applied in SQL; an item matches when its title contains every query word. It
keeps monitor tests independent of embedding models and index builds (the search area tests
ranking); the monitors area tests what it does with the hits.

It can also be told to stall (crash test) or fail (give-up test) for one published date.
"""

from __future__ import annotations

import os
import re
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from herald.core.ids import stable_id
from herald.db.models.content import ContentEntity, ContentItem
from herald.monitors.dated_jobs import StartedRun
from herald.runtime import Runtime
from herald.search.types import SearchHit, SearchRequest

_WORD = re.compile(r"\w+")


def words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


class WordSearch:
    def __init__(
        self,
        *,
        stall_marker: Path | None = None,
        fail_dates: frozenset[date] = frozenset(),
    ) -> None:
        self.stall_marker = stall_marker
        self.fail_dates = fail_dates
        self.calls: list[SearchRequest] = []

    def search(self, session: Session, request: SearchRequest) -> list[SearchHit]:
        self.calls.append(request)
        day = request.start.astimezone(UTC).date()
        if day in self.fail_dates:
            raise RuntimeError(f"search backend unavailable for {day}")
        if self.stall_marker is not None and not self.stall_marker.exists():
            self.stall_marker.write_text(str(os.getpid()))
            time.sleep(120)  # the crash test kills the process here
        query = select(ContentItem.id, ContentItem.title).where(
            ContentItem.published_at >= request.start,
            ContentItem.published_at < request.end,
            ContentItem.deleted_at.is_(None),
        )
        if request.media_types:
            query = query.where(ContentItem.media_type.in_(request.media_types))
        if request.include_domains:
            query = query.where(ContentItem.source_domain.in_(request.include_domains))
        if request.exclude_domains:
            query = query.where(ContentItem.source_domain.not_in(request.exclude_domains))
        if request.entity_ids:
            linked = select(ContentEntity.content_id).where(
                ContentEntity.entity_id.in_(request.entity_ids)
            )
            query = query.where(ContentItem.id.in_(linked))
        if request.within_content_ids is not None:
            query = query.where(ContentItem.id.in_(request.within_content_ids))
        wanted = words(request.query)
        hits = []
        for content_id, title in session.execute(query):
            found = words(title)
            if wanted <= found:
                hits.append(SearchHit(content_id, round(len(wanted) / max(len(found), 1), 6)))
        hits.sort(key=lambda h: (-h.score, h.content_id))
        return hits[: request.limit]

    def search_for(self, runtime: Runtime, started: StartedRun) -> list[SearchHit]:
        """The hits a dated job would get (as the handler asks, outside any write)."""
        with runtime.sessions.read() as session:
            return self.search(session, started.search.dated_request(started.published_date))


def add_content(
    session: Session,
    *,
    title: str,
    published_at: datetime,
    enriched_at: datetime | None = None,
    key: str | None = None,
    media_type: str = "news",
    domain: str = "example.com",
    created_at: datetime | None = None,
) -> str:
    """Insert one enriched content item; returns its id."""
    canonical = (
        key or f"https://{domain}/{title.lower().replace(' ', '-')}/{published_at:%Y%m%d%H%M}"
    )
    content_id = stable_id("cnt", canonical)
    stamp = created_at or published_at
    session.add(
        ContentItem(
            id=content_id,
            canonical_key=canonical,
            media_type=media_type,
            url=canonical,
            source_name=domain.split(".")[0].title(),
            source_domain=domain,
            title=title,
            published_at=published_at,
            body=f"{title}. " * 3,
            content_hash=content_id,
            key_points=[f"{title} happened."],
            language="en",
            enriched_at=enriched_at or published_at + timedelta(minutes=5),
            created_at=stamp,
            updated_at=stamp,
        )
    )
    session.flush()
    return content_id


def use_word_search(runtime: Runtime, search: WordSearch | None = None) -> WordSearch:
    """Register ``search`` as the runtime's monitor search (before anything asks for it)."""
    from herald.monitors.ports import SEARCH_SERVICE

    chosen = search or WordSearch()
    assert runtime.service(SEARCH_SERVICE, lambda: chosen) is chosen
    return chosen
