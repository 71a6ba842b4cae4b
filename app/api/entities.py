"""GET /entities/{id}: an entity's label, types, facts (asserted and inferred) and the sources that mention it."""

from __future__ import annotations

from fastapi import APIRouter
from pyoxigraph import NamedNode

from app.answer.lookup import GraphLookup
from app.answer.service import answer_ids
from app.api.deps import IrisDep, SettingsDep, StoreDep
from app.errors import NotFound
from app.vocab import ATT, PREFIXES

router = APIRouter(tags=["entities"])

_PREFIXES = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())

# every pattern reads the named graphs and the store's own default graph (?g unbound), union off
DESCRIBE = _PREFIXES + """
SELECT ?g ?p ?v ?e WHERE {
  { GRAPH ?g { ?e ?p ?v } } UNION { ?e ?p ?v }
  FILTER(?p IN (rdf:type, rdfs:label, skos:prefLabel, skos:altLabel, ont:description, dct:description, att:confidence))
}"""

FACTS = _PREFIXES + """
SELECT ?g ?s ?p ?o ?confidence ?chunk ?e WHERE {
  { { GRAPH ?g { ?e ?p ?o } } UNION { ?e ?p ?o } BIND(?e AS ?s) } UNION { { GRAPH ?g { ?s ?p ?e } } UNION { ?s ?p ?e } BIND(?e AS ?o) }
  FILTER(isIRI(?s) && isIRI(?o) && ?p != ont:mentions && ?p != ont:mentionedIn && !STRSTARTS(STR(?p), STR(rdf:))
         && !STRSTARTS(STR(?p), STR(rdfs:)) && !STRSTARTS(STR(?p), STR(owl:)) && !STRSTARTS(STR(?p), STR(att:))
         && !STRSTARTS(STR(?p), STR(prov:)) && !STRSTARTS(STR(?p), STR(sh:)) && !STRSTARTS(STR(?p), STR(skos:)))
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


@router.get("/entities/{entity_id:path}")
def get_entity(entity_id: str, store: StoreDep, iris: IrisDep, settings: SettingsDep) -> dict[str, object]:
    """The entity's description across the graphs that hold facts, its facts, and where it is mentioned; the id is a
    minted id, a CURIE of a declared prefix or an IRI."""
    iri = answer_ids(settings, iris).iri(entity_id)
    if iri is None:
        raise NotFound(f"no entity with id '{entity_id[:200]}'", id=entity_id[:200])
    entity = NamedNode(iri)
    lookup = GraphLookup(store, iris)
    labels: set[str] = set()
    alt: set[str] = set()
    types: set[str] = set()
    descriptions: set[str] = set()
    confidence = 0.0
    for row in store.query(DESCRIBE, substitutions={"e": entity}, union_default_graph=False):
        if lookup.counts(row["g"].value if row["g"] is not None else "") is None:
            continue
        p, v = row["p"].value, row["v"].value
        if p.endswith("#type"):
            types.add(v)
        elif p.endswith(("#label", "#prefLabel")):
            labels.add(v)
        elif p.endswith("#altLabel"):
            alt.add(v)
        elif p == ATT + "confidence":
            confidence = max(confidence, float(v))
        else:
            descriptions.add(v)
    if not labels and not types:
        raise NotFound(f"no entity with id '{entity_id[:200]}'", id=entity_id[:200])
    facts: dict[tuple[str, str, str], dict[str, object]] = {}
    for row in store.query(FACTS, substitutions={"e": entity}, union_default_graph=False):
        kind = lookup.counts(row["g"].value if row["g"] is not None else "")
        if kind is None:
            continue
        inferred = kind == "inferred"
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
        "id": answer_ids(settings, iris).of(iri) or entity_id, "iri": entity.value,
        "label": sorted(labels)[0] if labels else entity_id, "labels": sorted(labels), "alt_labels": sorted(alt - labels),
        "types": sorted(types), "descriptions": sorted(descriptions), "confidence": confidence or None,
        "facts": sorted(facts.values(), key=lambda f: (f["predicate"], f["subject"], f["object"])),
        "sources": sorted(sources, key=lambda s: (s["document"], s["start"] or 0)),
    }
