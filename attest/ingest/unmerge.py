"""Undo an entity merge: forbid the spelling from resolving into the entity, then rebuild the documents that merged it."""

from __future__ import annotations

import hashlib
from typing import cast

from pyoxigraph import Literal, NamedNode, Quad, QuerySolutions

from attest.errors import NotFound
from attest.ingest.pipeline import IngestPipeline
from attest.ingest.rdf_map import A, att
from attest.ingest.resolve import label_key
from attest.vocab import ATT, is_valid_id

MERGES_INTO = f"""
PREFIX att: <{ATT}>
SELECT ?g ?label ?entity WHERE {{ GRAPH ?g {{ ?m a att:Merge ; att:mergedInto ?entity ; att:mergedLabel ?label }} }}
"""


def unmerge(pipeline: IngestPipeline, entity_id: str, label: str | None = None) -> dict[str, str]:
    """Split merged spellings off `entity_id`; returns {spelling: id of the entity it now names}."""
    iris, store = pipeline.iris, pipeline.store
    if not is_valid_id(entity_id):
        raise NotFound(f"no entity with id '{entity_id}'", id=entity_id)
    entity = NamedNode(iris.entity(entity_id))
    merges: dict[str, set[str]] = {}  # spelling -> document ids
    doc_prefix = iris.document_graph_prefix
    for row in cast(QuerySolutions, store.query(MERGES_INTO, substitutions={"entity": entity})):
        spelling, graph = row["label"].value, row["g"].value
        if graph.startswith(doc_prefix) and (label is None or label_key(spelling) == label_key(label)):
            merges.setdefault(spelling, set()).add(graph[len(doc_prefix):])
    if not merges:
        what = f"'{label}'" if label else "any spelling"
        raise NotFound(f"no merge of {what} into entity '{entity_id}' is recorded", id=entity_id)

    with pipeline._lock:
        rules = list(store.quads(iris.resolution_graph))
        g = NamedNode(iris.resolution_graph)
        for spelling in merges:
            rule = NamedNode(f"{iris.base}resolution/no-merge/"
                             f"{hashlib.sha256(f'{entity.value}|{label_key(spelling)}'.encode()).hexdigest()[:24]}")
            rules += [Quad(rule, A, att("NoMerge"), g), Quad(rule, att("entity"), entity, g),
                      Quad(rule, att("mergedLabel"), Literal(spelling), g)]
        store.replace_graph(iris.resolution_graph, list(dict.fromkeys(rules)))
        pipeline._index = None  # re-read with the new rules
        for doc_id in sorted(set().union(*merges.values())):
            pipeline.rebuild(doc_id, outcome="unmerged")
    index = pipeline.index
    return {spelling: next((i for i in sorted(index.by_key.get(label_key(spelling), ())) if i != entity_id), "?")
            for spelling in merges}
