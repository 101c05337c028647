"""RSS 0.9x/1.0/2.0 and Atom feeds (feedparser) for news and wire items.

When an entry carries only a teaser (no full content, or fewer than ``TEASER_WORDS`` words), the
article page is fetched through the injected :class:`Fetcher` and its main text and metadata are
extracted with trafilatura. If the page cannot be had, the teaser is kept as the body, a
warning says so and the item says how the try went (later polls may fetch the page again:
:mod:`herald.ingest.page_retries`). Podcast feeds (audio enclosures) are handed to
:mod:`.podcast`.

Each entry is identified by its guid (Atom id) within its source, else by its link (see
:func:`entry_identities`). An entry without a title is titled from its first sentence and marked
so. A broken entry (no link or id, no text) gives a per-entry error; the others parse.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from typing import Any

import feedparser

from herald.core.clock import Clock
from herald.ingest.articles import ExtractedArticle, extract_article, word_count
from herald.ingest.cleaning import clean_text
from herald.ingest.dates import entry_date
from herald.ingest.fetch import HTML_TYPES, Fetcher, FetchError
from herald.ingest.model import (
    IncomingItem,
    ItemError,
    ItemWarning,
    KnownEntry,
    MediaType,
    ParseOutcome,
    SourceRef,
    content_ids_of,
)
from herald.ingest.page_retries import PageFetch, failure_of
from herald.ingest.sources.base import Document
from herald.ingest.sources.feed_entries import (
    audio_enclosure,
    entry_authors,
    entry_language,
    entry_link,
    feed_site,
)
from herald.ingest.sources.feed_text import as_text, detail_text, header_charset
from herald.ingest.titles import title_from_text
from herald.ingest.urls import InvalidUrl, canonical_url, host_of, registrable_domain

__all__ = ["TEASER_WORDS", "FeedAdapter", "parse_feed"]

TEASER_WORDS = 150
SUMMARY_MAX_WORDS = 120


def parse_feed(content: bytes, origin: str, content_type: str | None = None) -> Any:
    """feedparser on bytes only (it never fetches anything itself this way).

    The charset of the HTTP ``Content-Type`` (``content_type``) decodes a feed that is not
    UTF-8 and declares no other encoding itself (no byte order mark, no ``encoding`` in its
    XML declaration, or ``utf-8`` there): a Russian feed in windows-1251 labelled only by its
    server was read as windows-1252. A feed that is valid UTF-8 stays UTF-8 whatever the
    server says (servers mislabel UTF-8 feeds as ISO-8859-1), and the header's media type is
    never passed on (feedparser refuses feeds served as ``text/html``, as many are).
    """
    headers = {"content-location": origin} if origin.startswith(("http://", "https://")) else {}
    charset = header_charset(content, content_type)
    if charset:
        headers["content-type"] = f"application/xml; charset={charset}"
    return feedparser.parse(content, response_headers=headers, sanitize_html=True)


class FeedAdapter:
    """RSS and Atom. ``fetcher`` reads article pages and podcast transcripts (``None`` = never
    go to the network: teasers stay teasers, podcast episodes without inline text are rejected).
    """

    format_name = "rss"

    def __init__(
        self,
        *,
        clock: Clock,
        fetcher: Fetcher | None = None,
        is_known: Callable[[str], bool] | None = None,
    ) -> None:
        self._clock = clock
        self._fetcher = fetcher
        # Entries already stored are not fetched again on every poll (see KnownEntry).
        self._is_known = is_known

    def parse(self, document: Document) -> Iterator[ParseOutcome]:
        base = document.base_url or document.origin
        parsed = parse_feed(document.content, base, document.content_type)
        entries = list(parsed.entries)
        if not entries:
            # A feed without entries has a version; an OPML outline, an HTML page or an empty
            # file has none and is one error, not "0 entries".
            if not parsed.get("version"):
                yield ItemError("document", f"not an RSS or Atom feed ({_not_feed(parsed)})")
            return
        if document.media_type == "podcast" or (
            document.media_type is None and _is_podcast_feed(parsed)
        ):
            from herald.ingest.sources.podcast import parse_podcast_feed

            yield from parse_podcast_feed(
                parsed, document, clock=self._clock, fetcher=self._fetcher, is_known=self._is_known
            )
            return
        media_type: MediaType = document.media_type or "news"
        feed = parsed.feed
        site = feed_site(feed, document.origin)
        identities = entry_identities(entries, site)
        for number, (entry, identity) in enumerate(zip(entries, identities, strict=True), 1):
            yield from self._entry(entry, number, identity, feed, site, document, media_type)

    def _entry(
        self,
        entry: Any,
        number: int,
        identity: str | None,
        feed: Any,
        site: str,
        document: Document,
        media_type: MediaType,
    ) -> Iterator[ParseOutcome]:
        location = f"entry {number}"
        title = clean_text(detail_text(entry, "title"))
        link = entry_link(entry, site)
        guid = identity
        ref = title[:120] or link or guid
        if not link and not guid:
            yield ItemError(location, "entry has neither a link nor an id", ref=ref)
            return

        content_text = _content_text(entry)
        teaser = detail_text(entry, "summary")
        body = content_text if word_count(content_text) >= word_count(teaser) else teaser
        summary = teaser if teaser and teaser != body else None
        page: ExtractedArticle | None = None
        page_fetch: PageFetch | None = None
        needs_page = word_count(body) < TEASER_WORDS and link is not None
        if needs_page and self._fetcher is not None and self._is_known is not None:
            try:
                provisional = document.source or _entry_source(entry, feed, site, link, None)
                candidates = content_ids_of(link, provisional.domain, guid, by_id=True)
            except InvalidUrl:
                candidates = ()
            known_id = next((cid for cid in candidates if self._is_known(cid)), None)
            if known_id:
                yield KnownEntry(location, known_id)
                return
        if needs_page and link:
            page, problem, page_fetch = self._fetch_article(link)
            if page is not None and word_count(page.text) > word_count(body):
                summary = summary or (body or None)
                body = page.text
            elif problem:
                yield ItemWarning(location, f"{problem}; kept the feed's text", ref=ref)
        if not body:
            yield ItemError(
                location, "entry has no text (no content, summary or article page)", ref=ref
            )
            return
        if summary and word_count(summary) > SUMMARY_MAX_WORDS:
            summary = None
        title_derived = not title
        if title_derived:
            title = title_from_text(summary or body)
            if not title:
                yield ItemError(location, "entry has no title and no words", ref=ref)
                return
            ref = title[:120]
            yield ItemWarning(location, "entry has no title; titled from its first sentence", ref)

        dated = entry_date(entry)
        published = dated.value
        if published is None and page is not None and page.published is not None:
            published = page.published
        estimated = published is None
        for problem in dated.problems:
            fallback = "another date" if published else "the time it was first seen"
            yield ItemWarning(location, f"{problem}; using {fallback}", ref=ref)
        if published is None:
            published = self._clock.now()
            if not dated.problems:
                yield ItemWarning(
                    location, "entry has no date; using the time it was first seen", ref=ref
                )

        authors = entry_authors(entry)
        if not authors and page is not None:
            authors = page.authors
        language = entry_language(entry, feed) or (page.language if page else None)
        try:
            source = document.source or _entry_source(entry, feed, site, link, page)
        except InvalidUrl as exc:
            yield ItemError(location, f"cannot tell the source domain: {exc}", ref=ref)
            return
        yield IncomingItem(
            media_type=media_type,
            title=title,
            published_date=published,
            source=source,
            url=link,
            external_id=guid,
            authors=authors,
            language=language,
            summary=summary,
            body=body,
            published_is_estimate=estimated,
            identified_by_id=True,
            title_derived=title_derived,
            page_fetch=page_fetch,
        )

    def _fetch_article(
        self, url: str
    ) -> tuple[ExtractedArticle | None, str | None, PageFetch | None]:
        if self._fetcher is None:
            return None, None, None
        try:
            result = self._fetcher.fetch(url, accept=HTML_TYPES)
        except FetchError as exc:
            return None, f"article page not fetched ({exc.message})", failure_of(exc)
        article = extract_article(result.content, result.url)
        if article is None:
            return None, "no main text found on the article page", "permanent"
        return article, None, "fetched"


# --- helpers shared with the podcast adapter ------------------------------------------------


def _is_podcast_feed(parsed: Any) -> bool:
    # A blog post may carry an audio enclosure; a podcast feed also declares a podcast namespace.
    namespaces = {str(uri) for uri in (parsed.get("namespaces") or {}).values()}
    declared = any(
        "itunes.com/dtds/podcast" in uri
        or "podcast-namespace" in uri
        or "podcastindex.org/namespace" in uri
        for uri in namespaces
    )
    entries = list(parsed.entries)
    with_audio = sum(1 for entry in entries if audio_enclosure(entry) is not None)
    return declared and with_audio > 0 and with_audio * 2 >= len(entries)


def _not_feed(parsed: Any) -> str:
    if parsed.get("bozo"):
        exc = parsed.get("bozo_exception")
        return str(exc).splitlines()[0][:200] if exc else "unreadable"
    return "no rss, rdf:RDF or feed element; an OPML outline lists feeds but is none"


def _content_text(entry: Any) -> str:
    best = ""
    for content in entry.get("content", []) or []:
        text = as_text(str(content.get("value") or ""), content.get("type"))
        if len(text) > len(best):
            best = text
    return best


def entry_identities(entries: list[Any], site: str) -> list[str | None]:
    """The id each entry is known by within its source (``None``: its canonical URL).

    The guid (Atom id) when the feed uses it for one entry only; a feed that repeats one guid
    over entries with different links cannot be trusted with it, so those entries fall back to
    their links. Entries without an id that share a page (sponsor posts, linkblogs, links that
    differ only by ``#fragment``) get their link with its fragment, else the link plus a hash of
    their title and text, so that two entries are never merged into one item.
    """
    guids = [str(entry.get("id") or "").strip() or None for entry in entries]
    links = [entry_link(entry, site) for entry in entries]
    links_of_guid: dict[str, set[str | None]] = defaultdict(set)
    for guid, link in zip(guids, links, strict=True):
        if guid:
            links_of_guid[guid].add(_canonical_or_none(link))
    ids: list[str | None] = [
        guid if guid and len(links_of_guid[guid]) == 1 else None for guid in guids
    ]
    pages: dict[str, list[int]] = defaultdict(list)
    for index, (own, link) in enumerate(zip(ids, links, strict=True)):
        canonical = _canonical_or_none(link)
        if own is None and canonical:
            pages[canonical].append(index)
    for shared in pages.values():
        if len(shared) < 2:
            continue
        raw_links = {links[i] for i in shared}
        for index in shared:
            link = links[index] or ""
            if "#" in link and len(raw_links) == len(shared):
                ids[index] = link
            else:
                entry = entries[index]
                material = f"{entry.get('title') or ''}\n{entry.get('summary') or ''}"
                digest = hashlib.sha256(material.encode()).hexdigest()[:16]
                ids[index] = f"{link}#entry-{digest}"
    return ids


def _canonical_or_none(link: str | None) -> str | None:
    if not link:
        return None
    try:
        return canonical_url(link)
    except InvalidUrl:
        return None


def _entry_source(
    entry: Any, feed: Any, site: str, link: str | None, page: ExtractedArticle | None
) -> SourceRef:
    # Aggregator feeds name each entry's outlet in <source url="...">Name</source>.
    origin = entry.get("source") or {}
    if origin.get("href") and origin.get("title"):
        domain = registrable_domain(host_of(str(origin["href"])))
        if domain:
            return SourceRef(clean_text(str(origin["title"])), domain)
    site_domain = (
        registrable_domain(host_of(site)) if site.startswith(("http://", "https://")) else None
    )
    link_domain = registrable_domain(host_of(link)) if link else None
    # The article's own domain is its publisher; the feed's title names it when they agree.
    domain = link_domain or site_domain
    if not domain:
        raise InvalidUrl("the feed has no site link and the entry no link")
    if domain == site_domain:
        name = clean_text(str(feed.get("title") or "")) or domain
    else:
        name = (page.site_name if page and page.site_name else None) or domain
    return SourceRef(name, domain)
