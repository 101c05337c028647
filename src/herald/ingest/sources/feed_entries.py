"""What RSS and Atom entries say the same way in news and podcast feeds: the site, an entry's
link, authors and language, and its audio enclosure (feedparser's parsed entries)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast
from urllib.parse import urljoin

from herald.ingest.normalize import normalise_language, split_authors
from herald.ingest.urls import InvalidUrl, canonical_url

__all__ = ["audio_enclosure", "entry_authors", "entry_language", "entry_link", "feed_site"]


def audio_enclosure(entry: Any) -> Mapping[str, Any] | None:
    """The entry's audio or video enclosure (by its type, or an audio file's ending when it has
    none)."""
    for link in entry.get("links", []) or []:
        if link.get("rel") == "enclosure":
            kind = str(link.get("type") or "").lower()
            href = str(link.get("href") or "")
            if kind.startswith(("audio/", "video/")) or (
                not kind and href.lower().split("?")[0].endswith((".mp3", ".m4a", ".ogg", ".opus"))
            ):
                return cast(Mapping[str, Any], link)
    return None


def feed_site(feed: Any, origin: str) -> str:
    """The feed's site link, else the URL the feed was read from."""
    link = str(feed.get("link") or "").strip()
    if link.startswith(("http://", "https://")):
        return link
    return origin


def entry_link(entry: Any, site: str) -> str | None:
    """The entry's link (its guid when that is a permalink), made absolute against the feed's
    site; None when it has none or it is no http(s) URL."""
    link = str(entry.get("link") or "").strip()
    if not link and entry.get("guidislink"):
        link = str(entry.get("id") or "").strip()
    if not link:
        guid = str(entry.get("id") or "").strip()
        if guid.startswith(("http://", "https://")) and entry.get("guidislink", True) is not False:
            link = guid
    if not link:
        return None
    if site.startswith(("http://", "https://")):
        link = urljoin(site, link)
    try:
        canonical_url(link)
    except InvalidUrl:
        return None
    return link


def entry_authors(entry: Any) -> tuple[str, ...]:
    """The entry's authors, split and without repeats (the first spelling kept)."""
    names: list[str] = []
    for author in entry.get("authors", []) or []:
        name = str(author.get("name") or "").strip()
        if name:
            names.extend(split_authors(name))
    if not names and entry.get("author"):
        names.extend(split_authors(str(entry.get("author"))))
    unique: dict[str, str] = {}
    for name in names:
        unique.setdefault(name.casefold(), name)
    return tuple(unique.values())


def entry_language(entry: Any, feed: Any) -> str | None:
    """The language of the entry's title, else of the feed, as a normalised tag."""
    for holder in (entry.get("title_detail") or {}, feed):
        value = holder.get("language") if hasattr(holder, "get") else None
        if value:
            language = normalise_language(str(value))
            if language:
                return language
    return None
