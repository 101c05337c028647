"""A bounded sample of a cluster's recent members, kept so a wrongly joined member can move out.

The online clusterer compares an item with a cluster's centroid, which cannot tell "this reports
the same event as some members" from "this is the same kind of event". When a new item links
strongly to a few members of a cluster but those few link weakly, on average, to the rest (the
average-link rule of the offline reference), they were a different event joined by mistake: they
move out and found a new story with the item (:mod:`herald.clusters.online`).

A sketch holds what that needs of one distinct article: its embedding, its most specific keys of
each bag (their unit log-tf values, so they can be subtracted from the cluster's sums), its
entities and phrases, and its copies (syndicated members) with their sources and times. Only the
``MEMBER_SAMPLE`` most recent articles of a cluster are sketched, so the profile stays bounded.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np

from herald.clusters.item import Embedding, StoryItem, lexical_bag
from herald.clusters.vectors import SparseVector, log_tf, normalized, top_keys

MEMBER_SAMPLE = 16  # most recent distinct articles sketched per cluster
# Keys kept per bag of a sketch: the most specific ones (by TF-IDF when the clusterer gives it).
SKETCH_KEYS: dict[str, int] = {"terms": 60, "names": 25, "numbers": 15, "entities": 15}


@dataclass(slots=True)
class MemberCopy:
    content_id: str
    source_key: str
    published_at: datetime


@dataclass(slots=True)
class MemberSketch:
    article_id: str
    title: str
    abstract: str
    embedding: Embedding
    bags: dict[str, SparseVector]  # lexical bag -> unit log-tf values of its kept keys
    entities: SparseVector  # entity id -> salience (kept entities)
    entity_names: dict[str, str]
    phrases: list[str]  # as written
    copies: list[MemberCopy] = field(default_factory=list)  # the first one founded the sketch

    @property
    def content_id(self) -> str:
        return self.copies[0].content_id

    @classmethod
    def of(cls, item: StoryItem, specific: Mapping[str, Sequence[str]] | None) -> MemberSketch:
        """``specific``: each bag's keys in order of specificity (TF-IDF); by weight if absent."""
        bags: dict[str, SparseVector] = {}
        for name in ("terms", "names", "numbers"):
            unit = normalized(log_tf(lexical_bag(item, name)))
            bags[name] = _kept(unit, specific, name)
        entities = _kept(dict(item.entities), specific, "entities")
        return cls(
            article_id=item.article_id,
            title=item.title,
            abstract=item.abstract,
            embedding=item.embedding,
            bags=bags,
            entities=entities,
            entity_names={k: v for k, v in item.entity_names.items() if k in entities},
            phrases=list(item.phrases),
            copies=[MemberCopy(item.content_id, item.source_key, item.published_at)],
        )

    def to_state(self) -> dict[str, Any]:
        return {
            "article_id": self.article_id,
            "title": self.title,
            "abstract": self.abstract,
            "embedding": pack(self.embedding),
            "bags": self.bags,
            "entities": self.entities,
            "entity_names": self.entity_names,
            "phrases": self.phrases,
            "copies": [
                [c.content_id, c.source_key, c.published_at.isoformat()] for c in self.copies
            ],
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> MemberSketch:
        return cls(
            article_id=str(state["article_id"]),
            title=str(state["title"]),
            abstract=str(state["abstract"]),
            embedding=unpack(state["embedding"]),
            bags=bags_from_state(state["bags"]),
            entities=sparse_from_state(state["entities"]),
            entity_names={str(k): str(v) for k, v in state["entity_names"].items()},
            phrases=[str(p) for p in state["phrases"]],
            copies=[
                MemberCopy(str(c), str(s), datetime.fromisoformat(str(p)))
                for c, s, p in state["copies"]
            ],
        )


def _kept(
    vector: SparseVector, specific: Mapping[str, Sequence[str]] | None, name: str
) -> SparseVector:
    limit = SKETCH_KEYS[name]
    order = specific.get(name) if specific is not None else None
    keys = [k for k in order if k in vector][:limit] if order is not None else None
    if keys is None:
        keys = top_keys(vector, limit)
    return {key: vector[key] for key in keys}


def sparse_from_state(state: Mapping[str, Any]) -> SparseVector:
    return {str(k): float(v) for k, v in state.items()}


def bags_from_state(state: Mapping[str, Mapping[str, Any]]) -> dict[str, SparseVector]:
    return {str(name): sparse_from_state(bag) for name, bag in state.items()}


def pack(vector: Embedding) -> str:
    """Float32 vectors as base64 (exact, and a quarter of the size of a JSON list)."""
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def unpack(text: str) -> Embedding:
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)
