"""The ingest pipeline: one document -> report; chunks extracted, validated, resolved, mapped, gated, committed atomically."""

from __future__ import annotations

import hashlib
import json
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from pyoxigraph import Literal, NamedNode, Quad

from attest import metrics
from attest.errors import DocumentRejected, ExtractionError, NotFound, PayloadTooLarge, UnsupportedFormat
from attest.extract.language import reads_as_english
from attest.extract.models import Extraction, Extractor
from attest.extract.ontology_terms import OntologyTerms, load_terms
from attest.extract.validate import ExtractionValidator
from attest.ingest.batch import CommitBatch
from attest.ingest.chunk import Chunk, CleanText, chunk_text, clean, content_hash, mention_span
from attest.ingest.load import LoadedDocument, empty_after_cleaning, load_bytes, load_path
from attest.ingest.rdf_map import ChunkExtraction, DocumentInfo, ExtractionRun, Mention, map_document
from attest.ingest.resolve import EntityIndex, slugify
from attest.ingest.shacl_gate import GateResult, ShaclGate, quarantine_quads
from attest.ingest.stages import StageClock
from attest.ingest.status import ChunkStatus, DocStatus, StatusRegistry, commit, now
from attest.ingest.validity import future_dates
from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import ATT, ONT, Iris, is_valid_id

STAGES = ("load", "chunk", "extract", "validate", "resolve", "map", "shacl", "write")
# what a bulk ingest's batch write costs, once per batch (StageClock names; bench/ingest_profile.py reports them)
BATCH_STAGES = ("batch.summary", "batch.validity", "batch.bulk_load", "batch.fulltext", "reasoner")
STORED_REPORT = ("chunks", "entities", "relations", "attributes", "triples", "quarantined", "rejected_items", "warnings", "extractor")


def document_id(source: str) -> str:
    """Stable id of a document from the name it is ingested under: readable slug + hash of the full name."""
    stem = Path(source).stem or "document"
    return f"{slugify(stem)[:48]}-{hashlib.sha256(source.encode('utf-8')).hexdigest()[:10]}"


@dataclass
class DocumentReport:
    """What happened to one document: the line the CLI prints and the body the API returns."""

    source: str
    outcome: str  # new | changed | unchanged | failed | rejected
    doc_id: str | None = None
    status: str | None = None  # the registry state: done | failed (None when rejected: nothing stored)
    message: str = ""
    chunks: int = 0
    entities: int = 0
    relations: int = 0
    attributes: int = 0  # literal facts about an entity (ont:birthDate "12 March 1955")
    triples: int = 0
    quarantined: list[dict] = field(default_factory=list)
    rejected_items: list[dict] = field(default_factory=list)
    failed_chunks: list[dict] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # stored all the same (a fact dated in the future)
    extractor: str = ""
    timings: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


@dataclass
class Mapped:
    """A document up to the SHACL gate: its mapped quads and what committing them needs (IngestPipeline.prepare)."""

    status: DocStatus
    report: DocumentReport
    quads: list[Quad]
    fresh: bool
    extra_quads: Sequence[Quad] = ()

    @property
    def doc_id(self) -> str:
        return self.status.id


class IngestPipeline:
    """Owns the engines of one ingest session (terms, validator, SHACL gate, entity index, extractor)."""

    def __init__(self, store: GraphStore, settings: Settings, extractor: Extractor | None, *,
                 terms: OntologyTerms | None = None, gate: ShaclGate | None = None, reasoner=None) -> None:
        self.store = store
        self.settings = settings
        self.iris = Iris(settings.base_iri)
        self.extractor = extractor  # None: rebuild-only (unmerge), every chunk must have a stored extraction
        self.terms = terms or load_terms(settings.ontology_dir, settings.ontology_modules_off)
        self.validator = ExtractionValidator(self.terms)
        self.gate = gate or ShaclGate.from_dirs(settings.shapes_dir, settings.ontology_dir, settings.ontology_modules_off)
        self.registry = StatusRegistry(store, self.iris)
        self.reasoner = reasoner
        self._index: EntityIndex | None = None
        self._batch: CommitBatch | None = None
        self._flusher: ThreadPoolExecutor | None = None  # writes full batches while the next documents go on
        self._flushing: tuple[CommitBatch, Future] | None = None  # the batch being written there
        self._on_commit: Callable[[int], None] | None = None
        self._lock = threading.RLock()  # one document is committed at a time (read-modify-write of shared graphs)
        self.clock = StageClock()  # wall and CPU per stage over the pipeline's life (profiles, bench/)

    @property
    def index(self) -> EntityIndex:
        if self._index is None:
            self._index = EntityIndex.from_store(self.store, self.iris, self.terms)
        return self._index

    # entry points --------------------------------------------------------------------

    @contextmanager
    def batched(self, max_quads: int, on_commit: Callable[[int], None] | None = None, *,
                background: bool = False) -> Iterator[None]:
        """Inside the block, new documents are committed together by the bulk loader every `max_quads` quads
        and at the end (for `attest ingest` of many files): a crash loses the pending batch whole, never half.
        `on_commit` hears how many documents each batch made permanent; max_quads 0 turns batching off.
        `background`: a full batch is written (and reasoned over) in a thread while the next documents are prepared
        and committed into the next batch; batches are still written one at a time, in order, each all or nothing,
        and anything that reads what a batch writes (the same document again, a commit outside the batch, the
        block's end) waits for it first. A failed write surfaces at the next commit or at the block's end."""
        if max_quads <= 0:
            yield
            return
        with self._lock:
            self._batch = CommitBatch(self.store, self.iris, max_quads, self.clock)
            self._on_commit = on_commit
            if background:
                self._flusher = ThreadPoolExecutor(1, thread_name_prefix="ingest-batch")
            try:
                yield
            finally:
                try:
                    self._settle()
                finally:
                    if self._flusher is not None:
                        self._flusher.shutdown(wait=True)
                    self._batch = self._on_commit = self._flusher = self._flushing = None

    def ingest_path(self, path: Path, source: str | None = None) -> DocumentReport:
        source = source or path.name
        spent: dict[str, float] = {}
        try:
            with self.clock.measure("load", spent):
                loaded = load_path(path, source=source, max_bytes=self.settings.max_file_bytes)
            return self.ingest(loaded, load_s=spent["load"])
        except (DocumentRejected, PayloadTooLarge, UnsupportedFormat) as exc:  # refused: nothing stored for it
            return DocumentReport(source, "rejected", message=exc.message)

    def ingest_bytes(self, data: bytes, *, source: str, media_type: str | None = None,
                     extra_quads: Sequence[Quad] = (), replace_other_extraction: bool = False) -> DocumentReport:
        """Load and ingest; bad input raises (the API turns it into a 4xx), nothing is stored."""
        start = time.perf_counter()
        loaded = load_bytes(data, source=source, media_type=media_type, max_bytes=self.settings.max_file_bytes)
        return self.ingest(loaded, load_s=time.perf_counter() - start, extra_quads=extra_quads,
                           replace_other_extraction=replace_other_extraction)

    def ingest(self, doc: LoadedDocument, *, load_s: float = 0.0, extra_quads: Sequence[Quad] = (),
               replace_other_extraction: bool = False) -> DocumentReport:
        """`extra_quads`: the caller's own records about the document (the chat proxy's episode), written into its
        graph in the same transaction, after the SHACL gate; a rebuild from stored chunks does not keep them.
        `replace_other_extraction`: the same text stored from another extractor is not 'unchanged' but extracted
        again by this pipeline's extractor (the chat proxy's LLM enrichment of a turn first stored by the rules)."""
        with self._lock:
            step = self.prepare(doc, load_s=load_s, extra_quads=extra_quads,
                                replace_other_extraction=replace_other_extraction)
            return step if isinstance(step, DocumentReport) else self.finish(step, self.gate_quads(step))

    def prepare(self, doc: LoadedDocument, *, load_s: float = 0.0, extra_quads: Sequence[Quad] = (),
                replace_other_extraction: bool = False,
                extracted: Mapping[str, Extraction | dict | ExtractionError] | None = None,
                chunked: tuple[CleanText, list[Chunk]] | None = None) -> DocumentReport | Mapped:
        """A document up to the SHACL gate (chunked, extracted, validated, resolved, mapped), or its final report
        when nothing is left to do (unchanged) or its extraction failed (that failure is committed).
        `extracted`: extractions of chunk texts made ahead of time by the same extractor (a worker process, while
        earlier documents were committed; as objects or as the fields they dump to); a chunk whose text is not in
        it is extracted now. `chunked`: the
        document's text cleaned and chunked already (`chunk_document`)."""
        doc_id = document_id(doc.source)
        chash = content_hash(doc.text)
        timings = dict.fromkeys(STAGES, 0.0)
        timings["load"] = load_s
        with self._lock:
            # the same document twice: the second run must see the first in the store
            if self._batch is not None and doc_id in self._batch:
                self._settle()
            elif self._flushing is not None and doc_id in self._flushing[0]:
                self._await_batch()  # its batch is being written: wait for that write, not for the next batch
            prior = self.registry.get(doc_id)
            if prior is not None and prior.state == "done" and prior.content_hash == chash and \
                    not (replace_other_extraction and prior.extractor != self.extractor_name):
                return DocumentReport(doc.source, "unchanged", doc_id, "done", chunks=len(prior.chunks),
                                      extractor=prior.extractor, timings=timings)
            cleaned, chunks = chunked or self.chunk_document(doc, timings)
            if not chunks:  # loading refuses such text; a LoadedDocument made elsewhere may still hold it
                raise empty_after_cleaning(doc.source)
            cached = {c.id: c for c in prior.chunks} if prior else {}
            status = DocStatus(doc_id, doc.source, doc.media_type, chash, len(doc.text), extractor=self.extractor_name,
                               chunks=[self._pending(ch, cached.get(ch.id)) for ch in chunks])
            has_graph = self.store.has_graph(self.iris.document_graph(doc_id))
            outcome = "changed" if prior is not None and has_graph else "new"
            step = self._map(status, outcome, timings, cleaned=cleaned, chunks=chunks,
                             fresh=prior is None and not has_graph, extra_quads=extra_quads, extracted=extracted)
            if isinstance(step, DocumentReport):
                metrics.ingests.labels(step.outcome).inc()
            return step

    def chunk_document(self, doc: LoadedDocument, timings: dict[str, float] | None = None) -> tuple[CleanText, list[Chunk]]:
        """The document's text cleaned, and its chunks."""
        with self.clock.measure("chunk", timings):
            cleaned = clean(doc.text, markdown=doc.media_type == "text/markdown")
            return cleaned, chunk_text(document_id(doc.source), cleaned)

    def gate_quads(self, mapped: Mapped) -> GateResult:
        """The SHACL gate over a prepared document's quads (the pipeline's gate: here or in its worker)."""
        with self.clock.measure("shacl", mapped.report.timings):
            return self.gate.gate(mapped.quads)

    def finish(self, mapped: Mapped, gated: GateResult) -> DocumentReport:
        """Commit a prepared document with its gate's result: the report of what was stored."""
        with self._lock:
            report = self._store_gated(mapped, gated)
            metrics.ingests.labels(report.outcome).inc()
            return report

    def retry_failed(self) -> list[DocumentReport]:
        """Re-extract the failed chunks of every failed document (done chunks reuse their stored extraction)."""
        self._settle()
        reports = []
        for summary in self.registry.list():
            if summary["status"] in ("failed", "pending"):
                reports.append(self.rebuild(summary["id"], outcome="retried"))
        return reports

    def rebuild(self, doc_id: str, *, outcome: str = "rebuilt") -> DocumentReport:
        """Run a stored document through the pipeline again from its stored chunks (retry, unmerge)."""
        with self._lock:
            self._settle()
            status = self.registry.get(doc_id)
            if status is None:
                raise NotFound(f"no document with id '{doc_id}'", id=doc_id)
            status.state, status.message = "pending", ""
            step = self._map(status, outcome, dict.fromkeys(STAGES, 0.0))
            return step if isinstance(step, DocumentReport) else self._store_gated(step, self.gate_quads(step))

    def delete(self, doc_id: str) -> bool:
        """Drop the document's graph, its status and its quarantined items in one transaction."""
        if not is_valid_id(doc_id):
            raise NotFound(f"no document with id '{doc_id}'", id=doc_id)
        with self._lock:
            self._settle()
            graphs = [self.iris.document_graph(doc_id), self.iris.status_graph(doc_id)]
            if not any(self.store.has_graph(g) for g in graphs):
                return False
            self._reasoner_ready()
            facts = commit(self.store, self.iris, doc_id, document=[], status=[], quarantine=[], fresh=False)
            self._index = None  # entities only this document named are gone
            self._reason(graphs[0], facts)
            return True

    @contextmanager
    def extracting_with(self, extractor: Extractor) -> Iterator[None]:
        """Run this pipeline's ingests with another extractor until the block ends (no other ingest meanwhile)."""
        with self._lock:
            saved, self.extractor = self.extractor, extractor
            try:
                yield
            finally:
                self.extractor = saved

    # the pipeline proper -----------------------------------------------------------------

    @property
    def extractor_name(self) -> str:
        return self.extractor.name if self.extractor is not None else ""

    def _pending(self, chunk: Chunk, prior: ChunkStatus | None) -> ChunkStatus:
        cache, extractor = None, ""
        if prior is not None and prior.cache is not None and prior.extractor == self.extractor_name:
            # the same text may sit elsewhere in a changed document: spans are recomputed, not reused
            cache, extractor = json.dumps({**json.loads(prior.cache), "spans": {}}), prior.extractor
        return ChunkStatus(chunk.id, chunk.index, chunk.start, chunk.end, chunk.text,
                           extractor=extractor, cache=cache)

    def _map(self, status: DocStatus, outcome: str, timings: dict[str, float], *, fresh: bool = False,
             cleaned: CleanText | None = None, chunks: list[Chunk] | None = None, extra_quads: Sequence[Quad] = (),
             extracted: Mapping[str, Extraction | dict | ExtractionError] | None = None) -> DocumentReport | Mapped:
        started = now()
        report = DocumentReport(status.source, outcome, status.id, timings=timings, chunks=len(status.chunks))
        # extract: chunks without a stored extraction go to the extractor (unless extracted ahead)
        with self.clock.measure("extract", timings):
            todo = [c for c in status.chunks if c.cache is None]
            ahead = extracted or {}
            missing = [c.text for c in todo if c.text not in ahead]
            now_extracted = dict(zip(missing, self._extract(missing)))
            fresh_caches: dict[str, dict] = {}  # chunk id -> its new cache, dumped once it holds its spans (_resolve)
            for c in todo:
                result = ahead[c.text] if c.text in ahead else now_extracted[c.text]
                if isinstance(result, ExtractionError):
                    metrics.extraction_failures.labels(self.extractor_name or "none").inc()
                    c.state, c.message, c.cache = "failed", result.message, None
                    report.failed_chunks.append({"chunk": c.id, "index": c.index, "message": result.message})
                else:
                    c.state, c.message, c.extractor = "done", "", self.extractor_name
                    raw = result if isinstance(result, dict) else result.model_dump(mode="json")
                    fresh_caches[c.id] = {"raw": raw, "spans": {}}
                    c.cache = ""  # not None: extracted (the text is written by _resolve, or below on failure)
        status.extractor = report.extractor = "+".join(sorted({c.extractor for c in status.chunks if c.extractor})) \
            or self.extractor_name
        if report.failed_chunks:
            for c in status.chunks:
                if c.id in fresh_caches:
                    c.cache = json.dumps(fresh_caches[c.id])
            status.state = "failed"
            status.message = f"extraction failed for {len(report.failed_chunks)} of {len(status.chunks)} chunks: " \
                             f"{report.failed_chunks[0]['message']}"
            status.report = {"failed_chunks": report.failed_chunks}
            status.updated = now().isoformat()
            with self.clock.measure("write", timings):
                self._commit(status.id, document=None, status=self.registry.quads(status), quarantine=[], fresh=fresh)
            report.outcome, report.status, report.message = "failed", "failed", status.message
            return report

        # validate + resolve
        with self.clock.measure("validate", timings):
            validated = []
            for c in status.chunks:
                assert c.cache is not None  # every chunk holds its extraction once none failed
                # a chunk extracted now: its fields as they are (what a JSON round trip gives back: JSON-mode dumps)
                cache = fresh_caches[c.id] if c.id in fresh_caches else json.loads(c.cache)
                checked = self.validator.validate(Extraction.model_validate(cache["raw"]))
                report.rejected_items.extend({"chunk": c.id, **r.to_dict()} for r in checked.rejected)
                validated.append((c, cache, checked.accepted))
        with self.clock.measure("resolve", timings):
            extractions = self._resolve(status, validated, cleaned, chunks)

        # map to RDF with provenance
        with self.clock.measure("map", timings):
            info = DocumentInfo(status.id, status.source, status.media_type, status.content_hash, status.length)
            model = report.extractor.split("llm:", 1)[1].split("+")[0] if "llm:" in report.extractor else None
            run = ExtractionRun(report.extractor, model, started, now())
            quads = map_document(self.iris, info, run, extractions)
        return Mapped(status, report, quads, fresh, extra_quads)

    def _resolve(self, status: DocStatus, validated: list, cleaned: CleanText | None,
                 chunks: list[Chunk] | None) -> list[ChunkExtraction]:
        chunk_nodes = {c.id: Chunk(c.id, c.index, c.text, c.start, c.end, content_hash(c.text), 0) for c in status.chunks}
        clean_starts = {ch.id: ch.clean_start for ch in chunks} if chunks else {}
        extractions = []
        for c, cache, accepted in validated:
            ce = ChunkExtraction(chunk_nodes[c.id], relations=list(accepted.relations), attributes=list(accepted.attributes))
            spans = cache.get("spans") or {}
            for entity in accepted.entities:
                if entity.name in spans:
                    span = tuple(spans[entity.name]) if spans[entity.name] else None
                elif cleaned is not None:
                    chunk = Chunk(c.id, c.index, c.text, c.start, c.end, "", clean_starts[c.id])
                    span = mention_span(chunk, cleaned, entity.name, entity.start, entity.end)
                    spans[entity.name] = list(span) if span else None
                else:
                    span = None
                ce.mentions[entity.name] = Mention(entity, self.index.resolve(entity.name, entity.type), span)
            for i, rel in enumerate(ce.relations):  # the sentence that states it, in the original text
                key = f"relation:{rel.subject}|{rel.predicate}|{rel.object}"
                if key not in spans and cleaned is not None and rel.start is not None and rel.end is not None \
                        and 0 <= rel.start < rel.end <= len(c.text):
                    spans[key] = list(cleaned.span_to_original(clean_starts[c.id] + rel.start, clean_starts[c.id] + rel.end))
                if spans.get(key):
                    ce.sentences[i] = tuple(spans[key])
            for i, attribute in enumerate(ce.attributes):  # the same for literal attributes
                key = f"attribute:{attribute.subject}|{attribute.predicate}|{attribute.value}"
                if key not in spans and cleaned is not None and attribute.start is not None and attribute.end is not None \
                        and 0 <= attribute.start < attribute.end <= len(c.text):
                    spans[key] = list(cleaned.span_to_original(clean_starts[c.id] + attribute.start,
                                                               clean_starts[c.id] + attribute.end))
                if spans.get(key):
                    ce.attribute_sentences[i] = tuple(spans[key])
            cache["spans"] = spans
            c.cache = json.dumps(cache)
            extractions.append(ce)
        return extractions

    def _store_gated(self, mapped: Mapped, gated: GateResult) -> DocumentReport:
        status, report, timings = mapped.status, mapped.report, mapped.report.timings
        doc_iri = self.iris.document(status.id)
        quarantine = quarantine_quads(self.iris.base, status.id, doc_iri, gated.findings, self.iris.quarantine_graph) \
            if gated.findings else []
        report.quarantined = [f.to_dict() for f in gated.quarantined]
        hit_chunks = _chunks_of(gated.quarantined, self.iris)
        for c in status.chunks:
            c.state = "quarantined" if c.id in hit_chunks else "done"

        # commit: document graph + status + quarantine in one transaction
        with self.clock.measure("write", timings):
            report.triples = len(gated.kept)
            report.entities, report.relations, report.attributes = _entity_counts(gated.kept, self.iris.entity_prefix)
            status.state, status.message, status.updated = "done", "", now().isoformat()
            if report.extractor.startswith("rules") and not reads_as_english(" ".join(c.text for c in status.chunks)):
                report.message = status.message = (f"the offline extractor found little: the text does not read as English "
                                                   f"({report.entities} entities, {report.relations} relations)")
            report.warnings = future_dates([*gated.kept, *mapped.extra_quads])
            status.report = {k: getattr(report, k) for k in STORED_REPORT}
            self._commit(status.id, document=[*gated.kept, *mapped.extra_quads], status=self.registry.quads(status, gated.kept),
                         quarantine=quarantine, fresh=mapped.fresh)
        report.status = "done"
        return report

    def _commit(self, doc_id: str, *, document: list | None, status: list, quarantine: list, fresh: bool) -> None:
        if self._batch is not None and fresh:
            self._batch.add(doc_id, document=document or [], status=status, quarantine=quarantine)
            if self._batch.full:
                self._settle(background=True)
            return
        self._await_batch()  # a commit of its own reads the shared graphs the batch writes
        if document is not None:
            self._reasoner_ready()
        facts = commit(self.store, self.iris, doc_id, document=document, status=status, quarantine=quarantine,
                       fresh=fresh)
        if document is not None:
            with self.clock.measure("reasoner"):
                self._reason(self.iris.document_graph(doc_id), facts)

    def _settle(self, *, background: bool = False) -> None:
        """Write the pending batch, if any, and reason over what it added (after the batch being written, if any);
        `background` (inside `batched(background=True)`): in the batch thread, returning at once."""
        self._await_batch()
        if self._batch is None or not self._batch.pending:
            return
        self._reasoner_ready()
        if background and self._flusher is not None:
            batch = self._batch.detach()
            self._flushing = (batch, self._flusher.submit(self._write_batch, batch))
            return
        self._write_batch(self._batch)

    def _await_batch(self) -> None:
        """Wait for the batch being written in the batch thread; its error, if any, is raised here (once)."""
        if self._flushing is not None:
            _, future = self._flushing
            self._flushing = None
            with self.clock.measure("batch wait"):
                future.result()

    def _write_batch(self, batch: CommitBatch) -> None:
        graphs = batch.flush()
        if graphs and self._on_commit is not None:
            self._on_commit(len(graphs))
        if graphs and self.reasoner is not None:
            with self.clock.measure("reasoner"):
                self.reasoner.refresh(graphs)
        batch.settled()  # the batch thread is the one writer until here (other writes wait for it: _await_batch)

    def _extract(self, texts: list[str]) -> list[Extraction | ExtractionError]:
        if not texts:
            return []
        if self.extractor is None:
            return [ExtractionError("no extractor in this session and no stored extraction for the chunk")] * len(texts)
        many = getattr(self.extractor, "extract_many", None)
        if many is not None:
            return many(texts)
        out: list[Extraction | ExtractionError] = []
        for text in texts:
            try:
                out.append(self.extractor.extract(text))
            except ExtractionError as exc:
                out.append(exc)
        return out

    # reasoning ---------------------------------------------------------------------------

    def _reasoner_ready(self) -> None:
        """Bring a new reasoner's closure up over the store as it is, just before a write it will reason about:
        then it derives only that write's consequences (and keeps stored records whose stamp is current)."""
        if self.reasoner is not None and self.reasoner.engine is None:
            self.reasoner.materialize()

    def _reason(self, graph: str, facts: set | None) -> None:
        """Bring the closure up to date after a document graph was written or dropped; `facts`, when known, are
        the summary triples the write may have changed (the reasoner then checks those, not the whole summary)."""
        if self.reasoner is not None:
            self.reasoner.refresh([graph], facts=facts)


def _entity_counts(quads: list[Quad], prefix: str) -> tuple[int, int, int]:
    """How many minted entities the quads give a confidence, how many ontology facts link two minted entities, and how
    many give one a literal value (its attributes: ont:birthDate "12 March 1955"; not its ont:description) (each quad's
    terms read once: pyoxigraph builds a new object on every accessor)."""
    entities: set[str] = set()
    relations = attributes = 0
    confidence = ATT + "confidence"
    description = ONT + "description"
    for q in quads:
        s = q.subject
        if not isinstance(s, NamedNode) or not s.value.startswith(prefix):
            continue
        p = q.predicate.value
        if p == confidence:
            entities.add(s.value)
        if p.startswith(ONT):
            o = q.object
            if isinstance(o, NamedNode) and o.value.startswith(prefix):
                relations += 1
            elif isinstance(o, Literal) and p != description:
                attributes += 1
    return len(entities), relations, attributes


def _chunks_of(findings, iris: Iris) -> set[str]:
    """Ids of the chunks a quarantined item came from (its mentions and statements name them)."""
    prefix = iris.chunk("")
    out = set()
    for f in findings:
        for t in f.removed:
            for term in (t.subject, t.object):
                if isinstance(term, NamedNode) and term.value.startswith(prefix):
                    out.add(term.value[len(prefix):].split("/", 1)[0])
    return out
