"""IPTC ninjs (news in JSON), the format wire services deliver: versions 1.x, 2.x and 3.x.

1.x names: ``headline``, ``body_text`` / ``body_html5`` / ``body_xhtml``, ``description_text`` /
``description_html``, ``byline``, and any other ``headline_*``, ``body_*``, ``description_*``
(``headline_main``, ``body_richtext``: the 1.x schema allows them). 2.x names:
``headlines[]``, ``bodies[]``, ``descriptions[]`` (each ``{role, contenttype, value}``),
``by``. Both: ``uri``, ``type``, ``pubstatus``, ``firstcreated``, ``versioncreated``,
``contentcreated`` (2.x), ``language``, ``copyrightholder``.
3.x writes the same names in camelCase (``firstCreated``, ``pubStatus``, ``contentType``).
Body renditions: plain text first, then HTML, then NITF (its ``body.content`` paragraphs).

A document is one item, an array of items, or JSON Lines of items. Items become ``wire`` content;
pictures, audio and video items and withdrawn items (``pubstatus`` canceled/withheld) are
reported and skipped. The ``uri`` is the item's id within its source (and the URL when it is an
http(s) URL); the source is the configured one, else the provider named in a NewsML URN
(``urn:newsml:dpa.com:...``), the URL's domain, or for another ``urn:`` the copyright holder,
named by ``copyrightholder``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import orjson
from lxml import etree

from herald.ingest.articles import html_to_text
from herald.ingest.cleaning import clean_text
from herald.ingest.dates import parse_published_date
from herald.ingest.model import IncomingItem, ItemError, ParseOutcome, SourceRef
from herald.ingest.normalize import normalise_language, split_authors
from herald.ingest.sources.base import Document
from herald.ingest.urls import InvalidUrl, canonical_url, host_of, normalise_domain

__all__ = ["NinjsAdapter", "looks_like_ninjs"]

_TEXT_TYPES = frozenset({"text", "composite", ""})
_NINJS_KEYS = frozenset(
    {
        "uri",
        "headline",
        "headlines",
        "body_text",
        "body_html5",
        "body_xhtml",
        "bodies",
        "versioncreated",
        "firstcreated",
        "byline",
        "by",
        "pubstatus",
        "descriptions",
    }
)
_NEWSML_URN = re.compile(r"^urn:newsml:([^:]+):", re.IGNORECASE)


def looks_like_ninjs(obj: object) -> bool:
    if not isinstance(obj, Mapping) or "media_type" in obj:
        return False
    return len(_NINJS_KEYS & {str(key).lower() for key in obj}) >= 2


def _lower_keys(obj: Mapping[str, Any]) -> dict[str, Any]:
    """ninjs 3.x writes camelCase (``firstCreated``, ``pubStatus``, ``contentType``) where 1.x
    and 2.x write lower case: read both by lower-casing the keys of the item and its
    renditions."""
    out: dict[str, Any] = {}
    for key, value in obj.items():
        if isinstance(value, list):
            value = [_lower_keys(v) if isinstance(v, Mapping) else v for v in value]
        out.setdefault(str(key).lower(), value)
    return out


class NinjsAdapter:
    format_name = "ninjs"

    def parse(self, document: Document) -> Iterator[ParseOutcome]:
        content = document.content.lstrip(b"\xef\xbb\xbf \t\r\n")
        try:
            data = orjson.loads(content)
        except orjson.JSONDecodeError:
            yield from self._parse_lines(content, document)
            return
        objects = data if isinstance(data, list) else [data]
        for number, obj in enumerate(objects, start=1):
            yield _item(obj, f"item {number}", document)

    def _parse_lines(self, content: bytes, document: Document) -> Iterator[ParseOutcome]:
        lines = content.splitlines()
        if len(lines) < 2:
            yield ItemError("document", "not JSON (expected a ninjs object, array or lines)")
            return
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                yield ItemError(f"line {number}", f"invalid JSON: {exc}", line=number)
                continue
            yield _item(obj, f"line {number}", document)


def _item(obj: object, location: str, document: Document) -> ParseOutcome:
    line = int(location.split()[-1]) if location.startswith("line") else None
    if not isinstance(obj, Mapping):
        return ItemError(location, "expected a ninjs object", line=line)
    obj = _lower_keys(obj)
    uri = _str(obj.get("uri"))
    headline = _headline(obj)
    ref = headline[:120] if headline else uri
    if not uri:
        return ItemError(location, "ninjs item has no uri", line=line, ref=ref)
    kind = _str(obj.get("type")).lower()
    if kind not in _TEXT_TYPES:
        return ItemError(location, f"ninjs type {kind!r} carries no text", line=line, ref=ref)
    status = _str(obj.get("pubstatus")).lower()
    if status in ("canceled", "cancelled", "withheld"):
        return ItemError(location, f"item is {status}", line=line, ref=ref)
    if not headline:
        return ItemError(location, "ninjs item has no headline", line=line, ref=ref)
    description = _description(obj)
    body = _body(obj) or description
    if not body:
        return ItemError(location, "ninjs item has no body or description", line=line, ref=ref)
    published = None
    for key in ("firstcreated", "contentcreated", "versioncreated"):
        value = _str(obj.get(key))
        if value:
            try:
                published = parse_published_date(value)
                break
            except ValueError:
                return ItemError(
                    location, f"{key} is not a date: {value[:40]!r}", line=line, ref=ref
                )
    if published is None:
        return ItemError(
            location,
            "ninjs item has no firstcreated, contentcreated or versioncreated",
            line=line,
            ref=ref,
        )
    holder = _str(obj.get("copyrightholder"))
    url = uri if uri.lower().startswith(("http://", "https://")) else None
    if url:
        try:
            canonical_url(url)
        except InvalidUrl:
            url = None
    source = document.source or _source(uri, url, holder)
    if source is None:
        return ItemError(
            location,
            "cannot tell the source: uri is neither a URL nor a NewsML URN, and no "
            "copyrightholder names the provider; give the source (herald ingest "
            "--source-domain, or a configured source)",
            line=line,
            ref=ref,
        )
    byline = _str(obj.get("byline")) or _str(obj.get("by"))
    drop = [holder] if holder else []
    language = normalise_language(_str(obj.get("language"))) if obj.get("language") else None
    return IncomingItem(
        media_type=document.media_type or "wire",
        title=headline,
        published_date=published,
        source=source,
        url=url,
        external_id=uri,
        authors=split_authors(byline, drop=drop) if byline else (),
        language=language,
        summary=description if description and description != body else None,
        body=body,
        identified_by_id=True,
    )


def _str(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _role_values(obj: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    values = obj.get(key)
    if not isinstance(values, list):
        return []
    entries = [v for v in values if isinstance(v, Mapping) and isinstance(v.get("value"), str)]
    # The main rendition first, then the rest in document order.
    return sorted(entries, key=lambda v: 0 if _str(v.get("role")).lower() in ("main", "") else 1)


def _headline(obj: Mapping[str, Any]) -> str:
    text = _str(obj.get("headline"))
    if not text:
        headlines = _role_values(obj, "headlines")
        text = _str(headlines[0]["value"]) if headlines else ""
    if not text:
        return _named_text(obj, "headline_", keep_newlines=False)
    return clean_text(html_to_text(text)) if text else ""


def _body(obj: Mapping[str, Any]) -> str:
    if _str(obj.get("body_text")):
        return clean_text(_str(obj.get("body_text")), keep_newlines=True)
    for key in ("body_html5", "body_xhtml", "body_html"):
        if _str(obj.get(key)):
            return html_to_text(_str(obj.get(key)))
    return _named_text(obj, "body_") or _from_renditions(_role_values(obj, "bodies"))


def _description(obj: Mapping[str, Any]) -> str:
    if _str(obj.get("description_text")):
        return clean_text(_str(obj.get("description_text")), keep_newlines=True)
    for key in ("description_html", "description_xhtml"):
        if _str(obj.get(key)):
            return html_to_text(_str(obj.get(key)))
    return _named_text(obj, "description_") or _from_renditions(_role_values(obj, "descriptions"))


def _named_text(obj: Mapping[str, Any], prefix: str, *, keep_newlines: bool = True) -> str:
    """ninjs 1.x names further renditions freely (``headline_main``, ``body_main``,
    ``body_richtext``: its schema allows any ``headline_*``, ``body_*``, ``description_*``):
    a ``_main`` one first, plain text before markup (a name with ``html``, ``xml`` or ``rich``,
    or a value that opens with a tag)."""
    named = [
        (key, value)
        for key, value in obj.items()
        if isinstance(key, str) and key.lower().startswith(prefix) and _str(value)
    ]
    named.sort(key=lambda kv: (_is_markup(*kv), not kv[0].lower().endswith("_main")))
    for key, value in named:
        if _is_markup(key, value):
            text = html_to_text(_str(value))
            text = text if keep_newlines else clean_text(text)
        else:
            text = clean_text(_str(value), keep_newlines=keep_newlines)
        if text:
            return text
    return ""


def _is_markup(key: str, value: object) -> bool:
    name = key.lower()
    return any(mark in name for mark in ("html", "xml", "rich")) or _str(value).lstrip().startswith(
        "<"
    )


def _from_renditions(renditions: list[Mapping[str, Any]]) -> str:
    # Prefer plain text, then HTML, then NITF (an XML document whose head is metadata).
    for rendition in renditions:
        if _str(rendition.get("contenttype")).lower() in ("text/plain", "") and not _is_xml(
            rendition
        ):
            text = clean_text(_str(rendition.get("value")), keep_newlines=True)
            if text:
                return text
    for rendition in renditions:
        if not _is_xml(rendition):
            text = html_to_text(_str(rendition.get("value")))
            if text:
                return text
    for rendition in renditions:
        if _is_xml(rendition):
            text = nitf_to_text(_str(rendition.get("value")))
            if text:
                return text
    return ""


def _is_xml(rendition: Mapping[str, Any]) -> bool:
    kind = _str(rendition.get("contenttype")).lower()
    value = _str(rendition.get("value"))
    return "nitf" in kind or kind.endswith("/xml") or value.startswith(("<?xml", "<nitf"))


def nitf_to_text(document: str) -> str:
    """The story text of a NITF document: the paragraphs of ``body.content`` (headlines, byline
    and ``head`` metadata are not story text)."""
    parser = etree.XMLParser(recover=True, resolve_entities=False, no_network=True)
    try:
        root = etree.fromstring(document.encode("utf-8"), parser)
    except (etree.XMLSyntaxError, ValueError):
        root = None
    if root is None:
        return clean_text(re.sub(r"<[^>]+>", " ", document), keep_newlines=True)
    elements = [n for n in root.iter() if isinstance(n.tag, str)]
    scope = [n for n in elements if _local(n.tag) == "body.content"]
    scope = scope or [n for n in elements if _local(n.tag) == "body"] or [root]
    paragraphs: list[str] = []
    for holder in scope:
        blocks = [
            n for n in holder.iter() if isinstance(n.tag, str) and _local(n.tag) in _NITF_BLOCKS
        ]
        for node in blocks or [holder]:
            text = clean_text("".join(node.itertext()))
            if text:
                paragraphs.append(text)
    return "\n\n".join(paragraphs)


_NITF_BLOCKS = frozenset({"p", "hl2", "li", "dd", "dt", "td"})


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower()


def _source(uri: str, url: str | None, holder: str) -> SourceRef | None:
    domain = None
    urn = _NEWSML_URN.match(uri)
    try:
        if urn:
            domain = normalise_domain(urn.group(1))
        elif url:
            domain = normalise_domain(host_of(url))
        elif uri.lower().startswith("urn:") and holder:
            # Another URN (``urn:<uuid>``): the provider is the copyright holder, and its name
            # in lower case stands in for a domain (``NTB`` -> ``ntb``).
            domain = normalise_domain(re.sub(r"[^a-z0-9.]+", "-", holder.lower()).strip("-."))
    except InvalidUrl:
        domain = None
    if domain is None:
        return None
    return SourceRef(name=clean_text(holder) if holder else domain, domain=domain)
