"""Map one document's resolved extractions to RDF: entities, relations and literal attributes with RDF 1.2 reifiers, chunks, PROV-O.

Statement-level metadata uses RDF 1.2 reification: the asserted triple `s p o` sits in the document graph
and a reifier node carries `rdf:reifies <<( s p o )>>` with its confidence and source chunk(s). Nothing is said
twice (README "Provenance vocabulary"). A literal attribute (`entity ont:birthDate "1955"`, the value as written)
has the same reifier layout as a relation: the extractor, model and time are recorded once per document graph, on
its one extraction activity (prov:Activity, prov:wasAssociatedWith the agent); a chunk's mentions are its
mention records, not also `ont:mentions` links; a mention's surface form is written only where it differs from
the entity's rdfs:label. Every IRI is minted from content, so re-ingesting the same text yields the same quads.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache

from pyoxigraph import Literal, NamedNode, Quad, Triple

from attest.extract.models import ExtractedAttribute, ExtractedEntity, ExtractedRelation
from attest.ingest.chunk import Chunk
from attest.ingest.resolve import Resolution, slugify
from attest.vocab import ATT, ONT, PROV, RDF, RDFS, SKOS, XSD, Iris

A = NamedNode(RDF + "type")
REIFIES = NamedNode(RDF + "reifies")
LABEL = NamedNode(RDFS + "label")
ALT_LABEL = NamedNode(SKOS + "altLabel")
DESCRIPTION = NamedNode(ONT + "description")
DECIMAL = NamedNode(XSD + "decimal")
INTEGER = NamedNode(XSD + "integer")
DATETIME = NamedNode(XSD + "dateTime")


@cache
def att(name: str) -> NamedNode:
    return NamedNode(ATT + name)


@cache
def prov(name: str) -> NamedNode:
    return NamedNode(PROV + name)


def decimal(value: float) -> Literal:
    return Literal(f"{min(max(value, 0.0), 1.0):.3f}", datatype=DECIMAL)


def integer(value: int) -> Literal:
    return Literal(str(value), datatype=INTEGER)


def short_hash(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class DocumentInfo:
    """What the graph records about the source document itself."""

    id: str
    source: str
    media_type: str
    content_hash: str
    length: int


@dataclass(frozen=True)
class ExtractionRun:
    """The extraction activity: who extracted (extractor, model) and when."""

    extractor: str
    model: str | None
    started: datetime
    ended: datetime


@dataclass
class Mention:
    """One entity as one chunk mentions it, resolved to an IRI, with its span in the original text."""

    entity: ExtractedEntity
    resolution: Resolution
    span: tuple[int, int] | None


@dataclass
class ChunkExtraction:
    """A chunk with its accepted (validated) entities and relations, mentions resolved."""

    chunk: Chunk
    mentions: dict[str, Mention] = field(default_factory=dict)  # by the entity name the relations use
    relations: list[ExtractedRelation] = field(default_factory=list)
    sentences: dict[int, tuple[int, int]] = field(default_factory=dict)  # relations[i] -> its sentence, original span
    attributes: list[ExtractedAttribute] = field(default_factory=list)
    attribute_sentences: dict[int, tuple[int, int]] = field(default_factory=dict)  # attributes[i] -> its sentence


class DocumentMapper:
    """Builds the quads of one document graph."""

    def __init__(self, iris: Iris, graph: str) -> None:
        self.iris = iris
        self.graph = NamedNode(graph)
        self.quads: list[Quad] = []

    def add(self, s, p, o) -> None:
        self.quads.append(Quad(s, p, o, self.graph))

    def map(self, doc: DocumentInfo, run: ExtractionRun, chunks: list[ChunkExtraction]) -> list[Quad]:
        iris, add = self.iris, self.add
        doc_node = NamedNode(iris.document(doc.id))
        activity = NamedNode(f"{iris.base}activity/{doc.id}-{doc.content_hash.split(':')[-1][:12]}")
        agent = NamedNode(f"{iris.base}agent/{slugify(run.extractor)}")

        add(doc_node, A, NamedNode(ONT + "Document"))
        add(doc_node, LABEL, Literal(doc.source))
        add(doc_node, att("source"), Literal(doc.source))
        add(doc_node, att("mediaType"), Literal(doc.media_type))
        add(doc_node, att("contentHash"), Literal(doc.content_hash))
        add(doc_node, att("charLength"), integer(doc.length))

        add(activity, A, prov("Activity"))
        add(activity, A, att("Extraction"))
        add(activity, prov("used"), doc_node)
        add(activity, prov("wasAssociatedWith"), agent)
        add(activity, prov("startedAtTime"), Literal(run.started.isoformat(), datatype=DATETIME))
        add(activity, prov("endedAtTime"), Literal(run.ended.isoformat(), datatype=DATETIME))
        add(agent, A, prov("SoftwareAgent"))
        add(agent, LABEL, Literal(run.extractor))
        if run.model:
            add(agent, att("model"), Literal(run.model))

        entities: dict[str, tuple[Resolution, str, float, str]] = {}  # iri -> (resolution, type, confidence, description)
        alt_labels: dict[str, set[str]] = {}
        # (s, p, o) IRIs -> each stating relation, its chunk and its sentence's span
        statements: dict[tuple[str, str, str], list[tuple[ExtractedRelation, Chunk, tuple[int, int] | None]]] = {}
        literals: dict[tuple[str, str, str], list[tuple[ExtractedAttribute, Chunk, tuple[int, int] | None]]] = {}
        for ce in chunks:
            chunk_node = self._chunk(ce.chunk, doc_node)
            for name, mention in ce.mentions.items():
                r = mention.resolution
                prior = entities.get(r.iri)
                if prior is None or mention.entity.confidence > prior[2]:
                    description = mention.entity.description.strip() or (prior[3] if prior else "")
                    entities[r.iri] = (r, mention.entity.type, mention.entity.confidence, description)
                elif not prior[3] and mention.entity.description.strip():
                    entities[r.iri] = (*prior[:3], mention.entity.description.strip())
                if r.merged:
                    alt_labels.setdefault(r.iri, set()).add(mention.entity.name.strip())
                    self._merge_record(doc.id, ce.chunk, mention)
                self._mention(ce.chunk, chunk_node, mention)
                for other, score in r.candidates:
                    self._candidate(doc.id, r.iri, other, score)
            for i, rel in enumerate(ce.relations):
                subject, object_ = ce.mentions.get(rel.subject), ce.mentions.get(rel.object)
                if subject is None or object_ is None:
                    continue
                key = (subject.resolution.iri, ONT + rel.predicate, object_.resolution.iri)
                statements.setdefault(key, []).append((rel, ce.chunk, ce.sentences.get(i)))
            for i, attribute in enumerate(ce.attributes):
                if (subject := ce.mentions.get(attribute.subject)) is not None:
                    key = (subject.resolution.iri, ONT + attribute.predicate, attribute.value)
                    literals.setdefault(key, []).append((attribute, ce.chunk, ce.attribute_sentences.get(i)))

        for iri, (r, type_name, confidence, description) in entities.items():
            node = NamedNode(iri)
            add(node, A, NamedNode(ONT + type_name))
            add(node, LABEL, Literal(r.label))
            for alt in sorted(alt_labels.get(iri, ())):
                add(node, ALT_LABEL, Literal(alt))
            if description:
                add(node, DESCRIPTION, Literal(description))
            add(node, att("confidence"), decimal(confidence))  # extractor and time: the graph's activity

        for (s, p, o), sources in statements.items():
            triple = Triple(NamedNode(s), NamedNode(p), NamedNode(o))
            add(triple.subject, triple.predicate, triple.object)
            stmt = NamedNode(f"{self.iris.base}statement/{short_hash(doc.id, s, p, o)}")
            add(stmt, REIFIES, triple)
            add(stmt, att("confidence"), decimal(max(rel.confidence for rel, _, _ in sources)))
            for chunk in dict.fromkeys(c for _, c, _ in sources):  # the statement's only link to its sources
                add(stmt, att("inChunk"), NamedNode(self.iris.chunk(chunk.id)))
            if sentence := next((span for _, _, span in sources if span), None):  # where it is stated first
                add(stmt, att("charStart"), integer(sentence[0]))
                add(stmt, att("charEnd"), integer(sentence[1]))
            for field_name, predicate in (("valid_from", "validFrom"), ("valid_to", "validTo")):  # valid time, first dated source
                if day := next((d for rel, _, _ in sources if (d := getattr(rel, field_name))), None):
                    add(stmt, att(predicate), Literal(day.isoformat(), datatype=NamedNode(XSD + "date")))
        for (s, p, value), attribute_sources in literals.items():
            self._statement(doc.id, (s, p, value), [(a.confidence, chunk, span) for a, chunk, span in attribute_sources])
        return self.quads

    def _statement(self, doc_id: str, key: tuple[str, str, str],
                   sources: list[tuple[float, Chunk, tuple[int, int] | None]]) -> None:
        """An asserted literal-valued triple (subject IRI, predicate IRI, value) and its reifier: confidence, chunk(s),
        the first stating sentence."""
        add = self.add
        triple = Triple(NamedNode(key[0]), NamedNode(key[1]), Literal(key[2]))
        add(triple.subject, triple.predicate, triple.object)
        stmt = NamedNode(f"{self.iris.base}statement/{short_hash(doc_id, key[0], key[1], 'literal', key[2])}")
        add(stmt, REIFIES, triple)
        add(stmt, att("confidence"), decimal(max(confidence for confidence, _, _ in sources)))
        for chunk in dict.fromkeys(c for _, c, _ in sources):
            add(stmt, att("inChunk"), NamedNode(self.iris.chunk(chunk.id)))
        if sentence := next((span for _, _, span in sources if span), None):
            add(stmt, att("charStart"), integer(sentence[0]))
            add(stmt, att("charEnd"), integer(sentence[1]))

    def _chunk(self, chunk: Chunk, doc_node: NamedNode) -> NamedNode:
        node = NamedNode(self.iris.chunk(chunk.id))
        add = self.add
        add(node, A, NamedNode(ONT + "Chunk"))
        add(node, att("inDocument"), doc_node)
        add(node, att("index"), integer(chunk.index))
        add(node, att("charStart"), integer(chunk.start))
        add(node, att("charEnd"), integer(chunk.end))
        add(node, att("contentHash"), Literal(chunk.content_hash))
        add(node, att("text"), Literal(chunk.text))
        return node

    def _mention(self, chunk: Chunk, chunk_node: NamedNode, mention: Mention) -> None:
        node = NamedNode(f"{self.iris.chunk(chunk.id)}/mention/{slugify(mention.resolution.id)}")
        add = self.add
        add(node, att("inChunk"), chunk_node)
        add(node, att("denotes"), NamedNode(mention.resolution.iri))
        if mention.entity.name != mention.resolution.label:  # else the surface form is the entity's rdfs:label
            add(node, att("surfaceForm"), Literal(mention.entity.name))
        if mention.span is not None:
            add(node, att("charStart"), integer(mention.span[0]))
            add(node, att("charEnd"), integer(mention.span[1]))

    def _merge_record(self, doc_id: str, chunk: Chunk, mention: Mention) -> None:
        r = mention.resolution
        node = NamedNode(f"{self.iris.base}merge/{short_hash(doc_id, chunk.id, r.iri, mention.entity.name)}")
        add = self.add
        add(node, A, att("Merge"))
        add(node, att("mergedLabel"), Literal(mention.entity.name.strip()))
        add(node, att("mergedInto"), NamedNode(r.iri))
        add(node, att("mergedType"), NamedNode(ONT + mention.entity.type))
        add(node, att("similarity"), decimal(r.score / 100))
        add(node, att("inChunk"), NamedNode(self.iris.chunk(chunk.id)))

    def _candidate(self, doc_id: str, iri: str, other: str, score: float) -> None:
        add = self.add
        s, p, o = NamedNode(iri), att("candidateMatch"), NamedNode(other)
        add(s, p, o)
        record = NamedNode(f"{self.iris.base}candidate/{short_hash(doc_id, iri, other)}")
        add(record, REIFIES, Triple(s, p, o))
        add(record, A, att("CandidateMatch"))
        add(record, att("similarity"), decimal(score / 100))


def map_document(iris: Iris, doc: DocumentInfo, run: ExtractionRun, chunks: list[ChunkExtraction]) -> list[Quad]:
    """All quads of the document graph, in that graph."""
    mapper = DocumentMapper(iris, iris.document_graph(doc.id))
    return list(dict.fromkeys(mapper.map(doc, run, chunks)))
