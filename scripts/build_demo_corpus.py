"""Build Herald's bundled demo corpus from freely licensed real text.

    .venv/bin/python scripts/build_demo_corpus.py [--data DATA_DIR] [--out OUT_DIR]

(defaults: the folder named by ``HERALD_SHARED_DATA``, else ``shared/data`` beside the
checkout, and src/herald/data/demo; docs/benchmarks.md, "Datasets", says where to get each
dataset)

Writes ``demo.jsonl.gz`` (the pinned JSON Lines ingestion format) from:

- ECB+ (``ecbplus/docs.jsonl``): the 502 news articles that carry their source URL; the release
  states the texts are not copyrighted. Title = first line; the date is read from the dateline
  or the URL (else the median date of the article's event cluster); AP and Reuters pages are
  ``wire``.
- WCEP September 2015 (``wcep-wikitimes-2015-09``, CC BY-SA 3.0, Wikipedia contributors): the
  dated one-to-three-sentence event summaries, attributed to Wikipedia.
- Changelog Media transcripts (CC BY-SA 4.0): the 15 latest Practical AI episodes as timed speaker
  turns (start times interpolated between the transcript's inline timestamps) and the 15 latest
  Changelog News episodes as plain transcripts (they carry almost no timestamps).

The loader (:mod:`herald.ingest.demo`) rebases the dates to recent ones. The output is
deterministic for the same inputs (gzip mtime 0, stable order).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import json
import os
import re
import statistics
from collections import defaultdict
from datetime import date
from pathlib import Path
from typing import Any

from herald.ingest.normalize import ItemRejected, item_from_mapping
from herald.ingest.urls import registrable_domain

REPO = Path(__file__).resolve().parents[1]

PODCAST_EPISODES = 15
WIRE_DOMAINS = {"ap.org", "reuters.com", "afp.com", "upi.com"}
_MONTHS = {
    m: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for m in names
}
_MONTH = (
    r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE_PATTERNS = [
    (re.compile(_MONTH + r"\s+(\d{1,2}),?\s+(\d{4})", re.I), ("m", "d", "y")),
    (re.compile(r"(\d{1,2})\s+" + _MONTH + r",?\s+(\d{4})", re.I), ("d", "m", "y")),
    (re.compile(r"\b(\d{1,2})\s*/\s*(\d{1,2})\s*/\s*(\d{4})\b"), ("mn", "d", "y")),
]
_URL_PATTERNS = [
    (re.compile(r"/(\d{4})/(\d{2})/(\d{2})(?:/|$)"), ("y", "mn", "d")),
    (re.compile(r"/(\d{4})/" + _MONTH + r"/(\d{1,2})/", re.I), ("y", "m", "d")),
    (re.compile(r"(\d{4})-(\d{2})-(\d{2})"), ("y", "mn", "d")),
    (re.compile(r"/(20\d{2})(\d{2})(\d{2})"), ("y", "mn", "d")),
]


def _date_from(match: re.Match[str], order: tuple[str, ...]) -> date | None:
    parts: dict[str, int] = {}
    for value, kind in zip(match.groups(), order, strict=True):
        if kind == "m":
            parts["m"] = _MONTHS[value.lower().rstrip(".")]
        elif kind == "mn":
            parts["m"] = int(value)
        else:
            parts[kind] = int(value)
    try:
        found = date(parts["y"], parts["m"], parts["d"])
    except (ValueError, KeyError):
        return None
    return found if 1995 <= found.year <= 2015 else None


def _fix_detokenised(text: str) -> str:
    # docs.jsonl was detokenised simply; undo its most visible seams in numbers and times.
    text = re.sub(r"(\d), (\d{3})\b", r"\1,\2", text)
    text = re.sub(r"(\d)\. (\d)", r"\1.\2", text)
    text = re.sub(r"(\d): (\d{2})", r"\1:\2", text)
    text = re.sub(r"\b([ap])\. m\.", r"\1.m.", text)
    text = re.sub(r"(\w) - (\w)", r"\1-\2", text)
    return re.sub(r"``|''", '"', text)


def ecbplus_items(path: Path) -> list[dict[str, Any]]:
    docs = [json.loads(line) for line in path.open(encoding="utf-8")]
    drafts = []
    for doc in docs:
        if not doc.get("source_url"):
            continue
        lines = [_fix_detokenised(line).strip() for line in doc["text"].split("\n") if line.strip()]
        found: date | None = None
        date_line: int | None = None
        for index, line in enumerate(lines[:4]):
            for pattern, order in _DATE_PATTERNS:
                match = pattern.search(line)
                if match and (found := _date_from(match, order)):
                    date_line = index if len(line) < 80 else None
                    break
            if found:
                break
        if not found:
            for pattern, order in _URL_PATTERNS:
                match = pattern.search(doc["source_url"])
                if match and (found := _date_from(match, order)):
                    break
        title_index = 0 if date_line != 0 else 1
        if len(lines) <= title_index + 1:
            continue
        title = lines[title_index]
        if len(title) > 200:
            continue
        body_lines = [ln for i, ln in enumerate(lines) if i not in (title_index, date_line)]
        paragraphs = [" ".join(body_lines[i : i + 3]) for i in range(0, len(body_lines), 3)]
        drafts.append((doc, title, "\n\n".join(paragraphs), found))

    by_cluster: dict[str, list[date]] = defaultdict(list)
    for doc, _, _, found in drafts:
        if found:
            by_cluster[doc["subtopic"]].append(found)
    items = []
    # A few ECB+ documents are versions of one live page (same URL): keep the last version.
    last_version = {doc["source_url"]: doc["doc_id"] for doc, *_ in drafts}
    for doc, title, body, found in drafts:
        if last_version[doc["source_url"]] != doc["doc_id"]:
            continue
        if found is None:
            known = by_cluster.get(doc["subtopic"])
            if not known:
                continue
            found = date.fromordinal(int(statistics.median(d.toordinal() for d in known)))
        domain = registrable_domain(doc["source_domain"]) or doc["source_domain"]
        items.append(
            {
                "media_type": "wire" if domain in WIRE_DOMAINS else "news",
                "url": doc["source_url"],
                "external_id": f"ecbplus/{doc['doc_id']}",
                "title": title,
                "published_date": f"{found.isoformat()}T12:00:00Z",
                "source": {"name": domain, "domain": domain},
                "language": "en",
                "body": body,
            }
        )
    return items


def wcep_items(path: Path) -> list[dict[str, Any]]:
    events = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for event in events:
        text = re.sub(r"\s+", " ", event["description"]).strip().rstrip(" ,")
        if len(text) < 40:
            continue
        title = text if len(text) <= 110 else text[:110].rsplit(" ", 1)[0] + "…"
        items.append(
            {
                "media_type": "news",
                "external_id": f"wcep/{event['id']}",
                "title": title.rstrip("."),
                "published_date": f"{event['date']}T12:00:00Z",
                "source": {"name": "Wikipedia Current Events Portal", "domain": "wikipedia.org"},
                "language": "en",
                "body": text,
            }
        )
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
        help="the folder holding the ecbplus, wcep-wikitimes-2015-09 and "
        "changelog-podcast-transcripts datasets",
    )
    parser.add_argument("--out", type=Path, default=REPO / "src/herald/data/demo")
    args = parser.parse_args()
    items = (
        ecbplus_items(args.data / "ecbplus/docs.jsonl")
        + wcep_items(args.data / "wcep-wikitimes-2015-09/wikitimes_CEP_2015-09.json")
        + podcast_items(args.data / "changelog-podcast-transcripts")
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
