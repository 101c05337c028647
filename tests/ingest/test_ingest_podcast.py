"""Podcast RSS (iTunes + Podcasting 2.0) and transcripts in VTT, SRT, JSON, HTML and plain text."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from herald.core.clock import FrozenClock
from herald.ingest.model import IncomingItem, ItemError, ItemWarning, ParseOutcome, SourceRef
from herald.ingest.sources import Document, FeedAdapter
from herald.ingest.transcripts import (
    TranscriptFormatError,
    parse_duration,
    parse_transcript,
    transcript_kind,
)

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)
PLAIN = "Adam Curry: Welcome to Podcasting 2.0.\n\nDave Jones: Glad to be here."


def test_vtt_voices_become_speaker_turns() -> None:
    parsed = parse_transcript(fixture_bytes("transcript_example.vtt"), kind="vtt")
    assert parsed.text is None
    assert [(s.speaker, s.start, s.end) for s in parsed.segments] == [
        ("Sarah", 0.0, 18.63),
        ("Gillian", 19.08, 25.35),
    ]
    sarah = parsed.segments[0].text
    assert sarah.startswith("In today's episode, you'll learn whether or not you should have")
    assert "Podcasting Q&A" in sarah  # entities decoded
    assert parsed.segments[1].text.endswith("do we need a podcast trailer?")


def test_srt_speaker_prefixes_become_turns() -> None:
    parsed = parse_transcript(fixture_bytes("transcript_example.srt"), kind="srt")
    assert [(s.speaker, s.start, s.end) for s in parsed.segments] == [
        ("Sarah", 0.0, 18.63),
        ("Gillian", 19.08, 25.35),
    ]
    assert parsed.segments[0].text.startswith("In today's episode, you'll learn")
    assert "Sarah:" not in parsed.segments[0].text


def test_podcasting20_json_words_merge_into_turns() -> None:
    parsed = parse_transcript(fixture_bytes("transcript_example.json"), kind="json")
    assert [(s.speaker, s.text, s.start, s.end) for s in parsed.segments] == [
        ("Darth Vader", "I am your father.", 0.5, 2.5),
        ("Luke", "Nooooo", 2.75, 3.0),
    ]


def test_json_segments_with_impossible_times_are_dropped() -> None:
    # A start must be a number of seconds >= 0 (as for transcript_segments given through the
    # API); an end that is not a number at or after the start is the start.
    content = (
        b'{"version": "1.0.0", "segments": ['
        b'{"speaker": "A", "startTime": -4, "endTime": 1, "body": "Negative."},'
        b'{"speaker": "A", "startTime": true, "endTime": 2, "body": "Boolean."},'
        b'{"speaker": "B", "startTime": 90000.5, "endTime": false, "body": "Past a day."},'
        b'{"speaker": "C", "startTime": 90010, "body": "No end."}]}'
    )
    parsed = parse_transcript(content, kind="json")
    assert [(s.speaker, s.text, s.start, s.end) for s in parsed.segments] == [
        ("B", "Past a day.", 90000.5, 90000.5),
        ("C", "No end.", 90010.0, 90010.0),
    ]


def test_html_transcript_with_cite_and_time() -> None:
    parsed = parse_transcript(fixture_bytes("transcript_example.html"), kind="html")
    assert [(s.speaker, s.start, s.end) for s in parsed.segments] == [
        ("Kevin", 0.0, 9.0),
        ("Alban", 9.0, 9.0),
    ]
    assert (
        parsed.segments[1].text
        == "You're triggering Tom right now with a hey, here's a cool feature."
    )


def test_plain_text_is_kept_without_timing() -> None:
    parsed = parse_transcript(PLAIN.encode(), kind="text")
    assert parsed.segments == ()
    assert parsed.text == PLAIN


def test_long_monologues_are_split_at_sentences() -> None:
    cues = "".join(
        f"00:{m:02d}:{s:02d}.000 --> 00:{m:02d}:{s + 9:02d}.000\n"
        f"<v Host>Sentence number {m * 6 + s // 10}.\n\n"
        for m in range(4)
        for s in range(0, 60, 10)
    )
    parsed = parse_transcript(("WEBVTT\n\n" + cues).encode(), kind="vtt")
    assert len(parsed.segments) > 1
    assert all(seg.end - seg.start <= 180 for seg in parsed.segments)
    assert all(seg.text.endswith(".") for seg in parsed.segments)


@pytest.mark.parametrize(
    ("content_type", "url", "content", "kind"),
    [
        ("text/vtt", "https://x/t", b"", "vtt"),
        ("application/x-subrip", "https://x/t", b"", "srt"),
        ("application/srt", "https://x/t", b"", "srt"),
        ("application/json", "https://x/t", b"", "json"),
        (None, "https://x/t.vtt", b"", "vtt"),
        ("text/plain", "https://x/t.srt?x=1", b"", "srt"),
        ("text/plain", "https://x/t", b"WEBVTT\n\n", "vtt"),
        (None, "https://x/t", b"1\n00:00:00,000 --> 00:00:01,000\nHi", "srt"),
        ("text/plain", "https://x/t.txt", b"Hello there", "text"),
    ],
)
def test_transcript_kind(content_type: str | None, url: str, content: bytes, kind: str) -> None:
    assert transcript_kind(content_type, url, content) == kind


def test_broken_transcripts_raise() -> None:
    with pytest.raises(TranscriptFormatError):
        parse_transcript(b"WEBVTT\n\nnot a cue", kind="vtt")
    with pytest.raises(TranscriptFormatError):
        parse_transcript(b'{"version": "1.0.0"}', kind="json")
    with pytest.raises(TranscriptFormatError):
        parse_transcript(b"   ", kind="text")


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("3600", 3600.0),
        ("61:05", 3665.0),
        ("1:02:03", 3723.0),
        ("1:02:03.5", 3723.5),
        ("PT1H2M3S", 3723.0),
        ("PT25M", 1500.0),
        ("1h 2m 3s", 3723.0),
        ("45 min", 2700.0),
        ("", None),
        ("soon", None),
        (None, None),
    ],
)
def test_duration_forms(value: str | None, seconds: float | None) -> None:
    assert parse_duration(value) == seconds


def _podcast(internet: LoopbackInternet | None, name: str) -> list[ParseOutcome]:
    adapter = FeedAdapter(clock=FrozenClock(NOW), fetcher=internet)
    return list(
        adapter.parse(Document(content=fixture_bytes(name), origin=f"https://feeds.test/{name}"))
    )


def test_the_namespace_example_feed_with_plain_text_transcripts(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    for n in (1, 2, 3):
        server.serve(
            f"https://example.com/ep{n}/transcript.txt",
            PLAIN.replace("2.0", f"2.0 episode {n}"),
            content_type="text/plain; charset=utf-8",
        )
    outcomes = _podcast(internet, "podcast20_example.xml")
    items = [o for o in outcomes if isinstance(o, IncomingItem)]
    assert [o for o in outcomes if isinstance(o, ItemError)] == []
    assert [i.title for i in items] == [
        "Episode 3 - The Future",
        "Episode 2 - The Present",
        "Episode 1 - The Past",
    ]
    ep3 = items[0]
    assert ep3.media_type == "podcast"
    assert ep3.podcast is not None
    assert (ep3.podcast.title, ep3.podcast.publisher) == (
        "Podcasting 2.0 Namespace Example",
        "John Doe",
    )
    assert ep3.audio_url == "https://mp3s.nashownotes.com/PC20-17-2020-12-25-Final.mp3"
    assert ep3.published_date == datetime(2020, 10, 9, 4, 30, 38, tzinfo=UTC)
    assert ep3.authors == ("Adam Curry", "Dave Jones")
    assert ep3.source == SourceRef("Podcasting 2.0 Namespace Example", "example.com")
    assert ep3.transcript == PLAIN.replace("2.0", "2.0 episode 3")
    assert ep3.summary == "A look into the future of podcasting and how we get to Podcasting 2.0!"
    assert ep3.url == "https://example.com/podcast/ep0003"
    # One show id for every episode, one episode id per episode.
    assert len({i.resolved_podcast_id for i in items}) == 1
    assert len({i.resolved_episode_id for i in items}) == 3


def test_transcript_formats_and_a_missing_transcript(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(
        "https://example.com/ep3/transcript.json",
        fixture_bytes("transcript_example.json"),
        content_type="application/json",
    )
    server.serve("https://example.com/ep3/transcript.txt", PLAIN, content_type="text/plain")
    server.serve(
        "https://example.com/ep2/transcript.srt",
        fixture_bytes("transcript_example.srt"),
        content_type="application/x-subrip",
    )
    server.serve(
        "https://example.com/ep2/transcript.vtt",
        fixture_bytes("transcript_example.vtt"),
        content_type="text/vtt",
    )
    # ep1/missing.srt is not served: 404.
    outcomes = _podcast(internet, "podcast20_transcript_formats.xml")
    items = {o.title: o for o in outcomes if isinstance(o, IncomingItem)}
    errors = [o for o in outcomes if isinstance(o, ItemError)]
    assert set(items) == {"Episode 3 - The Future", "Episode 2 - The Present"}
    ep3, ep2 = items["Episode 3 - The Future"], items["Episode 2 - The Present"]
    # JSON is preferred over plain text; VTT over SRT.
    assert [s.speaker for s in ep3.transcript_segments] == ["Darth Vader", "Luke"]
    assert ep3.duration_seconds == 3723.0
    assert [s.speaker for s in ep2.transcript_segments] == ["Sarah", "Gillian"]
    assert ep2.duration_seconds == 1500.0
    assert "https://example.com/ep2/transcript.vtt" in internet.requested
    assert "https://example.com/ep2/transcript.srt" not in internet.requested
    (error,) = errors
    assert error.location == "episode 3"
    assert error.ref == "Episode 1 - The Past"
    assert "no usable transcript" in error.reason
    assert "HTTP 404" in error.reason


def test_a_failed_preferred_transcript_falls_back_with_a_warning(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(
        "https://example.com/ep3/transcript.json", b"{not json", content_type="application/json"
    )
    server.serve("https://example.com/ep3/transcript.txt", PLAIN, content_type="text/plain")
    server.serve(
        "https://example.com/ep2/transcript.vtt",
        fixture_bytes("transcript_example.vtt"),
        content_type="text/vtt",
    )
    outcomes = _podcast(internet, "podcast20_transcript_formats.xml")
    ep3 = next(
        o for o in outcomes if isinstance(o, IncomingItem) and o.title.startswith("Episode 3")
    )
    assert ep3.transcript == PLAIN
    assert ep3.transcript_segments == ()
    warnings = [o for o in outcomes if isinstance(o, ItemWarning)]
    assert any("invalid JSON transcript" in w.reason for w in warnings)


def test_without_a_fetcher_episodes_are_rejected_with_the_reason() -> None:
    outcomes = _podcast(None, "podcast20_example.xml")
    assert all(isinstance(o, ItemError) for o in outcomes)
    assert len(outcomes) == 3
    assert "not fetched" in outcomes[0].reason  # type: ignore[union-attr]
