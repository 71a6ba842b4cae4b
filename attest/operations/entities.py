"""An entity's card: its labels, types, a page of its facts (asserted and inferred) and of the sources that mention it."""

from __future__ import annotations

from typing import Any

from pyoxigraph import Literal, NamedNode, Triple

from attest.answer.inference import DerivationRecords
from attest.answer.lookup import SUPPORT_CAP, GraphLookup, is_literal
from attest.answer.service import answer_ids
from attest.errors import NotFound
from attest.operations.paging import Page, next_cursor, page
from attest.store.results import solutions
from attest.settings import Settings
from attest.store import GraphStore
from attest.vocab import ATT, PREFIXES, Iris

_PREFIXES = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())

# every pattern reads the named graphs of the lookup's dataset and the store's own default graph (?g unbound)
DESCRIBE = _PREFIXES + """
SELECT ?g ?p ?v ?e WHERE {
  { GRAPH ?g { ?e ?p ?v } } UNION { ?e ?p ?v }
  FILTER(?p IN (rdf:type, rdfs:label, skos:prefLabel, skos:altLabel, ont:description, dct:description, att:confidence))
}"""

# facts and attributes in and out of ?e (one row per triple), in the graphs answers read (the fact summary
# standing for the document graphs); a page at a time. The filters stand outside the UNION and ?s / ?o are made by
# IF, not BIND(?e AS ?s): Virtuoso's compiler fails on either (SP031 "equiv replaces filter but under deprecation")
FACTS = _PREFIXES + """
SELECT DISTINCT ?s ?p ?o ?e WHERE {
  { { GRAPH ?g { ?e ?p ?x } } UNION { ?e ?p ?x } BIND(true AS ?out) }
  UNION { { GRAPH ?g { ?x ?p ?e } } UNION { ?x ?p ?e } BIND(false AS ?out) }
  FILTER(isIRI(?x) || (?out && isLiteral(?x)))
  FILTER(?p != ont:mentions && ?p != ont:mentionedIn && !STRSTARTS(STR(?p), STR(rdf:))
         && !STRSTARTS(STR(?p), STR(rdfs:)) && !STRSTARTS(STR(?p), STR(owl:)) && !STRSTARTS(STR(?p), STR(att:))
         && !STRSTARTS(STR(?p), STR(prov:)) && !STRSTARTS(STR(?p), STR(sh:)) && !STRSTARTS(STR(?p), STR(skos:)))
  BIND(IF(?out, ?e, ?x) AS ?s)
  BIND(IF(?out, ?x, ?e) AS ?o)
} LIMIT %d OFFSET %d"""

# the statements that assert ?t, with their confidence and chunk (a few: the support is counted apart)
STATEMENTS = _PREFIXES + """
SELECT ?confidence ?chunk ?t WHERE {
  GRAPH ?g { ?st rdf:reifies ?t ; att:confidence ?confidence . OPTIONAL { ?st att:inChunk ?chunk } }
} LIMIT %d"""

CONFIDENCE = _PREFIXES + "SELECT (MAX(?c) AS ?confidence) ?e WHERE { GRAPH ?g { ?e att:confidence ?c } } GROUP BY ?e"

# where ?e is mentioned: document, chunk, span, surface form (the label where none is recorded); a page at a time
SOURCES = _PREFIXES + """
SELECT ?doc ?source ?chunk ?start ?end ?surface ?e WHERE {
  GRAPH ?g {
    ?m att:denotes ?e ; att:inChunk ?chunk .
    OPTIONAL { ?m att:charStart ?start ; att:charEnd ?end }
    ?chunk att:inDocument ?doc .
    OPTIONAL { ?doc att:source ?source }
    OPTIONAL { ?m att:surfaceForm ?form } OPTIONAL { FILTER(!BOUND(?form)) ?e rdfs:label ?label }
    BIND(COALESCE(?form, ?label) AS ?surface) FILTER(BOUND(?surface))
  }
} LIMIT %d OFFSET %d"""
MAX_CHUNKS = 5  # chunks shown per fact; /explain and the fact-sources query give them all
MAX_DOCUMENTS = 5  # document ids shown per fact (document_count counts them all)


def entity_card(store: GraphStore, iris: Iris, settings: Settings, entity_id: str, *, limit: int | None = None,
                facts_cursor: str | None = None, sources_cursor: str | None = None) -> dict[str, object]:
    """The card of GET /entities/{id} and of the MCP get_entity tool: a cursor pages its own list only."""
    ids = answer_ids(settings, iris)
    iri = ids.iri(entity_id)
    if iri is None:
        raise NotFound(f"no entity with id '{entity_id[:200]}'", id=entity_id[:200])
    entity = NamedNode(iri)
    lookup = GraphLookup(store, iris, ids=ids)
    generation = store.generation
    facts_page = page(limit, facts_cursor, list_name="facts", subject=iri, generation=generation)
    sources_page = page(limit, sources_cursor, list_name="sources", subject=iri, generation=generation)
    labels, alt, types, asserted_types, descriptions = set(), set(), set(), set(), set()
    for row in solutions(store.query(DESCRIBE, substitutions={"e": entity}, **lookup.dataset)):
        kind = lookup.counts(row["g"].value if row["g"] is not None else "")
        if kind is None:
            continue
        p, v = row["p"].value, row["v"].value
        if p.endswith("#type"):
            types.add(v)
            if kind == "asserted":
                asserted_types.add(v)
        elif p.endswith(("#label", "#prefLabel")):
            labels.add(v)
        elif p.endswith("#altLabel"):
            alt.add(v)
        elif p != ATT + "confidence":
            descriptions.add(v)
    if not labels and not types:
        raise NotFound(f"no entity with id '{entity_id[:200]}'", id=entity_id[:200])
    rows = solutions(store.query(CONFIDENCE, substitutions={"e": entity}))
    confidence = next((float(r["confidence"].value) for r in rows if r["confidence"] is not None), None)
    facts, facts_more = _facts(store, iris, lookup, entity, facts_page) if facts_cursor or not sources_cursor else ([], False)
    sources, sources_more = _sources(store, entity, sources_page) if sources_cursor or not facts_cursor else ([], False)
    return {
        "id": ids.of(iri) or entity_id, "iri": iri,
        "label": sorted(labels)[0] if labels else entity_id, "labels": sorted(labels), "alt_labels": sorted(alt - labels),
        "types": sorted(types), "inferred_types": sorted(types - asserted_types),
        "descriptions": sorted(descriptions), "confidence": confidence,
        "facts": facts,
        "facts_next": next_cursor(facts_page, len(facts), facts_more, list_name="facts", subject=iri, generation=generation),
        "sources": sources,
        "sources_next": next_cursor(sources_page, len(sources), sources_more, list_name="sources", subject=iri,
                                    generation=generation),
        "limit": facts_page.limit, "limit_capped": facts_page.capped,
    }


def _facts(store: GraphStore, iris: Iris, lookup: GraphLookup, entity: NamedNode,
           at: Page) -> tuple[list[dict[str, Any]], bool]:
    query = FACTS % (at.limit + 1, at.offset)
    rows = list(solutions(store.query(query, substitutions={"e": entity}, **lookup.dataset)))
    more = len(rows) > at.limit
    triples = [(r["s"].value, r["p"].value, r["o"].value if isinstance(r["o"], NamedNode) else str(r["o"]))
               for r in rows[:at.limit]]
    status = lookup.status(triples)
    support = lookup.documents(triples)
    only_inferred = [t for t in triples if (st := status.get(t)) is not None and st.inferred and not st.asserted]
    depths = DerivationRecords(store, iris).depths(only_inferred) if only_inferred else {}
    doc_prefix = iris.document_graph_prefix
    labels = lookup.labels_of({s for s, _, _ in triples} | {o for _, _, o in triples if not is_literal(o)})
    out = []
    for (s, p, o), row in zip(triples, rows):
        st = status.get((s, p, o))
        fact = {"subject": s, "subject_label": labels.get(s), "predicate": p,
                "object": o if isinstance(row["o"], NamedNode) else None,
                "object_label": labels.get(o) if isinstance(row["o"], NamedNode) else None,
                "value": row["o"].value if isinstance(row["o"], Literal) else None,
                "asserted": bool(st and st.asserted) or isinstance(row["o"], Literal), "inferred": bool(st and st.inferred),
                "document_count": min(len(support.get((s, p, o), [])), SUPPORT_CAP),
                "document_count_capped": len(support.get((s, p, o), [])) > SUPPORT_CAP,
                "documents": [g.removeprefix(doc_prefix) for g in support.get((s, p, o), [])[:MAX_DOCUMENTS]],
                "depth": 0 if not st or st.asserted or isinstance(row["o"], Literal) else depths.get((s, p, o)),
                "confidence": None, "chunks": []}
        term = Triple(row["s"], row["p"], row["o"])
        # GraphStore.query's substitutions type (store/base.py Term) omits the triple terms pyoxigraph takes
        statements = store.query(STATEMENTS % MAX_CHUNKS, substitutions={"t": term})  # type: ignore[dict-item]
        for r in solutions(statements):
            fact["confidence"] = max(float(r["confidence"].value), fact["confidence"] or 0.0)
            if r["chunk"] is not None and r["chunk"].value not in fact["chunks"]:
                fact["chunks"].append(r["chunk"].value)
        out.append(fact)
    return out, more


def _sources(store: GraphStore, entity: NamedNode, at: Page) -> tuple[list[dict[str, Any]], bool]:
    rows = list(solutions(store.query(SOURCES % (at.limit + 1, at.offset), substitutions={"e": entity})))
    return [{"document": r["doc"].value, "source": r["source"].value if r["source"] else None,
             "chunk": r["chunk"].value, "surface_form": r["surface"].value,
             "start": int(r["start"].value) if r["start"] else None, "end": int(r["end"].value) if r["end"] else None}
            for r in rows[:at.limit]], len(rows) > at.limit
