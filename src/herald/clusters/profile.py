"""A story cluster's profile, maintained incrementally as members arrive.

The profile is what the clusterer compares new items with (embedding centroid, term and entity
centroids) and what the API shows (title, abstract, key entities and ideas, counts and times).
Every part has a bounded size, so adding a member costs the same in a story of 5 or 5,000 articles:
centroids are sums pruned to their heaviest entries, and the title comes from the most central of
a small pool of representative members rather than from all of them.

Syndicated copies (a second item with an ``article_id`` already in the cluster) are members and
count toward ``member_count``, sources and times, but not toward the centroids, entities, ideas or
the choice of title: one text carried by ten outlets is still one article's worth of evidence.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from herald.clusters.item import Embedding, StoryItem, lexical_bag, phrase_key
from herald.clusters.members import (
    MEMBER_SAMPLE,
    MemberCopy,
    MemberSketch,
    bags_from_state,
    pack,
    sparse_from_state,
    unpack,
)
from herald.clusters.vectors import SparseVector, add_into, log_tf, normalized, pruned, top_keys

# Bags compared by TF-IDF cosine (see herald.clusters.item), with the size each centroid keeps.
LEXICAL_BAGS: dict[str, int] = {"terms": 300, "names": 150, "numbers": 100}
MAX_PROFILE_ENTITIES = 60
MAX_PROFILE_PHRASES = 120
REPRESENTATIVE_POOL = 12
KEY_ENTITIES = 8
KEY_IDEAS = 6


@dataclass(slots=True)
class Representative:
    """A member that may be the most central one: the title and abstract come from it."""

    content_id: str
    title: str
    abstract: str
    embedding: Embedding
    centrality: float = 1.0


@dataclass(slots=True)
class ClusterProfile:
    cluster_id: str
    seq: int  # creation order in this clusterer: the deterministic tie-break
    created_at: datetime
    updated_at: datetime
    first_published_at: datetime
    latest_published_at: datetime
    latest_member_added_at: datetime
    member_count: int = 0
    profile_version: int = 0
    title: str = ""
    abstract: str = ""
    article_ids: set[str] = field(default_factory=set)
    source_counts: dict[str, int] = field(default_factory=dict)
    embedding_sum: Embedding = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    bags: dict[str, SparseVector] = field(default_factory=dict)  # sums of unit log-tf vectors
    entities: SparseVector = field(default_factory=dict)  # sum of members' saliences
    entity_names: dict[str, str] = field(default_factory=dict)
    phrases: SparseVector = field(default_factory=dict)  # phrase key -> articles using it
    phrase_surfaces: dict[str, str] = field(default_factory=dict)
    representatives: list[Representative] = field(default_factory=list)
    sample: list[MemberSketch] = field(default_factory=list)  # recent articles, oldest first

    @classmethod
    def founded_by(
        cls,
        item: StoryItem,
        *,
        cluster_id: str,
        seq: int,
        now: datetime,
        specific: Mapping[str, Sequence[str]] | None = None,
    ) -> ClusterProfile:
        profile = cls(
            cluster_id=cluster_id,
            seq=seq,
            created_at=now,
            updated_at=now,
            first_published_at=item.published_at,
            latest_published_at=item.published_at,
            latest_member_added_at=now,
            embedding_sum=np.zeros_like(item.embedding, dtype=np.float32),
        )
        profile.add(item, now=now, specific=specific)
        return profile

    # -- reading -----------------------------------------------------------------------------

    @property
    def unique_article_count(self) -> int:
        return len(self.article_ids)

    @property
    def unique_source_count(self) -> int:
        return len(self.source_counts)

    @property
    def source_keys(self) -> list[str]:
        return sorted(self.source_counts)

    @property
    def is_stub(self) -> bool:
        return self.member_count < 2

    def centroid(self) -> Embedding:
        norm = float(np.linalg.norm(self.embedding_sum))
        if norm == 0.0:
            return self.embedding_sum
        return (self.embedding_sum / norm).astype(np.float32)

    def key_entities(self, k: int = KEY_ENTITIES) -> list[str]:
        """Display names of the most salient entities over the cluster's distinct articles."""
        return [self.entity_names.get(key, key) for key in top_keys(self.entities, k)]

    def key_entity_ids(self, k: int = KEY_ENTITIES) -> list[str]:
        return top_keys(self.entities, k)

    def key_ideas(self, k: int = KEY_IDEAS) -> list[str]:
        """Phrases used by the most articles (in a multi-article story, only shared ones);
        longer phrases first on a tie, and none that repeats a key entity or a chosen idea."""
        least = 2 if self.unique_article_count >= 2 else 1
        names = {name.lower() for name in self.key_entities()}
        ranked = sorted(self.phrases, key=lambda key: (-self.phrases[key], -len(key.split()), key))
        ideas: list[str] = []
        chosen: list[str] = []
        for key in ranked:
            if self.phrases[key] < least:
                break
            surface = self.phrase_surfaces[key]
            if surface.lower() in names or any(key in c or c in key for c in chosen):
                continue
            ideas.append(surface)
            chosen.append(key)
            if len(ideas) == k:
                break
        return ideas

    # -- changing ----------------------------------------------------------------------------

    def add(
        self,
        item: StoryItem,
        *,
        now: datetime,
        specific: Mapping[str, Sequence[str]] | None = None,
    ) -> bool:
        """Add a member; returns whether it was a new article (False for a syndicated copy).

        ``specific``: each bag's keys, most specific first, for the member's sketch."""
        self._count_member(item.source_key, item.published_at)
        self._touch(now)
        if item.article_id in self.article_ids:
            for sketch in self.sample:
                if sketch.article_id == item.article_id:
                    sketch.copies.append(
                        MemberCopy(item.content_id, item.source_key, item.published_at)
                    )
            return False
        self._add_article(
            item.article_id,
            item.embedding,
            {name: normalized(log_tf(lexical_bag(item, name))) for name in LEXICAL_BAGS},
            item.entities,
            [(e, item.entity_names[e]) for e in item.entities if e in item.entity_names],
            item.phrases,
            Representative(item.content_id, item.title, item.abstract, item.embedding),
        )
        self.sample.append(MemberSketch.of(item, specific))
        del self.sample[:-MEMBER_SAMPLE]
        return True

    def remove(self, sketch: MemberSketch, *, now: datetime) -> None:
        """Take a sampled article and its copies out (they move to another story).

        Exact for counts, sources, the embedding centroid, entities and phrases; the term sums
        lose the sketch's kept keys only (its least specific terms stay, a small residue), and
        when the first or latest publication time leaves, the bound is taken from the sample.
        """
        self.sample.remove(sketch)
        self.member_count -= len(sketch.copies)
        for copy in sketch.copies:
            left = self.source_counts.get(copy.source_key, 0) - 1
            if left > 0:
                self.source_counts[copy.source_key] = left
            else:
                self.source_counts.pop(copy.source_key, None)
        self.article_ids.discard(sketch.article_id)
        self.embedding_sum = self.embedding_sum - sketch.embedding
        for name, bag in sketch.bags.items():
            self.bags[name] = _subtracted(self.bags.get(name, {}), bag)
        self.entities = _subtracted(self.entities, sketch.entities)
        self.entity_names = {k: v for k, v in self.entity_names.items() if k in self.entities}
        for surface in sketch.phrases:
            key = phrase_key(surface)
            if key in self.phrases:
                self.phrases[key] -= 1.0
        self.phrases = {k: v for k, v in self.phrases.items() if v > 0.0}
        self.phrase_surfaces = {k: v for k, v in self.phrase_surfaces.items() if k in self.phrases}
        times = [copy.published_at for s in self.sample for copy in s.copies]
        gone = {copy.published_at for copy in sketch.copies}
        if times and self.first_published_at in gone:
            self.first_published_at = min(times)
        if times and self.latest_published_at in gone:
            self.latest_published_at = max(times)
        pool = [r for r in self.representatives if r.content_id != sketch.content_id]
        if not pool:  # every representative left: the sample still has the remaining members
            pool = [
                Representative(s.content_id, s.title, s.abstract, s.embedding) for s in self.sample
            ]
        self.representatives = []
        for member in pool:
            self._add_representative(member)
        self.updated_at = now
        self.profile_version += 1

    def absorb(self, sketch: MemberSketch, *, now: datetime) -> None:
        """Take in a sketched article and its copies from another story (older than the
        members already here: it goes to the old end of the sample)."""
        for copy in sketch.copies:
            self._count_member(copy.source_key, copy.published_at)
        self._touch(now)
        self._add_article(
            sketch.article_id,
            sketch.embedding,
            sketch.bags,
            sketch.entities,
            sketch.entity_names.items(),
            sketch.phrases,
            Representative(sketch.content_id, sketch.title, sketch.abstract, sketch.embedding),
        )
        self.sample.insert(0, sketch)
        del self.sample[:-MEMBER_SAMPLE]

    def _count_member(self, source_key: str, published_at: datetime) -> None:
        self.member_count += 1
        self.source_counts[source_key] = self.source_counts.get(source_key, 0) + 1
        self.first_published_at = min(self.first_published_at, published_at)
        self.latest_published_at = max(self.latest_published_at, published_at)

    def _touch(self, now: datetime) -> None:
        self.latest_member_added_at = max(self.latest_member_added_at, now)
        self.updated_at = now
        self.profile_version += 1

    def _add_article(
        self,
        article_id: str,
        embedding: Embedding,
        bags: Mapping[str, SparseVector],
        entities: Mapping[str, float],
        entity_names: Iterable[tuple[str, str]],
        phrases: Sequence[str],
        representative: Representative,
    ) -> None:
        """What a new distinct article adds to the content profile (copies add none of it)."""
        self.article_ids.add(article_id)
        self.embedding_sum = self.embedding_sum + embedding
        for name, size in LEXICAL_BAGS.items():
            bag = self.bags.setdefault(name, {})
            add_into(bag, bags.get(name, {}))
            self.bags[name] = pruned(bag, size)
        add_into(self.entities, entities)
        self.entities = pruned(self.entities, MAX_PROFILE_ENTITIES)
        for entity_id, entity_name in entity_names:
            if entity_id in self.entities:
                self.entity_names.setdefault(entity_id, entity_name)
        self.entity_names = {k: v for k, v in self.entity_names.items() if k in self.entities}
        self._add_phrases(phrases)
        self._add_representative(representative)

    def _add_phrases(self, phrases: Sequence[str]) -> None:
        for surface in phrases:
            key = phrase_key(surface)
            self.phrases[key] = self.phrases.get(key, 0.0) + 1.0
            self.phrase_surfaces.setdefault(key, surface)
        if len(self.phrases) > MAX_PROFILE_PHRASES:
            self.phrases = pruned(self.phrases, MAX_PROFILE_PHRASES)
            self.phrase_surfaces = {
                k: v for k, v in self.phrase_surfaces.items() if k in self.phrases
            }

    def _add_representative(self, member: Representative) -> None:
        pool = self.representatives
        pool.append(member)
        centroid = self.centroid()
        for member in pool:
            member.centrality = float(member.embedding @ centroid) if centroid.size else 1.0
        # Most central first; on a tie the earlier member keeps its place (stable sort).
        pool.sort(key=lambda member: -member.centrality)
        del pool[REPRESENTATIVE_POOL:]
        self.title = pool[0].title
        self.abstract = pool[0].abstract

    # -- persistence -------------------------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        """A JSON-safe snapshot from which :meth:`from_state` rebuilds an equal profile."""
        return {
            "cluster_id": self.cluster_id,
            "seq": self.seq,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "first_published_at": self.first_published_at.isoformat(),
            "latest_published_at": self.latest_published_at.isoformat(),
            "latest_member_added_at": self.latest_member_added_at.isoformat(),
            "member_count": self.member_count,
            "profile_version": self.profile_version,
            "title": self.title,
            "abstract": self.abstract,
            "article_ids": sorted(self.article_ids),
            "source_counts": dict(sorted(self.source_counts.items())),
            "embedding_sum": pack(self.embedding_sum),
            "bags": self.bags,
            "entities": self.entities,
            "entity_names": self.entity_names,
            "phrases": self.phrases,
            "phrase_surfaces": self.phrase_surfaces,
            "representatives": [
                {
                    "content_id": r.content_id,
                    "title": r.title,
                    "abstract": r.abstract,
                    "embedding": pack(r.embedding),
                    "centrality": r.centrality,
                }
                for r in self.representatives
            ],
            "sample": [sketch.to_state() for sketch in self.sample],
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> ClusterProfile:
        def when(key: str) -> datetime:
            return datetime.fromisoformat(str(state[key]))

        return cls(
            cluster_id=str(state["cluster_id"]),
            seq=int(state["seq"]),
            created_at=when("created_at"),
            updated_at=when("updated_at"),
            first_published_at=when("first_published_at"),
            latest_published_at=when("latest_published_at"),
            latest_member_added_at=when("latest_member_added_at"),
            member_count=int(state["member_count"]),
            profile_version=int(state["profile_version"]),
            title=str(state["title"]),
            abstract=str(state["abstract"]),
            article_ids=set(state["article_ids"]),
            source_counts={str(k): int(v) for k, v in state["source_counts"].items()},
            embedding_sum=unpack(state["embedding_sum"]),
            bags=bags_from_state(state["bags"]),
            entities=sparse_from_state(state["entities"]),
            entity_names={str(k): str(v) for k, v in state["entity_names"].items()},
            phrases=sparse_from_state(state["phrases"]),
            phrase_surfaces={str(k): str(v) for k, v in state["phrase_surfaces"].items()},
            representatives=[
                Representative(
                    str(r["content_id"]),
                    str(r["title"]),
                    str(r["abstract"]),
                    unpack(r["embedding"]),
                    float(r["centrality"]),
                )
                for r in state["representatives"]
            ],
            # Profiles stored before member sketches existed have none (nothing to move out).
            sample=[MemberSketch.from_state(s) for s in state.get("sample", ())],
        )


def _subtracted(total: SparseVector, part: SparseVector) -> SparseVector:
    """``total - part``, without the entries that fall to (rounding noise around) zero."""
    out = dict(total)
    for key, value in part.items():
        if key in out:
            out[key] -= value
    return {key: value for key, value in out.items() if value > 1e-9}
