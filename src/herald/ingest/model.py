"""The normalised incoming item: what every source adapter produces and the ingest service stores.

It carries every field of the JSON Lines ingestion format (docs/ingestion.md) already cleaned:
``published_date`` is an aware UTC instant, ``source.domain`` is the registrable domain in lower
case, and the canonical key (from which the stable content id derives) is computed once here.
Enrichment fields (summaries, key points, entities, segments' titles) are not part of it: they are
filled later by enrichment and never invented at ingestion.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal

from herald.core.ids import stable_id
from herald.core.storable import text_problem
from herald.db.content_limits import (
    DURATION_SECONDS_MAX,
    EPISODE_ID_MAX,
    EXTERNAL_ID_MAX,
    LANGUAGE_MAX,
    PODCAST_ID_MAX,
    SOURCE_DOMAIN_MAX,
)
from herald.errors import field_path
from herald.ingest.page_retries import PageFetch
from herald.ingest.urls import canonical_url, legacy_canonical_urls

MediaType = Literal["news", "wire", "podcast"]
MEDIA_TYPES: frozenset[str] = frozenset({"news", "wire", "podcast"})


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Who published the item: a display name and the registrable domain (lower case)."""

    name: str
    domain: str


@dataclass(frozen=True, slots=True)
class PodcastRef:
    """The show an episode belongs to."""

    title: str
    podcast_id: str | None = None
    publisher: str | None = None


@dataclass(frozen=True, slots=True)
class TranscriptSegment:
    """One timed stretch of speech; ``speaker`` is ``None`` when the format does not say."""

    start: float
    end: float
    text: str
    speaker: str | None = None


@dataclass(frozen=True, slots=True)
class IncomingItem:
    media_type: MediaType
    title: str
    published_date: datetime
    source: SourceRef
    url: str | None = None
    external_id: str | None = None
    authors: tuple[str, ...] = ()
    language: str | None = None
    summary: str | None = None
    body: str | None = None
    podcast: PodcastRef | None = None
    episode_id: str | None = None
    audio_url: str | None = None
    duration_seconds: float | None = None
    transcript: str | None = None
    transcript_segments: tuple[TranscriptSegment, ...] = ()
    # True when the source gave no date and the time it was first seen stands in: an update of a
    # stored item then keeps the stored date.
    published_is_estimate: bool = False
    # Feeds and wires: the entry's own id (guid, Atom id, ninjs uri) identifies it within its
    # source, so entries sharing a page (linkblogs, #fragment links) stay distinct. JSON Lines
    # items are identified by their URL (the ingestion format's rule).
    identified_by_id: bool = False
    # External ids earlier releases gave this entry where they differ from ``external_id`` (a
    # podcast episode known by its audio file was known by the file's URL as written).
    legacy_external_ids: tuple[str, ...] = ()
    # True when the source gave no title and one was made from the first sentence.
    title_derived: bool = False
    # Feed teasers: how the try of the article page went (None: none was tried). Not part of
    # the content: it decides whether later polls fetch the page again.
    page_fetch: PageFetch | None = None
    # Derived once: the canonical URL (None without a URL) and the dedup key.
    canonical_url: str | None = field(init=False, default=None)
    canonical_key: str = field(init=False, default="")
    content_id: str = field(init=False, default="")

    def __post_init__(self) -> None:
        if self.published_date.tzinfo is None:
            raise ValueError("published_date must be timezone-aware (normalise to UTC first)")
        canonical = canonical_url(self.url) if self.url else None
        object.__setattr__(self, "canonical_url", canonical)
        key = canonical_key(
            canonical, self.source.domain, self.external_id, by_id=self.identified_by_id
        )
        object.__setattr__(self, "canonical_key", key)
        object.__setattr__(self, "content_id", content_id_for_key(key))

    @property
    def legacy_canonical_urls(self) -> tuple[str, ...]:
        """The canonical forms its URL had before the text of paths and queries was normalised
        to NFC, where they differ from its canonical URL (:func:`legacy_canonical_urls`)."""
        return legacy_canonical_urls(self.url) if self.url and self.canonical_url else ()

    @property
    def legacy_keys(self) -> tuple[str, ...]:
        """The keys earlier releases gave this item, where they differ from its own, in order:
        those of its earlier external ids, its canonical URL's before entries were identified
        by their own id, and those of its URL's canonical forms before their text was normalised
        to NFC. A row stored under one keeps its id (:func:`legacy_keys`)."""
        return legacy_keys_of(
            self.canonical_key,
            self.canonical_url,
            self.legacy_canonical_urls,
            by_id=self.identified_by_id and bool(self.external_id),
            external_keys=external_keys(self.source.domain, self.legacy_external_ids),
        )

    def rekeyed(self, key: str) -> IncomingItem:
        """The same item stored under another canonical key (a row stored under one of its
        legacy keys)."""
        copy = replace(self)
        object.__setattr__(copy, "canonical_key", key)
        object.__setattr__(copy, "content_id", content_id_for_key(key))
        return copy

    @property
    def text(self) -> str:
        """The item's full text: the article body, or the transcript (joined segments)."""
        if self.body:
            return self.body
        if self.transcript:
            return self.transcript
        return "\n".join(segment.text for segment in self.transcript_segments)

    @property
    def resolved_podcast_id(self) -> str | None:
        """The given podcast id, else one derived from the show (title + source domain)."""
        if self.media_type != "podcast":
            return None
        if self.podcast and self.podcast.podcast_id:
            return self.podcast.podcast_id
        title = self.podcast.title if self.podcast else self.source.name
        return stable_id("pod", f"{self.source.domain}\n{title.casefold()}")

    @property
    def resolved_episode_id(self) -> str | None:
        """The given episode id, else one derived from the canonical key (stable)."""
        if self.media_type != "podcast":
            return None
        return self.episode_id or stable_id("ep", self.canonical_key)


def canonical_key(
    canonical: str | None, source_domain: str, external_id: str | None, *, by_id: bool = False
) -> str:
    """The identity of an item: its canonical URL, else its source domain plus external id
    (``by_id``: the source domain plus external id first, then the canonical URL)."""
    if by_id and external_id and external_id.strip():
        return f"ext:{source_domain.lower()}:{external_id.strip()}"
    if canonical:
        return f"url:{canonical}"
    if external_id:
        return f"ext:{source_domain.lower()}:{external_id.strip()}"
    raise ValueError("an item needs a url or an external_id")


def content_id_for_key(key: str) -> str:
    return stable_id("cnt", key)


def external_keys(source_domain: str, external_ids: tuple[str, ...]) -> tuple[str, ...]:
    """The keys of an item of ``source_domain`` identified by each of ``external_ids``."""
    return tuple(canonical_key(None, source_domain, e) for e in external_ids if e.strip())


def legacy_keys_of(
    key: str,
    canonical: str | None,
    legacy_canonicals: tuple[str, ...],
    *,
    by_id: bool,
    external_keys: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The keys earlier releases gave an item whose key is ``key``, where they differ from it:
    those of its earlier external ids (``external_keys``), (``by_id``) its canonical URL's, then
    those of its URL's canonical forms before the text of paths and queries was normalised to
    NFC (``legacy_canonicals``)."""
    found = list(external_keys)
    if canonical is not None:
        found += [f"url:{canonical}"] if by_id else []
        found += [f"url:{legacy}" for legacy in legacy_canonicals]
    return tuple(k for k in dict.fromkeys(found) if k != key)


def content_ids_of(
    url: str | None,
    source_domain: str,
    external_id: str | None,
    *,
    by_id: bool = False,
    legacy_external_ids: tuple[str, ...] = (),
) -> tuple[str, ...]:
    """The content ids an entry may be stored under, before it is fully parsed: its own, then
    those of its legacy keys (:func:`legacy_keys_of`)."""
    canonical = canonical_url(url) if url else None
    key = canonical_key(canonical, source_domain, external_id, by_id=by_id)
    legacy = legacy_canonical_urls(url) if url else ()
    keys = (
        key,
        *legacy_keys_of(
            key,
            canonical,
            legacy,
            by_id=by_id and bool(external_id),
            external_keys=external_keys(source_domain, legacy_external_ids),
        ),
    )
    return tuple(content_id_for_key(k) for k in keys)


@dataclass(frozen=True, slots=True)
class ItemError:
    """A rejected entry: where it was (``line 7``, ``entry 3``) and why. The rest still parses."""

    location: str
    reason: str
    line: int | None = None
    ref: str | None = None  # a title, guid or URL that helps the operator find the entry

    def __str__(self) -> str:
        ref = f" ({self.ref})" if self.ref else ""
        return f"{self.location}{ref}: {self.reason}"


@dataclass(frozen=True, slots=True)
class ItemWarning:
    """An accepted entry that lost something on the way (e.g. the article page could not be
    fetched, so the feed's teaser became the body)."""

    location: str
    reason: str
    ref: str | None = None

    def __str__(self) -> str:
        ref = f" ({self.ref})" if self.ref else ""
        return f"{self.location}{ref}: {self.reason}"


@dataclass(frozen=True, slots=True)
class KnownEntry:
    """A feed entry already stored whose refresh would need network fetches (a teaser's article
    page, an episode's transcript): skipped and counted as a duplicate. A teaser whose page
    failed is not one while it may be tried again (:mod:`herald.ingest.page_retries`)."""

    location: str
    content_id: str


ParseOutcome = IncomingItem | ItemError | ItemWarning | KnownEntry


# --- what the database can store ------------------------------------------------------------
# The limits are the columns' own (SQLite would store anything; PostgreSQL fails the whole batch).

# Identifiers are refused when too long (cutting them could merge two items).
LIMITED_FIELDS: dict[str, int] = {
    "external_id": EXTERNAL_ID_MAX,
    "episode_id": EPISODE_ID_MAX,
    "podcast.podcast_id": PODCAST_ID_MAX,
    "language": LANGUAGE_MAX,
    "source.domain": SOURCE_DOMAIN_MAX,
}
# A display name is cut to its column's length instead (``SOURCE_NAME_MAX``, documented in
# docs/ingestion.md).


def storage_problem(item: IncomingItem) -> tuple[str, str] | None:
    """Why ``item`` cannot be stored as it is, as ``(field, reason)``, or None.

    The one rule for every way in (JSON Lines, ``POST /v1/admin/content``, feeds, ninjs,
    podcasts): every string must be storable text, and bounded columns' values must fit.
    """
    for name, text in _strings_of(item):
        problem = text_problem(text)
        if problem is not None:
            return name, f"{name} {problem}"
    values = {
        "external_id": item.external_id,
        "episode_id": item.episode_id,
        "podcast.podcast_id": item.podcast.podcast_id if item.podcast else None,
        "language": item.language,
        "source.domain": item.source.domain,
    }
    for name, limit in LIMITED_FIELDS.items():
        value = values[name]
        if value is not None and len(value) > limit:
            return name, f"{name} longer than {limit} characters"
    if item.duration_seconds is not None and not storable_duration(item.duration_seconds):
        return "duration_seconds", f"duration_seconds over {DURATION_SECONDS_MAX} seconds"
    return None


def storable_duration(seconds: float) -> bool:
    """Whether a duration in seconds fits its column once rounded to whole seconds."""
    return math.isfinite(seconds) and round(seconds) <= DURATION_SECONDS_MAX


def _strings_of(item: IncomingItem) -> list[tuple[str, str]]:
    fields: list[tuple[str, str | None]] = [
        ("title", item.title),
        ("url", item.url),
        ("external_id", item.external_id),
        ("source.name", item.source.name),
        ("source.domain", item.source.domain),
        ("language", item.language),
        ("summary", item.summary),
        ("body", item.body),
        ("episode_id", item.episode_id),
        ("audio_url", item.audio_url),
        ("transcript", item.transcript),
    ]
    if item.podcast is not None:
        fields += [
            ("podcast.title", item.podcast.title),
            ("podcast.podcast_id", item.podcast.podcast_id),
            ("podcast.publisher", item.podcast.publisher),
        ]
    fields += [(field_path("authors", i), author) for i, author in enumerate(item.authors)]
    for i, segment in enumerate(item.transcript_segments):
        fields += [
            (field_path("transcript_segments", i, "text"), segment.text),
            (field_path("transcript_segments", i, "speaker"), segment.speaker),
        ]
    return [(name, value) for name, value in fields if value is not None]
