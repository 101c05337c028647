"""Reading a response body within a size limit, inflating a compressed one a bounded step at a
time.

httpx inflates each chunk it receives whole: one 64 KiB chunk of a gzip bomb is 64 MiB in memory
before a limit can look at it. Here a ``gzip`` or ``deflate`` body is inflated at most to the
limit (and one byte more, to know it is over), so the memory a fetch holds stays near its limit
whatever the compression ratio. The encodings are the ones the fetcher asks for
(``Accept-Encoding: gzip, deflate``).
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable

__all__ = ["ACCEPT_ENCODING", "BodyTooLarge", "UnreadableBody", "read_bounded"]

ACCEPT_ENCODING = "gzip, deflate"
_GZIP = ("gzip", "x-gzip")


class BodyTooLarge(Exception):
    """The body, inflated, is over the limit."""


class UnreadableBody(Exception):
    """An encoding the fetcher did not ask for, or a corrupt compressed stream."""


def read_bounded(
    chunks: Iterable[bytes],
    content_encoding: str | None,
    limit: int,
    after_chunk: Callable[[], None] = lambda: None,
) -> bytes:
    """The body of raw ``chunks`` sent with ``content_encoding``, at most ``limit`` bytes once
    inflated (else :class:`BodyTooLarge`); ``after_chunk`` runs after each chunk (a deadline's
    check)."""
    codings = [c.strip().lower() for c in (content_encoding or "").split(",")]
    codings = [c for c in codings if c and c != "identity"]
    if len(codings) > 1 or (codings and codings[0] not in (*_GZIP, "deflate")):
        raise UnreadableBody(f"unsupported content encoding {content_encoding!r}")
    inflater = _Inflater(gzip=codings[0] in _GZIP) if codings else None
    body = bytearray()
    for chunk in chunks:
        if inflater is None:
            body += chunk
        else:
            inflater.feed(chunk, body, limit)
        if len(body) > limit:
            raise BodyTooLarge
        after_chunk()
    return bytes(body)


class _Inflater:
    def __init__(self, *, gzip: bool) -> None:
        self._stream = zlib.decompressobj(zlib.MAX_WBITS | 16 if gzip else zlib.MAX_WBITS)
        # "deflate" is zlib-wrapped by the standard, and raw DEFLATE from some servers
        self._may_be_raw = not gzip
        self._started = False

    def feed(self, data: bytes, body: bytearray, limit: int) -> None:
        """Inflate ``data`` onto ``body``, stopping once ``body`` is over ``limit``."""
        while data and not self._stream.eof:
            try:
                out = self._stream.decompress(data, limit + 1 - len(body))
            except zlib.error as exc:
                if self._may_be_raw and not self._started:
                    self._stream = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._may_be_raw = False
                    continue
                raise UnreadableBody(f"corrupt compressed body: {exc}") from None
            self._started = True
            body += out
            if len(body) > limit:
                return
            data = self._stream.unconsumed_tail
