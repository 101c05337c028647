"""The identity of a podcast episode that has neither a guid nor a link: its audio file.

Hosts rewrite an enclosure's query string as they please (``?updated=1732901234`` when ads are
inserted again, ``?source=rss``, listener tokens), so the URL as written is no identity: each
new query would store the episode again. When the URL's path names a media file
(``/shows/e12.mp3``), the file is the episode and the query is how it is delivered: the
identity is the canonical URL without its query. Otherwise (``/download?id=12``) the query may
be what tells episodes apart and stays. Two episodes of one feed never share an identity: where
dropping the query would make them one, both keep their whole canonical URL.

Releases before this rule identified such an episode by its enclosure URL exactly as written,
and an episode whose file another episode shared is identified by its whole canonical URL:
both are its legacy identities, so an episode stored under one keeps its row when the other
episode has left the feed (or was stored by an earlier release).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from herald.ingest.urls import InvalidUrl, canonical_url

__all__ = ["EnclosureIdentity", "enclosure_identities", "media_file_url"]

# File endings of audio and video that podcast enclosures are served as.
_MEDIA_ENDINGS = (
    ".mp3",
    ".m4a",
    ".m4b",
    ".mp4",
    ".m4v",
    ".aac",
    ".ogg",
    ".oga",
    ".opus",
    ".wav",
    ".flac",
    ".webm",
    ".mov",
    ".mpga",
)


@dataclass(frozen=True, slots=True)
class EnclosureIdentity:
    """The external id an episode is stored under, and those it may have been stored under."""

    external_id: str
    legacy: tuple[str, ...]


def media_file_url(url: str) -> str:
    """The canonical URL without its query when its path names a media file, else the canonical
    URL (raises :class:`InvalidUrl` for what is not an http(s) URL)."""
    canonical = canonical_url(url)
    parts = urlsplit(canonical)
    if parts.query and parts.path.lower().endswith(_MEDIA_ENDINGS):
        return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))
    return canonical


def enclosure_identities(enclosures: Sequence[str | None]) -> list[EnclosureIdentity | None]:
    """The identity of each episode of one feed identified by its enclosure alone (None where the
    episode has another identity, or no readable enclosure), in the order given."""
    files: list[tuple[str, str] | None] = []
    for url in enclosures:
        try:
            files.append(None if url is None else (media_file_url(url), canonical_url(url)))
        except InvalidUrl:
            files.append(None)
    shared = Counter(file for file, _ in filter(None, files))
    out: list[EnclosureIdentity | None] = []
    for url, found in zip(enclosures, files, strict=True):
        if url is None or found is None:
            out.append(None)
            continue
        file, whole = found
        own = file if shared[file] == 1 else whole
        legacy = tuple(i for i in dict.fromkeys((whole, url.strip())) if i != own)
        out.append(EnclosureIdentity(own, legacy))
    return out
