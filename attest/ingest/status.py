"""Per-document and per-chunk status (pending, done, failed, quarantined), kept in the store in one graph per document."""

from __future__ import annotations

import base64
import json
import logging
import uuid
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import datetime, timezone
from collections.abc import Iterable, Sequence
from typing import Any, ContextManager, cast

from pyoxigraph import Literal, NamedNode, Quad, QuerySolutions

from attest.ingest import summary, validity
from attest.ingest.rdf_map import A, DATETIME, att, integer
from attest.store import GraphStore, fulltext, fulltext_step
from attest.vocab import ATT, Iris

DOC_STATES = ("pending", "done", "failed")
# att:extraction's datatype: the JSON, zlib-deflated, in base64 (a third of its size); a plain string is read too
DEFLATED_JSON = NamedNode(ATT + "deflatedJSON")
CHUNK_STATES = ("pending", "done", "failed", "quarantined")

DOCUMENT_LIST = f"""
PREFIX att: <{ATT}>
SELECT ?d ?source ?status ?hash ?updated ?message ?media WHERE {{
  GRAPH ?g {{
    ?d a att:DocumentStatus ; att:source ?source ; att:status ?status ; att:contentHash ?hash ;
       att:updated ?updated ; att:mediaType ?media .
    OPTIONAL {{ ?d att:statusMessage ?message }}
  }}
}} ORDER BY ?source ?d %s
"""
CHUNK_COUNTS = f"""
PREFIX att: <{ATT}>
SELECT ?d ?status (COUNT(?c) AS ?n) WHERE {{
  VALUES ?d {{ %s }}
  GRAPH ?g {{ ?c att:chunkOf ?d ; att:status ?status }}
}} GROUP BY ?d ?status
"""
# the documents a listing gives (DOCUMENT_LIST) whose status is done, in no order and without chunk counts
DONE_DOCUMENTS = f"""
PREFIX att: <{ATT}>
SELECT ?d ?hash WHERE {{
  GRAPH ?g {{
    ?d a att:DocumentStatus ; att:source ?source ; att:status "done" ; att:contentHash ?hash ;
       att:updated ?updated ; att:mediaType ?media .
  }}
}}
"""
STATUS_COUNTS = f"""
PREFIX att: <{ATT}>
SELECT ?status (COUNT(?d) AS ?n) WHERE {{ GRAPH ?g {{ ?d a att:DocumentStatus ; att:status ?status }} }} GROUP BY ?status
"""


CHUNK_FIELDS = {att(name).value: i for i, name in enumerate(("index", "charStart", "charEnd", "text"))}


def _chunks_stated(quads: Iterable[Quad]) -> dict[str, tuple[str, str, str, str]]:
    """Chunk IRI -> (index, start, end, text) for each chunk node the quads describe with all four."""
    fields: dict[str, list[str | None]] = {}
    for q in quads:
        i = CHUNK_FIELDS.get(q.predicate.value)
        if i is not None and isinstance(q.object, Literal):
            fields.setdefault(cast(NamedNode, q.subject).value, [None] * 4)[i] = q.object.value
    return {s: (f[0], f[1], f[2], f[3]) for s, f in fields.items()
            if f[0] is not None and f[1] is not None and f[2] is not None and f[3] is not None}


def deflated(text: str) -> Literal:
    return Literal(base64.b64encode(zlib.compress(text.encode(), 9)).decode("ascii"), datatype=DEFLATED_JSON)


def inflated(value: Literal) -> str:
    return zlib.decompress(base64.b64decode(value.value)).decode()


def now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class ChunkStatus:
    """One chunk's extraction state; `cache` keeps its raw extraction so retries and rebuilds skip the extractor."""

    id: str
    index: int
    start: int
    end: int
    text: str
    state: str = "pending"
    message: str = ""
    extractor: str = ""
    cache: str | None = None  # JSON: {"raw": Extraction, "spans": {name: [start, end]}}


@dataclass
class DocStatus:
    """One document's state, its chunks and its last report (the JSON a client sees)."""

    id: str
    source: str
    media_type: str
    content_hash: str
    length: int
    state: str = "pending"
    message: str = ""
    extractor: str = ""
    updated: str = ""
    report: dict = field(default_factory=dict)
    chunks: list[ChunkStatus] = field(default_factory=list)

    def summary(self) -> dict[str, object]:
        counts: dict[str, int] = {}
        for c in self.chunks:
            counts[c.state] = counts.get(c.state, 0) + 1
        return {"id": self.id, "source": self.source, "status": self.state, "message": self.message,
                "content_hash": self.content_hash, "media_type": self.media_type, "updated": self.updated,
                "extractor": self.extractor, "chunks": counts}

    def detail(self) -> dict[str, object]:
        chunks = [{"id": c.id, "index": c.index, "start": c.start, "end": c.end, "status": c.state,
                   **({"message": c.message} if c.message else {})} for c in self.chunks]
        return {**self.summary(), "report": self.report, "chunk_status": chunks}


class StatusRegistry:
    """Reads and builds status graphs; writes go through the pipeline's atomic commit."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store = store
        self.iris = iris

    def quads(self, status: DocStatus, document: Sequence[Quad] | None = None) -> list[Quad]:
        """The status graph; `document`, the document graph written in the same commit: a chunk whose index, offsets
        and text it states (`att:index`, `att:charStart`, `att:charEnd`, `att:text`) is not described twice."""
        g = NamedNode(self.iris.status_graph(status.id))
        d = NamedNode(self.iris.document(status.id))
        status.updated = status.updated or now().isoformat()
        out = [
            Quad(d, A, att("DocumentStatus"), g),
            Quad(d, att("source"), Literal(status.source), g),
            Quad(d, att("mediaType"), Literal(status.media_type), g),
            Quad(d, att("contentHash"), Literal(status.content_hash), g),
            Quad(d, att("charLength"), integer(status.length), g),
            Quad(d, att("status"), Literal(status.state), g),
            Quad(d, att("updated"), Literal(status.updated, datatype=DATETIME), g),
            Quad(d, att("report"), Literal(json.dumps(status.report, sort_keys=True)), g),
        ]
        if status.message:
            out.append(Quad(d, att("statusMessage"), Literal(status.message), g))
        if status.extractor:
            out.append(Quad(d, att("extractor"), Literal(status.extractor), g))
        stated = _chunks_stated(document or ())
        for c in status.chunks:
            n = NamedNode(self.iris.chunk(c.id))
            out += [Quad(n, A, att("ChunkStatus"), g), Quad(n, att("chunkOf"), d, g), Quad(n, att("status"), Literal(c.state), g)]
            if stated.get(n.value) != (str(c.index), str(c.start), str(c.end), c.text):
                out += [Quad(n, att("chunkIndex"), integer(c.index), g), Quad(n, att("chunkStart"), integer(c.start), g),
                        Quad(n, att("chunkEnd"), integer(c.end), g), Quad(n, att("chunkText"), Literal(c.text), g)]
            if c.message:
                out.append(Quad(n, att("statusMessage"), Literal(c.message), g))
            if c.extractor and (c.extractor != status.extractor or c.cache is None):
                out.append(Quad(n, att("extractor"), Literal(c.extractor), g))
            if c.cache is not None:
                out.append(Quad(n, att("extraction"), deflated(c.cache), g))
        return out

    def get(self, doc_id: str) -> DocStatus | None:
        graph = self.iris.status_graph(doc_id)
        doc_iri = self.iris.document(doc_id)
        props: dict[str, dict[str, str]] = {}
        for q in self.store.quads(graph):  # IRIs and literals only: the registry writes no triple terms
            subject, value = cast(NamedNode, q.subject).value, cast(NamedNode | Literal, q.object)
            text = inflated(value) if isinstance(value, Literal) and value.datatype == DEFLATED_JSON else value.value
            props.setdefault(subject, {})[q.predicate.value[len(ATT):] if q.predicate.value.startswith(ATT) else q.predicate.value] = text
        d = props.pop(doc_iri, None)
        if d is None:
            return None
        status = DocStatus(doc_id, d["source"], d["mediaType"], d["contentHash"], int(d.get("charLength", 0)),
                           d["status"], d.get("statusMessage", ""), d.get("extractor", ""), d.get("updated", ""),
                           json.loads(d.get("report", "{}")))
        prefix = self.iris.chunk("")
        stated = self._document_chunks(doc_id) if any("chunkText" not in c for c in props.values()) else {}
        for iri, c in props.items():
            if "chunkText" not in c:  # described by the document graph (see quads); gone only if edited by hand
                c.update(zip(("chunkIndex", "chunkStart", "chunkEnd", "chunkText"), stated.get(iri, ("0", "0", "0", ""))))
            extractor = c.get("extractor", status.extractor if "extraction" in c else "")
            status.chunks.append(ChunkStatus(iri[len(prefix):], int(c["chunkIndex"]), int(c["chunkStart"]),
                                             int(c["chunkEnd"]), c["chunkText"], c["status"],
                                             c.get("statusMessage", ""), extractor, c.get("extraction")))
        status.chunks.sort(key=lambda c: c.index)
        return status

    def _document_chunks(self, doc_id: str) -> dict[str, tuple[str, str, str, str]]:
        """Chunk IRI -> (index, start, end, text) as the document graph states them."""
        return _chunks_stated(self.store.quads(self.iris.document_graph(doc_id)))

    def list(self, limit: int | None = None, offset: int = 0) -> list[dict[str, Any]]:
        """A page of the documents' summaries, sorted by source (all of them without a limit)."""
        prefix = self.iris.document("")
        out: list[dict[str, Any]] = []  # text values, and "chunks": {status: count}
        # no LIMIT at all rather than a huge one: Virtuoso refuses a LIMIT past its integer range (SQ074)
        page = (f"LIMIT {int(limit)} " if limit is not None else "") + f"OFFSET {int(offset)}"
        for row in cast(QuerySolutions, self.store.query(DOCUMENT_LIST % page)):
            iri = row["d"].value
            out.append({"id": iri[len(prefix):], "source": row["source"].value, "status": row["status"].value,
                        "message": row["message"].value if row["message"] else "", "content_hash": row["hash"].value,
                        "media_type": row["media"].value, "updated": row["updated"].value, "chunks": {}})
        if out:
            by_iri = {prefix + d["id"]: d for d in out}
            for row in cast(QuerySolutions, self.store.query(CHUNK_COUNTS % " ".join(str(NamedNode(i)) for i in by_iri))):
                by_iri[row["d"].value]["chunks"][row["status"].value] = int(row["n"].value)
        return out

    def counts(self) -> dict[str, int]:
        """How many documents are in each status (pending, done, failed)."""
        return {row["status"].value: int(row["n"].value) for row in cast(QuerySolutions, self.store.query(STATUS_COUNTS))}


QUARANTINE_OF_DOCUMENT = """DELETE {{ GRAPH {q} {{ ?s ?p ?o }} }}
WHERE {{ GRAPH {q} {{ ?s <{att}fromDocument> {doc} . ?s ?p ?o }} }}"""


def commit(store: GraphStore, iris: Iris, doc_id: str, *, document: list[Quad] | None, status: list[Quad],
           quarantine: list[Quad], fresh: bool) -> set | None:
    """Write a document's graph, its status graph, its quarantine records and the fact summary's change in ONE
    transaction. Returns the summary triples the write may have added or removed, where that can be told (an
    embedded store, a summary that was current before, no blank nodes), else None.

    `document` None keeps the document graph (and its quarantine records) as they are: a failed extraction
    only updates the status. A fresh document (nothing stored yet) is one `add`; otherwise every new graph
    is staged and a single SPARQL update swaps them all in (MOVE), so a crash at any point leaves either the
    old state or the new one -- staging graphs are discarded when the store is opened.
    """
    rebuilt = summary.ensure(store, iris)  # after a write from outside ingestion, before this one changes it further
    scope: ContextManager[None] = nullcontext()
    changed = None
    # the valid time of the facts this document states or stated, recomputed with the write
    timed = validity.change(store, iris, {iris.document_graph(doc_id): document}) if document is not None else None
    if store.journals_changes:  # answers keep what they remember about everything else
        changed = summary.changed_facts(store, iris, iris.document_graph(doc_id), document)
        if changed is not None and timed is not None:
            changed = (changed[0] | timed.triples, changed[1] | timed.triples)
        if changed is not None:
            scope = store.writing_facts_about(summary.iris_in(changed[0]), support=summary.iris_in(changed[1]))
    with fulltext_step.following(store):  # the full-text index follows; a crash before it is repaired on open
        with scope:
            if fresh and not (timed and timed.operations):
                store.add([*(document or []), *status, *quarantine, *summary.summary_quads(iris, document or [])])
            else:
                _swap(store, iris, doc_id, document=document, status=status, quarantine=quarantine,
                      after=timed.operations if timed else [])
        fulltext.on_commit(store, iris, doc_id, document, status)
    return changed[0] if changed is not None and not rebuilt else None


def _swap(store: GraphStore, iris: Iris, doc_id: str, *, document: list[Quad] | None, status: list[Quad],
          quarantine: list[Quad], after: list[str]) -> None:
    """Stage the new graphs, then swap them in with one SPARQL update (see commit)."""
    targets = {iris.status_graph(doc_id): status}
    if document is not None:
        targets[iris.document_graph(doc_id)] = document
    staged: dict[str, NamedNode] = {}
    batch: list[Quad] = []
    for graph, quads in [*targets.items(), ("quarantine", quarantine if document is not None else [])]:
        if quads:
            staging = NamedNode(f"{iris.staging_graph_prefix}{uuid.uuid4().hex}")
            staged[graph] = staging
            batch.extend(Quad(q.subject, q.predicate, q.object, staging) for q in quads)
    if batch:
        store.add(batch)
    ops = [f"MOVE SILENT GRAPH {staged[g]} TO GRAPH {NamedNode(g)}" if g in staged else f"DROP SILENT GRAPH {NamedNode(g)}"
           for g in targets]
    if document is not None:  # the fact summary follows the document graph in the same transaction
        doc_graph = iris.document_graph(doc_id)
        ops.insert(0, summary.withdraw(iris, doc_graph, staged.get(doc_graph)))
        if document:
            ops.append(summary.contribute(iris, doc_graph))
        q = NamedNode(iris.quarantine_graph)
        ops.append(QUARANTINE_OF_DOCUMENT.format(q=q, att=ATT, doc=NamedNode(iris.document(doc_id))))
        if "quarantine" in staged:
            ops.append(f"ADD SILENT GRAPH {staged['quarantine']} TO GRAPH {q}")
            ops.append(f"DROP SILENT GRAPH {staged['quarantine']}")
    store.update(" ;\n".join([*ops, *after]))


def sync_fulltext(store: GraphStore, iris: Iris, *, full: bool = False) -> int:
    """Make the index hold exactly the documents the store has, at their stored content hash (after a crash
    between a commit and its index update, or an index written by another version); returns documents changed.
    Nothing is read when the index is known to be in step (fulltext_step.py), unless `full`."""
    index = fulltext.for_store(store)
    if index is None or (not full and fulltext_step.in_step(store, index)):
        return 0
    stored = {row["d"].value[len(iris.document("")):]: row["hash"].value
              for row in cast(QuerySolutions, store.query(DONE_DOCUMENTS))}
    held = index.held()
    changed = 0
    for doc in held.keys() - stored.keys():
        index.replace(doc, "", [])
        changed += 1
    for doc, content_hash in stored.items():
        if held.get(doc) != content_hash:
            fulltext.reindex(store, iris, doc, content_hash)
            changed += 1
    fulltext_step.checked(store, index)
    if changed:
        logging.getLogger("attest.fulltext").info("full-text index brought up to date with the store: %d document(s)", changed)
    return changed
