"""A monitor's result store as an Atom feed (RFC 4287) at a secret, revocable URL.

The URL's last segment is a random token; only its SHA-256 is stored, so the URL is shown once
(when created or rotated) and a copy of the database cannot read feeds. The token is the only
credential of the feed URL (feed readers send no API key) and it names exactly one monitor.

The feed lists the newest :data:`FEED_ENTRIES` results, newest published first. Its ``ETag`` is
computed from one aggregate over the store (count, last capture, last content change), so a
reader polling an unchanged feed costs one indexed query and gets a 304 without a body.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime
from xml.etree import ElementTree as ET

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from herald.core.clock import Clock
from herald.core.pagination import PageRequest
from herald.db.models.content import ContentItem
from herald.db.models.monitor import Monitor, MonitorResult
from herald.db.models.monitor_feeds import MonitorFeed
from herald.errors import NotFound
from herald.monitors.queries import results_page
from herald.monitors.service import get_monitor

FEED_ENTRIES = 50
ATOM = "http://www.w3.org/2005/Atom"
_TOKEN_BYTES = 32


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_feed(session: Session, *, team_id: str, monitor_id: str, clock: Clock) -> str:
    """Publish (or rotate) the monitor's feed; returns the new token. An older URL stops working."""
    get_monitor(session, team_id=team_id, monitor_id=monitor_id, for_update=True)
    token = secrets.token_urlsafe(_TOKEN_BYTES)
    session.execute(delete(MonitorFeed).where(MonitorFeed.monitor_id == monitor_id))
    session.add(
        MonitorFeed(
            monitor_id=monitor_id,
            team_id=team_id,
            token_hash=token_hash(token),
            created_at=clock.now(),
        )
    )
    session.flush()
    return token


def revoke_feed(session: Session, *, team_id: str, monitor_id: str) -> bool:
    """Stop publishing; False when there was no feed."""
    get_monitor(session, team_id=team_id, monitor_id=monitor_id)
    gone = session.execute(delete(MonitorFeed).where(MonitorFeed.monitor_id == monitor_id))
    return bool(gone.rowcount)  # type: ignore[attr-defined]


def monitor_for_token(session: Session, token: str) -> Monitor:
    """The monitor a feed token publishes; an unknown or revoked token is a 404."""
    monitor = session.scalars(
        select(Monitor)
        .join(MonitorFeed, MonitorFeed.monitor_id == Monitor.id)
        .where(MonitorFeed.token_hash == token_hash(token))
    ).one_or_none()
    if monitor is None:
        raise NotFound("no such feed")
    return monitor


@dataclass(frozen=True, slots=True)
class FeedState:
    etag: str
    updated: datetime  # the feed's atom:updated


def feed_state(session: Session, monitor: Monitor) -> FeedState:
    row = session.execute(
        select(
            func.count(),
            func.max(MonitorResult.first_captured_at),
            func.max(ContentItem.updated_at),
        )
        .select_from(MonitorResult)
        .join(ContentItem, ContentItem.id == MonitorResult.content_id)
        .where(MonitorResult.monitor_id == monitor.id, ContentItem.deleted_at.is_(None))
    ).one()
    count, captured, changed = row
    stamps = [t for t in (captured, changed, monitor.updated_at) if t is not None]
    updated = max(stamps)
    seed = f"{monitor.id}|{count}|{captured}|{changed}|{monitor.updated_at}|{monitor.name}"
    return FeedState(f'"{hashlib.sha256(seed.encode()).hexdigest()[:32]}"', updated)


def _stamp(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrs: str) -> ET.Element:
    element = ET.SubElement(parent, f"{{{ATOM}}}{tag}", attrs)
    if text is not None:
        element.text = text
    return element


def render_feed(session: Session, monitor: Monitor, *, self_url: str, state: FeedState) -> bytes:
    """The Atom document: feed id/title/updated/author/self link, then entries newest first."""
    page = results_page(
        session,
        monitor_id=monitor.id,
        start=None,
        end=None,
        page=PageRequest.checked(FEED_ENTRIES, 0, max_limit=FEED_ENTRIES),
    )
    ET.register_namespace("", ATOM)
    feed = ET.Element(f"{{{ATOM}}}feed")
    _sub(feed, "id", f"urn:herald:monitor:{monitor.id}")
    _sub(feed, "title", f"Herald monitor: {monitor.name}")
    _sub(feed, "updated", _stamp(state.updated))
    _sub(_sub(feed, "author"), "name", "Herald")
    _sub(feed, "link", rel="self", href=self_url, type="application/atom+xml")
    _sub(feed, "generator", "Herald")
    for result in page.items:
        item = result.item
        entry = _sub(feed, "entry")
        _sub(entry, "id", f"urn:herald:content:{item.id}")
        _sub(entry, "title", item.title)
        if item.url:
            _sub(entry, "link", rel="alternate", href=item.url)
        else:  # an entry without an alternate link must carry content (RFC 4287 4.1.2)
            _sub(entry, "content", item.title, type="text")
        _sub(entry, "published", _stamp(item.published_at))
        _sub(entry, "updated", _stamp(max(item.published_at, result.first_captured_at)))
        source = _sub(entry, "source")
        _sub(source, "id", f"https://{item.source_domain}/")
        _sub(source, "title", item.source_name or item.source_domain)
        _sub(source, "link", rel="alternate", href=f"https://{item.source_domain}/")
        _sub(source, "updated", _stamp(item.published_at))
        points = [str(p) for p in item.key_points or []]
        if points:
            _sub(entry, "summary", "\n".join(f"- {p}" for p in points), type="text")
    return bytes(ET.tostring(feed, encoding="utf-8", xml_declaration=True))
