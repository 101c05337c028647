"""Source domains as the index stores and filters them.

A filter on ``example.com`` must also match ``news.example.com``: each item is indexed under its
host and every parent domain down to the registrable domain (``bbc.co.uk``, never ``co.uk``), so a
domain filter is a single term lookup inside the index. A leading ``www.`` is not significant.
"""

from __future__ import annotations

import contextlib
import functools
import re

from publicsuffixlist import PublicSuffixList

# A host name in its ASCII form: labels of letters, digits, ``_`` and ``-`` (not first or last),
# joined by single dots; what every stored source domain is.
_HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_-]{1,63})*")


@functools.cache
def _suffixes() -> PublicSuffixList:
    return PublicSuffixList()


def normalize_domain(value: str) -> str:
    """Lower case, no scheme, path, port, trailing dot or leading ``www.``; a name with letters
    outside ASCII in its ASCII form (``bücher.de`` -> ``xn--bcher-kva.de``), as ingestion
    stores source domains."""
    domain = value.strip().lower()
    if "://" in domain:
        domain = domain.split("://", 1)[1]
    domain = domain.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
    domain = domain.rsplit("@", 1)[-1]
    if domain.startswith("[") or domain.count(":") > 1:
        return domain  # an IPv6 literal: nothing to strip
    domain = domain.split(":", 1)[0].rstrip(".")
    if not domain.isascii():
        with contextlib.suppress(UnicodeError):  # not a name IDNA encodes: kept as given
            domain = domain.encode("idna").decode("ascii")
    if domain.startswith("www.") and domain.count(".") >= 2:
        domain = domain[4:]
    return domain


def filter_domain(value: str) -> str | None:
    """The domain a search filter means by ``value`` (:func:`normalize_domain`), or ``None``
    when what is left is not a host name (``https://``, ``/news``, ``*.example.com``, a name
    with a space or a comma): no item is stored under it, so it would silently match nothing."""
    domain = normalize_domain(value)
    return domain if len(domain) <= 253 and _HOST_NAME.fullmatch(domain) else None


def domain_and_parents(value: str) -> list[str]:
    """``news.example.co.uk`` -> ``["news.example.co.uk", "example.co.uk"]``."""
    host = normalize_domain(value)
    if not host:
        return []
    registrable = _suffixes().privatesuffix(host) or host
    labels = host.split(".")
    stop = registrable.count(".") + 1
    return [".".join(labels[i:]) for i in range(0, max(len(labels) - stop, 0) + 1)]
