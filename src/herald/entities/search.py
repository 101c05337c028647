"""Entity search by name, alias and description, with typo tolerance.

Scores are in [0, 1] and every match tier has its own band, so a better kind of match always
ranks first: exact name 0.90-1.00, exact alias or identifier (ticker, ISIN, ISO code)
0.80-0.90, all query words in a name 0.60-0.80, a close spelling (typo) 0.40-0.65, words of
the description 0.10-0.40. Within a band the closeness of the match and the entity's prior
(population, index listings) order the results.
"""

from __future__ import annotations

import bisect
import threading
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from herald.enrich.text import content_terms
from herald.entities.kb import _prior
from herald.entities.model import EntityRecord
from herald.entities.names import alias_key, name_keys, strip_corporate_suffix

# Tags whose values identify an entity exactly (a ticker is as good as an alias).
IDENTIFIER_TAGS = frozenset({"ticker", "isin", "iso3166_alpha3", "iso3166_2"})
MIN_FUZZY = 80.0
_MAX_FUZZY_CANDIDATES = 300


_Offer = Callable[[str, float], None]


@dataclass(frozen=True, slots=True)
class EntityHit:
    score: float
    entity: EntityRecord


class EntitySearchIndex:
    """An in-memory index of entities; rebuild or :meth:`add` as the knowledge base changes."""

    def __init__(self, records: Iterable[EntityRecord] = ()) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, EntityRecord] = {}
        self._priors: dict[str, float] = {}
        self._names: dict[str, set[str]] = defaultdict(set)  # display-name key -> ids
        self._aliases: dict[str, set[str]] = defaultdict(set)  # alias/identifier key -> ids
        self._words: dict[str, set[str]] = defaultdict(set)  # name word -> ids
        self._description: dict[str, set[str]] = defaultdict(set)  # description term -> ids
        self._entries: dict[str, list[tuple[dict[str, set[str]], str]]] = {}
        self._sorted_keys: list[str] = []
        self._sorted_words: list[str] = []
        self._dirty = True
        for record in records:
            self._add(record)

    def __len__(self) -> int:
        return len(self._records)

    def add(self, record: EntityRecord) -> None:
        with self._lock:
            old = self._records.get(record.id)
            if old == record:
                return
            if old is not None:
                self._remove(record.id)
            self._add(record)

    def remove(self, entity_id: str) -> None:
        """Forget an entity (one merged into another)."""
        with self._lock:
            if entity_id in self._records:
                self._remove(entity_id)

    def _add(self, record: EntityRecord) -> None:
        self._records[record.id] = record
        self._priors[record.id] = _prior(record)
        entries: list[tuple[dict[str, set[str]], str]] = []
        entries += [(self._names, key) for key in name_keys(record.display_name)]
        entries += [(self._aliases, key) for alias in record.aliases for key in name_keys(alias)]
        entries += [
            (self._aliases, alias_key(tag.value))
            for tag in record.tags
            if tag.key in IDENTIFIER_TAGS
        ]
        entries += [
            (self._words, word)
            for name in (record.display_name, *record.aliases)
            for word in alias_key(name).split()
        ]
        entries += [(self._description, term) for term in set(content_terms(record.description))]
        for index, key in entries:
            if key:
                index[key].add(record.id)
        self._entries[record.id] = entries
        self._dirty = True

    def _remove(self, entity_id: str) -> None:
        for index, key in self._entries.pop(entity_id, []):
            ids = index.get(key)
            if ids is not None:
                ids.discard(entity_id)
                if not ids:
                    del index[key]
        self._records.pop(entity_id, None)
        self._priors.pop(entity_id, None)
        self._dirty = True

    def search(
        self, query: str, *, entity_kinds: Collection[str] | None = None, limit: int = 10
    ) -> list[EntityHit]:
        key = alias_key(query)
        if not key:
            return []
        with self._lock:
            if self._dirty:
                self._sorted_keys = sorted(set(self._names) | set(self._aliases))
                self._sorted_words = sorted(self._words)
                self._dirty = False
            scores: dict[str, float] = {}

            def offer(entity_id: str, score: float) -> None:
                record = self._records[entity_id]
                if entity_kinds and record.entity_kind not in entity_kinds:
                    return
                if score > scores.get(entity_id, -1.0):
                    scores[entity_id] = round(min(1.0, max(0.0, score)), 4)

            keys = {key, strip_corporate_suffix(key)}
            for k in keys:
                for entity_id in self._names.get(k, ()):
                    offer(entity_id, 0.90 + 0.10 * self._priors[entity_id])
                for entity_id in self._aliases.get(k, ()):
                    offer(entity_id, 0.80 + 0.10 * self._priors[entity_id])
            self._word_matches(key, offer)
            self._fuzzy_matches(key, offer)
            self._description_matches(query, offer)
            ranked = sorted(
                scores.items(),
                key=lambda item: (-item[1], self._records[item[0]].display_name, item[0]),
            )
            return [EntityHit(score, self._records[i]) for i, score in ranked[:limit]]

    def _word_matches(self, key: str, offer: _Offer) -> None:
        """Names containing every query word; the last word may be unfinished ("deutsche tel")."""
        words = key.split()
        found: set[str] | None = None
        for position, word in enumerate(words):
            ids = set(self._words.get(word, ()))
            if position == len(words) - 1 and len(word) >= 2:
                start = bisect.bisect_left(self._sorted_words, word)
                for candidate in self._sorted_words[start : start + 500]:
                    if not candidate.startswith(word):
                        break
                    ids |= self._words[candidate]
            found = ids if found is None else found & ids
            if not found:
                return
        for entity_id in found or ():
            name_words = len(alias_key(self._records[entity_id].display_name).split()) or 1
            coverage = min(1.0, len(words) / name_words)
            offer(entity_id, 0.60 + 0.15 * coverage + 0.05 * self._priors[entity_id])

    def _fuzzy_matches(self, key: str, offer: _Offer) -> None:
        if len(key) < 4:
            return  # two or three letters: every change is a different name
        matches = process.extract(
            key,
            self._sorted_keys,
            scorer=fuzz.ratio,
            score_cutoff=MIN_FUZZY,
            limit=_MAX_FUZZY_CANDIDATES,
        )
        for matched, similarity, _ in matches:
            closeness = (similarity - MIN_FUZZY) / (100.0 - MIN_FUZZY)
            for entity_id in self._names.get(matched, set()) | self._aliases.get(matched, set()):
                offer(entity_id, 0.40 + 0.20 * closeness + 0.05 * self._priors[entity_id])

    def _description_matches(self, query: str, offer: _Offer) -> None:
        terms = set(content_terms(query))
        if not terms:
            return
        hits: dict[str, int] = defaultdict(int)
        for term in terms:
            for entity_id in self._description.get(term, ()):
                hits[entity_id] += 1
        for entity_id, count in hits.items():
            coverage = count / len(terms)
            if coverage >= 0.5:
                offer(entity_id, 0.10 + 0.25 * coverage + 0.05 * self._priors[entity_id])
