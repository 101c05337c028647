"""A language the source gave is kept; a detected one is detected again on every enrichment
(SQLite and PostgreSQL, through JSON Lines ingestion, the enrichment jobs and the CLI)."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select, text
from typer.testing import CliRunner

from herald.cli.main import app
from herald.db.models.content import ContentEntity, ContentItem
from herald.ingest.pipeline import ingest_outcomes
from herald.ingest.sources import Document, JsonLinesAdapter
from herald.jobs.worker import Worker
from herald.runtime import Runtime

TITLE = "Pope Francis thanks the crowd"
TEASER = '"Grazie mille a tutti, ci vediamo domani."'  # the feed's teaser: a quote
FULL_BODY = (
    "Pope Francis thanked the crowd in St Peter's Square on Sunday and said he would travel "
    "to Paris next month. The visit to France will be his first since the summer, the Vatican "
    "said in a statement. Thousands of pilgrims from across Europe waited in the rain to hear "
    "him speak, and many said they had travelled for days to be there. Officials in Paris said "
    "they were preparing for large crowds along the route of the visit."
)
ENGLISH_BODY = (
    "The city council approved the new budget on Tuesday after a long debate about school "
    "funding, road repairs and the cost of running the public library for another year. "
    "Council members said the vote showed that residents wanted services kept as they are."
)


def ingest(runtime: Runtime, *entries: dict[str, Any]) -> None:
    lines = []
    for entry in entries:
        line = {
            "media_type": "news",
            "published_date": "2026-11-20T09:00:00Z",
            "source": {"name": "Example News", "domain": "example.com"},
        } | entry
        lines.append(json.dumps(line))
    outcomes = JsonLinesAdapter().parse(Document(content="\n".join(lines).encode(), origin="t"))
    report = ingest_outcomes(runtime.sessions, outcomes, clock=runtime.clock)
    assert not report.rejected, report.summary()


def stored(runtime: Runtime, url: str) -> ContentItem:
    with runtime.sessions.read() as session:
        return session.scalars(select(ContentItem).where(ContentItem.url == url)).one()


def linked(runtime: Runtime, content_id: str) -> int:
    with runtime.sessions.read() as session:
        return len(
            session.scalars(
                select(ContentEntity).where(ContentEntity.content_id == content_id)
            ).all()
        )


def test_a_teaser_misdetected_gets_the_language_of_its_full_text(
    enrich_runtime: Runtime,
) -> None:
    runtime = enrich_runtime
    url = "https://example.com/pope"
    ingest(runtime, {"url": url, "title": TITLE, "body": TEASER})
    Worker(runtime).drain()
    teaser = stored(runtime, url)
    assert teaser.language == "it"  # the quote is all there is to go by
    assert not teaser.language_provided
    assert linked(runtime, teaser.id) == 0  # no entity recognition outside its languages

    ingest(runtime, {"url": url, "title": TITLE, "body": f"{TEASER} {FULL_BODY}"})
    Worker(runtime).drain()
    full = stored(runtime, url)
    assert full.version == 2
    assert full.language == "en"
    assert not full.language_provided
    assert linked(runtime, full.id) > 0  # Paris, France, Europe


def test_a_language_the_source_gave_is_never_replaced_by_detection(
    enrich_runtime: Runtime,
) -> None:
    runtime = enrich_runtime
    url = "https://example.com/budget"
    ingest(runtime, {"url": url, "title": "Council passes the budget", "body": ENGLISH_BODY})
    Worker(runtime).drain()
    assert stored(runtime, url).language == "en"  # detected

    # The source now says "de" (whatever the text reads as): given, it is kept as given.
    ingest(
        runtime,
        {
            "url": url,
            "title": "Council passes the budget",
            "body": ENGLISH_BODY,
            "language": "de-DE",
        },
    )
    Worker(runtime).drain()
    given = stored(runtime, url)
    assert (given.language, given.language_provided) == ("de", True)

    # An update that gives no language keeps the one given before, through its enrichment.
    ingest(
        runtime, {"url": url, "title": "Council passes the budget at last", "body": ENGLISH_BODY}
    )
    Worker(runtime).drain()
    kept = stored(runtime, url)
    assert kept.version == 3
    assert (kept.language, kept.language_provided) == ("de", True)

    # Another given language replaces it.
    ingest(
        runtime,
        {
            "url": url,
            "title": "Council passes the budget at last",
            "body": ENGLISH_BODY,
            "language": "fr",
        },
    )
    Worker(runtime).drain()
    assert (stored(runtime, url).language, stored(runtime, url).language_provided) == ("fr", True)


def test_rebuild_detects_again_the_detected_languages_only(enrich_runtime: Runtime) -> None:
    runtime = enrich_runtime
    detected_url, given_url = "https://example.com/detected", "https://example.com/given"
    ingest(
        runtime,
        {"url": detected_url, "title": "Council passes the budget", "body": ENGLISH_BODY},
        {
            "url": given_url,
            "title": "Council passes a budget",
            "body": ENGLISH_BODY,
            "language": "de",
        },
    )
    Worker(runtime).drain()
    assert stored(runtime, detected_url).language == "en"
    assert stored(runtime, given_url).language == "de"
    # What an earlier, worse detector stored: the rebuild after a model change must replace it.
    with runtime.sessions.write() as session:
        session.execute(
            text("UPDATE content_items SET language = 'it' WHERE url = :u"), {"u": detected_url}
        )

    settings = runtime.settings
    env = {
        "HERALD_HOME": str(settings.home),
        "HERALD_DATABASE_URL": settings.resolved_database_url,
        "HERALD_ENTITY_SEED": settings.entity_seed,
        "HERALD_EMBEDDING_MODEL": "herald-hashing",
    }
    result = CliRunner().invoke(app, ["enrich", "--rebuild"], env=env)
    assert result.exit_code == 0, result.output
    assert "queued 2 items" in result.output

    detected, given = stored(runtime, detected_url), stored(runtime, given_url)
    assert (detected.language, detected.language_provided) == ("en", False)
    assert (given.language, given.language_provided) == ("de", True)
