"""Why an item matched (``explain=True`` on monitor results, store search and preview)."""

from __future__ import annotations

from herald_client.models._base import HeraldModel

__all__ = ["Match", "MatchContribution", "MatchedTerms"]


class MatchedTerms(HeraldModel):
    title: list[str]  # query words found in the title
    summary: list[str]  # query words found in the summary


class MatchContribution(HeraldModel):
    feature: str
    value: float
    weight: float  # what it added to the score's logit
    text: str  # the feature in words


class Match(HeraldModel):
    terms: MatchedTerms
    phrases: list[str]
    entities: list[str]  # requested entity ids linked to the item
    semantic_similarity: float | None = None
    contributions: list[MatchContribution]  # largest first
