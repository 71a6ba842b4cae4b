"""The SPARQL SELECT that walks a retrieved path's predicates from its linked entity and returns every end it reaches.

A path is a seed IRI and hops (predicate IRI, walked forward = subject to object). The query reads the default
graph, which on Attest's endpoint is the union of every graph: document graphs, triples loaded without a graph,
and the inferred graph, so a hop held only by inference is walked too. Like the path search, a walk never
comes back to a node it passed. IRIs are written only as pyoxigraph NamedNode serializations (the constructor
refuses anything that is not an IRI, so `<…>` cannot end early); nothing else of the question enters the text.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from pyoxigraph import NamedNode

from attest.answer.models import ContextPath, ContextRelation

ANSWER = "answer"  # the projected variable: the path's end

Walk = tuple[str, Sequence[tuple[str, bool]]]  # (seed IRI, hops as (predicate IRI, forward))


def walk_patterns(seed: str, hops: Sequence[tuple[str, bool]], indent: str = "  ") -> list[str]:
    """Triple patterns and the distinct-nodes filter of one walk, one line each (no hops: the seed is the answer)."""
    start = str(NamedNode(seed))
    if not hops:
        return [f"{indent}BIND({start} AS ?{ANSWER})"]
    nodes = [start] + [f"?x{i}" for i in range(1, len(hops))] + [f"?{ANSWER}"]
    lines = []
    for i, (predicate, forward) in enumerate(hops):
        here, there = nodes[i], nodes[i + 1]
        subject, obj = (here, there) if forward else (there, here)
        lines.append(f"{indent}{subject} {NamedNode(predicate)} {obj} .")
    for i in range(1, len(nodes)):
        earlier = nodes[:i]
        test = f"{nodes[i]} != {earlier[0]}" if len(earlier) == 1 else f"{nodes[i]} NOT IN ({', '.join(earlier)})"
        lines.append(f"{indent}FILTER({test})")
    return lines


def path_sparql(seed: str, hops: Sequence[tuple[str, bool]]) -> str:
    """The query of one path: `SELECT DISTINCT ?answer` over the walk's predicates from `seed`."""
    return walks_sparql([(seed, hops)])


def walks_sparql(walks: Iterable[Walk]) -> str:
    """One query whose answers are the ends of every walk (a UNION when there are several distinct walks)."""
    unique = list(dict.fromkeys((seed, tuple((p, bool(f)) for p, f in hops)) for seed, hops in walks))
    if not unique:
        raise ValueError("no walk to write a query for")
    if len(unique) == 1:
        body = walk_patterns(*unique[0])
    else:
        body = []
        for i, (seed, hops) in enumerate(unique):
            body.append("  {" if i == 0 else "  UNION {")
            body += walk_patterns(seed, hops, indent="    ")
            body.append("  }")
    return f"SELECT DISTINCT ?{ANSWER} WHERE {{\n" + "\n".join(body) + "\n}"


def context_walk(path: ContextPath, relations: dict[str, ContextRelation], seed: str) -> Walk:
    """The walk of a /context path (a ContextPath whose relations are in `relations` by id) from its seed IRI."""
    here = seed
    hops: list[tuple[str, bool]] = []
    for rid in path.relations:
        subject, predicate, obj = relations[rid].triple
        forward = subject == here
        hops.append((predicate, forward))
        here = obj if forward else subject
    return seed, hops
