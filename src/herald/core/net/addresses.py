"""IP address classification and the operator policy over it (pure, property-tested)."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from herald.errors import InvalidWebhookUrl

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Resolver = Callable[[str], Sequence[IPAddress]]

DEFAULT_TIMEOUT_SECONDS = 10.0
DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024
MAX_URL_LENGTH = 2048

# --------------------------------------------------------------------------------------------
# Address classification (pure)
# --------------------------------------------------------------------------------------------

_net = ipaddress.ip_network

# Never admitted, whatever the operator allows: the cloud metadata services live here.
ALWAYS_FORBIDDEN: tuple[tuple[IPNetwork, str], ...] = (
    (_net("169.254.0.0/16"), "link-local (cloud metadata) space"),
    (_net("fe80::/10"), "IPv6 link-local space"),
    (_net("100.100.100.200/32"), "a cloud metadata address"),
    (_net("fd00:ec2::254/128"), "a cloud metadata address"),
)

# IANA special-purpose registries (IPv4 and IPv6), most specific first so the reason is precise.
_FORBIDDEN_V4: tuple[tuple[IPNetwork, str], ...] = (
    (_net("0.0.0.0/32"), "the unspecified address"),
    (_net("0.0.0.0/8"), "the 'this network' range"),
    (_net("10.0.0.0/8"), "a private network (RFC 1918)"),
    (_net("100.64.0.0/10"), "shared CGNAT space (RFC 6598)"),
    (_net("127.0.0.0/8"), "loopback"),
    (_net("172.16.0.0/12"), "a private network (RFC 1918)"),
    (_net("192.0.0.0/24"), "IETF protocol assignment space"),
    (_net("192.0.2.0/24"), "documentation space"),
    (_net("192.88.99.0/24"), "the deprecated 6to4 relay range"),
    (_net("192.168.0.0/16"), "a private network (RFC 1918)"),
    (_net("198.18.0.0/15"), "benchmarking space"),
    (_net("198.51.100.0/24"), "documentation space"),
    (_net("203.0.113.0/24"), "documentation space"),
    (_net("224.0.0.0/4"), "multicast"),
    (_net("255.255.255.255/32"), "the broadcast address"),
    (_net("240.0.0.0/4"), "reserved space"),
)
_FORBIDDEN_V6: tuple[tuple[IPNetwork, str], ...] = (
    (_net("::/128"), "the unspecified address"),
    (_net("::1/128"), "loopback"),
    (_net("2001:db8::/32"), "documentation space"),
    (_net("3fff::/20"), "documentation space"),
    (_net("2001::/32"), "Teredo tunnel space"),
    (_net("2001::/23"), "IETF protocol assignment space"),
    (_net("2002::/16"), "6to4 tunnel space"),
    (_net("fc00::/7"), "a unique-local (private) network"),
    (_net("fec0::/10"), "deprecated site-local space"),
    (_net("ff00::/8"), "multicast"),
)
_GLOBAL_UNICAST_V6 = _net("2000::/3")
# DNS64/NAT64 well-known prefix: the IPv4 address is embedded in the last 32 bits.
_NAT64 = _net("64:ff9b::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def canonical_address(ip: IPAddress) -> IPAddress:
    """``::ffff:a.b.c.d`` is the IPv4 address ``a.b.c.d``: judge (and connect to) that."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.scope_id:
            ip = ipaddress.IPv6Address(str(ip).split("%", 1)[0])
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
    return ip


def forbidden_reason(ip: IPAddress, allow_networks: Sequence[IPNetwork] = ()) -> str | None:
    """Why a webhook may not connect to ``ip`` (a short phrase), or ``None`` when it may.

    Total over every IPv4 and IPv6 address. An address is allowed when it is globally reachable
    unicast, or lies inside one of ``allow_networks`` and is not in :data:`ALWAYS_FORBIDDEN`.
    """
    ip = canonical_address(ip)
    embedded = _embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    for candidate in (ip, embedded):
        if candidate is None:
            continue
        for network, reason in ALWAYS_FORBIDDEN:
            if candidate.version == network.version and candidate in network:
                return reason
    if any(ip.version == n.version and ip in n for n in allow_networks):
        return None
    if embedded is not None:  # NAT64: the IPv4 address inside decides
        inner = forbidden_reason(embedded, allow_networks)
        return None if inner is None else f"{inner} (NAT64 form)"
    table = _FORBIDDEN_V4 if ip.version == 4 else _FORBIDDEN_V6
    for network, reason in table:
        if ip in network:
            return reason
    if isinstance(ip, ipaddress.IPv6Address) and ip not in _GLOBAL_UNICAST_V6:
        return "outside the IPv6 global unicast range"
    if not ip.is_global:  # anything Python's copy of the IANA registry knows that we missed
        return "special-purpose space"
    return None


def parse_allow_networks(text: str | Iterable[str]) -> tuple[IPNetwork, ...]:
    """``"127.0.0.0/8, 10.1.0.0/16"`` -> networks. A bad entry raises ``ValueError`` naming it."""
    parts = text.split(",") if isinstance(text, str) else list(text)
    networks: list[IPNetwork] = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError as exc:
            raise ValueError(f"not a CIDR network: {part!r} ({exc})") from None
    return tuple(networks)


@dataclass(frozen=True, slots=True)
class TargetPolicy:
    """Which addresses outbound requests may reach beyond the public internet."""

    allow_networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def from_setting(cls, text: str | Iterable[str]) -> TargetPolicy:
        return cls(parse_allow_networks(text))

    def check_address(self, host: str, ip: IPAddress) -> IPAddress:
        """The address to connect to; raises :class:`InvalidWebhookUrl` when it is forbidden."""
        reason = forbidden_reason(ip, self.allow_networks)
        if reason is not None:
            if not _is_address(host):
                # What an internal name resolves to is the operator's business, not the caller's.
                raise InvalidWebhookUrl(
                    f"Webhook URL is not allowed: {host} resolves to an address outside the "
                    "public internet; targets must be public internet addresses"
                )
            mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
            spelled = f"::ffff:{mapped}" if mapped is not None else str(ip)
            raise InvalidWebhookUrl(
                f"Webhook URL is not allowed: address {spelled}, which is {reason}; "
                f"targets must be public internet addresses{_admit_hint(ip)}"
            )
        return canonical_address(ip)

    def check_addresses(self, host: str, addresses: Sequence[IPAddress]) -> tuple[IPAddress, ...]:
        """Every address must pass: a name with one public and one private address is refused."""
        if not addresses:
            raise InvalidWebhookUrl(f"Webhook URL host {host} does not resolve to any address")
        checked: list[IPAddress] = []
        for ip in addresses:
            canon = self.check_address(host, ip)
            if canon not in checked:
                checked.append(canon)
        return tuple(checked)


def allow_list_admits(ip: IPAddress) -> bool:
    """Whether an operator's allow-list (``HERALD_WEBHOOK_ALLOW_NETWORKS``,
    ``HERALD_FETCH_ALLOW_NETWORKS``) can admit ``ip``: link-local and metadata addresses it
    never admits."""
    return forbidden_reason(ip, (ipaddress.ip_network(canonical_address(ip)),)) is None


def _admit_hint(ip: IPAddress) -> str:
    """How an operator admits ``ip`` (a receiver on the own network while developing), for
    addresses the allow-list can admit."""
    if not allow_list_admits(ip):
        return ""
    return ", unless the server's operator admits their network with HERALD_WEBHOOK_ALLOW_NETWORKS"


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def system_resolver(host: str) -> list[IPAddress]:
    """All addresses of ``host`` from the operating system's resolver, in its order."""
    found: list[IPAddress] = []
    for *_, sockaddr in socket.getaddrinfo(host, None, type=socket.SOCK_STREAM):
        ip = ipaddress.ip_address(str(sockaddr[0]))
        if ip not in found:
            found.append(ip)
    return found
