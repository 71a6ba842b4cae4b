"""Read-only JSON the browser pages draw: an entity's neighbourhood, a chunk's passage, the ontology's term trees."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.responses import PlainTextResponse
from pyoxigraph import NamedNode

from attest.answer.lookup import FactStatus, GraphLookup, Triple
from attest.answer.service import answer_ids
from attest.api.deps import IrisDep, SettingsDep, StoreDep
from attest.errors import BadRequest, NotFound
from attest.ontology import ontology_files, term_sources
from attest.store.results import solutions
from attest.settings import Settings
from attest.vocab import ONT, OWL, PREFIXES, RDF, RDFS, is_valid_id

router = APIRouter(tags=["browse"])

_PREFIXES = "".join(f"PREFIX {k}: <{v}>\n" for k, v in PREFIXES.items())
MAX_NODES = 120  # a neighbourhood drawn in a browser: beyond this a picture says less than the entity page's lists
HUB_DEGREE = 2000  # triples touching an entity beyond which a neighbourhood does not walk on through it
NOT_EDGES = (ONT + "mentions", ONT + "mentionedIn")  # chunk-to-entity links, not facts between entities

# the chunk's text and place in its document (from the document graph), and the document's source name
PASSAGE = _PREFIXES + """
SELECT ?text ?doc ?start ?end ?source ?c WHERE {
  GRAPH ?g { ?c att:text ?text ; att:inDocument ?doc . OPTIONAL { ?c att:charStart ?start ; att:charEnd ?end } }
  OPTIONAL { GRAPH ?h { ?doc att:source ?source } }
} LIMIT 1"""

# the entity mentions recorded in the chunk, with their character span in the chunk's text
MENTIONS = _PREFIXES + """
SELECT DISTINCT ?e ?start ?end ?surface ?c WHERE {
  GRAPH ?g {
    ?m att:inChunk ?c ; att:denotes ?e ; att:charStart ?start ; att:charEnd ?end .
    OPTIONAL { ?m att:surfaceForm ?form } OPTIONAL { FILTER(!BOUND(?form)) ?e rdfs:label ?label }
    BIND(COALESCE(?form, ?label) AS ?surface)
  }
} ORDER BY ?start ?end"""

ONTOLOGY_TERMS = _PREFIXES + """
SELECT ?term ?kind ?p ?v ?g WHERE {
  GRAPH ?g {
    VALUES ?kind { owl:Class rdfs:Class owl:ObjectProperty owl:DatatypeProperty owl:AnnotationProperty }
    ?term a ?kind . FILTER(isIRI(?term))
    OPTIONAL { VALUES ?p { rdfs:label rdfs:comment rdfs:subClassOf rdfs:subPropertyOf rdfs:domain rdfs:range
                           owl:inverseOf rdf:type skos:altLabel }
               ?term ?p ?v FILTER(isIRI(?v) || isLiteral(?v)) }
  }
}"""

# entities per class, asserted and inferred types together (every class of the ontology graph, zero included)
CLASS_COUNTS = _PREFIXES + """
SELECT ?class (COUNT(DISTINCT ?x) AS ?n) ?o WHERE {
  GRAPH ?o { ?class a owl:Class FILTER(isIRI(?class)) }
  OPTIONAL { ?x a ?class FILTER(isIRI(?x)) }
} GROUP BY ?class ?o"""


@router.get("/neighbourhood")
def neighbourhood(store: StoreDep, iris: IrisDep, settings: SettingsDep,
                  entity: Annotated[str, Query(min_length=1, max_length=2000, description="Entity id, CURIE or IRI")],
                  hops: Annotated[int, Query(ge=1, le=2, description="Hops of facts from the entity, 1 or 2")] = 1,
                  inferred: Annotated[bool, Query(description="Include facts that are only inferred")] = True,
                  ) -> dict[str, object]:
    """The entities within `hops` facts of the entity and the facts between them (at most 120 entities, nearest
    first; `truncated` when more are linked or a hub on the way was not walked through), each node with its label, its
    most specific asserted class and its degree in the returned graph."""
    ids = answer_ids(settings, iris)
    iri = ids.iri(entity)
    if iri is None:
        raise NotFound(f"no entity with id '{entity[:200]}'", id=entity[:200])
    lookup = GraphLookup(store, iris, ids=ids)
    if iri not in lookup.labels_of([iri]):
        raise NotFound(f"no entity with id '{entity[:200]}'", id=entity[:200])
    nodes: dict[str, int] = {iri: 0}
    edges: dict[Triple, bool] = {}  # (s, p, o) -> only inferred
    frontier, truncated = [iri], False
    for hop in range(1, hops + 1):
        if hop > 1:
            frontier, cut = _walkable(lookup, frontier)
            truncated = truncated or cut
        found = lookup.facts_touching(frontier)
        candidates = {end for (s, p, o), st in found.items() if _is_edge(lookup, s, p, o, st, inferred)
                      for end in (s, o) if end not in nodes}
        labelled = lookup.labels_of(sorted(candidates))  # an entity has a label; chunks and values have none
        frontier = []
        for other in sorted(labelled):
            if len(nodes) >= MAX_NODES:
                truncated = True
                break
            nodes[other] = hop
            frontier.append(other)
        _add_edges(lookup, found, nodes, edges, inferred)
    outer, cut = _walkable(lookup, frontier)
    _add_edges(lookup, lookup.facts_touching(outer), nodes, edges, inferred)  # among the outermost ring
    truncated = truncated or cut
    details = lookup.details(list(nodes))
    degree = dict.fromkeys(nodes, 0)
    for s, _, o in edges:
        degree[s] += 1
        degree[o] += 1
    return {
        "center": ids.of(iri) or iri, "hops": hops, "inferred": inferred, "truncated": truncated,
        "nodes": [{"id": ids.of(n) or n, "iri": n, "label": details[n].label if n in details else ids.of(n) or n,
                   "class": _main_class(details[n].types if n in details else []), "hop": hop, "degree": degree[n]}
                  for n, hop in nodes.items()],
        "edges": [{"source": ids.of(s) or s, "target": ids.of(o) or o, "predicate": p,
                   "label": _local_name(p), "inferred": only_inferred}
                  for (s, p, o), only_inferred in sorted(edges.items())],
    }


def _walkable(lookup: GraphLookup, frontier: list[str]) -> tuple[list[str], bool]:
    """The frontier without its hubs (whose thousands of facts are not read to draw a picture; they stay drawn,
    unexpanded), and whether any was left out."""
    degrees = lookup.degrees(frontier)
    kept = [n for n in frontier if degrees.get(n, 0) <= HUB_DEGREE]
    return kept, len(kept) < len(frontier)


def _add_edges(lookup: GraphLookup, found: dict[Triple, FactStatus], nodes: dict[str, int], edges: dict[Triple, bool],
               inferred: bool) -> None:
    for (s, p, o), st in found.items():
        if s in nodes and o in nodes and _is_edge(lookup, s, p, o, st, inferred):
            edges[(s, p, o)] = not st.asserted


def _is_edge(lookup: GraphLookup, s: str, p: str, o: str, status: FactStatus, inferred: bool) -> bool:
    return (p not in NOT_EDGES and s != o and lookup.is_node(o) and lookup.is_node(s)
            and (status.asserted or (inferred and status.inferred)))


def _local_name(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1] or iri


def _main_class(types: list[str]) -> str | None:
    """The class a node is drawn in: an ontology class other than the roots every entity has."""
    own = [t for t in types if t.startswith(ONT) and t not in (ONT + "Entity", ONT + "Topic")]
    ranked = own or [t for t in types if t.startswith(ONT)] or types
    return ranked[0] if ranked else None


@router.get("/passages/{chunk_id}")
def passage(chunk_id: str, store: StoreDep, iris: IrisDep, settings: SettingsDep) -> dict[str, object]:
    """A chunk's text, where it sits in its document, and the entity mentions in it with their spans (offsets
    into `text`)."""
    if not is_valid_id(chunk_id):
        raise BadRequest("a chunk id is [A-Za-z0-9._~-], at most 200 characters", field="chunk_id")
    chunk = NamedNode(iris.chunk(chunk_id))
    row = next(iter(solutions(store.query(PASSAGE, substitutions={"c": chunk}))), None)
    if row is None:
        raise NotFound(f"no chunk with id '{chunk_id}'", id=chunk_id)
    ids = answer_ids(settings, iris)
    doc_prefix = iris.document("")
    start = int(row["start"].value) if row["start"] else None
    text = row["text"].value
    mentions = []
    for m in solutions(store.query(MENTIONS, substitutions={"c": chunk})):
        span = _span_in_text(text, int(m["start"].value) - (start or 0), int(m["end"].value) - (start or 0),
                             m["surface"].value if m["surface"] else None)
        if span is not None:
            mentions.append({"entity": ids.of(m["e"].value) or m["e"].value, "start": span[0], "end": span[1]})
    return {"chunk": chunk_id, "document": row["doc"].value.removeprefix(doc_prefix),
            "source": row["source"].value if row["source"] else None, "text": text, "start": start,
            "end": int(row["end"].value) if row["end"] else None, "mentions": mentions}


def _span_in_text(text: str, start: int, end: int, surface: str | None) -> tuple[int, int] | None:
    """A mention's span as offsets into the chunk's text. Spans are document offsets and the chunk's cleaned text
    can drift a few characters from the document's (collapsed whitespace), so the span is moved to the nearest
    place that reads its surface form; without one it is kept when it fits the text, else dropped."""
    if not surface:
        return (start, end) if 0 <= start < end <= len(text) else None
    lowered, wanted = text.lower(), surface.lower()
    if lowered[start:start + len(wanted)] == wanted:
        return start, start + len(wanted)
    places, at = [], lowered.find(wanted)
    while at >= 0:
        places.append(at)
        at = lowered.find(wanted, at + 1)
    if not places:
        return None
    best = min(places, key=lambda i: abs(i - start))
    return best, best + len(wanted)


@router.get("/ontology/terms")
def ontology_terms(store: StoreDep, iris: IrisDep, settings: SettingsDep) -> dict[str, object]:
    """The ontology's classes and properties with labels, comments, parents, domains and ranges, the number of
    entities per class, and the Turtle file and line that describe each term."""
    graph = NamedNode(iris.ontology_graph)
    terms: dict[str, tuple[set[str], dict[str, set[str]]]] = {}  # IRI -> (its kinds, its values by predicate)
    for row in solutions(store.query(ONTOLOGY_TERMS, substitutions={"g": graph})):
        kinds, values = terms.setdefault(row["term"].value, (set(), {}))
        kinds.add(row["kind"].value)
        if row["p"] is not None:
            values.setdefault(row["p"].value, set()).add(row["v"].value)
    counts = {r["class"].value: int(r["n"].value)
              for r in solutions(store.query(CLASS_COUNTS, substitutions={"o": graph}))}
    sources = term_sources(settings.ontology_dir, settings.ontology_modules_off)
    classes, properties = [], []
    for iri, (kinds, values) in sorted(terms.items()):
        file, line = sources.get(iri, (None, None))
        entry = {"iri": iri, "label": _first(values, RDFS + "label"), "comment": _first(values, RDFS + "comment"),
                 "file": file, "line": line}
        if kinds & {OWL + "Class", RDFS + "Class"}:
            classes.append({**entry, "parents": sorted(values.get(RDFS + "subClassOf", ())),
                            "entities": counts.get(iri, 0)})
        else:
            properties.append({**entry, **_property(kinds, values)})
    return {"classes": classes, "properties": properties,
            "files": [p.name for p in ontology_files(settings.ontology_dir, settings.ontology_modules_off)]}


def _first(values: dict[str, set[str]], predicate: str) -> str | None:
    return min(values[predicate]) if values.get(predicate) else None


def _property(kinds: set[str], values: dict[str, set[str]]) -> dict[str, object]:
    kind = next(k for k in (OWL + "ObjectProperty", OWL + "DatatypeProperty", OWL + "AnnotationProperty") if k in kinds)
    characteristics = sorted(t.removeprefix(OWL) for t in values.get(RDF + "type", ())
                             if t.startswith(OWL) and t.endswith("Property") and t != kind)
    return {"kind": kind.removeprefix(OWL), "characteristics": characteristics,
            "parents": sorted(values.get(RDFS + "subPropertyOf", ())), "domain": sorted(values.get(RDFS + "domain", ())),
            "range": sorted(values.get(RDFS + "range", ())), "inverse_of": sorted(values.get(OWL + "inverseOf", ()))}


@router.get("/ontology/files/{name}", response_class=PlainTextResponse)
def ontology_file(name: str, settings: SettingsDep) -> PlainTextResponse:
    """One of the ontology's Turtle files, as it is on disk."""
    path = ontology_source(settings, name)
    return PlainTextResponse(path.read_text(encoding="utf-8"), media_type="text/turtle; charset=utf-8")


def ontology_source(settings: Settings, name: str) -> Path:
    """The file of that name in the ontology directory; only names the directory lists are served."""
    for path in ontology_files(settings.ontology_dir, settings.ontology_modules_off):
        if path.name == name:
            return path
    raise NotFound(f"no ontology file '{name[:200]}'", file=name[:200])

