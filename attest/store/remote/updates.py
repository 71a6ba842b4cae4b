"""SPARQL update text a remote store sends: quads as INSERT / DELETE DATA, and DROP ALL that spares the server's graphs."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from pyoxigraph import BlankNode, DefaultGraph, NamedNode, Quad

from attest.sparql.lexer import top_level_words
from attest.store.rdfio import sparql_term

T = TypeVar("T")
NO_GRAPH = "urn:attest:no-graph"  # a graph nobody holds


def chunks(items: Iterable[T], size: int) -> Iterator[list[T]]:
    batch: list[T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch


def update_data(operation: str, quads: Iterable[Quad]) -> str:
    """INSERT DATA / DELETE DATA of quads in named graphs and the default graph (INSERT {...} WHERE {} when
    they hold blank nodes, which some servers, Virtuoso among them, refuse in a DATA block)."""
    by_graph: dict[str, list[str]] = {}
    blank = False
    for q in quads:
        blank = blank or isinstance(q.subject, BlankNode) or isinstance(q.object, BlankNode)
        triple = f"{sparql_term(q.subject)} {sparql_term(q.predicate)} {sparql_term(q.object)} ."
        by_graph.setdefault("" if isinstance(q.graph_name, DefaultGraph) else str(q.graph_name), []).append(triple)
    if blank and operation == "INSERT DATA":
        # a template: one GRAPH block per graph (Virtuoso fails, SR002, on blank nodes in several blocks of a graph)
        parts = [" ".join(triples) if not graph else f"GRAPH {graph} {{ {' '.join(triples)} }}"
                 for graph, triples in by_graph.items()]
        return f"INSERT {{ {' '.join(parts)} }} WHERE {{}}"
    # data: a GRAPH block per triple (Virtuoso's parser runs out of memory on a few thousand triples in one block)
    parts = [t if not graph else f"GRAPH {graph} {{ {t} }}" for graph, triples in by_graph.items() for t in triples]
    return f"{operation} {{ {' '.join(parts)} }}"


def sparing_graphs(update: str, ours: Callable[[], list[NamedNode]]) -> str:
    """DROP / CLEAR ALL and NAMED turned into one DROP / CLEAR per graph of `ours()` (asked only when the update
    has such an operation): the server's own graphs (Virtuoso's virtrdf# holds its quad maps; dropping it breaks
    every later query) are never touched."""
    words = [w for w in top_level_words(update) if w is not None]
    spans = []
    for i, w in enumerate(words):
        if w.word in ("DROP", "CLEAR"):
            j = i + 1 + (i + 1 < len(words) and words[i + 1].word == "SILENT")
            if j < len(words) and words[j].word in ("ALL", "NAMED"):
                spans.append((w.start, words[j].start + len(words[j].word), w.word))
    if not spans:
        return update
    graphs = ours()
    out, pos = [], 0
    for start, end, verb in spans:
        out.append(update[pos:start])
        # no graph of ours: a no-op on a graph nobody holds (an operation must stay where the one was)
        out.append(" ;\n".join(f"{verb} SILENT GRAPH {g}" for g in graphs) or f"{verb} SILENT GRAPH <{NO_GRAPH}>")
        pos = end
    out.append(update[pos:])
    return "".join(out)
