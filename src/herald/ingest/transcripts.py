"""Podcast transcripts (``podcast:transcript``) to timed segments with speakers.

Formats: WebVTT (speakers from ``<v Name>`` voice spans or a leading ``Name:`` label, as Zoom
and many other tools export), SRT (speakers from a leading ``Name:``), Podcasting 2.0 JSON
(``segments[{speaker, startTime, endTime, body}]``, often one word per segment), the
Podcasting 2.0 HTML form (``<cite>``/``<time>``/``<p>``) and plain text (no timing: kept as
transcript text). Caption-sized cues are merged into speaker turns so a segment is a readable
stretch of speech rather than a 2-second subtitle.
"""

from __future__ import annotations

import html
import io
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import lxml.html
import orjson
import webvtt
from lxml import etree

from herald.ingest.cleaning import clean_text
from herald.ingest.model import TranscriptSegment, storable_duration

__all__ = [
    "ParsedTranscript",
    "TranscriptFormatError",
    "merge_turns",
    "parse_duration",
    "parse_transcript",
    "transcript_kind",
]

# A turn longer than this is split at the next sentence end; never longer than the hard cap.
SOFT_TURN_SECONDS = 60.0
HARD_TURN_SECONDS = 180.0


class TranscriptFormatError(ValueError):
    pass


@dataclass(frozen=True, slots=True)
class ParsedTranscript:
    segments: tuple[TranscriptSegment, ...]
    text: str | None  # set for formats without timing (plain text)


def transcript_kind(content_type: str | None, url: str = "", content: bytes = b"") -> str:
    """``vtt``, ``srt``, ``json``, ``html`` or ``text``, from the declared type, the URL's
    extension, then the content itself."""
    declared = (content_type or "").split(";")[0].strip().lower()
    by_type = {
        "text/vtt": "vtt",
        "application/x-subrip": "srt",
        "application/srt": "srt",
        "text/srt": "srt",
        "application/x-srt": "srt",
        "application/json": "json",
        "text/json": "json",
        "text/html": "html",
        "text/plain": "text",
    }
    path = url.split("?")[0].lower()
    for extension, kind in (
        (".vtt", "vtt"),
        (".srt", "srt"),
        (".json", "json"),
        (".html", "html"),
        (".htm", "html"),
    ):
        if path.endswith(extension) and declared in ("", "text/plain", "application/octet-stream"):
            return kind
    if declared in by_type and not (declared == "text/plain" and content):
        return by_type[declared]
    head = content.lstrip(b"\xef\xbb\xbf \t\r\n")[:200]
    if head.startswith(b"WEBVTT"):
        return "vtt"
    if head.startswith((b"{", b"[")):
        return "json"
    if re.match(rb"^\d+\s*\r?\n\d{1,2}:\d{2}:\d{2}[,.]\d{1,3}\s*-->", head):
        return "srt"
    if head.startswith(b"<"):
        return "html"
    return by_type.get(declared, "text")


def parse_transcript(content: bytes, *, kind: str) -> ParsedTranscript:
    text = content.decode("utf-8-sig", errors="replace")
    if kind == "vtt":
        return ParsedTranscript(merge_turns(_vtt_cues(text)), None)
    if kind == "srt":
        return ParsedTranscript(merge_turns(_srt_cues(text)), None)
    if kind == "json":
        return ParsedTranscript(merge_turns(_json_cues(content)), None)
    if kind == "html":
        segments = _html_cues(text)
        if segments:
            return ParsedTranscript(merge_turns(segments), None)
        plain = clean_text(lxml.html.fromstring(text).text_content(), keep_newlines=True)
        return ParsedTranscript((), plain or None)
    plain = clean_text(text, keep_newlines=True)
    if not plain:
        raise TranscriptFormatError("empty transcript")
    return ParsedTranscript((), plain)


# --- WebVTT --------------------------------------------------------------------------------


def _vtt_cues(text: str) -> list[TranscriptSegment]:
    try:
        captions = webvtt.from_buffer(io.StringIO(text))
    except Exception as exc:  # noqa: BLE001 - webvtt raises assorted errors for bad files
        raise TranscriptFormatError(f"not a valid WebVTT file: {exc}") from None
    cues = []
    for caption in captions.captions:
        body = clean_text(html.unescape(str(caption.text)))
        if body:
            voice = clean_text(str(caption.voice)) if caption.voice else ""
            cues.append(
                _Cue(_timecode(str(caption.start)), _timecode(str(caption.end)), body, voice)
            )
    if not cues:
        raise TranscriptFormatError("WebVTT file without cues")
    return _with_speakers(cues)


# --- SRT -------------------------------------------------------------------------------------

_SRT_TIMING = re.compile(
    r"^\s*(\d{1,2}:\d{2}:\d{2}(?:[,.]\d{1,3})?)\s*-->\s*(\d{1,2}:\d{2}:\d{2}(?:[,.]\d{1,3})?)"
)


def _srt_cues(text: str) -> list[TranscriptSegment]:
    cues = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").strip()):
        lines = [line for line in block.split("\n") if line.strip()]
        timing_at = next((i for i, line in enumerate(lines) if _SRT_TIMING.match(line)), None)
        if timing_at is None:
            continue
        match = _SRT_TIMING.match(lines[timing_at])
        assert match is not None
        body = clean_text(" ".join(lines[timing_at + 1 :]))
        body = re.sub(r"</?[a-zA-Z][^>]*>", "", body).strip()  # <i>, <b>, <font ...>
        if body:
            cues.append(_Cue(_timecode(match.group(1)), _timecode(match.group(2)), body))
    if not cues:
        raise TranscriptFormatError("SRT file without cues")
    return _with_speakers(cues)


# --- speaker labels (VTT and SRT) --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cue:
    start: float
    end: float
    text: str
    voice: str = ""  # a WebVTT <v Name> span: the speaker, stated by the format itself


# "Name: text". A label is one to four words, each capitalised except name particles ("Ludwig
# van Beethoven"), optionally ending in a number ("Speaker 2", as speech-to-text tools name
# unknown voices); never digits first, so a time ("10:30: ...") or a score is never a speaker.
_LABEL = re.compile(
    r"^((?:[^\W\d_][\w.'’\-]*)(?: [^\W\d_][\w.'’\-]*){0,3}(?: \d{1,2})?):\s+(\S.*)$",
    re.DOTALL,
)
_PARTICLES = frozenset(
    [
        *("van", "von", "der", "den", "de", "da", "del", "della", "di", "du"),
        *("le", "la", "bin", "ibn", "al", "el", "ter"),
    ]
)
# Words that introduce text rather than name who speaks.
_NOT_SPEAKERS = frozenset(
    [
        *("note", "notes", "warning", "update", "editor's note", "editor’s note", "ps"),
        *("q", "a", "question", "answer", "translation", "caption", "captions", "subtitles"),
        *("music", "sound", "lyrics", "source", "example", "summary", "chapter", "transcript"),
    ]
)
_MAX_LABEL = 40


def _label(text: str) -> tuple[str, str] | None:
    """``(speaker, rest)`` when the cue opens with a speaker label."""
    match = _LABEL.match(text)
    if match is None:
        return None
    label = match.group(1)
    if len(label) > _MAX_LABEL or label.casefold() in _NOT_SPEAKERS:
        return None
    words = [w for w in label.split() if not w.isdigit()]
    if not words[0][0].isupper():
        return None
    if any(not (w[0].isupper() or w in _PARTICLES) for w in words[1:]):
        return None  # "So here's the thing: ..." is a sentence, not a name
    return label, match.group(2).strip()


def _with_speakers(cues: list[_Cue]) -> list[TranscriptSegment]:
    """Speakers of the cues: a VTT voice, else a ``Name:`` label. A label counts only when the
    file reads as labelled speech: the same label opens at least two cues, or at least two
    different labels occur ("Look: ..." once in a subtitle file is not a speaker). A cue
    without either continues the last speaker (formats name the speaker when it changes)."""
    labels = [_label(cue.text) if not cue.voice else None for cue in cues]
    counts = Counter(found[0] for found in labels if found)
    trusted = set(counts) if len(counts) >= 2 else {k for k, n in counts.items() if n >= 2}
    out = []
    speaker: str | None = None
    for cue, found in zip(cues, labels, strict=True):
        text = cue.text
        if cue.voice:
            speaker = cue.voice
        elif found and found[0] in trusted:
            speaker, text = found
        out.append(TranscriptSegment(start=cue.start, end=cue.end, text=text, speaker=speaker))
    return out


# --- Podcasting 2.0 JSON -----------------------------------------------------------------------


def _json_cues(content: bytes) -> list[TranscriptSegment]:
    try:
        data = orjson.loads(content)
    except orjson.JSONDecodeError as exc:
        raise TranscriptFormatError(f"invalid JSON transcript: {exc}") from None
    raw_segments = data.get("segments") if isinstance(data, dict) else data
    if not isinstance(raw_segments, list):
        raise TranscriptFormatError("JSON transcript without a segments array")
    cues = []
    for raw in raw_segments:
        if not isinstance(raw, dict):
            continue
        body = raw.get("body")
        start = _seconds(raw.get("startTime"))
        if not isinstance(body, str) or not body.strip() or start is None:
            continue
        end = _seconds(raw.get("endTime"))
        speaker = raw.get("speaker")
        cues.append(
            TranscriptSegment(
                start=start,
                end=end if end is not None and end >= start else start,
                text=clean_text(body),
                speaker=clean_text(speaker) or None if isinstance(speaker, str) else None,
            )
        )
    if not cues:
        raise TranscriptFormatError("JSON transcript without usable segments")
    return cues


def _seconds(value: object) -> float | None:
    """A JSON time: a number of seconds >= 0 (not a boolean), else None."""
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


# --- Podcasting 2.0 HTML -----------------------------------------------------------------------


def _html_cues(text: str) -> list[TranscriptSegment]:
    try:
        root = lxml.html.fromstring(text)
    except (etree.ParserError, ValueError):
        return []
    cues: list[TranscriptSegment] = []
    speaker: str | None = None
    start: float | None = None
    for node in root.iter("cite", "time", "p"):
        content = clean_text(node.text_content())
        if node.tag == "cite":
            speaker = content.rstrip(" :") or None
        elif node.tag == "time":
            try:
                start = _timecode(content)
            except ValueError:
                start = None
        elif content and start is not None:
            cues.append(TranscriptSegment(start=start, end=start, text=content, speaker=speaker))
    # The HTML form has start times only: a segment ends where the next begins.
    return (
        [
            TranscriptSegment(cue.start, max(cue.start, nxt.start), cue.text, cue.speaker)
            for cue, nxt in zip(cues, [*cues[1:], cues[-1]], strict=True)
        ]
        if cues
        else []
    )


# --- shared ------------------------------------------------------------------------------------


def merge_turns(cues: Iterable[TranscriptSegment]) -> tuple[TranscriptSegment, ...]:
    """Merge consecutive cues of one speaker into turns (split long monologues at sentences)."""
    turns: list[TranscriptSegment] = []
    parts: list[str] = []
    current: TranscriptSegment | None = None
    for cue in sorted(cues, key=lambda c: c.start):
        if current is not None:
            length = cue.end - current.start
            same = cue.speaker == current.speaker
            sentence_done = bool(parts) and parts[-1].rstrip().endswith((".", "?", "!", "…", '"'))
            if (
                same
                and length <= HARD_TURN_SECONDS
                and (length <= SOFT_TURN_SECONDS or not sentence_done)
            ):
                parts.append(cue.text)
                current = TranscriptSegment(
                    current.start, max(current.end, cue.end), "", current.speaker
                )
                continue
            turns.append(_finish(current, parts))
        current = cue
        parts = [cue.text]
    if current is not None:
        turns.append(_finish(current, parts))
    return tuple(turns)


def _finish(turn: TranscriptSegment, parts: list[str]) -> TranscriptSegment:
    return TranscriptSegment(turn.start, turn.end, clean_text(" ".join(parts)), turn.speaker)


def _timecode(value: str) -> float:
    """``HH:MM:SS.mmm``, ``MM:SS``, ``HH:MM:SS,mmm`` or plain seconds."""
    text = value.strip().replace(",", ".")
    if not text:
        raise ValueError("empty timecode")
    parts = text.split(":")
    if len(parts) > 3 or not all(re.fullmatch(r"\d+(\.\d+)?", p) for p in parts):
        raise ValueError(f"not a timecode: {value!r}")
    seconds = 0.0
    for part in parts:
        seconds = seconds * 60 + float(part)
    return round(seconds, 3)


_ISO_DURATION = re.compile(
    r"^P(?:(?P<d>\d+(?:\.\d+)?)D)?(?:T(?:(?P<h>\d+(?:\.\d+)?)H)?(?:(?P<m>\d+(?:\.\d+)?)M)?"
    r"(?:(?P<s>\d+(?:\.\d+)?)S)?)?$",
    re.IGNORECASE,
)
_UNIT_DURATION = re.compile(
    r"^(?:(?P<h>\d+)\s*h(?:ours?|rs?)?)?\s*(?:(?P<m>\d+)\s*m(?:in(?:utes?)?)?)?\s*"
    r"(?:(?P<s>\d+)\s*s(?:ec(?:onds?)?)?)?$",
    re.IGNORECASE,
)


def parse_duration(value: str | None) -> float | None:
    """``itunes:duration`` in its forms seen in the wild: ``3600``, ``61:05``, ``1:01:05``,
    ``1:01:05.5``, ``PT1H1M5S``, ``1h 1m 5s``. ``None`` when absent, unreadable, or over 2**31 - 1
    seconds (about 68 years, more than its column holds: the episode is kept without it)."""
    seconds = _duration_of(value)
    return seconds if seconds is not None and storable_duration(seconds) else None


def _duration_of(value: str | None) -> float | None:
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    try:
        if re.fullmatch(r"\d+(\.\d+)?", text):
            return float(text)
        if ":" in text:
            return _timecode(text)
    except ValueError:
        return None
    iso = _ISO_DURATION.match(text)
    if iso and any(iso.groupdict().values()):
        d, h, m, s = (float(iso.group(k) or 0) for k in ("d", "h", "m", "s"))
        return d * 86400 + h * 3600 + m * 60 + s
    units = _UNIT_DURATION.match(text)
    if units and any(units.groupdict().values()):
        h, m, s = (float(units.group(k) or 0) for k in ("h", "m", "s"))
        return h * 3600 + m * 60 + s
    return None
