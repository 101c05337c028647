"""The ``match`` evidence of an item (only with ``explain=true``): why it matched the search."""

from __future__ import annotations

from pydantic import Field

from herald.api.schemas.common import ResponseModel


class MatchedTermsOut(ResponseModel):
    title: list[str] = Field(description="Query words found in the title.")
    summary: list[str] = Field(description="Query words found in the summary.")


class ContributionOut(ResponseModel):
    feature: str = Field(description="The relevance feature's name.")
    value: float = Field(description="Its value for this item.")
    weight: float = Field(description="What it added to the score's logit (weight x value).")
    text: str = Field(description="What the feature means, in words.")


class MatchOut(ResponseModel):
    terms: MatchedTermsOut
    phrases: list[str] = Field(description="Quoted phrases of the query found in title or summary.")
    entities: list[str] = Field(description="Requested entity ids linked to the item.")
    semantic_similarity: float | None = Field(
        description="Cosine similarity of the query and the item (null without score evidence)."
    )
    contributions: list[ContributionOut] = Field(
        description="The largest positive contributions to the score, largest first."
    )
