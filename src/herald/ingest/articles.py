"""Article pages and HTML fragments to text.

Feeds often carry only a teaser; the article page then supplies the main text and metadata,
extracted with trafilatura (boilerplate, navigation and comments dropped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

import lxml.html
import trafilatura
from lxml import etree

from herald.ingest.cleaning import clean_text
from herald.ingest.dates import parse_published_date
from herald.ingest.normalize import normalise_language, split_authors

__all__ = ["ExtractedArticle", "extract_article", "html_to_text", "word_count"]


@dataclass(frozen=True, slots=True)
class ExtractedArticle:
    text: str
    title: str | None
    authors: tuple[str, ...]
    published: datetime | None
    language: str | None
    site_name: str | None
    description: str | None


def extract_article(html: bytes | str, url: str) -> ExtractedArticle | None:
    """Main text and metadata of an article page, or ``None`` when no main text is found."""
    document = trafilatura.bare_extraction(
        html,
        url=url,
        with_metadata=True,
        include_comments=False,
        include_tables=False,
        favor_precision=True,
    )
    if document is None:
        return None
    data = document.as_dict() if hasattr(document, "as_dict") else dict(document)
    text = clean_text(str(data.get("text") or ""), keep_newlines=True)
    if not text:
        return None
    published = None
    if data.get("date"):
        try:
            published = parse_published_date(str(data["date"]))
        except ValueError:
            published = None
    language = normalise_language(str(data["language"])) if data.get("language") else None
    author = str(data.get("author") or "")
    return ExtractedArticle(
        text=text,
        title=clean_text(str(data["title"])) if data.get("title") else None,
        authors=split_authors(author) if author else (),
        published=published,
        language=language,
        site_name=clean_text(str(data["sitename"])) if data.get("sitename") else None,
        description=clean_text(str(data["description"])) if data.get("description") else None,
    )


_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "li",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "blockquote",
        "section",
        "article",
        "tr",
        "pre",
        "figure",
        "figcaption",
        "ul",
        "ol",
        "table",
        "header",
        "footer",
    }
)
_HTML_SPACE = re.compile(r"\s+")


def html_to_text(fragment: str) -> str:
    """Visible text of an HTML fragment, paragraph-aware (feed descriptions, ninjs bodies).

    As a browser shows it: a line break in the HTML source inside a paragraph is a space (only
    ``<pre>`` keeps its lines), ``<br>`` is a line break, and block elements (paragraphs,
    headings, list items...) are separate paragraphs."""
    if "<" not in fragment and "&" not in fragment:
        return clean_text(fragment, keep_newlines=True)
    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (etree.ParserError, ValueError):
        return clean_text(re.sub(r"<[^>]+>", " ", fragment), keep_newlines=True)
    for bad in root.xpath(".//script|.//style|.//noscript"):
        bad.drop_tree()
    pieces: list[str] = []

    def walk(node: lxml.html.HtmlElement, pre: bool) -> None:
        tag = node.tag.lower() if isinstance(node.tag, str) else ""
        pre = pre or tag == "pre"
        block = tag in _BLOCK_TAGS
        if block:
            pieces.append("\n\n")
        elif tag == "br":
            pieces.append("\n")
        if node.text:
            pieces.append(node.text if pre else _HTML_SPACE.sub(" ", node.text))
        for child in node:
            walk(child, pre)
            if child.tail:
                pieces.append(child.tail if pre else _HTML_SPACE.sub(" ", child.tail))
        if block:
            pieces.append("\n\n")

    walk(root, False)
    return clean_text("".join(pieces), keep_newlines=True)


_WORD = re.compile(r"\w+")


def word_count(text: str) -> int:
    return len(_WORD.findall(text))
