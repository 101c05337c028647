"""Podcast RSS: show and episode metadata (RSS, iTunes and Podcasting 2.0 namespaces), the audio
enclosure, the duration in its several forms, and transcripts from ``podcast:transcript``.

feedparser keeps only one ``podcast:transcript`` per episode and drops element text, so the
Podcasting 2.0 tags are read with lxml from the same bytes (entity resolution and network off).
Transcript preference: JSON, WebVTT, SRT (timed, with speakers), then HTML, then plain text.
An episode whose transcript cannot be had is rejected with the reason: Herald stores what was
said, and never stands show notes in for a transcript.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from lxml import etree

from herald.core.clock import Clock
from herald.core.ids import stable_id
from herald.ingest.cleaning import clean_text
from herald.ingest.dates import entry_date
from herald.ingest.fetch import GENERIC_TYPES, TRANSCRIPT_TYPES, Fetcher, FetchError
from herald.ingest.model import (
    IncomingItem,
    ItemError,
    ItemWarning,
    KnownEntry,
    ParseOutcome,
    PodcastRef,
    SourceRef,
    content_ids_of,
)
from herald.ingest.people import person_name
from herald.ingest.sources.base import Document
from herald.ingest.sources.enclosures import enclosure_identities
from herald.ingest.sources.feed_entries import (
    audio_enclosure,
    entry_authors,
    entry_language,
    entry_link,
    feed_site,
)
from herald.ingest.sources.feed_text import detail_text
from herald.ingest.transcripts import (
    ParsedTranscript,
    TranscriptFormatError,
    parse_duration,
    parse_transcript,
    transcript_kind,
)
from herald.ingest.urls import (
    InvalidUrl,
    canonical_url,
    host_of,
    pre_nfc_canonical_url,
    registrable_domain,
)

__all__ = ["PODCAST_NAMESPACES", "parse_podcast_feed"]

PODCAST_NAMESPACES = (
    "https://podcastindex.org/namespace/1.0",
    "https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md",
)
ITUNES = "http://www.itunes.com/dtds/podcast-1.0.dtd"
_TYPE_RANK = {"json": 0, "vtt": 1, "srt": 2, "html": 3, "text": 4}


@dataclass(frozen=True, slots=True)
class _TranscriptLink:
    url: str
    content_type: str | None
    language: str | None


@dataclass(frozen=True, slots=True)
class _ItemExtras:
    guid: str | None
    transcripts: tuple[_TranscriptLink, ...]
    people: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class _ShowExtras:
    podcast_guid: str | None
    itunes_author: str | None
    items: tuple[_ItemExtras, ...]


def parse_podcast_feed(
    parsed: Any,
    document: Document,
    *,
    clock: Clock,
    fetcher: Fetcher | None,
    is_known: Callable[[str], bool] | None = None,
) -> Iterator[ParseOutcome]:
    extras = _read_extras(document.content)
    feed = parsed.feed
    site = feed_site(feed, document.origin)
    show_title = clean_text(str(feed.get("title") or "")) or None
    publisher = person_name(extras.itunes_author) or _owner(feed)
    podcast_id = extras.podcast_guid or _derived_podcast_id(document.origin, site, show_title)
    by_guid = {item.guid: item for item in extras.items if item.guid}
    entries = list(parsed.entries)
    guids = [_guid(entry) for entry in entries]
    links = [entry_link(entry, site) for entry in entries]
    audio_urls = [_audio_url(entry) for entry in entries]
    by_file = enclosure_identities(
        [None if g or k else a for g, k, a in zip(guids, links, audio_urls, strict=True)]
    )

    for number, (entry, guid, link, audio_url) in enumerate(
        zip(entries, guids, links, audio_urls, strict=True), start=1
    ):
        location = f"episode {number}"
        title = clean_text(detail_text(entry, "title"))
        ref = title[:120] or guid or link
        if not title:
            yield ItemError(location, "episode has no title", ref=guid or link)
            continue
        legacy_ids: tuple[str, ...] = ()
        if not link and not guid:
            identity = by_file[number - 1]
            if identity is None:
                yield ItemError(location, "episode has no link, guid or enclosure", ref=ref)
                continue
            guid = identity.external_id  # the audio file is the only identity it has
            legacy_ids = identity.legacy
        item_extras = by_guid.get(guid) if guid else None
        if item_extras is None and number <= len(extras.items):
            item_extras = extras.items[number - 1]

        if is_known is not None and item_extras is not None and item_extras.transcripts:
            try:
                provisional = document.source or _show_source(site, link, audio_url, show_title)
                candidates = content_ids_of(
                    link, provisional.domain, guid, by_id=True, legacy_external_ids=legacy_ids
                )
            except InvalidUrl:
                candidates = ()
            known_id = next((cid for cid in candidates if is_known(cid)), None)
            if known_id:
                yield KnownEntry(location, known_id)
                continue
        transcript, problems = _best_transcript(item_extras, fetcher)
        if transcript is None:
            reason = "; ".join(problems) if problems else "no podcast:transcript"
            yield ItemError(location, f"episode has no usable transcript ({reason})", ref=ref)
            continue
        for problem in problems:
            yield ItemWarning(location, problem, ref=ref)

        dated = entry_date(entry)
        published = dated.value
        estimated = published is None
        for problem in dated.problems:
            fallback = "another date" if published else "the time it was first seen"
            yield ItemWarning(location, f"{problem}; using {fallback}", ref=ref)
        if published is None:
            published = clock.now()
            if not dated.problems:
                yield ItemWarning(
                    location, "episode has no date; using the time it was first seen", ref=ref
                )
        try:
            source = document.source or _show_source(site, link, audio_url, show_title)
        except InvalidUrl as exc:
            yield ItemError(location, f"cannot tell the source domain: {exc}", ref=ref)
            continue
        authors = item_extras.people if item_extras and item_extras.people else ()
        if not authors:
            authors = entry_authors(entry)
        notes = detail_text(entry, "summary")
        yield IncomingItem(
            media_type="podcast",
            title=title,
            published_date=published,
            source=source,
            url=link,
            external_id=guid,
            authors=authors,
            language=entry_language(entry, feed),
            # Show notes are the publisher's own description of the episode.
            summary=notes if notes and len(notes.split()) <= 200 else None,
            podcast=PodcastRef(
                title=show_title or source.name, podcast_id=podcast_id, publisher=publisher
            ),
            audio_url=audio_url,
            duration_seconds=parse_duration(entry.get("itunes_duration")),
            transcript=transcript.text,
            transcript_segments=transcript.segments,
            published_is_estimate=estimated,
            identified_by_id=True,
            legacy_external_ids=legacy_ids,
        )


def _guid(entry: Any) -> str | None:
    return str(entry.get("id") or "").strip() or None


def _audio_url(entry: Any) -> str | None:
    """The episode's audio enclosure when it is an http(s) URL."""
    enclosure = audio_enclosure(entry)
    audio_url = str(enclosure.get("href")) if enclosure else None
    if audio_url:
        try:
            canonical_url(audio_url)
        except InvalidUrl:
            return None
    return audio_url


def _best_transcript(
    extras: _ItemExtras | None, fetcher: Fetcher | None
) -> tuple[ParsedTranscript | None, list[str]]:
    problems: list[str] = []
    if extras is None or not extras.transcripts:
        return None, problems
    if fetcher is None:
        return None, ["transcripts are not fetched in this mode"]
    ranked = sorted(
        extras.transcripts,
        key=lambda link: _TYPE_RANK.get(transcript_kind(link.content_type, link.url), 9),
    )
    for link in ranked:
        try:
            result = fetcher.fetch(link.url, accept=_accepted_types(link))
            kind = transcript_kind(
                link.content_type or result.content_type, link.url, result.content
            )
            parsed = parse_transcript(result.content, kind=kind)
        except FetchError as exc:
            problems.append(f"transcript {link.url}: {exc.message}")
            continue
        except TranscriptFormatError as exc:
            problems.append(f"transcript {link.url}: {exc}")
            continue
        if parsed.segments or parsed.text:
            # Earlier failures are worth a warning only when a fallback was used.
            return parsed, problems
    return None, problems


def _accepted_types(link: _TranscriptLink) -> tuple[str, ...]:
    """The feed's declared transcript type is trusted over a server that sends a generic one
    (``application/octet-stream``; ``text/plain`` is accepted anyway): the type decides how
    the file is read, and the fetch's size limit applies as always."""
    declared = (link.content_type or "").split(";")[0].strip().lower()
    return (*TRANSCRIPT_TYPES, *GENERIC_TYPES) if declared in TRANSCRIPT_TYPES else TRANSCRIPT_TYPES


def _read_extras(content: bytes) -> _ShowExtras:
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True, huge_tree=False)
    try:
        root = etree.fromstring(content, parser)
    except etree.XMLSyntaxError:
        root = None
    if root is None:
        return _ShowExtras(None, None, ())
    channel = root.find("channel")
    if channel is None:
        return _ShowExtras(None, None, ())
    items = tuple(_item_extras(item) for item in channel.iter("item"))
    return _ShowExtras(
        podcast_guid=_podcast_text(channel, "guid"),
        itunes_author=_child_text(channel, f"{{{ITUNES}}}author"),
        items=items,
    )


def _item_extras(item: Any) -> _ItemExtras:
    transcripts = []
    people = []
    for namespace in PODCAST_NAMESPACES:
        for node in item.findall(f"{{{namespace}}}transcript"):
            url = (node.get("url") or "").strip()
            if url:
                transcripts.append(_TranscriptLink(url, node.get("type"), node.get("language")))
        for node in item.findall(f"{{{namespace}}}person"):
            role = (node.get("role") or "host").lower()
            # The text is the name; early drafts (and the namespace's example) used name="".
            name = clean_text(node.text or node.get("name") or "")
            if name and role in ("host", "guest", "co-host", "cohost"):
                people.append(name)
    guid = _child_text(item, "guid")
    return _ItemExtras(guid=guid, transcripts=tuple(transcripts), people=tuple(people))


def _podcast_text(node: Any, tag: str) -> str | None:
    for namespace in PODCAST_NAMESPACES:
        text = _child_text(node, f"{{{namespace}}}{tag}")
        if text:
            return text
    return None


def _child_text(node: Any, tag: str) -> str | None:
    child = node.find(tag)
    if child is None or not child.text:
        return None
    return clean_text(child.text) or None


def _owner(feed: Any) -> str | None:
    detail = feed.get("publisher_detail") or {}
    name = detail.get("name") if hasattr(detail, "get") else None
    # managingEditor and itunes:owner come as "email (Name)": the name, never the address.
    return person_name(str(name)) if name else person_name(str(feed.get("author") or ""))


def _derived_podcast_id(origin: str, site: str, title: str | None) -> str:
    # The feed URL identifies a show best; a file on disk falls back to site link + title.
    # Its canonical form from before text was normalised to NFC: the ids shows have had since.
    for url in (origin, site):
        if url.startswith(("http://", "https://")):
            try:
                return stable_id("pod", pre_nfc_canonical_url(url))
            except InvalidUrl:
                continue
    return stable_id("pod", f"{origin}\n{title or ''}")


def _show_source(
    site: str, link: str | None, audio_url: str | None, title: str | None
) -> SourceRef:
    for url in (site, link, audio_url):
        if url and url.startswith(("http://", "https://")):
            domain = registrable_domain(host_of(url))
            if domain:
                return SourceRef(title or domain, domain)
    raise InvalidUrl("the feed has no site link and the episode no link")
