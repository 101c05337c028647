"""A language tag with a region reads as its language everywhere enrichment looks at it."""

from __future__ import annotations

from herald.enrich.embedding import HashingEmbedder
from herald.enrich.pipeline import EnrichmentPipeline, ItemText
from herald.entities.linking import EntityLinker
from tests.enrich.models import fresh_knowledge_base, language_detector, recognizer

TITLE = "Microsoft and OpenAI widen their partnership"
BODY = (
    "Microsoft said on Monday that it would invest billions more in OpenAI, the San Francisco "
    "company behind ChatGPT. Satya Nadella told analysts in Redmond that the deal would run "
    "for several years. Shares of Microsoft rose two percent on the Nasdaq in New York."
)


def entities_for(tag: str | None) -> tuple[str | None, list[tuple[str, int]]]:
    pipeline = EnrichmentPipeline(
        language=language_detector(),
        recognizer=recognizer(),
        linker=EntityLinker(fresh_knowledge_base()),
        embedder=HashingEmbedder(16),
    )
    item = ItemText("c1", "news", TITLE, BODY, language=tag)
    enriched = pipeline.run([item]).items[0]
    return enriched.language, [(e.entity_id, e.mention_count) for e in enriched.entities]


def test_entities_for_en_us_text_equal_those_for_en() -> None:
    language, plain = entities_for("en")
    assert language == "en"
    assert len(plain) >= 3  # Microsoft, OpenAI, Satya Nadella, Redmond, New York...
    for tag in ("en-US", "EN_us", "en-GB"):
        assert entities_for(tag) == ("en", plain)


def test_a_stored_tag_of_another_language_still_gets_no_entities() -> None:
    assert entities_for("de-DE") == ("de", [])
