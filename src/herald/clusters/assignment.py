"""What the online clusterer is told and what it answers.

- :class:`ClusteringConfig`: the link model, the working-set horizon and the bounds on candidate
  lookup and on moving mistaken members out;
- :class:`Assignment`: where an item went (joined, founded, copy of a member, or founded by a
  split) and the evidence behind it;
- :class:`ScoredCandidate` and :class:`PreparedItem`: a new article scored against its candidate
  clusters, before it is placed;
- :func:`cluster_id_for`: the stable id of a cluster, named after its founding item.

The clusterer itself is :class:`herald.clusters.online.OnlineClusterer`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from herald.clusters.evidence import (
    DEFAULT_LINK_MODEL,
    ItemVectors,
    LinkConfidence,
    LinkEvidence,
    LinkModel,
)
from herald.clusters.item import StoryItem
from herald.clusters.profile import ClusterProfile
from herald.core.ids import stable_id


def cluster_id_for(item: StoryItem) -> str:
    """A cluster is named after the item that founded it, so a rebuild reproduces its id."""
    return stable_id("clu", f"cluster:{item.content_id}")


@dataclass(frozen=True, slots=True)
class ClusteringConfig:
    model: LinkModel = DEFAULT_LINK_MODEL
    horizon: timedelta = timedelta(days=3)
    posting_limit: int = 200
    max_candidates: int = 24
    # Moving mistaken members out (chosen on ECB+ train+dev, ``bench/clusters_eval.py --fit``):
    # a sampled member is "the item's event" when their pair link reaches ``split_link``; those
    # move out when their average link (with the item) to the other sampled members is below
    # ``split_cut``. ``split_cut=0`` never moves anything.
    split_link: float = 0.6
    split_cut: float = 0.18


@dataclass(frozen=True, slots=True)
class Assignment:
    """Where an item went and why."""

    content_id: str
    cluster: ClusterProfile
    created: bool  # the item founded the cluster
    syndicated: bool  # an article already in the cluster (a copy): joined without scoring
    similarity: float  # the link probability (1.0 for a founder or a copy)
    link_confidence: LinkConfidence
    evidence: LinkEvidence | None  # for the chosen cluster; None for a founder or a copy
    candidates: int  # clusters scored in full
    # A split: the members (content ids, copies included) that moved with the item into the
    # new cluster, and the cluster they left (its profile changed).
    moved: tuple[str, ...] = ()
    split_from: ClusterProfile | None = None


@dataclass(frozen=True, slots=True)
class ScoredCandidate:
    profile: ClusterProfile
    evidence: LinkEvidence
    probability: float


@dataclass(frozen=True, slots=True)
class PreparedItem:
    """A new article with its vectors and its scored candidates, oldest cluster first."""

    item: StoryItem
    vectors: ItemVectors
    scored: list[ScoredCandidate]

    @property
    def best(self) -> ScoredCandidate | None:
        best: ScoredCandidate | None = None
        for candidate in self.scored:  # oldest first, so a tie keeps the older cluster
            if best is None or candidate.probability > best.probability:
                best = candidate
        return best
