"""Podcast segmentation on a real transcript (fixtures/README.md: Changelog, CC BY-SA 4.0)."""

from __future__ import annotations

import itertools
from pathlib import Path

from herald.enrich.segments import SegmentPlan, TranscriptPiece, segment_transcript
from herald.enrich.text import split_sentences
from tests.enrich.checks import joined_from
from tests.enrich.transcripts import changelog_pieces

EPISODE = Path(__file__).parent / "fixtures" / "practical-ai-298.md"


def test_a_real_episode_is_cut_into_segments_of_a_few_minutes() -> None:
    pieces = changelog_pieces(EPISODE)
    plan = SegmentPlan()
    segments = segment_transcript(pieces, plan)
    assert 6 <= len(segments) <= 25
    assert [s.index for s in segments] == list(range(len(segments)))
    assert segments[0].start_seconds == pieces[0].start
    assert abs(segments[-1].end_seconds - pieces[-1].end) < 1e-6
    for before, after in itertools.pairwise(segments):
        assert before.end_seconds <= after.start_seconds + 1e-6  # in order, no overlap
    for segment in segments:
        duration = segment.end_seconds - segment.start_seconds
        assert plan.min_seconds <= duration <= plan.max_seconds + 1e-6


def test_segment_titles_summaries_and_key_points_are_sentences_of_the_transcript() -> None:
    pieces = changelog_pieces(EPISODE)
    allowed = {s.text for p in pieces for s in split_sentences(p.text)}
    segments = segment_transcript(pieces)
    for segment in segments:
        assert segment.title
        assert segment.summary
        assert segment.title in allowed or segment.title in {p.text for p in pieces}
        assert joined_from(segment.summary, allowed)
        assert set(segment.key_points) <= allowed
        assert 1 <= len(segment.key_points) <= 5
    speakers = {s.speaker for s in segments}
    assert "Alexandre Défossez" in speakers  # the guest talks most in most segments
    as_dict = segments[0].as_dict()
    assert set(as_dict) == {
        "index",
        "start_seconds",
        "end_seconds",
        "speaker",
        "title",
        "summary",
        "key_points",
    }


def test_a_short_recording_is_one_segment() -> None:
    pieces = [
        TranscriptPiece(0.0, 30.0, "Welcome to the show. Today we talk about databases.", "Ann"),
        TranscriptPiece(30.0, 70.0, "Postgres keeps getting better at analytics work.", "Bob"),
    ]
    (segment,) = segment_transcript(pieces)
    assert (segment.start_seconds, segment.end_seconds) == (0.0, 70.0)
    assert segment.speaker is None  # neither speaker has 60% of the words
    assert segment_transcript([]) == []
