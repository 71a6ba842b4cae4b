"""The fact summary (graph/facts): every entity triple the document graphs assert, held once, changed in the same
transaction as the document graphs that support it."""

from __future__ import annotations

import logging
from typing import cast

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, QuerySolutions

from attest.ingest import validity
from attest.store import GraphStore
from attest.vocab import ATT, PROV, Iris

log = logging.getLogger("attest.summary")
VERSION = "3"  # the marker's value: a summary written by other rules is rebuilt (3: with graph/validity)
INCLUDES = NamedNode(ATT + "includesGraph")


def is_summarized(iris: Iris, quad: Quad) -> bool:
    """Whether a document triple belongs in the summary: about a minted entity, not provenance or a record."""
    return _summarized(quad.subject, quad.predicate, iris.entity_prefix)


def _summarized(subject: object, predicate: NamedNode, entity_prefix: str) -> bool:
    return (isinstance(subject, NamedNode) and subject.value.startswith(entity_prefix)
            and not predicate.value.startswith((ATT, PROV)))


def summary_quads(iris: Iris, document: list[Quad]) -> list[Quad]:
    """A new document's contribution (adding a triple the summary holds already changes nothing)."""
    graph, prefix = NamedNode(iris.facts_graph), iris.entity_prefix
    out = []
    for q in document:  # each term read once: pyoxigraph builds a new object on every accessor
        s, p = q.subject, q.predicate
        if _summarized(s, p, prefix):
            out.append(Quad(s, p, q.object, graph))
    return out


def _filter(iris: Iris) -> str:
    return (f'FILTER(STRSTARTS(STR(?s), "{iris.entity_prefix}") && !STRSTARTS(STR(?p), "{ATT}") '
            f'&& !STRSTARTS(STR(?p), "{PROV}"))')


def withdraw(iris: Iris, document_graph: str, replacement: NamedNode | None) -> str:
    """Update operation, run before a document graph is replaced or dropped: its triples that neither the
    replacement nor another document graph holds leave the summary."""
    keep = f"FILTER NOT EXISTS {{ GRAPH {replacement} {{ ?s ?p ?o }} }}" if replacement is not None else ""
    doc = NamedNode(document_graph)
    return f"""DELETE {{ GRAPH {NamedNode(iris.facts_graph)} {{ ?s ?p ?o }} }} WHERE {{
  GRAPH {doc} {{ ?s ?p ?o }} {_filter(iris)} {keep}
  FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(?g != {doc} && STRSTARTS(STR(?g), "{iris.document_graph_prefix}")) }}
}}"""


def contribute(iris: Iris, document_graph: str) -> str:
    """Update operation, run after a document graph is written: its triples join the summary."""
    return f"""INSERT {{ GRAPH {NamedNode(iris.facts_graph)} {{ ?s ?p ?o }} }} WHERE {{
  GRAPH {NamedNode(document_graph)} {{ ?s ?p ?o }} {_filter(iris)}
}}"""


def changed_facts(store: GraphStore, iris: Iris, document_graph: str, document: list[Quad] | None) -> tuple[set, set] | None:
    """(the triples writing `document` as this document graph (None: left as it is; []: deleted) would add to or
    take from the summary: those no document states yet, and those only the old version of this one states;
    the triples whose support it changes: those one version of this document states and the other does not).
    None when that cannot be told (blank nodes)."""
    if document is None:
        return set(), set()
    new = {(q.subject, q.predicate, q.object) for q in summary_quads(iris, document)}
    old = {(q.subject, q.predicate, q.object) for q in store.quads(document_graph) if is_summarized(iris, q)}
    if any(isinstance(term, BlankNode) for t in new ^ old for term in t):
        return None  # not expressible in VALUES
    facts, graph = NamedNode(iris.facts_graph), NamedNode(document_graph)
    added = _select(store, new - old, f"FILTER NOT EXISTS {{ GRAPH {facts} {{ ?s ?p ?o }} }}")
    removed = _select(store, old - new, f'FILTER NOT EXISTS {{ GRAPH ?g {{ ?s ?p ?o }} FILTER(?g != {graph} '
                                        f'&& STRSTARTS(STR(?g), "{iris.document_graph_prefix}")) }}')
    return added | removed, new ^ old


def present(store: GraphStore, iris: Iris, triples: set) -> set:
    """Which of some triples of terms the summary holds."""
    return _select(store, triples, f"GRAPH {NamedNode(iris.facts_graph)} {{ ?s ?p ?o }}")


def iris_in(triples) -> frozenset[str]:
    """The subjects and IRI objects of some triples of terms: whose facts they are."""
    return frozenset(t.value for s, _, o in triples for t in (s, o) if isinstance(t, NamedNode))


def _select(store: GraphStore, triples: set, condition: str) -> set:
    if not triples:
        return set()
    rows = " ".join(f"({s} {p} {o})" for s, p, o in triples)
    found = cast(QuerySolutions, store.query(f"SELECT ?s ?p ?o WHERE {{ VALUES (?s ?p ?o) {{ {rows} }} {condition} }}"))
    return {(row["s"], row["p"], row["o"]) for row in found}


def marker(iris: Iris) -> Quad:
    return Quad(NamedNode(iris.base + "summary"), NamedNode(ATT + "summaryVersion"), Literal(VERSION),
                NamedNode(iris.facts_graph))


def is_current(store: GraphStore, iris: Iris) -> bool:
    """Whether the summary is complete: its marker is written by a rebuild and removed by any write it cannot follow."""
    m = marker(iris)
    return bool(store.query(f"ASK {{ GRAPH {m.graph_name} {{ {m.subject} {m.predicate} {m.object} }} }}"))


def invalidation(iris: Iris) -> str:
    """Update operation, run with a write the summary cannot follow (a client's SPARQL update, a Graph Store
    write to a document graph): readers fall back to the document graphs until the next rebuild."""
    m = marker(iris)
    return f"DELETE DATA {{ GRAPH {m.graph_name} {{ {m.subject} {m.predicate} {m.object} }} }}"


def rebuild(store: GraphStore, iris: Iris) -> None:
    """Recompute the summary from every document graph, in one transaction; it also lists the graphs that are
    neither document nor system graphs (`att:includesGraph`), which readers read beside it: only a write from
    outside ingestion, which marks the summary out of date, can change that list. The valid time of the facts
    (graph/validity) is recomputed from the same document graphs first: the marker goes in last."""
    validity.rebuild(store, iris)
    m = marker(iris)
    store.update(f"""DROP SILENT GRAPH {m.graph_name} ;
INSERT {{ GRAPH {m.graph_name} {{ ?s ?p ?o }} }} WHERE {{
  GRAPH ?g {{ ?s ?p ?o }} FILTER(STRSTARTS(STR(?g), "{iris.document_graph_prefix}")) {_filter(iris)}
}} ;
INSERT {{ GRAPH {m.graph_name} {{ {m.subject} {INCLUDES} ?g }} }} WHERE {{
  GRAPH ?g {{ }} FILTER(!STRSTARTS(STR(?g), "{iris.document_graph_prefix}") && !STRSTARTS(STR(?g), "{iris.status_graph_prefix}")
    && !STRSTARTS(STR(?g), "{iris.staging_graph_prefix}") && ?g NOT IN ({_system(iris)}))
}} ;
INSERT DATA {{ GRAPH {m.graph_name} {{ {m.subject} {m.predicate} {m.object} }} }}""")


def _system(iris: Iris) -> str:
    graphs = (iris.ontology_graph, iris.inferred_graph, iris.derivations_graph, iris.quarantine_graph,
              iris.resolution_graph, iris.facts_graph, iris.validity_graph, iris.statistics_graph)
    return ", ".join(str(NamedNode(g)) for g in graphs)


def included_graphs(store: GraphStore, iris: Iris) -> list[str] | None:
    """The graphs read beside a current summary, or None when the summary is out of date."""
    m = marker(iris)
    rows = list(cast(QuerySolutions, store.query(f"""SELECT ?g ?current WHERE {{ GRAPH {m.graph_name} {{
      {{ {m.subject} {m.predicate} {m.object} BIND(true AS ?current) }} UNION {{ {m.subject} {INCLUDES} ?g }} }} }}""")))
    if not any(row["current"] is not None for row in rows):
        return None
    return sorted(row["g"].value for row in rows if row["g"] is not None)


def ensure(store: GraphStore, iris: Iris) -> bool:
    """Rebuild the summary when it is missing or out of date (a store written before it existed, a manual edit);
    True when it did."""
    if is_current(store, iris):
        return False
    log.info("building the fact summary (graph/facts) from the document graphs")
    rebuild(store, iris)
    return True

