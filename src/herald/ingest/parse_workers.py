"""Parser processes for a large JSON Lines file: each parses and fingerprints chunks of lines
while the calling process stores the results in file order.

Each worker is a fresh interpreter running :func:`serve` that imports only what parsing needs
(the entry format, URL rules, fingerprints), not the program that started it: a
``multiprocessing`` "spawn" child first re-imports the parent's main module (``herald``'s whole
command line, or a benchmark), which cost each worker more CPU time than parsing 2,000 entries.
Chunks and results travel as length-prefixed pickles over the workers' standard input and
output, between processes of one program.

Worker ``k`` of ``n`` gets chunks ``k``, ``k + n``, ... (a feeder thread each writes them), and
the results are read back in chunk order, so a worker that runs ahead waits, with at most about
one finished result, until the storing process takes it: memory stays bounded by the workers'
count whatever the file's size.
"""

from __future__ import annotations

import contextlib
import gc
import json
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from multiprocessing import spawn
from types import TracebackType
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from herald.ingest.model import ParseOutcome
    from herald.ingest.syndication import TextFingerprint

__all__ = ["ChunkResult", "ParserPool", "parse_chunk", "serve"]

Chunk = tuple[int, list[bytes]]  # the first line's number, the lines
ChunkResult = tuple[list["ParseOutcome"], dict[str, "TextFingerprint | None"]]

_HEADER = 8  # bytes of a frame's length
_ENTRY = (
    "import sys; sys.path[:] = __import__('json').loads(sys.argv[1]); "
    "from herald.ingest.parse_workers import serve; serve()"
)


def parse_chunk(chunk: Chunk) -> ChunkResult:
    """The outcomes of a chunk's lines, and the fingerprint of each item's text (podcasts have
    none): the same as parsing and fingerprinting in the storing process."""
    from herald.ingest.jsonlines import parse_json_lines
    from herald.ingest.model import IncomingItem
    from herald.ingest.syndication import fingerprint

    first_line, lines = chunk
    outcomes = list(parse_json_lines(lines, first_line=first_line))
    fingerprints = {
        o.content_id: fingerprint(o.text)
        for o in outcomes
        if isinstance(o, IncomingItem) and o.media_type != "podcast"
    }
    return outcomes, fingerprints


def serve() -> None:
    """A worker's loop: read a chunk, write its result (or the error), until standard input
    ends."""
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing else may write into the results' stream
    import herald.ingest.jsonlines
    import herald.ingest.syndication  # noqa: F401 (loaded before the first chunk)

    gc.freeze()  # the loaded modules are never garbage: later collections skip them
    while (chunk := _read_frame(source)) is not None:
        try:
            reply: tuple[str, object] = ("ok", parse_chunk(pickle.loads(chunk)))  # noqa: S301
        except Exception as exc:  # noqa: BLE001 (reported to the storing process, which raises it)
            reply = ("error", f"{type(exc).__name__}: {exc}")
        _write_frame(sink, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))


class ParserPool:
    """``workers`` parser processes; use as a context manager (it ends them on leaving)."""

    def __init__(self, workers: int) -> None:
        self._count = max(1, workers)
        self._processes: list[subprocess.Popen[bytes]] = []
        self._feeders: list[threading.Thread] = []
        self._finished = False  # every result was read

    def __enter__(self) -> ParserPool:
        command = [spawn.get_executable(), "-c", _ENTRY, json.dumps(sys.path)]
        for _ in range(self._count):
            self._processes.append(
                subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # noqa: S603
            )
        return self

    def map(self, chunks: Sequence[Chunk]) -> Iterator[ChunkResult]:
        """The result of every chunk, in order."""
        count = len(self._processes)
        for index, process in enumerate(self._processes):
            assert process.stdin is not None
            feeder = threading.Thread(
                target=_feed, args=(process.stdin, chunks[index::count]), daemon=True
            )
            feeder.start()
            self._feeders.append(feeder)
        for index in range(len(chunks)):
            stream = self._processes[index % count].stdout
            assert stream is not None
            frame = _read_frame(stream)
            if frame is None:
                raise RuntimeError("a parser process ended before returning its results")
            status, value = pickle.loads(frame)  # noqa: S301 (our own worker's reply)
            if status != "ok":
                raise RuntimeError(f"parsing lines from {chunks[index][0]} failed: {value}")
            yield value
        self._finished = True

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for process in self._processes:
            if not self._finished:
                process.kill()
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):  # a killed worker's pipe
                        stream.close()
        for process in self._processes:
            process.wait()
        for feeder in self._feeders:
            feeder.join()


def _feed(stream: IO[bytes], chunks: Sequence[Chunk]) -> None:
    try:
        for chunk in chunks:
            _write_frame(stream, pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))
        stream.close()  # the worker's end of input: it exits after its last result
    except (BrokenPipeError, ValueError):
        pass  # the worker was ended (an error in the storing process), or its pipe closed


def _write_frame(stream: IO[bytes], data: bytes) -> None:
    stream.write(len(data).to_bytes(_HEADER, "big"))
    stream.write(data)
    stream.flush()


def _read_frame(stream: IO[bytes]) -> bytes | None:
    header = stream.read(_HEADER)
    if len(header) < _HEADER:
        return None
    size = int.from_bytes(header, "big")
    data = stream.read(size)
    if len(data) < size:
        return None
    return data
