"""JSON Feed 1.0 and 1.1 (``version: https://jsonfeed.org/version/1[.1]``), news items.

Read per item: ``id`` (the item's id within its source; JSON Feed requires it, numbers are taken as
their text), ``url`` (else ``external_url``), ``title``, ``content_text`` / ``content_html``
(the longer), ``summary``, ``date_published`` (else ``date_modified``), ``authors`` (1.1) or
``author`` (1.0) of the item, else of the feed, and ``language`` (1.1) of the item or feed.

The source is the configured one, else the registrable domain of the feed's ``home_page_url``
(named by the feed's title), else of the item's URL, else of ``feed_url``. An item without a title
(microblog posts) is titled from its first sentence and marked so; an item without text, or
without id and URL, is reported and skipped. Unlike the feed adapter, no article pages are
fetched: JSON Feed items carry their content.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import datetime
from typing import Any

import orjson

from herald.core.clock import Clock
from herald.ingest.articles import html_to_text, word_count
from herald.ingest.cleaning import clean_text
from herald.ingest.dates import read_feed_date
from herald.ingest.model import IncomingItem, ItemError, ItemWarning, ParseOutcome, SourceRef
from herald.ingest.normalize import normalise_language, split_authors
from herald.ingest.sources.base import Document
from herald.ingest.sources.feed_text import as_text
from herald.ingest.titles import title_from_text
from herald.ingest.urls import InvalidUrl, canonical_url, host_of, registrable_domain

__all__ = ["JsonFeedAdapter", "looks_like_json_feed"]

SUMMARY_MAX_WORDS = 120


def looks_like_json_feed(obj: object) -> bool:
    return isinstance(obj, Mapping) and str(obj.get("version") or "").startswith(
        ("https://jsonfeed.org/version/", "http://jsonfeed.org/version/")
    )


class JsonFeedAdapter:
    format_name = "jsonfeed"

    def __init__(self, *, clock: Clock) -> None:
        self._clock = clock

    def parse(self, document: Document) -> Iterator[ParseOutcome]:
        try:
            feed = orjson.loads(document.content.lstrip(b"\xef\xbb\xbf \t\r\n"))
        except orjson.JSONDecodeError as exc:
            yield ItemError("document", f"not JSON: {exc}")
            return
        if not looks_like_json_feed(feed):
            yield ItemError("document", "not a JSON Feed (no https://jsonfeed.org/version/...)")
            return
        items = feed.get("items")
        if not isinstance(items, list):
            yield ItemError("document", "JSON Feed without an items array")
            return
        for number, item in enumerate(items, start=1):
            yield from self._item(item, number, feed, document)

    def _item(
        self, item: object, number: int, feed: Mapping[str, Any], document: Document
    ) -> Iterator[ParseOutcome]:
        location = f"item {number}"
        if not isinstance(item, Mapping):
            yield ItemError(location, "expected a JSON object")
            return
        raw_id = item.get("id")
        own_id = str(raw_id).strip() if isinstance(raw_id, str | int) else ""
        url = _url(item.get("url")) or _url(item.get("external_url"))
        title = _plain(item.get("title"))
        ref = title[:120] or url or own_id or None
        if not own_id and not url:
            yield ItemError(location, "item has neither an id nor a url", ref=ref)
            return
        text = clean_text(_str(item.get("content_text")), keep_newlines=True)
        from_html = html_to_text(_str(item.get("content_html")))
        body = from_html if word_count(from_html) > word_count(text) else text
        summary = _plain(item.get("summary")) or None
        if not body:
            body = summary or ""
            summary = None
        if not body:
            yield ItemError(location, "item has no content_text, content_html or summary", ref=ref)
            return
        if summary and (summary == body or word_count(summary) > SUMMARY_MAX_WORDS):
            summary = None
        title_derived = not title
        if title_derived:
            title = title_from_text(body)
            ref = title[:120] or ref
            yield ItemWarning(location, "item has no title; titled from its first sentence", ref)

        published: datetime | None = None
        for key in ("date_published", "date_modified"):
            raw = _str(item.get(key))
            if not raw:
                continue
            published, problem = read_feed_date(raw)
            if published is not None:
                break
            yield ItemWarning(location, f"{key} {raw[:60]!r} {problem}; not used", ref=ref)
        estimated = published is None
        if published is None:
            published = self._clock.now()
            yield ItemWarning(location, "item has no date; using the time it was first seen", ref)

        source = document.source or _source(feed, url)
        if source is None:
            yield ItemError(
                location,
                "cannot tell the source: no home_page_url, item url or feed_url",
                ref=ref,
            )
            return
        declared = _str(item.get("language")) or _str(feed.get("language"))
        language = normalise_language(declared) if declared else None
        yield IncomingItem(
            media_type=document.media_type or "news",
            title=title,
            published_date=published,
            source=source,
            url=url,
            external_id=own_id or None,
            authors=_authors(item) or _authors(feed),
            language=language,
            summary=summary,
            body=body,
            published_is_estimate=estimated,
            identified_by_id=True,
            title_derived=title_derived,
        )


def _str(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _url(value: object) -> str | None:
    text = _str(value)
    if not text.lower().startswith(("http://", "https://")):
        return None
    try:
        canonical_url(text)
    except InvalidUrl:
        return None
    return text


def _plain(value: object) -> str:
    """A plain-text field (title, summary, names). Generators such as blog engines write HTML
    character references into them (``it&#8217;s``, ``Tom &amp; Jerry``): text with a character
    reference or a closing tag is read as HTML, as for RSS and Atom."""
    return clean_text(as_text(_str(value), "text/plain"))


def _authors(holder: Mapping[str, Any]) -> tuple[str, ...]:
    # 1.1: "authors": [{"name", "url", "avatar"}]; 1.0: "author": {"name", ...}.
    people = holder.get("authors")
    if not isinstance(people, list):
        people = [holder.get("author")]
    names: list[str] = []
    for person in people:
        if isinstance(person, Mapping) and _str(person.get("name")):
            names.extend(split_authors(_plain(person.get("name"))))
    return tuple(dict.fromkeys(names))


def _source(feed: Mapping[str, Any], url: str | None) -> SourceRef | None:
    home = _url(feed.get("home_page_url"))
    feed_title = _plain(feed.get("title"))
    for candidate, named in ((home, True), (url, False), (_url(feed.get("feed_url")), True)):
        if not candidate:
            continue
        domain = registrable_domain(host_of(candidate))
        if domain:
            return SourceRef(feed_title if named and feed_title else domain, domain)
    return None
