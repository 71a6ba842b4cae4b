"""The SPARQL 1.1 service description served on GET /sparql without a query."""

from __future__ import annotations

import io

from pyoxigraph import BlankNode, NamedNode, Triple, serialize

from attest.sparql.formats import GRAPH_FORMATS, RESULT_FORMATS, Format

SD = "http://www.w3.org/ns/sparql-service-description#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")


def _sd(name: str) -> NamedNode:
    return NamedNode(SD + name)


def service_description(endpoint: str, *, union_default_graph: bool, fmt: Format) -> bytes:
    """The description of the endpoint at `endpoint` (its absolute URL), serialized in `fmt`."""
    service = BlankNode()
    dataset = BlankNode()
    default_graph = BlankNode()
    triples = [
        Triple(service, RDF_TYPE, _sd("Service")),
        Triple(service, _sd("endpoint"), NamedNode(endpoint)),
        Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Query")),
        Triple(service, _sd("supportedLanguage"), _sd("SPARQL11Update")),
        Triple(service, _sd("feature"), _sd("BasicFederatedQuery")),
        Triple(service, _sd("defaultDataset"), dataset),
        Triple(dataset, RDF_TYPE, _sd("Dataset")),
        Triple(dataset, _sd("defaultGraph"), default_graph),
        Triple(default_graph, RDF_TYPE, _sd("Graph")),
    ]
    if union_default_graph:
        triples.append(Triple(service, _sd("feature"), _sd("UnionDefaultGraph")))
    for result_format in RESULT_FORMATS + GRAPH_FORMATS:
        triples.append(Triple(service, _sd("resultFormat"), NamedNode(result_format.native.iri)))
    out = io.BytesIO()
    serialize(triples, out, fmt.rdf_format, prefixes={"sd": SD} if fmt.native.name in ("Turtle", "TriG") else None)
    return out.getvalue()
