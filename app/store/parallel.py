"""Parallel bulk loads: line-based RDF cut at line ends, each part by its own Oxigraph bulk loader thread.

One Oxigraph bulk loader keeps about one core busy; several loaders into the same store run side by side
(each writes its own sorted files and RocksDB ingests them atomically). Only N-Triples and N-Quads can be cut
at any line end, and only without blank nodes: a blank node label means the same node only within one parse.
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pyoxigraph import DefaultGraph, NamedNode, RdfFormat, Store

from app.store.base import Progress
from app.store.rdfio import located

LINE_FORMATS = (RdfFormat.N_TRIPLES, RdfFormat.N_QUADS)
MIN_PART_BYTES = 4 << 20  # smaller inputs load as fast in one part
MAX_PART_BYTES = 64 << 20  # a part is read into memory before it is loaded
_SCAN_BLOCK = 16 << 20


def loader_count() -> int:
    return max(1, min(os.cpu_count() or 1, 8))


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

    def loader(part: Part) -> Callable[[], None]:
        def run() -> None:
            with path.open("rb") as f:
                f.seek(part.start)
                data = f.read(part.end - part.start)
            store.bulk_load(data, fmt, to_graph=to_graph)
            if progress:
                progress(len(data))
        return run

    errors = _run_all([loader(p) for p in parts])
    if errors:
        index, exc = errors[0]
        if isinstance(exc, SyntaxError):
            raise located(exc, str(path), line_offset=_line_of(path, parts[index].start) - 1) from exc
        raise exc


def run_loads(jobs: list[Callable[[], None]]) -> None:
    """Run bulk-load jobs side by side; the first job's error, if any, is raised here."""
    errors = _run_all(jobs)
    if errors:
        raise errors[0][1]


def _run_all(jobs: list[Callable[[], None]]) -> list[tuple[int, BaseException]]:
    """Run the jobs on loader_count() threads (the loaders release the GIL); the errors, first job first."""
    errors: list[tuple[int, BaseException]] = []
    todo = list(enumerate(jobs))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not todo or errors:
                    return
                i, job = todo.pop(0)
            try:
                job()
            except BaseException as exc:  # handed to the calling thread
                with lock:
                    errors.append((i, exc))

    threads = [threading.Thread(target=worker, name=f"bulk-load-{n}") for n in range(min(loader_count(), len(jobs)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(errors, key=lambda e: e[0])
