"""The enrichment benchmarks' corpus: real articles of 300-800 words from the data folder.

Every ECB+ news article of 300-800 words, longer ECB+ articles cut at the last sentence end
before 800 words, then Changelog News and Practical AI podcast transcripts (CC BY-SA 4.0) cut
at paragraph ends into 300-800-word pieces, in that order (first line or sentence = title).
``bench/enrich_throughput.py``, ``bench/summaries_cpu.py`` and ``bench/ner_passages_eval.py``
read it.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

DATASETS = ("ecbplus", "changelog-podcast-transcripts")  # read from the data folder
MIN_WORDS, MAX_WORDS = 300, 800


def corpus(limit: int, data: Path) -> tuple[list[tuple[str, str]], dict[str, int]]:
    """Up to ``limit`` (title, body) texts from the datasets of the data folder ``data``, and
    how many of them came from each part."""
    texts: list[tuple[str, str]] = []
    labels: list[str] = []
    for line in (data / "ecbplus" / "docs.jsonl").open(encoding="utf-8"):
        lines = json.loads(line)["text"].split("\n")
        title, body = lines[0], "\n".join(lines[1:])
        words = len(body.split())
        if words > MAX_WORDS:
            body = _cut(body)
            words = len(body.split())
        if MIN_WORDS <= words <= MAX_WORDS:
            texts.append((title, body))
            labels.append("ECB+ news articles")
    for folder, label in (
        ("news", "Changelog News pieces"),
        ("practicalai", "Practical AI pieces"),
    ):
        for path in sorted((data / "changelog-podcast-transcripts" / folder).glob("*.md")):
            if len(texts) >= limit:
                break
            for piece in _pieces(path.read_text(encoding="utf-8")):
                title = piece.split("\n", 1)[0][:120]
                texts.append((title, piece))
                labels.append(label)
    origin: dict[str, int] = defaultdict(int)
    for label in labels[:limit]:  # count what is returned: ``limit`` may cut the news short
        origin[label] += 1
    return texts[:limit], dict(origin)


def _cut(body: str) -> str:
    words = body.split(" ")
    head = " ".join(words[:MAX_WORDS])
    end = max(head.rfind(". "), head.rfind(".\n"))
    return head[: end + 1] if end > 0 else head


def _pieces(markdown: str) -> list[str]:
    text = re.sub(r"\\\[[^\]]*\\\]", "", markdown)  # inline timestamps
    text = re.sub(r"\*\*([^*]+):\*\*", r"\1:", text)  # speaker labels
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)  # links
    pieces, current, count = [], [], 0
    for paragraph in (p.strip() for p in text.split("\n\n")):
        if not paragraph:
            continue
        current.append(paragraph)
        count += len(paragraph.split())
        if count >= 500:
            if count <= MAX_WORDS:
                pieces.append("\n".join(current))
            current, count = [], 0
    return pieces
