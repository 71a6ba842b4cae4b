"""GET /entities/{id}: an entity's label, types, facts (asserted and inferred) and the sources that mention it."""

from __future__ import annotations

from fastapi import APIRouter
from pyoxigraph import NamedNode

from app.api.deps import IrisDep, StoreDep
from app.errors import NotFound
from app.vocab import ATT, ONT, PREFIXES, is_valid_id

router = APIRouter(tags=["entities"])

_PREFIXES = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())

DESCRIBE = _PREFIXES + """
SELECT ?g ?p ?v ?e WHERE {
  GRAPH ?g { ?e ?p ?v }
  FILTER(?p IN (rdf:type, rdfs:label, skos:altLabel, ont:description, att:confidence))
}"""

FACTS = _PREFIXES + """
SELECT ?g ?s ?p ?o ?confidence ?chunk ?e WHERE {
  { GRAPH ?g { ?e ?p ?o } BIND(?e AS ?s) } UNION { GRAPH ?g { ?s ?p ?e } BIND(?e AS ?o) }
  FILTER(isIRI(?s) && isIRI(?o) && STRSTARTS(STR(?p), STR(ont:)) && ?p != ont:mentions && ?p != ont:mentionedIn)
  OPTIONAL { GRAPH ?g { ?st rdf:reifies <<( ?s ?p ?o )>> ; att:confidence ?confidence . OPTIONAL { ?st att:inChunk ?chunk } } }
}"""

SOURCES = _PREFIXES + """
SELECT ?doc ?source ?chunk ?start ?end ?surface ?e WHERE {
  GRAPH ?g {
    ?m a att:Mention ; att:denotes ?e ; att:inChunk ?chunk ; att:surfaceForm ?surface .
    OPTIONAL { ?m att:charStart ?start ; att:charEnd ?end }
    ?chunk att:inDocument ?doc .
    OPTIONAL { ?doc att:source ?source }
  }
}"""


@router.get("/entities/{entity_id}")
def get_entity(entity_id: str, store: StoreDep, iris: IrisDep) -> dict[str, object]:
    """The entity's description across all document graphs, its facts, and where it is mentioned."""
    if not is_valid_id(entity_id):
        raise NotFound(f"no entity with id '{entity_id}'", id=entity_id)
    entity = NamedNode(iris.entity(entity_id))
    labels: set[str] = set()
    alt: set[str] = set()
    types: set[str] = set()
    descriptions: set[str] = set()
    confidence = 0.0
    for row in store.query(DESCRIBE, substitutions={"e": entity}):
        if not row["g"].value.startswith(iris.document_graph_prefix) and row["g"].value != iris.inferred_graph:
            continue
        p, v = row["p"].value, row["v"].value
        if p.endswith("#type"):
            types.add(v)
        elif p.endswith("#label"):
            labels.add(v)
        elif p.endswith("#altLabel"):
            alt.add(v)
        elif p == ONT + "description":
            descriptions.add(v)
        elif p == ATT + "confidence":
            confidence = max(confidence, float(v))
    if not labels and not types:
        raise NotFound(f"no entity with id '{entity_id}'", id=entity_id)
    facts: dict[tuple[str, str, str], dict[str, object]] = {}
    for row in store.query(FACTS, substitutions={"e": entity}):
        graph = row["g"].value
        inferred = graph == iris.inferred_graph
        if not inferred and not graph.startswith(iris.document_graph_prefix):
            continue
        key = (row["s"].value, row["p"].value, row["o"].value)
        fact = facts.setdefault(key, {"subject": key[0], "predicate": key[1], "object": key[2],
                                      "asserted": False, "inferred": False, "confidence": None, "chunks": []})
        fact["inferred" if inferred else "asserted"] = True
        if row["confidence"] is not None:
            fact["confidence"] = max(float(row["confidence"].value), fact["confidence"] or 0.0)
        if row["chunk"] is not None and row["chunk"].value not in fact["chunks"]:
            fact["chunks"].append(row["chunk"].value)
    sources = [{"document": r["doc"].value, "source": r["source"].value if r["source"] else None,
                "chunk": r["chunk"].value, "surface_form": r["surface"].value,
                "start": int(r["start"].value) if r["start"] else None, "end": int(r["end"].value) if r["end"] else None}
               for r in store.query(SOURCES, substitutions={"e": entity})]
    return {
        "id": entity_id, "iri": entity.value,
        "label": sorted(labels)[0] if labels else entity_id, "labels": sorted(labels), "alt_labels": sorted(alt - labels),
        "types": sorted(types), "descriptions": sorted(descriptions), "confidence": confidence or None,
        "facts": sorted(facts.values(), key=lambda f: (f["predicate"], f["subject"], f["object"])),
        "sources": sorted(sources, key=lambda s: (s["document"], s["start"] or 0)),
    }
