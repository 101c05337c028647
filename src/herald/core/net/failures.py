"""Why an outbound request got no usable HTTP response: one exception class per stable kind."""

from __future__ import annotations


class RequestFailed(Exception):
    """An outbound request got no usable HTTP response. ``kind`` is a stable short code."""

    kind = "error"


class ResolutionFailed(RequestFailed):
    kind = "dns"


class ConnectFailed(RequestFailed):
    kind = "connect"


class TlsFailed(RequestFailed):
    kind = "tls"


class TimedOut(RequestFailed):
    kind = "timeout"


class ProtocolFailed(RequestFailed):
    kind = "protocol"
