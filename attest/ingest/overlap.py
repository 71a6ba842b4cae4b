"""Bulk ingest on two cores: a worker process extracts and SHACL-gates coming documents while this one commits."""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pyoxigraph import RdfFormat, serialize

from attest.errors import DocumentRejected, ExtractionError, PayloadTooLarge, UnsupportedFormat
from attest.ingest import worker as stage
from attest.ingest.chunk import Chunk, CleanText
from attest.ingest.load import LoadedDocument, load_path
from attest.ingest.pipeline import DocumentReport, IngestPipeline, Mapped, document_id
from attest.ingest.shacl_gate import GateResult

log = logging.getLogger("attest.ingest")
NQUADS = RdfFormat.N_QUADS
AHEAD_BYTES = 16 << 20  # text of the coming documents held at once, however many `ahead` allows


@dataclass
class _Coming:
    """A loaded document whose chunks the worker is extracting (or the report of a file that was refused)."""

    source: str
    loaded: LoadedDocument | None = None
    load_s: float = 0.0
    chunked: tuple[CleanText, list[Chunk]] | None = None
    texts: list[str] = field(default_factory=list)  # the chunks' distinct texts, in the order sent for extraction
    extraction: stage.WorkerCall | None = None
    extracted: list[tuple[bool, Any]] | None = None  # extracted here instead (the worker was behind)
    refused: DocumentReport | None = None

    @property
    def size(self) -> int:
        return len(self.loaded.text) if self.loaded is not None else 0


@dataclass
class _Gating:
    mapped: Mapped
    call: stage.WorkerCall


def ingest_files(pipeline: IngestPipeline, files: Iterable[tuple[Path, str]], *, ahead: int = 64,
                 worker: stage.StageWorker | None = None) -> Iterator[DocumentReport]:
    """Ingest the files in order, one report each, as `pipeline.ingest_path` one after another would (the same
    graph, the same reports, the same batches). With `ahead` > 0 and a rule extractor, a worker process extracts
    the chunks of up to `ahead` coming documents (and at most AHEAD_BYTES of their text) and gates up to `ahead`
    mapped ones while this process resolves, maps and commits: the two cores work on different documents, and
    memory holds a bounded number of documents in flight whatever the number of files. The lookahead is long so
    that the worker keeps working while this process writes a bulk batch and reasons over it (seconds). `worker`: one started by the caller (`start_worker`), left running; else one is started and closed."""
    own = worker is None and ahead > 0
    if own:
        worker = start_worker(pipeline)
    if worker is None:
        for path, source in files:
            yield pipeline.ingest_path(path, source)
        return
    try:
        yield from _overlapped(pipeline, worker, iter(files), max(1, ahead))
    finally:
        if own:
            worker.close()


def start_worker(pipeline: IngestPipeline) -> stage.StageWorker | None:
    """A worker process with this pipeline's rule extractor (its known labels) and SHACL gate; None (everything
    runs here) for another extractor, or when the worker does not start in time."""
    from attest.extract.rules import RuleExtractor

    extractor = pipeline.extractor
    if not isinstance(extractor, RuleExtractor):  # an LLM extractor waits on the network: nothing to gain
        return None
    settings = pipeline.settings
    worker = stage.StageWorker(settings.shapes_dir, settings.ontology_dir, list(extractor.known.items()), 0,
                               modules_off=settings.ontology_modules_off)
    if worker.call(os.getpid, fallback=lambda: 0) == 0:
        log.warning("the ingest worker did not start: documents are ingested one after another in this process")
        worker.close()
        return None
    return worker


def _overlapped(pipeline: IngestPipeline, worker: stage.StageWorker, files: Iterator[tuple[Path, str]],
                ahead: int) -> Iterator[DocumentReport]:
    coming: deque[_Coming] = deque()
    gating: deque[_Gating] = deque()
    seen: set[str] = set()

    def fill() -> None:
        while len(coming) < ahead and (not coming or sum(c.size for c in coming) < AHEAD_BYTES):
            item = next(files, None)
            if item is None:
                return
            coming.append(_load(pipeline, worker, *item))

    def drain() -> Iterator[DocumentReport]:
        while gating:
            yield _commit(pipeline, gating.popleft())

    fill()
    while coming:
        doc = coming.popleft()
        fill()  # the worker extracts the next documents while this one is resolved and mapped
        if doc.refused is not None:
            yield from drain()  # reports come in the files' order
            yield doc.refused
            continue
        assert doc.loaded is not None
        found = _extracted(pipeline, doc, coming)
        doc_id = document_id(doc.source)
        if doc_id in seen or not all(ok for ok, _ in found):
            # the same document again must see the first one committed; a failed extraction is committed by
            # prepare itself, after the documents before it, as one after another would
            yield from drain()
        seen.add(doc_id)
        step = pipeline.prepare(doc.loaded, load_s=doc.load_s, extracted=_extractions(doc.texts, found),
                                chunked=doc.chunked)
        if isinstance(step, DocumentReport):  # unchanged, or its failed extraction committed
            yield from drain()
            yield step
            continue
        gating.append(_Gating(step, worker.submit(stage._gate_mask, serialize(step.quads, format=NQUADS))))
        while len(gating) > 1 and (len(gating) > ahead or gating[0].call.future.done()):
            yield _commit(pipeline, gating.popleft())
    yield from drain()


def _load(pipeline: IngestPipeline, worker: stage.StageWorker, path: Path, source: str) -> _Coming:
    spent: dict[str, float] = {}
    try:
        with pipeline.clock.measure("load", spent):
            loaded = load_path(path, source=source, max_bytes=pipeline.settings.max_file_bytes)
    except (DocumentRejected, PayloadTooLarge, UnsupportedFormat) as exc:  # refused: nothing stored for it
        return _Coming(source, refused=DocumentReport(source, "rejected", message=exc.message))
    chunked = pipeline.chunk_document(loaded)
    texts = list(dict.fromkeys(c.text for c in chunked[1]))
    return _Coming(source, loaded, spent["load"], chunked, texts,
                   worker.submit(stage._extract, texts) if texts else None)


def _extracted(pipeline: IngestPipeline, doc: _Coming, coming: deque[_Coming]) -> list[tuple[bool, Any]]:
    """The extraction of the document's chunks. While the worker is still on it (it is behind: long documents),
    this process takes the last coming document the worker has not started back and extracts it itself, with the
    same extractor and known labels: both cores extract, and every document is extracted once."""
    if doc.extracted is not None:
        return doc.extracted
    if doc.extraction is None:
        return []
    while not doc.extraction.future.done():
        spare = next((c for c in reversed([doc, *coming]) if c.extraction is not None and c.extracted is None
                      and c.extraction.future.cancel()), None)
        if spare is None:
            break
        with pipeline.clock.measure("extract"):
            spare.extracted = stage._extract(spare.texts, pipeline.extractor)
        if spare is doc:
            return spare.extracted
    with pipeline.clock.measure("extract wait"):
        return doc.extraction.result()


def _extractions(texts: list[str], found: list[tuple[bool, Any]]) -> dict[str, dict | ExtractionError]:
    """By chunk text: the extraction's fields as the worker dumped them (stored as they are), or its error."""
    return {text: value if ok else ExtractionError(value) for text, (ok, value) in zip(texts, found, strict=True)}


def _commit(pipeline: IngestPipeline, gating: _Gating) -> DocumentReport:
    with pipeline.clock.measure("shacl", gating.mapped.report.timings):  # this process waits on the worker
        mask, findings = gating.call.result()
        kept = [q for q, keep in zip(gating.mapped.quads, mask, strict=True) if keep]
    return pipeline.finish(gating.mapped, GateResult(kept, findings))
