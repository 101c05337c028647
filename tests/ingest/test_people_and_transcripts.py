"""People from bylines and feed fields, speaker labels in transcripts, and transcript types
trusted from the feed when the server sends a generic one."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from herald.core.clock import FrozenClock, SystemClock
from herald.ingest.fetch import FetchPolicy, HttpFetcher
from herald.ingest.model import IncomingItem, ItemError, ParseOutcome
from herald.ingest.normalize import item_from_mapping
from herald.ingest.people import person_name, split_authors
from herald.ingest.sources import Document, FeedAdapter
from herald.ingest.transcripts import parse_transcript

from .conftest import LoopbackInternet, LoopbackServer, fixture_bytes

NOW = datetime(2026, 11, 25, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("byline", "people"),
    [
        ("Smith, J., Jones, K. L.", ("J. Smith", "K. L. Jones")),
        ("Smith, J., Jones, K. and Brown, L.", ("J. Smith", "K. Jones", "L. Brown")),
        ("Dupont, J.-P.", ("J.-P. Dupont",)),
        ("Doe, Jane", ("Jane Doe",)),
        ("Jane Roe and John Doe", ("Jane Roe", "John Doe")),
        ("Jane Roe; John Doe", ("Jane Roe", "John Doe")),
        ("Jane Roe & John Doe", ("Jane Roe", "John Doe")),
        ("By Jane Roe and John Doe, AP", ("Jane Roe", "John Doe")),
        ("By Jane Roe, Staff Writer", ("Jane Roe",)),
        ("Jane Roe, Senior Correspondent", ("Jane Roe",)),
        ("Jane Roe, Jr.", ("Jane Roe",)),
        ("Y. Chen and X. Li", ("Y. Chen", "X. Li")),
        ("Smith et al.", ("Smith",)),
        ("José García y María López", ("José García", "María López")),
        ("jane@example.com (Jane Roe)", ("Jane Roe",)),
        ("Jane Roe <jane@example.com>", ("Jane Roe",)),
        ("Staff", ()),
        ("Staff Writer", ()),
        ("Admin", ()),
        ("Editor", ()),
        ("Metro Daily Staff", ()),
        ("A. Writer", ("A. Writer",)),
        ("Jane Roe, Business Reporter, and John Doe", ("Jane Roe", "John Doe")),
        ("editor@example.com", ()),
        ("The Associated Press", ("The Associated Press",)),
    ],
)
def test_bylines_become_people(byline: str, people: tuple[str, ...]) -> None:
    assert split_authors(byline) == people


@pytest.mark.parametrize(
    ("value", "name"),
    [
        ("podcasts@radio.example.org (Riverside Radio)", "Riverside Radio"),
        ("Riverside Radio", "Riverside Radio"),
        ("Jane Roe <jane@example.com>", "Jane Roe"),
        ("hello@example.com", None),
        ("Admin", None),
        ("", None),
    ],
)
def test_one_name_from_a_feed_field(value: str, name: str | None) -> None:
    assert person_name(value) == name


def test_json_lines_authors_drop_placeholders_and_addresses() -> None:
    item = item_from_mapping(
        {
            "url": "https://example.com/a",
            "media_type": "news",
            "title": "T",
            "published_date": "2026-11-01",
            "source": {"name": "Example", "domain": "example.com"},
            "body": "Text.",
            "authors": ["Jane Roe", "Staff Writer", "bob@example.com", "bob@example.com (Bob Li)"],
        }
    )
    assert isinstance(item, IncomingItem)
    assert item.authors == ("Jane Roe", "Bob Li")


def test_feed_bylines_are_read_as_people() -> None:
    adapter = FeedAdapter(clock=FrozenClock(NOW), fetcher=None)
    document = Document(fixture_bytes("rss20_bylines.xml"), origin="https://metro.example.com/rss")
    items = {o.title: o for o in adapter.parse(document) if isinstance(o, IncomingItem)}
    assert items["Council approves tram extension"].authors == ("M. Keller", "P. Novak")
    assert items["Storm closes the harbour road"].authors == ("Ana Ruiz",)
    assert items["Library opens on Sundays"].authors == ()
    assert items["Schools get new heating"].authors == ("Ana Ruiz", "Tom Berg")
    assert {i.language for i in items.values()} == {"en"}


# --- transcripts -------------------------------------------------------------------------------


def test_zoom_style_name_labels_in_vtt_are_speakers() -> None:
    parsed = parse_transcript(fixture_bytes("transcript_zoom_labels.vtt"), kind="vtt")
    assert [(s.speaker, s.start, s.end) for s in parsed.segments] == [
        ("Maria Keller", 0.0, 9.0),
        ("Tom van der Berg", 9.2, 21.0),
        ("Maria Keller", 21.0, 25.0),
    ]
    maria, tom, _ = parsed.segments
    assert maria.text.startswith("Welcome back to Riverside Radio.")
    assert "Maria Keller:" not in maria.text
    # A "Note:" and a time inside the text are text; a cue without a label continues the speaker.
    assert "Note: the dates are still provisional." in tom.text
    assert "at 10:30 on Monday" in tom.text
    assert tom.text.endswith("Note: this part was recorded over the phone.")


def _srt(*bodies: str) -> bytes:
    return "\n\n".join(
        f"{n}\n00:00:{2 * n:02d},000 --> 00:00:{2 * n + 1:02d},000\n{body}"
        for n, body in enumerate(bodies, start=1)
    ).encode()


def test_a_lone_label_is_not_a_speaker() -> None:
    parsed = parse_transcript(
        _srt("Look: the river rose all night.", "By morning the road was under water."),
        kind="srt",
    )
    assert {s.speaker for s in parsed.segments} == {None}
    assert parsed.segments[0].text.startswith("Look: the river")


@pytest.mark.parametrize(
    "body",
    [
        "10:30: the meeting starts.",
        "So here's the thing: it works.",
        "Note: music plays.",
        "Q: and the answer?",
    ],
)
def test_times_sentences_and_notes_are_not_speakers(body: str) -> None:
    parsed = parse_transcript(_srt(body, body), kind="srt")
    assert {s.speaker for s in parsed.segments} == {None}


def test_numbered_unknown_speakers_are_speakers() -> None:
    parsed = parse_transcript(
        _srt("Speaker 1: Hello there.", "Speaker 2: Hi, good to be here."), kind="srt"
    )
    assert [s.speaker for s in parsed.segments] == ["Speaker 1", "Speaker 2"]


def _riverside(fetcher: LoopbackInternet) -> list[ParseOutcome]:
    adapter = FeedAdapter(clock=FrozenClock(NOW), fetcher=fetcher)
    document = Document(
        fixture_bytes("podcast_people_transcripts.xml"), origin="https://radio.example.org/feed"
    )
    return list(adapter.parse(document))


def test_a_transcript_served_as_octet_stream_is_read_as_the_type_the_feed_declares(
    server: LoopbackServer, internet: LoopbackInternet
) -> None:
    server.serve(
        "https://media.example.org/ep2/transcript.vtt",
        fixture_bytes("transcript_zoom_labels.vtt"),
        content_type="application/octet-stream",
    )
    # No declared type: a generic server type is not trusted.
    server.serve(
        "https://media.example.org/ep1/transcript",
        _srt("Maria Keller: Buses.", "Maria Keller: More buses."),
        content_type="application/octet-stream",
    )
    outcomes = _riverside(internet)
    (episode,) = [o for o in outcomes if isinstance(o, IncomingItem)]
    assert episode.title == "The new tram line"
    assert [s.speaker for s in episode.transcript_segments] == [
        "Maria Keller",
        "Tom van der Berg",
        "Maria Keller",
    ]
    assert episode.podcast is not None
    assert episode.podcast.publisher == "Riverside Radio"
    assert episode.authors == ("M. Keller", "T. van der Berg")
    (error,) = [o for o in outcomes if isinstance(o, ItemError)]
    assert error.ref == "Bus routes"
    assert "unexpected content type application/octet-stream" in error.reason


def test_the_size_limit_still_applies_to_a_trusted_transcript(server: LoopbackServer) -> None:
    server.serve(
        "https://media.example.org/ep2/transcript.vtt",
        fixture_bytes("transcript_zoom_labels.vtt"),
        content_type="application/octet-stream",
    )
    policy = FetchPolicy(host_interval_seconds=0, max_bytes=200)
    with HttpFetcher(clock=SystemClock(), policy=policy) as fetcher:
        outcomes = _riverside(LoopbackInternet(server, fetcher))
    errors = [o for o in outcomes if isinstance(o, ItemError)]
    assert [e.ref for e in errors] == ["The new tram line", "Bus routes"]
    assert "exceeds 200 bytes" in errors[0].reason
