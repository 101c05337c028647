"""URL canonicalisation and registrable domains.

Two links to the same article must give the same canonical URL, so that the stable content id
(derived from it) dedups them: ``http://WWW.Example.com:80/a/amp/?utm_source=x#top`` and
``https://example.com/a`` are one item. The canonical form is used only as an identity key; the
item keeps the URL it was given.
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
import posixpath
import re
import unicodedata
from typing import Literal
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from publicsuffixlist import PublicSuffixList

from herald.ingest.url_text import UNRESERVED, UNRESERVED_CHARS, normalise_text

__all__ = [
    "InvalidUrl",
    "canonical_forms",
    "canonical_url",
    "host_of",
    "legacy_canonical_urls",
    "normalise_domain",
    "pre_nfc_canonical_url",
    "registrable_domain",
]


class InvalidUrl(ValueError):
    pass


# Query parameters that say how a reader arrived, never which page it is.
_TRACKING_EXACT = frozenset(
    {
        "fbclid",
        "gclid",
        "gclsrc",
        "dclid",
        "gbraid",
        "wbraid",
        "msclkid",
        "yclid",
        "twclid",
        "ttclid",
        "igshid",
        "igsh",
        "mc_cid",
        "mc_eid",
        "mkt_tok",
        "_ga",
        "_gl",
        "_hsenc",
        "_hsmi",
        "hsctatracking",
        "oly_anon_id",
        "oly_enc_id",
        "vero_id",
        "vero_conv",
        "wickedid",
        "li_fat_id",
        "s_cid",
        "cmpid",
        "ncid",
        "ocid",
        "sr_share",
        "spm",
        "ref_src",
        "ref_url",
        "__twitter_impression",
        "smid",
        "smtyp",
        "cmp",
        "at_medium",
        "at_campaign",
        "at_custom1",
        "at_custom2",
        "at_custom3",
        "at_custom4",
        "wt.mc_id",
        "wt.tsrc",
        "via",
        "guccounter",
        "guce_referrer",
        "guce_referrer_sig",
        "ito",
        "xtor",
    }
)
_TRACKING_PREFIXES = ("utm_", "pk_", "mtm_", "hsa_", "ga_", "__hs", "at_")
# Query parameters that only ask for the AMP rendering of the same article.
_AMP_PARAMS = {"amp": None, "amp_js_v": None, "usqp": None, "outputtype": "amp", "output": "amp"}
_AMP_CACHE = re.compile(r"\.cdn\.ampproject\.org$|^cdn\.ampproject\.org$")
_HOST_PREFIXES = ("www.", "amp.", "m.", "mobile.")


# How the text of a path or query is spelled in the canonical form: NFC. None: as given, the
# form before text was normalised (identities derived from it then are still looked up).
_Form = Literal["NFC", "NFD"] | None


def canonical_url(url: str) -> str:
    """The identity form of an http(s) URL (raises :class:`InvalidUrl` for anything else).

    Rules: https for http; lower-case host without ``www.``/``m.``/``amp.`` and without a trailing
    dot; no default port, credentials or fragment; dot segments resolved, percent-escapes
    normalised; the text of the path and query (letters written as UTF-8 percent-escapes or as
    they are) in Unicode NFC, so ``café`` written with one code point or as ``e`` plus a
    combining accent is one URL; AMP forms (``/amp/`` segments, ``.amp`` suffixes, ``?amp=1``,
    the Google AMP cache) mapped to the article; tracking parameters (``utm_*``, ``fbclid``,
    ``gclid``, ...) dropped and the rest sorted; no trailing slash except for the root.
    """
    return _canonical(url, "NFC")


def pre_nfc_canonical_url(url: str) -> str:
    """The canonical form as it was before the text of paths and queries was normalised to NFC
    (the text as given). Identities derived from it then, such as a podcast's id from its feed
    URL, stay derived from it."""
    return _canonical(url, None)


def canonical_forms(url: str) -> tuple[str, ...]:
    """The canonical URL, then the forms of :func:`legacy_canonical_urls`: every form under
    which something identified by ``url`` may be stored."""
    return (canonical_url(url), *legacy_canonical_urls(url))


def legacy_canonical_urls(url: str) -> tuple[str, ...]:
    """The canonical forms that the URL, and the same URL with its text in NFD, had before the
    text of paths and queries was normalised to NFC, where they differ from its canonical form
    (most URLs have none). Items stored under them then are still found under them."""
    if url.isascii() and "%" not in url:
        return ()  # no text that normalisation could change
    canonical = _canonical(url, "NFC")
    forms = (_canonical(url, None), _canonical(url, "NFD"))
    return tuple(form for form in dict.fromkeys(forms) if form != canonical)


@functools.lru_cache(maxsize=16384)  # validation and the model both ask for the same URL
def _canonical(url: str, form: _Form) -> str:
    raw = url.strip()
    try:
        parts = urlsplit(raw)
    except ValueError as exc:
        raise InvalidUrl(f"not a URL: {raw[:200]!r}") from exc
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise InvalidUrl(f"not an http(s) URL: {raw[:200]!r}")
    try:
        hostname = parts.hostname
        port = parts.port
    except ValueError as exc:
        raise InvalidUrl(f"bad host or port in {raw[:200]!r}") from exc
    if not hostname:
        raise InvalidUrl(f"URL without a host: {raw[:200]!r}")
    host = _normalise_host(hostname)
    path = parts.path

    if _AMP_CACHE.search(host):
        # https://example-com.cdn.ampproject.org/c/s/example.com/a -> https://example.com/a
        match = re.match(r"^/(?:[a-z]/)+(?:s/)?([^/]+)(/.*)?$", path)
        if match:
            host = _normalise_host(match.group(1))
            path = match.group(2) or "/"
            port = None

    path = _normalise_path(path, form)
    query = _normalise_query(parts.query, form)
    netloc = host
    if port is not None and port not in (80, 443):
        netloc = f"{host}:{port}"
    return urlunsplit(("https", netloc, path, query, ""))


def _normalise_host(hostname: str) -> str:
    host = hostname.strip().lower().rstrip(".")
    if not host.isascii():
        # Hosts that IDNA rejects stay as typed; they still compare equal to themselves.
        with contextlib.suppress(UnicodeError):
            host = host.encode("idna").decode("ascii")
    if _is_ip(host):
        return host
    changed = True
    while changed:
        changed = False
        for prefix in _HOST_PREFIXES:
            rest = host[len(prefix) :]
            # Only strip when what remains is still a registrable name (m.co.uk stays).
            if host.startswith(prefix) and "." in rest and registrable_domain(rest) is not None:
                host = rest
                changed = True
    return host


_PATH_SAFE = "/:@!$&'()*+,;="


def _normalise_path(path: str, form: _Form) -> str:
    if not path:
        return "/"
    path = _normalise_escapes(path, safe=_PATH_SAFE)
    if form is not None:
        path = normalise_text(path, form, safe=_PATH_SAFE)
    trailing = path.endswith("/")
    path = posixpath.normpath(path)
    if path.startswith("//"):
        path = "/" + path.lstrip("/")
    segments = [s for s in path.split("/") if s]
    # AMP renderings: /amp/story, /story/amp, /story.amp, /story.amp.html
    segments = [s for s in segments if s.lower() != "amp"]
    if segments:
        last = segments[-1]
        last = re.sub(r"\.amp(\.html?)?$", r"\1", last, flags=re.IGNORECASE)
        segments[-1] = last
    del trailing  # trailing slashes never distinguish articles
    return "/" + "/".join(segments)


def _normalise_query(query: str, form: _Form) -> str:
    if not query:
        return ""
    kept: list[tuple[str, str]] = []
    for key, value in parse_qsl(query, keep_blank_values=True):
        if form is not None:
            key, value = unicodedata.normalize(form, key), unicodedata.normalize(form, value)
        lowered = key.lower()
        if lowered in _TRACKING_EXACT or lowered.startswith(_TRACKING_PREFIXES):
            continue
        if lowered in _AMP_PARAMS:
            wanted = _AMP_PARAMS[lowered]
            if wanted is None or value.lower() == wanted:
                continue
        kept.append((key, value))
    kept.sort()
    return urlencode(kept, quote_via=quote, safe="-._~")


_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


def _normalise_escapes(text: str, *, safe: str) -> str:
    """RFC 3986 normalisation: escapes of unreserved characters decoded (``%7E`` -> ``~``), other
    escapes upper-cased, and characters that must be escaped (non-ASCII, spaces) escaped, so
    ``café`` and ``caf%C3%A9`` compare equal. Never decodes twice (``%2521`` stays ``%2521``)."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in UNRESERVED_CHARS else "%" + match.group(1).upper()

    return quote(_ESCAPE.sub(fix, text), safe=safe + UNRESERVED + "%")


def _is_ip(host: str) -> bool:
    if not (host[:1].isdigit() or ":" in host):
        return False
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


@functools.cache
def _psl() -> PublicSuffixList:
    return PublicSuffixList()


@functools.lru_cache(maxsize=65536)
def registrable_domain(host: str) -> str | None:
    """The registrable domain of a host (``news.bbc.co.uk`` -> ``bbc.co.uk``), lower case.

    IP addresses and single-label hosts (``localhost``) are their own domain; a bare public
    suffix (``co.uk``) has none.
    """
    host = host.strip().lower().rstrip(".")
    if not host:
        return None
    if _is_ip(host) or "." not in host:
        return host
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return None
    result: str | None = _psl().privatesuffix(host)
    return result


def _is_name_char(char: str) -> bool:
    """A character a host name may hold: a letter or digit of any script, a combining mark, a
    hyphen, an underscore or a dot."""
    return char.isalnum() or char in "-_." or unicodedata.category(char).startswith("M")


def host_of(url: str) -> str:
    try:
        host = urlsplit(url.strip()).hostname
    except ValueError as exc:
        raise InvalidUrl(f"not a URL: {url[:200]!r}") from exc
    if not host:
        raise InvalidUrl(f"URL without a host: {url[:200]!r}")
    return host.lower()


def _host_name(chars: str) -> str:
    """A host name's labels of ``chars``, joined by dots, as a regular expression (also valid
    as a JSON Schema pattern): at most 63 characters each, the first neither starting nor ending
    with a hyphen."""
    return f"[{chars}](?:[{chars}-]{{0,61}}[{chars}])?(?:\\.[{chars}-]{{1,63}})*"


_HOSTNAME = re.compile(f"^(?=.{{1,253}}$){_host_name('a-z0-9_')}$")

# The shape of a source domain as a user may give it (what :func:`normalise_domain` reads), in
# JSON Schema's pattern dialect for the API's documents: a host name, optionally as a URL (scheme,
# port, path). Letters outside ASCII are an internationalised name's; which of those encode, and
# which names are public suffixes ("co.uk"), a pattern cannot say.
_USER_HOST = _host_name("A-Za-z0-9_\\u00a1-\\uffff")
SOURCE_DOMAIN_PATTERN = (
    f"^(?:[A-Za-z][A-Za-z0-9+.-]*://)?{_USER_HOST}\\.?(?::[0-9]{{1,5}})?(?:/\\S*)?$"
)


def normalise_domain(value: str) -> str:
    """A source domain as given by a user (``www.BBC.co.uk``, ``https://bbc.co.uk/news``,
    ``bücher.de``) in its documented form: the registrable domain in lower case (an
    internationalised name in its ASCII ``xn--`` form). Raises :class:`InvalidUrl`."""
    text = value.strip().lower()
    if "://" in text:
        text = host_of(text)
    text = text.split("/")[0].split(":")[0].rstrip(".")
    if not text.isascii():
        if not all(_is_name_char(ch) for ch in text):
            raise InvalidUrl(f"not a domain: {value[:100]!r}")  # "°", "👍": no name's letters
        try:
            text = text.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise InvalidUrl(f"not a domain: {value[:100]!r}") from exc
    if not _HOSTNAME.match(text):
        raise InvalidUrl(f"not a domain: {value[:100]!r}")
    domain = registrable_domain(text)
    if domain is None:
        raise InvalidUrl(f"{value[:100]!r} is a public suffix, not a registrable domain")
    return domain
