"""Strict parsing of HTTPS target URLs and the save-time check of what they resolve to."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from herald.core.net.addresses import (
    MAX_URL_LENGTH,
    IPAddress,
    Resolver,
    TargetPolicy,
    system_resolver,
)
from herald.errors import InvalidWebhookUrl

# --------------------------------------------------------------------------------------------
# URL parsing (pure)
# --------------------------------------------------------------------------------------------

_LOCALHOST_NAMES = frozenset(
    {"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"}
)
_HOST_LABEL_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-_")


@dataclass(frozen=True, slots=True)
class HttpsTarget:
    """A parsed, syntactically acceptable HTTPS target (addresses not yet checked)."""

    url: str  # normalised, without fragment
    host: str  # ASCII (IDNA) host name or IP literal, no brackets
    port: int
    target: str  # path and query, as sent on the request line
    literal: IPAddress | None  # set when the host is an IP literal

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == 443 else f"{host}:{self.port}"


def _is_numeric_label(label: str) -> bool:
    low = label.lower()
    if low.startswith("0x"):
        return all(c in "0123456789abcdef" for c in low[2:])
    return low.isdigit()


def _canonical_ipv4(host: str) -> ipaddress.IPv4Address | None:
    """Dotted-quad decimal without leading zeros, or ``None`` for any other numeric spelling."""
    labels = host.split(".")
    if len(labels) != 4:
        return None
    for label in labels:
        if not label.isdigit() or (len(label) > 1 and label[0] == "0") or int(label) > 255:
            return None
    return ipaddress.IPv4Address(host)


def _refuse_odd_ipv4(url: str, host: str) -> ipaddress.IPv4Address | None:
    """The IPv4 address a numeric host spells, or ``None`` for a host name.

    WHATWG: a numeric last label makes the host an IPv4 address. Only the canonical spelling is
    accepted, so 2130706433, 0x7f.1, 0177.0.0.1 and 127.1 never reach a resolver that would
    read them as 127.0.0.1.
    """
    bare = host[:-1] if host.endswith(".") else host
    if not bare or not _is_numeric_label(bare.rsplit(".", 1)[-1]):
        return None
    literal = _canonical_ipv4(host)
    if literal is None:
        raise _invalid(
            url,
            "numeric hosts must be written as a dotted-decimal IPv4 address "
            "(decimal, octal and hex forms are refused)",
        )
    return literal


# The user information of an authority: everything up to its last "@" (a password, maybe).
_USERINFO = re.compile(r"^((?:[^:/?#]*:)?//)[^/?#]*@")


def without_credentials(url: str) -> str:
    """``url`` as messages show it: any user information (credentials) replaced by ``***``."""
    return _USERINFO.sub(r"\1***@", url, count=1)


def _invalid(url: str, why: str) -> InvalidWebhookUrl:
    """The refusal quotes the URL, with any credentials in it replaced by ``***``."""
    shown = without_credentials(url)
    shown = shown if len(shown) <= 200 else shown[:200] + "…"
    return InvalidWebhookUrl(f"Webhook URL {shown!r} is not allowed: {why}")


def parse_https_url(raw: str) -> HttpsTarget:
    """Parse a target URL by the target rules; raise :class:`InvalidWebhookUrl` saying why not."""
    if not isinstance(raw, str) or not raw:
        raise InvalidWebhookUrl("Webhook URL must be a non-empty string")
    url = raw.strip()
    if len(url) > MAX_URL_LENGTH:
        raise InvalidWebhookUrl(f"Webhook URL is longer than {MAX_URL_LENGTH} characters")
    # Whitespace, control characters and backslashes are where URL parsers disagree.
    if any(c.isspace() or ord(c) < 0x20 or ord(c) == 0x7F or c == "\\" for c in url):
        raise _invalid(url, "it contains whitespace, control characters or backslashes")
    try:
        split = urlsplit(url)
        loose_host = split.hostname or ""
    except ValueError as exc:
        raise _invalid(url, f"it cannot be parsed ({exc})") from None
    if ":" not in loose_host:
        _refuse_odd_ipv4(url, loose_host)  # before httpx, which rejects some of them vaguely
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise _invalid(url, f"it cannot be parsed ({exc})") from None
    if parsed.scheme != "https":
        raise _invalid(url, "the scheme must be https")
    if parsed.userinfo or "@" in split.netloc:
        raise _invalid(url, "it must not contain credentials (user:password@)")
    try:
        host = parsed.raw_host.decode("ascii").lower()
    except UnicodeDecodeError:
        raise _invalid(url, "the host name is not valid") from None
    if not host:
        raise _invalid(url, "it has no host")
    if (split.hostname or "").rstrip(".") != parsed.host.lower().rstrip("."):
        raise _invalid(url, "its host is ambiguous")
    port = 443 if parsed.port is None else parsed.port
    if not 1 <= port <= 65535:
        raise _invalid(url, "the port must be between 1 and 65535")

    literal: IPAddress | None = None
    if ":" in host:  # httpx strips the brackets of an IPv6 literal
        try:
            literal = ipaddress.IPv6Address(host)
        except ValueError:
            raise _invalid(url, "the IPv6 address is not valid") from None
        if literal.scope_id:
            raise _invalid(url, "IPv6 zone identifiers are not allowed")
    else:
        bare = host[:-1] if host.endswith(".") else host
        labels = bare.split(".")
        literal = _refuse_odd_ipv4(url, host)
        if literal is None:
            if bare in _LOCALHOST_NAMES or bare.endswith(".localhost"):
                raise _invalid(url, "localhost names are not allowed")
            if len(bare) > 253 or any(
                not 0 < len(label) <= 63 or not set(label) <= _HOST_LABEL_CHARS for label in labels
            ):
                raise _invalid(url, "the host name is not valid")
    target = parsed.raw_path.decode("ascii") or "/"
    normalised = str(parsed.copy_with(fragment=None))
    return HttpsTarget(url=normalised, host=host, port=port, target=target, literal=literal)


def check_target_url(
    raw: str, policy: TargetPolicy, resolver: Resolver | None = None
) -> tuple[HttpsTarget, tuple[IPAddress, ...]]:
    """Parse ``raw`` and check every address it resolves to (the save-time check).

    Raises :class:`InvalidWebhookUrl` for a URL that breaks the rules or does not resolve.
    """
    target = parse_https_url(raw)
    if target.literal is not None:
        return target, policy.check_addresses(target.host, [target.literal])
    try:
        addresses = (resolver or system_resolver)(target.host)
    except (OSError, UnicodeError) as exc:
        raise InvalidWebhookUrl(
            f"Webhook URL host {target.host} could not be resolved ({exc})"
        ) from None
    return target, policy.check_addresses(target.host, addresses)
