"""`attest validate`: the SHACL shapes over every document graph in the store, one graph at a time."""

from __future__ import annotations

from dataclasses import dataclass

from attest.ingest.shacl_gate import Finding, ShaclGate, to_rdflib
from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import Iris


@dataclass
class GraphValidation:
    graph: str
    conforms: bool
    findings: list[Finding]


def validate_store(store: GraphStore, settings: Settings, gate: ShaclGate | None = None) -> list[GraphValidation]:
    """Each document graph is validated on its own (with the ontology's class hierarchy), as the gate did."""
    iris = Iris(settings.base_iri)
    gate = gate or ShaclGate.from_dirs(settings.shapes_dir, settings.ontology_dir, settings.ontology_modules_off)
    out = []
    for graph in store.graphs():
        if not graph.startswith(iris.document_graph_prefix):
            continue
        conforms, report = gate.validate_graph(to_rdflib(list(store.quads(graph)), gate.relevant))
        out.append(GraphValidation(graph, conforms, [] if conforms else gate.findings(report)))
    return out
