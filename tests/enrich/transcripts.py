"""Turn a Changelog transcript (Markdown, speaker turns, inline timestamps) into timed pieces."""

from __future__ import annotations

import re
from pathlib import Path

from herald.enrich.segments import TranscriptPiece

_STAMP = re.compile(r"\\\[(?:(\d{1,2}):)?(\d{1,2}):(\d{2})(?:\.\d+)?\\\]")
_TURN = re.compile(r"\*\*(.+?):\*\*\s*(.*)", re.S)


def changelog_pieces(path: Path) -> list[TranscriptPiece]:
    """One piece per paragraph; times interpolated between the inline timestamps by length."""
    paragraphs: list[tuple[str | None, str]] = []
    speaker: str | None = None
    for block in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
        match = _TURN.match(block.strip())
        if match:
            speaker, block = match.group(1), match.group(2)
        if block.strip():
            paragraphs.append((speaker, block.strip()))
    marks: list[tuple[int, float]] = [(0, 0.0)]
    offset = 0
    for _, text in paragraphs:
        for m in _STAMP.finditer(text):
            seconds = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
            marks.append((offset + m.start(), float(seconds)))
        offset += len(text)
    rate = marks[-1][1] / marks[-1][0] if marks[-1][0] else 0.06

    def time_at(position: int) -> float:
        before = max((m for m in marks if m[0] <= position), key=lambda m: m[0])
        after = [m for m in marks if m[0] > position]
        if not after:
            return before[1] + (position - before[0]) * rate
        nxt = after[0]
        return before[1] + (nxt[1] - before[1]) * (position - before[0]) / (nxt[0] - before[0])

    pieces = []
    offset = 0
    for who, text in paragraphs:
        clean = _STAMP.sub("", text).strip()
        if clean:
            pieces.append(TranscriptPiece(time_at(offset), time_at(offset + len(text)), clean, who))
        offset += len(text)
    return pieces
