"""The article an incoming item belongs to: the article of an earlier copy of the same story
text (stored fingerprints sharing a band with it, or items of the same batch seen before)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from sqlalchemy.orm import Session

from herald.ingest import repository
from herald.ingest.syndication import TextFingerprint, is_syndicated


class ArticleMatcher:
    """Finds the article of an earlier copy: stored fingerprints sharing a band, plus the ones
    of this batch seen so far."""

    def __init__(self, session: Session, fingerprints: Iterable[TextFingerprint]) -> None:
        keys = [key for fp in fingerprints for key in fp.band_keys()]
        stored = repository.fingerprints_sharing_bands(session, keys) if keys else []
        self._known: dict[str, tuple[str, TextFingerprint]] = {}
        self._by_band: dict[int, set[str]] = defaultdict(set)
        for row in stored:
            fp = TextFingerprint.from_bytes(row.signature)
            self._known[row.content_id] = (row.article_id, fp)
            for key in row.band_keys:
                self._by_band[key].add(row.content_id)

    def match(self, content_id: str, fp: TextFingerprint) -> str | None:
        candidates: set[str] = set()
        for key in fp.band_keys():
            candidates |= self._by_band.get(key, set())
        candidates.discard(content_id)
        best: tuple[float, str] | None = None
        for other_id in sorted(candidates):
            article_id, other = self._known[other_id]
            if not is_syndicated(fp, other):
                continue
            score = max(fp.jaccard(other), fp.containment(other))
            if best is None or score > best[0]:
                best = (score, article_id)
        return best[1] if best else None

    def remember(self, content_id: str, article_id: str, fp: TextFingerprint) -> None:
        self._known[content_id] = (article_id, fp)
        for key in fp.band_keys():
            self._by_band[key].add(content_id)
