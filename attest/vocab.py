"""IRIs of Attest's graphs, resources and vocabularies (the graph-layout contract of DESIGN.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pyoxigraph import NamedNode

ONT = "https://w3id.org/attest/ontology#"  # the domain ontology (ontology/*.ttl)
ATT = "https://w3id.org/attest/vocab#"  # provenance, derivation and status vocabulary
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
OWL = "http://www.w3.org/2002/07/owl#"
XSD = "http://www.w3.org/2001/XMLSchema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
PROV = "http://www.w3.org/ns/prov#"
SH = "http://www.w3.org/ns/shacl#"
DCT = "http://purl.org/dc/terms/"
SCHEMA = "http://schema.org/"
FOAF = "http://xmlns.com/foaf/0.1/"

PREFIXES = {
    "ont": ONT, "att": ATT, "rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD,
    "skos": SKOS, "prov": PROV, "sh": SH, "dct": DCT, "schema": SCHEMA, "foaf": FOAF,
}

# what may stand as the last path segment of a minted IRI (entity, document and chunk ids)
ID_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._~-]{0,199}$")


def is_valid_id(value: str) -> bool:
    return bool(ID_SEGMENT.match(value))


@dataclass(frozen=True)
class Iris:
    """Minted IRIs under the configured base: graphs, entities, documents, chunks."""

    base: str

    def __post_init__(self) -> None:
        if not self.base.endswith(("/", "#")):
            object.__setattr__(self, "base", self.base + "/")

    @property
    def ontology_graph(self) -> str:
        return f"{self.base}graph/ontology"

    @property
    def inferred_graph(self) -> str:
        return f"{self.base}graph/inferred"

    @property
    def derivations_graph(self) -> str:
        return f"{self.base}graph/derivations"

    @property
    def facts_graph(self) -> str:
        return f"{self.base}graph/facts"

    @property
    def validity_graph(self) -> str:
        return f"{self.base}graph/validity"

    @property
    def quarantine_graph(self) -> str:
        return f"{self.base}graph/quarantine"

    @property
    def resolution_graph(self) -> str:
        return f"{self.base}graph/resolution"

    @property
    def statistics_graph(self) -> str:
        """The class counts of the embedded store (VoID), present only while exact (attest/store/statistics.py)."""
        return f"{self.base}graph/statistics"

    @property
    def status_graph_prefix(self) -> str:
        return f"{self.base}graph/status/"

    def status_graph(self, doc_id: str) -> str:
        return self.status_graph_prefix + doc_id

    @property
    def document_graph_prefix(self) -> str:
        return f"{self.base}graph/document/"

    @property
    def staging_graph_prefix(self) -> str:
        return f"{self.base}graph/staging/"

    @property
    def entity_prefix(self) -> str:
        return f"{self.base}entity/"

    def document_graph(self, doc_id: str) -> str:
        return self.document_graph_prefix + doc_id

    def document(self, doc_id: str) -> str:
        return f"{self.base}document/{doc_id}"

    def chunk(self, chunk_id: str) -> str:
        return f"{self.base}chunk/{chunk_id}"

    def entity(self, entity_id: str) -> str:
        return self.entity_prefix + entity_id

    def entity_id(self, iri: str) -> str | None:
        """The id of an entity IRI minted under this base, or None."""
        if iri.startswith(self.entity_prefix):
            tail = iri[len(self.entity_prefix):]
            return tail if is_valid_id(tail) else None
        return None

    def is_system_graph(self, graph: str) -> bool:
        return graph in (self.ontology_graph, self.inferred_graph, self.derivations_graph, self.quarantine_graph,
                         self.resolution_graph, self.validity_graph, self.statistics_graph) \
            or graph.startswith(self.status_graph_prefix)


def node(iri: str) -> NamedNode:
    return NamedNode(iri)
