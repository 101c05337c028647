"""The pinned JSON Lines format: validation, line numbers, normalisation, stable ids."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from herald.ingest.dates import parse_published_date
from herald.ingest.model import IncomingItem, ItemError
from herald.ingest.normalize import ItemRejected, item_from_mapping
from herald.ingest.sources import Document, JsonLinesAdapter, detect_format

from .conftest import ecbplus_docs


def _news(**overrides: object) -> dict[str, object]:
    doc = ecbplus_docs()["1_10ecbplus"]
    item: dict[str, object] = {
        "url": doc["source_url"],
        "media_type": "news",
        "title": "Lindsay Lohan checks into Betty Ford Center",
        "published_date": "2013-05-03T09:00:00-07:00",
        "source": {"name": "Los Angeles Times", "domain": "articles.latimes.com"},
        "body": doc["text"],
    }
    item.update(overrides)
    return item


def _podcast(**overrides: object) -> dict[str, object]:
    item: dict[str, object] = {
        "url": "https://changelog.com/practicalai/300",
        "media_type": "podcast",
        "title": "Practical AI, episode 300",
        "published_date": "2024-12-02",
        "source": {"name": "Changelog", "domain": "changelog.com"},
        "podcast": {
            "podcast_id": "practicalai",
            "title": "Practical AI",
            "publisher": "Changelog Media",
        },
        "episode_id": "practicalai-300",
        "duration_seconds": 3081,
        "transcript_segments": [
            {
                "start": 0,
                "end": 28.4,
                "speaker": "Daniel Whitenack",
                "text": "Welcome to another episode of Practical AI.",
            },
            {"start": 28.5, "end": 29.7, "speaker": "Chris Benson", "text": "That's right."},
        ],
    }
    item.update(overrides)
    return item


def _parse(lines: list[str]) -> list[IncomingItem | ItemError]:
    doc = Document(content="\n".join(lines).encode(), origin="test.jsonl")
    return [o for o in JsonLinesAdapter().parse(doc) if isinstance(o, IncomingItem | ItemError)]


def test_a_news_item_is_normalised() -> None:
    item = item_from_mapping(
        _news(authors=["Jane Roe", "jane roe", " John Doe "], language="EN-us")
    )
    assert item.published_date == datetime(2013, 5, 3, 16, 0, tzinfo=UTC)
    assert item.source.domain == "latimes.com"  # registrable, lower case
    assert item.source.name == "Los Angeles Times"
    assert item.authors == ("Jane Roe", "John Doe")
    assert item.language == "en"
    assert (
        item.canonical_url
        == "https://articles.latimes.com/2013/may/03/local/la-me-0504-lohan-rehab-20130504"
    )
    assert item.content_id.startswith("cnt_")
    assert item.summary is None
    assert item.body
    assert "Betty Ford" in item.body


def test_naive_and_date_only_published_dates_are_utc() -> None:
    assert parse_published_date("2024-03-01T10:00:00") == datetime(2024, 3, 1, 10, tzinfo=UTC)
    assert parse_published_date("2024-03-01") == datetime(2024, 3, 1, tzinfo=UTC)
    assert parse_published_date("Tue, 03 Jun 2003 09:39:21 GMT") == datetime(
        2003, 6, 3, 9, 39, 21, tzinfo=UTC
    )
    assert parse_published_date("2024-03-01T10:00:00+02:00") == datetime(2024, 3, 1, 8, tzinfo=UTC)


def test_summary_is_kept_when_given() -> None:
    item = item_from_mapping(
        _news(summary="Lohan entered the Betty Ford Center to begin a 90-day stay.")
    )
    assert item.summary == "Lohan entered the Betty Ford Center to begin a 90-day stay."


def test_a_podcast_item_keeps_its_segments_and_show() -> None:
    item = item_from_mapping(_podcast())
    assert item.media_type == "podcast"
    assert item.podcast is not None
    assert item.podcast.publisher == "Changelog Media"
    assert item.resolved_podcast_id == "practicalai"
    assert item.resolved_episode_id == "practicalai-300"
    assert [s.speaker for s in item.transcript_segments] == ["Daniel Whitenack", "Chris Benson"]
    assert item.duration_seconds == 3081.0
    assert item.text.startswith("Welcome to another episode")


def test_podcast_ids_are_derived_when_absent() -> None:
    raw = _podcast()
    raw["podcast"] = {"title": "Practical AI"}
    del raw["episode_id"]
    first, second = item_from_mapping(raw), item_from_mapping(dict(raw))
    assert first.resolved_podcast_id
    assert first.resolved_podcast_id.startswith("pod_")
    assert first.resolved_episode_id
    assert first.resolved_episode_id.startswith("ep_")
    assert (first.resolved_podcast_id, first.resolved_episode_id) == (
        second.resolved_podcast_id,
        second.resolved_episode_id,
    )


def test_source_plus_external_id_identifies_an_item_without_url() -> None:
    raw = _news(external_id="wcep/56657")
    del raw["url"]
    item = item_from_mapping(raw)
    assert item.canonical_key == "ext:latimes.com:wcep/56657"


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"media_type": "blog"}, "media_type", "media_type must be one of"),
        ({"title": "  "}, "title", "title is empty"),
        ({"title": 7}, "title", "title must be a string"),
        ({"published_date": "yesterday"}, "published_date", "not an ISO 8601"),
        ({"source": {"name": "X"}}, "source.domain", "source.domain is required"),
        ({"source": {"name": "X", "domain": "co.uk"}}, "source.domain", "public suffix"),
        ({"url": "ftp://example.com/a"}, "url", "not an http(s) URL"),
        ({"body": ""}, "body", "body is required for news items"),
        ({"publised_date": "2024-01-01"}, "publised_date", "unknown field"),
        ({"episode_id": "x"}, "episode_id", "only for podcast items"),
        ({"authors": "Jane Roe"}, None, None),
        ({"authors": [1]}, "authors", "array of strings"),
        ({"language": "english!"}, "language", "not a language code"),
    ],
)
def test_invalid_entries_name_the_field(
    change: dict[str, object], field: str | None, reason: str | None
) -> None:
    raw = _news(**change)
    if field is None:
        item_from_mapping(raw)  # accepted (a byline string is split into names)
        return
    with pytest.raises(ItemRejected) as info:
        item_from_mapping(raw)
    assert info.value.field == field
    assert reason in info.value.reason


def test_a_podcast_needs_a_transcript_and_valid_segments() -> None:
    raw = _podcast()
    del raw["transcript_segments"]
    with pytest.raises(ItemRejected, match="transcript"):
        item_from_mapping(raw)
    with pytest.raises(ItemRejected, match=r"transcript_segments\[0\].end is before its start"):
        item_from_mapping(_podcast(transcript_segments=[{"start": 5, "end": 1, "text": "x"}]))
    ok = item_from_mapping(
        _podcast(transcript_segments=None, transcript="Jerod Santo: What up, nerds?")
    )
    assert ok.transcript == "Jerod Santo: What up, nerds?"


def test_bad_lines_are_reported_with_line_numbers_and_the_rest_parses() -> None:
    lines = [
        json.dumps(_news()),
        "",  # blank lines are ignored
        '{"url": "https://example.com/a", "media_type": "news",',  # truncated JSON
        json.dumps(_news(url="https://example.com/b", media_type="tabloid")),
        "[1, 2]",
        json.dumps(_podcast()),
    ]
    outcomes = _parse(lines)
    items = [o for o in outcomes if isinstance(o, IncomingItem)]
    errors = [o for o in outcomes if isinstance(o, ItemError)]
    assert [i.media_type for i in items] == ["news", "podcast"]
    assert [(e.line, e.location) for e in errors] == [(3, "line 3"), (4, "line 4"), (5, "line 5")]
    assert "invalid JSON" in errors[0].reason
    assert "media_type" in errors[1].reason
    assert errors[1].ref == "https://example.com/b"
    assert errors[2].reason == "expected a JSON object, got an array"
    assert str(errors[1]).startswith("line 4 (https://example.com/b): media_type must be")


def test_a_json_array_body_is_accepted_too() -> None:
    doc = Document(content=json.dumps([_news(), {"title": "x"}]).encode(), origin="api")
    outcomes = list(JsonLinesAdapter().parse(doc))
    assert isinstance(outcomes[0], IncomingItem)
    assert isinstance(outcomes[1], ItemError)
    assert outcomes[1].location == "item 2"


def test_same_item_twice_gives_the_same_id_and_utm_variants_collapse() -> None:
    a = item_from_mapping(_news())
    b = item_from_mapping(
        _news(url=str(_news()["url"]) + "?utm_source=twitter#top", title="Edited title")
    )
    assert a.content_id == b.content_id


def test_format_detection() -> None:
    assert detect_format(b'{"url": "x", "media_type": "news"}\n', "a.txt") == "jsonl"
    assert detect_format(b"{}", "items.jsonl") == "jsonl"
    assert detect_format(b"<?xml version='1.0'?><rss/>", "feed") == "rss"
    assert (
        detect_format(b'{\n  "uri": "urn:x",\n  "headline": "h",\n  "body_text": "b"\n}', "x")
        == "ninjs"
    )
    assert detect_format(b'[{"uri": "u", "headlines": [], "bodies": []}]', "x") == "ninjs"
    assert detect_format(b'[{"media_type": "news"}]', "x") == "jsonl"


def test_an_entry_missing_several_required_fields_names_them_all() -> None:
    raw = _news()
    for name in ("title", "published_date", "url"):
        del raw[name]
    raw["source"] = {"name": "Los Angeles Times"}
    with pytest.raises(ItemRejected) as info:
        item_from_mapping(raw)
    assert info.value.field == "title"
    assert info.value.reason == (
        "missing required fields: title, published_date, source.domain, url (or external_id)"
    )


def test_a_podcast_missing_its_transcript_and_title_names_both() -> None:
    raw = _podcast()
    del raw["transcript_segments"]
    del raw["title"]
    raw.pop("transcript", None)
    with pytest.raises(ItemRejected, match="missing required fields: title, transcript"):
        item_from_mapping(raw)
