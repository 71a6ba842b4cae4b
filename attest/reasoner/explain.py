"""Reading derivation records back from the store: bounded, cycle-free proof trees, batched depths, violations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from pyoxigraph import BlankNode, Literal, NamedNode, QuerySolutions, Triple

from attest.errors import BadRequest
from attest.reasoner.records import derivation_iri, triple_dict
from attest.store.base import GraphStore
from attest.vocab import Iris

PREFIXES = "PREFIX att: <https://w3id.org/attest/vocab#>\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"
# named graphs that assert ?s ?p ?o (the inferred and derivations graphs are filtered out by the caller)
GRAPHS_OF = "SELECT DISTINCT ?s ?p ?o ?g WHERE { GRAPH ?g { ?s ?p ?o } }"
IN_DEFAULT = "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 1"
DERIVATION = PREFIXES + """SELECT ?d ?dg ?rule ?depth ?premise WHERE {
  GRAPH ?dg { ?d att:rule ?rule ; att:depth ?depth . OPTIONAL { ?d att:premise ?premise } } }"""
CHUNKS = PREFIXES + """SELECT DISTINCT ?t ?g ?chunk WHERE { GRAPH ?g { ?st rdf:reifies ?t ; att:inChunk ?chunk } }"""
# a statement about an entity with no reifier (its types, labels): the chunks that mention the entity
MENTION_CHUNKS = PREFIXES + """SELECT DISTINCT ?s ?g ?chunk WHERE { GRAPH ?g { ?m att:denotes ?s ; att:inChunk ?chunk } }"""
VIOLATIONS = PREFIXES + """SELECT ?dg ?v ?rule ?premise WHERE {
  GRAPH ?dg { ?v a att:Violation ; att:rule ?rule ; att:premise ?premise } } ORDER BY ?v"""

Term = NamedNode | BlankNode | Literal


def as_triple(s, p, o) -> Triple:
    """A Triple from terms or from strings (IRIs; a literal object may be given as a pyoxigraph Literal)."""
    def term(x, what: str):
        if isinstance(x, (NamedNode, BlankNode, Literal)):
            return x
        if isinstance(x, str):
            try:
                return NamedNode(x)
            except ValueError as exc:
                raise BadRequest(f"{what} is not a valid IRI: {x!r}", field=what) from exc
        raise BadRequest(f"{what} must be an IRI or an RDF term", field=what)
    subject, predicate = term(s, "subject"), term(p, "predicate")
    if isinstance(subject, Literal) or not isinstance(predicate, NamedNode):
        raise BadRequest("the subject must be an IRI or blank node and the predicate an IRI")
    return Triple(subject, predicate, term(o, "object"))


class Explainer:
    """Answers from the records in the store, so it works in any process without rebuilding the closure."""

    def __init__(self, store: GraphStore, iris: Iris) -> None:
        self.store, self.iris = store, iris
        self._hidden = {iris.inferred_graph, iris.derivations_graph}

    def sources(self, t: Triple) -> list[str]:
        """Graphs (other than the inferred and derivations graphs) that hold t; '' is the default graph."""
        subs: dict[str, Any] = {"s": t.subject, "p": t.predicate, "o": t.object}  # triple terms bind too
        graphs = [row["g"].value for row in cast(QuerySolutions, self.store.query(GRAPHS_OF, substitutions=subs))
                  if row["g"].value not in self._hidden]
        in_default = cast(QuerySolutions, self.store.query(IN_DEFAULT, substitutions=subs, union_default_graph=False))
        if next(iter(in_default), None) is not None:
            graphs.append("")
        return graphs

    def derivation(self, t: Triple) -> tuple[str, int, list[Triple]] | None:
        node = derivation_iri(self.iris, t)
        rows = list(cast(QuerySolutions, self.store.query(
            DERIVATION, substitutions={"d": node, "dg": NamedNode(self.iris.derivations_graph)})))
        if not rows:
            return None
        premises = [r["premise"] for r in rows if r["premise"] is not None]
        return rows[0]["rule"].value, int(rows[0]["depth"].value), list(dict.fromkeys(premises))

    def depth_of(self, triples: Iterable) -> dict[Triple, int | None]:
        """Depth per triple: 0 asserted, d for an inferred triple's shallowest derivation, None unknown."""
        out: dict[Triple, int | None] = {}
        for t in triples:
            tr = t if isinstance(t, Triple) else as_triple(*t)
            if tr in out:
                continue
            if self.sources(tr):
                out[tr] = 0
            else:
                d = self.derivation(tr)
                out[tr] = d[1] if d else None
        return out

    def explain(self, s, p, o, max_depth: int = 5) -> dict:
        """Proof tree of (s p o): each node has its rule and premises, down to asserted triples and their documents.

        The tree is cut at `max_depth` levels (`truncated: true`) and never revisits a triple on its own path.
        """
        return self._node(as_triple(s, p, o), max_depth, frozenset())

    def _node(self, t: Triple, budget: int, path: frozenset[Triple]) -> dict:
        node: dict = {"triple": triple_dict(t)}
        graphs = self.sources(t)
        if graphs:
            node.update(status="asserted", depth=0, sources=[self._source(t, g) for g in graphs])
            return node
        d = self.derivation(t)
        if d is None:
            node.update(status="unknown", depth=None)
            return node
        rule, depth, premises = d
        node.update(status="inferred", depth=depth, rule=rule)
        if budget <= 0:
            node["truncated"] = True
            return node
        inner = path | {t}
        node["premises"] = [self._node(q, budget - 1, inner) if q not in inner else
                            {"triple": triple_dict(q), "status": "cycle"} for q in premises]
        return node

    def _source(self, t: Triple, graph: str) -> dict:
        src: dict = {"graph": graph or None}
        prefix = self.iris.document_graph_prefix
        if graph.startswith(prefix):
            src["document"] = self.iris.document(graph[len(prefix):])
            g = NamedNode(graph)
            by_triple: dict[str, Any] = {"t": t, "g": g}  # a triple term binds too
            chunks = {r["chunk"].value for r in cast(QuerySolutions, self.store.query(CHUNKS, substitutions=by_triple))}
            if not chunks:
                by_subject: dict[str, Any] = {"s": t.subject, "g": g}
                rows = cast(QuerySolutions, self.store.query(MENTION_CHUNKS, substitutions=by_subject))
                chunks = {r["chunk"].value for r in rows}
            src["chunks"] = sorted(chunks)
        return src

    def violations(self) -> list[dict]:
        rows = cast(QuerySolutions, self.store.query(VIOLATIONS, substitutions={"dg": NamedNode(self.iris.derivations_graph)}))
        out: dict[str, dict] = {}
        for r in rows:
            v = out.setdefault(r["v"].value, {"id": r["v"].value, "rule": r["rule"].value, "premises": []})
            v["premises"].append(triple_dict(r["premise"]))
        return list(out.values())
