"""The online clusterer: each arriving item joins its best recent story or founds a new one.

Work per item is bounded whatever the size of the store:

- only *active* clusters are compared: those with a member published within ``horizon`` of the
  newest item seen (the watermark); older clusters are evicted from the working set;
- candidates come from an inverted index over the clusters' specific terms and entities, each
  posting list capped at the ``posting_limit`` most recently touched clusters, and only the
  ``max_candidates`` best-matching clusters are scored in full;
- every profile has a bounded size (see :mod:`herald.clusters.profile`).

A join is checked against the chosen cluster's sampled members (at most
:data:`~herald.clusters.members.MEMBER_SAMPLE` of them; see :mod:`herald.clusters.members`): when
the item links strongly (``split_link``) to a minority of them and that minority together with
the item links weakly, on average (below ``split_cut``), to the other sampled members, the
minority was another event joined by mistake. It moves out and founds a new story with the item
(the average-link rule of the offline reference, applied to a bounded sample).

Given the same items in the same order (and the same ``now`` values), the result is the same:
ties are broken by cluster creation order, never by hashing or dict order.

This module holds the clusterer and its candidate index; its configuration and the assignments
it returns are in :mod:`herald.clusters.assignment`.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from herald.clusters.assignment import (
    Assignment,
    ClusteringConfig,
    PreparedItem,
    ScoredCandidate,
    cluster_id_for,
)
from herald.clusters.evidence import (
    BAG_NAMES,
    QUERY_KEYS,
    ItemVectors,
    MemberVectors,
    link_evidence,
    new_statistics,
    observe,
    pair_evidence,
)
from herald.clusters.item import StoryItem
from herald.clusters.members import SKETCH_KEYS, MemberSketch
from herald.clusters.profile import ClusterProfile
from herald.clusters.statistics import DocumentFrequencies
from herald.clusters.vectors import top_keys


def _specific(vectors: ItemVectors) -> dict[str, list[str]]:
    """Each bag's keys kept in the member's sketch: its most specific ones (TF-IDF)."""
    return {name: top_keys(vectors.bags[name], SKETCH_KEYS[name]) for name in BAG_NAMES}


@dataclass(slots=True)
class _Postings:
    """Index key -> cluster seqs, most recently touched last, at most ``limit`` of them."""

    limit: int
    lists: dict[str, dict[int, None]] = field(default_factory=dict)

    def touch(self, key: str, seq: int) -> None:
        posting = self.lists.setdefault(key, {})
        posting.pop(seq, None)
        posting[seq] = None
        if len(posting) > self.limit:
            del posting[next(iter(posting))]

    def remove(self, key: str, seq: int) -> None:
        posting = self.lists.get(key)
        if posting is not None:
            posting.pop(seq, None)
            if not posting:
                del self.lists[key]


class OnlineClusterer:
    def __init__(
        self,
        config: ClusteringConfig | None = None,
        *,
        statistics: dict[str, DocumentFrequencies] | None = None,
        cluster_id: Callable[[StoryItem], str] = cluster_id_for,
    ) -> None:
        self.config = config or ClusteringConfig()
        self.statistics = statistics or new_statistics()
        self._new_cluster_id = cluster_id
        self._active: dict[int, ClusterProfile] = {}
        self._by_id: dict[str, int] = {}
        self._by_article: dict[str, int] = {}
        self._keys: dict[int, set[str]] = {}
        self._postings = _Postings(self.config.posting_limit)
        self._expiry: list[tuple[datetime, int]] = []  # (latest_published_at, seq), lazily stale
        self._next_seq = 0
        self.watermark: datetime | None = None

    # -- reading -----------------------------------------------------------------------------

    @property
    def active_clusters(self) -> list[ClusterProfile]:
        return [self._active[seq] for seq in sorted(self._active)]

    def has_article(self, article_id: str) -> bool:
        """Whether an active cluster already holds a copy of this article."""
        return article_id in self._by_article

    def get(self, cluster_id: str) -> ClusterProfile | None:
        seq = self._by_id.get(cluster_id)
        return None if seq is None else self._active[seq]

    # -- clustering --------------------------------------------------------------------------

    def assign(self, item: StoryItem, *, now: datetime) -> Assignment:
        """Place one item; ``now`` is when it is added (the member's ``assigned_at``)."""
        self._advance(item.published_at)
        copy_of = self._by_article.get(item.article_id)
        if copy_of is not None:
            profile = self._active[copy_of]
            profile.add(item, now=now)
            self._refresh_expiry(profile)
            return Assignment(item.content_id, profile, False, True, 1.0, "high", None, 0)
        prepared = self.prepare(item)
        best = prepared.best
        if best is not None and best.probability >= self.config.model.join_threshold:
            mistaken = self.mistaken_members(prepared, best.profile)
            if mistaken:
                return self.split(prepared, best.profile, mistaken, now=now)
            return self.place(prepared, best, now=now)
        return self.place(prepared, None, now=now)

    def prepare(self, item: StoryItem) -> PreparedItem:
        """Count a new article in the statistics and score it against its candidate clusters."""
        self._advance(item.published_at)
        observe(self.statistics, item)
        vectors = ItemVectors.of(item, self.statistics)
        model = self.config.model
        scored = []
        for profile in self._candidates(item, vectors):
            evidence = link_evidence(vectors, profile, self.statistics)
            scored.append(ScoredCandidate(profile, evidence, model.probability(evidence)))
        return PreparedItem(item, vectors, scored)

    def place(
        self, prepared: PreparedItem, target: ScoredCandidate | None, *, now: datetime
    ) -> Assignment:
        """Add a prepared item to ``target``, or found a new cluster with it when ``None``."""
        item = prepared.item
        if target is not None:
            profile = target.profile
            profile.add(item, now=now, specific=_specific(prepared.vectors))
            self._index(profile, item, prepared.vectors)
            return Assignment(
                item.content_id,
                profile,
                False,
                False,
                target.probability,
                self.config.model.confidence(target.probability),
                target.evidence,
                len(prepared.scored),
            )
        profile = self._found(prepared, now=now)
        return Assignment(
            item.content_id, profile, True, False, 1.0, "high", None, len(prepared.scored)
        )

    def mistaken_members(
        self, prepared: PreparedItem, profile: ClusterProfile
    ) -> list[MemberSketch]:
        """Sampled members of ``profile`` that report the item's event and not the cluster's
        (empty when none): see the module docstring. At most ``MEMBER_SAMPLE`` pair links
        with the item, and (only when some member links strongly) group x rest more."""
        config = self.config
        sample = profile.sample
        if config.split_cut <= 0.0 or len(sample) < 2:
            return []
        model = config.model
        members = [MemberVectors.of(sketch, self.statistics) for sketch in sample]
        links = [model.probability(pair_evidence(prepared.vectors, m)) for m in members]
        group = [i for i, link in enumerate(links) if link >= config.split_link]
        rest = [i for i, link in enumerate(links) if link < config.split_link]
        if not group or not rest or 2 * len(group) > len(sample):
            return []
        across = [links[r] for r in rest]
        across += [
            model.probability(pair_evidence(members[g], members[r])) for g in group for r in rest
        ]
        if sum(across) / len(across) >= config.split_cut:
            return []
        return [sample[i] for i in group]

    def split(
        self,
        prepared: PreparedItem,
        source: ClusterProfile,
        mistaken: list[MemberSketch],
        *,
        now: datetime,
    ) -> Assignment:
        """Move ``mistaken`` members of ``source`` into a new cluster founded by the item."""
        for sketch in mistaken:
            source.remove(sketch, now=now)
        self._refresh_expiry(source)  # its latest publication time may have moved back
        profile = self._found(prepared, now=now)
        moved: list[str] = []
        for sketch in reversed(mistaken):  # oldest ends up first in the new sample
            profile.absorb(sketch, now=now)
        for sketch in mistaken:
            moved += [copy.content_id for copy in sketch.copies]
            self._by_article[sketch.article_id] = profile.seq
            keys = self._keys[profile.seq]
            for name, count in QUERY_KEYS.items():
                bag = sketch.entities if name == "entities" else sketch.bags.get(name, {})
                for key in top_keys(bag, count):
                    keys.add(f"{name}:{key}")
                    self._postings.touch(f"{name}:{key}", profile.seq)
        self._refresh_expiry(profile)
        links = [
            self.config.model.probability(
                pair_evidence(prepared.vectors, MemberVectors.of(sketch, self.statistics))
            )
            for sketch in mistaken
        ]
        similarity = sum(links) / len(links)
        return Assignment(
            prepared.item.content_id,
            profile,
            True,
            False,
            similarity,
            self.config.model.confidence(similarity),
            None,
            len(prepared.scored),
            tuple(moved),
            source,
        )

    def _found(self, prepared: PreparedItem, *, now: datetime) -> ClusterProfile:
        item = prepared.item
        profile = ClusterProfile.founded_by(
            item,
            cluster_id=self._new_cluster_id(item),
            seq=self._next_seq,
            now=now,
            specific=_specific(prepared.vectors),
        )
        self._next_seq += 1
        self._admit(profile)
        self._index(profile, item, prepared.vectors)
        return profile

    def assign_all(self, items: Iterable[tuple[StoryItem, datetime]]) -> list[Assignment]:
        return [self.assign(item, now=now) for item, now in items]

    # -- restoring ---------------------------------------------------------------------------

    @property
    def next_seq(self) -> int:
        return self._next_seq

    def restore(
        self, profile: ClusterProfile, index_keys: Iterable[str], *, next_seq: int | None = None
    ) -> None:
        """Put a persisted cluster into the working set, replacing any older copy of it."""
        if profile.cluster_id in self._by_id:
            self.forget(profile.cluster_id)
        self._next_seq = max(self._next_seq, profile.seq + 1, next_seq or 0)
        self._admit(profile)
        for key in sorted(index_keys):
            self._keys[profile.seq].add(key)
            self._postings.touch(key, profile.seq)

    def forget(self, cluster_id: str) -> None:
        """Drop a cluster from the working set (no-op when absent)."""
        seq = self._by_id.get(cluster_id)
        if seq is not None:
            self._evict(self._active[seq])

    def advance(self, watermark: datetime | None, *, next_seq: int = 0) -> None:
        """Move the watermark (never backwards) and the creation counter, evicting old clusters."""
        self._next_seq = max(self._next_seq, next_seq)
        if watermark is not None:
            self._advance(watermark)

    def index_keys(self, cluster_id: str) -> list[str]:
        seq = self._by_id[cluster_id]
        return sorted(self._keys[seq])

    # -- internals ---------------------------------------------------------------------------

    def _candidates(self, item: StoryItem, vectors: ItemVectors) -> list[ClusterProfile]:
        scores: dict[int, float] = {}
        for key, weight in vectors.query_keys.items():
            for seq in self._postings.lists.get(key, ()):
                scores[seq] = scores.get(seq, 0.0) + weight
        horizon = self.config.horizon
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        chosen: list[ClusterProfile] = []
        for seq, _ in ranked:
            profile = self._active[seq]
            if abs(item.published_at - profile.latest_published_at) > horizon and not (
                profile.first_published_at <= item.published_at <= profile.latest_published_at
            ):
                continue
            chosen.append(profile)
            if len(chosen) == self.config.max_candidates:
                break
        chosen.sort(key=lambda profile: profile.seq)
        return chosen

    def _admit(self, profile: ClusterProfile) -> None:
        self._active[profile.seq] = profile
        self._by_id[profile.cluster_id] = profile.seq
        self._keys[profile.seq] = set()
        for article_id in profile.article_ids:
            self._by_article[article_id] = profile.seq
        heapq.heappush(self._expiry, (profile.latest_published_at, profile.seq))

    def _index(self, profile: ClusterProfile, item: StoryItem, vectors: ItemVectors) -> None:
        self._by_article[item.article_id] = profile.seq
        keys = self._keys[profile.seq]
        for key in vectors.query_keys:
            keys.add(key)
            self._postings.touch(key, profile.seq)
        self._refresh_expiry(profile)

    def _refresh_expiry(self, profile: ClusterProfile) -> None:
        heapq.heappush(self._expiry, (profile.latest_published_at, profile.seq))

    def _advance(self, published_at: datetime) -> None:
        if self.watermark is None or published_at > self.watermark:
            self.watermark = published_at
        cutoff = self.watermark - self.config.horizon
        while self._expiry and self._expiry[0][0] < cutoff:
            latest, seq = heapq.heappop(self._expiry)
            profile = self._active.get(seq)
            if profile is None or profile.latest_published_at != latest:
                continue  # stale entry: the cluster was evicted or has grown since
            self._evict(profile)

    def _evict(self, profile: ClusterProfile) -> None:
        seq = profile.seq
        del self._active[seq]
        del self._by_id[profile.cluster_id]
        for article_id in profile.article_ids:
            if self._by_article.get(article_id) == seq:
                del self._by_article[article_id]
        for key in self._keys.pop(seq):
            self._postings.remove(key, seq)
