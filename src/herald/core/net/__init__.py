"""Outbound HTTPS that cannot be pointed at the inside of the network (SSRF-safe).

Three layers, each usable on its own:

* :func:`forbidden_reason` classifies one IP address (pure; property-tested).
* :func:`parse_https_url` parses a target URL strictly: HTTPS only, no credentials, no ``localhost``
  names, no odd numeric host forms (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``127.1``).
* :class:`SafeHttpsClient` resolves the host once, refuses the request unless *every* resolved
  address is allowed, then connects to those checked addresses itself (the socket layer never
  resolves the name again, so a DNS answer that changes between check and connect — rebinding —
  cannot redirect the request). The hostname is still used for SNI, certificate verification and
  the ``Host`` header. Redirects are never followed, the kept response body is bounded and the
  whole exchange (DNS included) has one total deadline.

Addresses inside operator-allowed networks (``HERALD_WEBHOOK_ALLOW_NETWORKS``) are admitted, except
link-local and cloud metadata addresses, which stay forbidden whatever the operator allows.
"""

from __future__ import annotations

from herald.core.net.addresses import (
    ALWAYS_FORBIDDEN,
    DEFAULT_MAX_RESPONSE_BYTES,
    DEFAULT_TIMEOUT_SECONDS,
    IPAddress,
    IPNetwork,
    Resolver,
    TargetPolicy,
    allow_list_admits,
    canonical_address,
    forbidden_reason,
    parse_allow_networks,
    system_resolver,
)
from herald.core.net.client import (
    ConnectFailed,
    HttpsResponse,
    ProtocolFailed,
    RequestFailed,
    ResolutionFailed,
    SafeHttpsClient,
    TimedOut,
    TlsFailed,
)
from herald.core.net.urls import (
    HttpsTarget,
    check_target_url,
    parse_https_url,
    without_credentials,
)

__all__ = [
    "ALWAYS_FORBIDDEN",
    "DEFAULT_MAX_RESPONSE_BYTES",
    "DEFAULT_TIMEOUT_SECONDS",
    "ConnectFailed",
    "HttpsResponse",
    "HttpsTarget",
    "IPAddress",
    "IPNetwork",
    "ProtocolFailed",
    "RequestFailed",
    "ResolutionFailed",
    "Resolver",
    "SafeHttpsClient",
    "TargetPolicy",
    "TimedOut",
    "TlsFailed",
    "allow_list_admits",
    "canonical_address",
    "check_target_url",
    "forbidden_reason",
    "parse_allow_networks",
    "parse_https_url",
    "system_resolver",
    "without_credentials",
]
