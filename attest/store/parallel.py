"""Parallel bulk loads: line-based RDF cut at line ends and loaded by one Oxigraph bulk loader thread per core.

One Oxigraph bulk loader keeps about one core busy; several loaders into the same store run side by side
(each writes its own sorted files and RocksDB ingests them atomically). Only N-Triples and N-Quads can be cut
at any line end, and only without blank nodes: a blank node label means the same node only within one parse.
"""

from __future__ import annotations

import os
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Callable

from pyoxigraph import DefaultGraph, NamedNode, RdfFormat, Store

from attest.store.base import Progress
from attest.store.rdfio import located

LINE_FORMATS = (RdfFormat.N_TRIPLES, RdfFormat.N_QUADS)
MIN_PART_BYTES = 4 << 20  # smaller inputs load as fast in one part
MAX_PART_BYTES = 64 << 20  # a part is read into memory before it is loaded
_SCAN_BLOCK = 16 << 20


def loader_count() -> int:
    """Cores this process may run on (not the host's count), at most 8."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, 8))


@dataclass(frozen=True)
class Part:
    start: int  # byte range [start, end) of the input
    end: int


def file_parts(path: Path, fmt: RdfFormat, count: int | None = None) -> list[Part] | None:
    """The file cut into parts at line ends (at least `count`, each at most MAX_PART_BYTES), or None when it must
    load whole (format, size, blank nodes, gzip)."""
    count = count or loader_count()
    size = path.stat().st_size
    if fmt not in LINE_FORMATS or path.suffix == ".gz" or count < 2 or size < 2 * MIN_PART_BYTES:
        return None
    count = max(min(count, size // MIN_PART_BYTES), -(-size // MAX_PART_BYTES))
    with path.open("rb") as f:
        previous = b""
        while block := f.read(_SCAN_BLOCK):
            if b"_:" in previous + block[:1] or b"_:" in block:
                return None
            previous = block[-1:]
        cuts = []
        for k in range(1, count):
            f.seek(k * size // count)
            f.readline()
            cuts.append(f.tell())
    bounds = sorted({0, *cuts, size})
    return [Part(a, b) for a, b in zip(bounds, bounds[1:]) if b > a]


def _line_of(path: Path, offset: int) -> int:
    """1-based number of the line that starts at byte `offset`."""
    lines = 1
    with path.open("rb") as f:
        while offset > 0 and (block := f.read(min(_SCAN_BLOCK, offset))):
            lines += block.count(b"\n")
            offset -= len(block)
    return lines


def load_file_parts(store: Store, path: Path, parts: list[Part], fmt: RdfFormat, *,
                    to_graph: NamedNode | DefaultGraph | None, progress: Progress | None = None) -> None:
    """Bulk-load the parts of the file, as many at once as there are loaders; a syntax error is located in the
    whole file. Each part is read into memory first (Python stream callbacks would serialize the loaders)."""

    def load(part: Part) -> None:
        with path.open("rb") as f:
            f.seek(part.start)
            data = f.read(part.end - part.start)
        try:
            store.bulk_load(data, fmt, to_graph=to_graph)
        except SyntaxError as exc:
            raise located(exc, str(path), line_offset=_line_of(path, part.start) - 1) from exc
        if progress:
            progress(len(data))

    with Loaders() as loaders:
        for part in parts:
            loaders.submit(load, part)


class Loaders:
    """Bulk-load jobs run on loader_count() threads while the caller prepares the next ones (the loaders release
    the GIL). Leaving the block waits for every job and raises the error of the first one that failed."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(loader_count(), thread_name_prefix="bulk-load")
        self._jobs: list[Future[object]] = []

    def submit(self, job: Callable[..., object], *args: object) -> None:
        self._jobs.append(self._pool.submit(job, *args))

    def __enter__(self) -> "Loaders":
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc_type is not None:
            for job in self._jobs:
                job.cancel()
        self._pool.shutdown(wait=True)
        if exc_type is None:
            for job in self._jobs:
                job.result()
