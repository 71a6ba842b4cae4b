"""MCP resources (the ontology, the shapes, the named query texts, the graph layout) and the grounded-answer prompt."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

from pyoxigraph import RdfFormat

from attest.answer.llm_answer import answer_messages
from attest.answer.retrieve import ContextQuery
from attest.answer.limits import MAX_QUESTION_BYTES
from attest.errors import BadRequest, NotFound
from attest.mcp.named import named_tools
from attest.operations.answers import answer_service
from attest.operations.resources import AppResources

ONTOLOGY = "attest://ontology"
LAYOUT = "attest://graph-layout"
SHAPES = "attest://shapes/"
QUERIES = "attest://queries/"
PROMPT = "grounded_answer"


def listed(resources: AppResources) -> list[dict[str, Any]]:
    """Every resource: uri, name, description, mime type."""
    out = [
        {"uri": ONTOLOGY, "name": "ontology", "mime_type": "text/turtle",
         "description": "The ontology as loaded into graph/ontology (all ontology/*.ttl): classes, properties, "
                        "labels, domains and ranges to write SPARQL and citations with"},
        {"uri": LAYOUT, "name": "graph-layout", "mime_type": "application/json",
         "description": "Which named graph holds what (documents, ontology, inferred, derivations, fact summary, "
                        "quarantine) with their current sizes, and the namespaces of minted IRIs"},
    ]
    for path in _shape_files(resources):
        out.append({"uri": SHAPES + path.name, "name": f"shapes/{path.name}", "mime_type": "text/turtle",
                    "description": f"SHACL shapes that every document graph must satisfy ({path.name})"})
    for query in named_tools(resources):
        out.append({"uri": f"{QUERIES}{query.name}.rq", "name": f"queries/{query.name}.rq",
                    "mime_type": "application/sparql-query", "description": query.description})
    return out


def read(resources: AppResources, uri: str) -> tuple[str, str]:
    """(text, mime type) of one resource; NotFound for an unknown URI."""
    if uri == ONTOLOGY:
        out = io.BytesIO()
        resources.store.dump(out, RdfFormat.TURTLE, graph=resources.iris.ontology_graph)
        return out.getvalue().decode("utf-8"), "text/turtle"
    if uri == LAYOUT:
        return json.dumps(graph_layout(resources), indent=2), "application/json"
    if uri.startswith(SHAPES):
        for path in _shape_files(resources):
            if SHAPES + path.name == uri:
                return path.read_text(encoding="utf-8"), "text/turtle"
    if uri.startswith(QUERIES):
        for query in named_tools(resources):
            if f"{QUERIES}{query.name}.rq" == uri:
                return query.text, "application/sparql-query"
    raise NotFound(f"no resource {uri[:200]!r}", uri=uri[:200])


def _shape_files(resources: AppResources) -> list[Path]:
    directory = resources.settings.shapes_dir
    return sorted(directory.glob("*.ttl")) if directory.is_dir() else []


def graph_layout(resources: AppResources) -> dict[str, Any]:
    """The graph-layout contract (README "Graph layout") filled in with this store's graphs and sizes."""
    iris = resources.iris
    sizes = resources.store.graph_sizes()
    fixed = {
        iris.ontology_graph: "the ontology (all ontology/*.ttl)",
        iris.inferred_graph: "OWL 2 RL consequences, never mixed with asserted triples",
        iris.derivations_graph: "one derivation record per inferred triple: att:rule (W3C OWL 2 RL rule name), "
                                "att:premise triples, att:depth",
        iris.facts_graph: "the fact summary: each asserted triple about a minted entity once",
        iris.quarantine_graph: "items rejected by SHACL, with their validation report",
        iris.resolution_graph: "entity-resolution rules (att:NoMerge)",
        iris.statistics_graph: "the embedded store's class counts (VoID class partition), there only while exact",
    }
    families = {
        iris.document_graph_prefix: "what was asserted from one document, with provenance (document, chunk, span, "
                                    "extractor, confidence)",
        iris.status_graph_prefix: "ingestion status of one document and its chunks",
        iris.base + "graph/uploaded/": "a graph created by POST /store without a graph name",
    }
    return {
        "base_iri": iris.base,
        "default_graph": "the union of all graphs, unless a query names its own (FROM / FROM NAMED)",
        "graphs": [{"iri": iri, "holds": holds, "quads": sizes.get(iri, 0)} for iri, holds in fixed.items()],
        "graph_families": [
            {"prefix": prefix, "holds": holds,
             "graphs": sum(1 for g in sizes if g.startswith(prefix)),
             "quads": sum(n for g, n in sizes.items() if g.startswith(prefix))}
            for prefix, holds in families.items()],
        "other_graphs": sorted(g for g in sizes if g and g not in fixed and not any(g.startswith(p) for p in families)
                               and not g.startswith(iris.staging_graph_prefix)),
        "minted": {"entity": iris.entity_prefix, "document": iris.document(""), "chunk": iris.chunk("")},
        "namespaces": {"ont": "https://w3id.org/attest/ontology#", "att": "https://w3id.org/attest/vocab#"},
    }


def grounded_answer(resources: AppResources, question: str) -> str:
    """The grounded-answer prompt for `question`: the rules of citing, then the graph context retrieved for it."""
    if not question.strip():
        raise BadRequest("the grounded_answer prompt needs a question")
    if len(question.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise BadRequest(f"question is over the limit of {MAX_QUESTION_BYTES} bytes (10 KB)")
    context = answer_service(resources).context(ContextQuery(query=question))
    messages, _ = answer_messages(question, context)
    return "\n\n".join(m["content"] for m in messages)
