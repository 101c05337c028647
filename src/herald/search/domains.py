"""Source domains as the index stores and filters them.

A filter on ``example.com`` must also match ``news.example.com``: each item is indexed under its
host and every parent domain down to the registrable domain (``bbc.co.uk``, never ``co.uk``), so a
domain filter is a single term lookup inside the index. A leading ``www.`` is not significant.
A source at an IP address (``http://[2001:db8::1]/feed``) has that address as its domain, indexed
and filtered in its canonical text whichever way it is written (brackets, a port, zeros).
"""

from __future__ import annotations

import contextlib
import functools
import ipaddress
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
    if domain.startswith("[") or domain.count(":") > 1:  # an IPv6 literal
        return _ipv6_literal(domain) or domain
    domain = domain.split(":", 1)[0].rstrip(".")
    if not domain.isascii():
        with contextlib.suppress(UnicodeError):  # not a name IDNA encodes: kept as given
            domain = domain.encode("idna").decode("ascii")
    if domain.startswith("www.") and domain.count(".") >= 2:
        domain = domain[4:]
    return domain


def _ipv6_literal(text: str) -> str | None:
    """The IPv6 address of a host written ``[2001:DB8:0::1]`` (a port may follow) or
    ``2001:db8:0::1``, in its canonical text (``2001:db8::1``, what every spelling of it is
    indexed and filtered as); None when it is not one."""
    if text.startswith("["):
        address, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not re.fullmatch(r":[0-9]{1,5}", rest)):
            return None
    else:
        address = text
    try:
        return str(ipaddress.IPv6Address(address))
    except ValueError:
        return None


def filter_domain(value: str) -> str | None:
    """The domain a search filter means by ``value`` (:func:`normalize_domain`), or ``None``
    when what is left is not a host name or an IP address (``https://``, ``/news``,
    ``*.example.com``, a name with a space or a comma, ``[::g]``): no item is stored under it,
    so it would silently match nothing."""
    domain = normalize_domain(value)
    if _ipv6_literal(domain) == domain:
        return domain
    return domain if len(domain) <= 253 and _HOST_NAME.fullmatch(domain) else None


def _is_ipv4(host: str) -> bool:
    try:
        ipaddress.IPv4Address(host)
    except ValueError:
        return False
    return True


def domain_and_parents(value: str) -> list[str]:
    """``news.example.co.uk`` -> ``["news.example.co.uk", "example.co.uk"]``."""
    host = normalize_domain(value)
    if not host:
        return []
    if _ipv6_literal(host) == host or _is_ipv4(host):
        return [host]  # an address has no parent domains
    registrable = _suffixes().privatesuffix(host) or host
    labels = host.split(".")
    stop = registrable.count(".") + 1
    return [".".join(labels[i:]) for i in range(0, max(len(labels) - stop, 0) + 1)]
