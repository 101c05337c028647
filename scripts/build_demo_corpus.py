"""Build Herald's bundled demo corpus from freely licensed real text.

    .venv/bin/python scripts/build_demo_corpus.py [--data DATA_DIR] [--out OUT_DIR]

DATA_DIR (default: the folder named by ``HERALD_SHARED_DATA``, else ``shared/data`` beside the
checkout) holds two datasets, each in its own folder; src/herald/data/demo/README.md says where
each comes from:

- ``wikipedia-current-events-2025``: English Wikipedia's "Portal:Current events" day pages as
  Markdown, one file a day (``2025-03-03-index.md``); CC BY-SA 4.0, Wikipedia contributors. Every
  event of 2025-03-03 to 2025-04-26 becomes a news item: its text (with the portal's citations,
  "(Reuters)"), then the portal's category and story headings it is filed under.
- ``changelog-podcast-transcripts`` (CC BY-SA 4.0, Changelog Media): the 15 latest Practical AI
  episodes as timed speaker turns (start times interpolated between the transcript's inline
  timestamps) and the 15 latest Changelog News episodes as plain transcripts.

Writes ``OUT_DIR/demo.jsonl.gz`` (default src/herald/data/demo) in the JSON Lines ingestion
format; every line passes the same validation as ``herald ingest``. The loader
(:mod:`herald.ingest.demo`) rebases the dates to recent ones. The output is deterministic for the
same inputs (gzip mtime 0, stable order). tests/ingest/test_demo_holds_no_evaluation_set.py
checks that it holds no article of an evaluation dataset.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import json
import os
import re
from collections import defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from herald.ingest.normalize import ItemRejected, item_from_mapping

REPO = Path(__file__).resolve().parents[1]

PODCAST_EPISODES = 15
CURRENT_EVENTS = "wikipedia-current-events-2025"
# Eight weeks less a day (the loader keeps a span of at most 55 days as it is).
FIRST_DAY, LAST_DAY = date(2025, 3, 3), date(2025, 4, 26)
PORTAL = "Wikipedia Current Events Portal"
_LINK = re.compile(r'\[([^\]]*)\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)')
_ONLY_LINK = re.compile(r'\[[^\]]*\]\((?:[^()\s]|\([^)]*\))*(?:\s+"[^"]*")?\)')
_BULLET = re.compile(r"^( *)\* (.*)$")


def _plain(markdown: str) -> str:
    text = _LINK.sub(r"\1", markdown)  # [label](url "title") -> label
    text = re.sub(r"(?<![\w*])\*([^*]+)\*(?![\w*])", r"\1", text)  # *italic* -> italic
    return re.sub(r"\s+", " ", text.replace("\\", "")).strip()


def _title(text: str) -> str:
    """The event's first sentence, cut at a word before 110 characters."""
    first = re.split(r"(?<=[a-z0-9)][.!?]) (?=[A-Z])", re.sub(r" \([^()]*\)$", "", text))[0]
    first = re.sub(r"( \([^()]+\))+$", "", first).rstrip(".")
    return first if len(first) <= 110 else first[:110].rsplit(" ", 1)[0] + "…"


def portal_events(path: Path) -> list[tuple[str, list[str], str]]:
    """(category, story headings, event text) of one day's page, in page order.

    A bullet that is only a link is a story heading for the bullets nested under it; any other
    bullet is an event, its citations ("(Reuters)") kept as the portal shows them.
    """
    category, stories, events = "", [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#### "):
            category, stories = line[5:].strip(), []
            continue
        match = _BULLET.match(line)
        if not match:
            continue
        depth, content = len(match.group(1)) // 2, match.group(2).strip()
        stories = stories[:depth]
        if _ONLY_LINK.fullmatch(content):
            stories.append(_plain(content))
        else:
            events.append((category, list(stories), _plain(content)))
    return events


def current_events_items(root: Path) -> list[dict[str, Any]]:
    items = []
    day = FIRST_DAY
    while day <= LAST_DAY:
        page = root / f"{day.isoformat()}-index.md"
        if not page.exists():
            raise SystemExit(f"no {page}: the folder holds every day {FIRST_DAY}..{LAST_DAY}")
        for number, (category, stories, text) in enumerate(portal_events(page), start=1):
            if len(text) < 40:
                continue
            context = f"{category}: {', '.join(stories)}." if stories else f"{category}."
            items.append(
                {
                    "media_type": "news",
                    "external_id": f"current-events/{day.isoformat()}/{number}",
                    "title": _title(text),
                    "published_date": f"{day.isoformat()}T12:00:00Z",
                    "source": {"name": PORTAL, "domain": "wikipedia.org"},
                    "language": "en",
                    "body": f"{text}\n\n{context}",
                }
            )
        day += timedelta(days=1)
    return items


_TIMESTAMP = re.compile(r"\\\[(?:[a-zA-Z ]+ )?((?:\d{1,2}:)?\d{1,2}:\d{2}(?:\.\d+)?)\\\]")
_SPEAKER = re.compile(r"^\*\*([^*]{1,60}?):\*\*\s*(.*)$", re.DOTALL)


def _seconds(code: str) -> float:
    total = 0.0
    for part in code.split(":"):
        total = total * 60 + float(part)
    return total


def _markdown_to_text(text: str) -> str:
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [label](url) -> label
    text = text.replace("\\[", "[").replace("\\]", "]").replace("**", "").replace("\\", "")
    return re.sub(r"\s+", " ", text).strip()


def _turns(markdown: str) -> tuple[list[tuple[str | None, str, int, int]], list[tuple[int, float]]]:
    """Speaker turns with character spans, and (character offset, seconds) anchors."""
    turns: list[tuple[str | None, str, int, int]] = []
    anchors: list[tuple[int, float]] = []
    offset = 0
    speaker: str | None = None
    for paragraph in re.split(r"\n\s*\n", markdown):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        match = _SPEAKER.match(paragraph)
        if match:
            speaker, paragraph = match.group(1).strip(), match.group(2)
            new_turn = True
        else:
            new_turn = False
        pieces = []
        for piece_index, piece in enumerate(_TIMESTAMP.split(paragraph)):
            if piece_index % 2 == 1:
                anchors.append((offset + sum(len(p) + 1 for p in pieces), _seconds(piece)))
            else:
                cleaned = _markdown_to_text(piece)
                if cleaned:
                    pieces.append(cleaned)
        text = " ".join(pieces)
        if not text:
            continue
        if new_turn or not turns or turns[-1][0] != speaker:
            turns.append((speaker, text, offset, offset + len(text)))
        else:
            prev = turns[-1]
            turns[-1] = (prev[0], prev[1] + " " + text, prev[2], offset + len(text))
        offset += len(text) + 1
    return turns, anchors


def _interpolate(anchors: list[tuple[int, float]], total_chars: int) -> Any:
    points = [(0, 0.0)]
    for char, seconds in sorted(anchors):
        if seconds > points[-1][1] and char > points[-1][0]:
            points.append((char, seconds))
    rate = points[-1][1] / points[-1][0] if len(points) > 1 else None

    def at(char: int) -> float:
        for (c0, s0), (c1, s1) in itertools.pairwise(points):
            if c0 <= char <= c1:
                return s0 + (s1 - s0) * (char - c0) / (c1 - c0)
        assert rate is not None
        return points[-1][1] + (char - points[-1][0]) * rate

    return at if rate else None


def podcast_items(root: Path) -> list[dict[str, Any]]:
    with (root / "manifest.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    shows = {
        "Practical AI": ("practicalai", "Practical AI"),
        "Changelog News": ("changelog-news", "Changelog News"),
    }
    items = []
    for show, (slug, title) in shows.items():
        episodes = sorted((r for r in rows if r["show"] == show), key=lambda r: int(r["episode"]))
        for row in episodes[-PODCAST_EPISODES:]:
            markdown = (root / row["path"]).read_text(encoding="utf-8")
            turns, anchors = _turns(markdown)
            if not turns:
                continue
            item: dict[str, Any] = {
                "media_type": "podcast",
                "url": row["url"],
                "external_id": f"{slug}/{row['episode']}",
                "title": f"{title}, episode {row['episode']}",
                "published_date": f"{row['git_first_added']}T12:00:00Z",
                "source": {"name": "Changelog", "domain": "changelog.com"},
                "language": "en",
                "authors": sorted({s for s, *_ in turns if s})[:8],
                "podcast": {"podcast_id": slug, "title": title, "publisher": "Changelog Media"},
                "episode_id": f"{slug}-{row['episode']}",
            }
            at = _interpolate(anchors, turns[-1][3]) if len(anchors) >= 3 else None
            if at is not None:
                item["transcript_segments"] = [
                    {
                        "start": round(at(start), 1),
                        "end": round(max(at(end), at(start)), 1),
                        "speaker": speaker,
                        "text": text,
                    }
                    for speaker, text, start, end in turns
                ]
            else:
                item["transcript"] = "\n\n".join(
                    f"{speaker}: {text}" if speaker else text for speaker, text, _, _ in turns
                )
            items.append(item)
    return items


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        type=Path,
        default=Path(os.environ.get("HERALD_SHARED_DATA", REPO.parent / "shared" / "data")),
        help=f"the folder holding the {CURRENT_EVENTS} and changelog-podcast-transcripts datasets",
    )
    parser.add_argument("--out", type=Path, default=REPO / "src/herald/data/demo")
    args = parser.parse_args()
    items = current_events_items(args.data / CURRENT_EVENTS) + podcast_items(
        args.data / "changelog-podcast-transcripts"
    )
    for item in items:  # every line must pass the same validation as `herald ingest`
        try:
            item_from_mapping(item)
        except ItemRejected as exc:
            raise SystemExit(f"{item.get('external_id')}: {exc.reason}") from None
    args.out.mkdir(parents=True, exist_ok=True)
    target = args.out / "demo.jsonl.gz"
    payload = "".join(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n" for item in items)
    with target.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz:
        gz.write(payload.encode("utf-8"))
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        counts[item["external_id"].split("/")[0]] += 1
    print(f"{target}: {len(items)} items {dict(counts)}, {target.stat().st_size} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
