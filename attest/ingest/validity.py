"""Valid time of facts (graph/validity): each dated or changing fact's interval, and which newer statement closed it,
recomputed for the (subject, predicate) pairs a write touches, in the same transaction as the write."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from pyoxigraph import Literal, NamedNode, Quad, QuerySolutions, Triple

from attest.store import GraphStore
from attest.store.rdfio import quad_data
from attest.store.results import solutions
from attest.vocab import ATT, OWL, PROV, RDF, XSD, Iris

REIFIES = NamedNode(RDF + "reifies")
VALID_FROM, VALID_TO = NamedNode(ATT + "validFrom"), NamedNode(ATT + "validTo")
SUPERSEDED_BY, SUPERSEDED_IN = NamedNode(ATT + "supersededBy"), NamedNode(ATT + "supersededIn")
ABOUT = NamedNode(ATT + "about")  # a record's fact's subject: the index a lookup by subject starts from
EVENT_TIME, STARTED = NamedNode(ATT + "eventTime"), NamedNode(PROV + "startedAtTime")
DATE = NamedNode(XSD + "date")
CHANGING = f"""SELECT DISTINCT ?p WHERE {{ GRAPH %s {{
  {{ ?p a <{OWL}FunctionalProperty> }} UNION {{ ?p <{ATT}changesOverTime> true }} }} }}"""

Key = tuple[NamedNode, NamedNode]  # (subject, predicate)
Fact = tuple[Any, Any, Any]  # (subject, predicate, object) pyoxigraph terms


def _select(store: GraphStore, query: str) -> QuerySolutions:
    return solutions(store.query(query))


@dataclass(frozen=True)
class Occurrence:
    """One document's statement of a fact, with the valid time it gives and the document's own time."""

    document: str  # document graph IRI
    subject: NamedNode
    predicate: NamedNode
    object: Any  # a pyoxigraph term
    valid_from: date | None
    valid_to: date | None
    stated: date  # the turn's event time, else the extraction's start


@dataclass
class Interval:
    """A fact's validity as computed: open ends are None; `superseded_by` is the object of the fact that closed it."""

    subject: NamedNode
    predicate: NamedNode
    object: Any
    valid_from: date | None
    valid_to: date | None
    superseded_by: Any = None
    superseded_in: str | None = None  # the document graph stating the newer fact


def changing_predicates(store: GraphStore, iris: Iris) -> frozenset[str]:
    """Predicates whose newer statement closes an older one: owl:FunctionalProperty or att:changesOverTime."""
    rows = _select(store, CHANGING % NamedNode(iris.ontology_graph))
    return frozenset(row["p"].value for row in rows if isinstance(row["p"], NamedNode))


def record_iri(iris: Iris, s: object, p: object, o: object) -> NamedNode:
    digest = hashlib.sha256(f"{s} {p} {o}".encode()).hexdigest()[:20]
    return NamedNode(f"{iris.base}validity/{digest}")


def _day(term: object) -> date | None:
    if not isinstance(term, Literal):
        return None
    try:
        if term.datatype == DATE:
            return date.fromisoformat(term.value)
        return datetime.fromisoformat(term.value.replace("Z", "+00:00")).date()
    except ValueError:
        return None


_DATES = frozenset({VALID_FROM.value, VALID_TO.value})
_READ = _DATES | {REIFIES.value, EVENT_TIME.value, STARTED.value}  # the predicates a document's statements are read from


def occurrences_in(iris: Iris, graph: str, quads: Iterable[Quad]) -> list[Occurrence]:
    """The dated or undated statements of one document graph, read from its quads (a write not yet made)."""
    dates: dict[object, dict[str, date | None]] = {}
    reified: dict[object, Triple] = {}
    event: list[date] = []
    started: list[date] = []
    for q in quads:  # one pass, each quad's predicate read once: a batch reads every quad of its documents
        if (pred := q.predicate.value) not in _READ:
            continue
        if pred == REIFIES.value:
            if isinstance(t := q.object, Triple):
                reified[q.subject] = t
        elif pred in _DATES:
            dates.setdefault(q.subject, {})[pred] = _day(q.object)
        elif (day := _day(q.object)) is not None:
            (event if pred == EVENT_TIME.value else started).append(day)
    stated = min(event or started or [date.min])
    out = []
    for st, t in reified.items():
        if isinstance(t.subject, NamedNode) and t.subject.value.startswith(iris.entity_prefix):
            d = dates.get(st, {})
            out.append(Occurrence(graph, t.subject, t.predicate, t.object, d.get(VALID_FROM.value),
                                  d.get(VALID_TO.value), stated))
    return out


def keys_of(occurrences: Iterable[Occurrence], changing: frozenset[str]) -> set[Key]:
    """The pairs whose records an occurrence can change: a changing predicate's, or a dated fact's."""
    return {(o.subject, o.predicate) for o in occurrences
            if o.predicate.value in changing or o.valid_from is not None or o.valid_to is not None}


# no OPTIONAL: pyoxigraph matches an OPTIONAL's pattern on its own first (every date of the store); a statement's
# reifies row is always there, its dates come as more rows of the same ?st
STORED = f"""SELECT ?g ?s ?p ?o ?st ?sp ?sv WHERE {{
  GRAPH ?g {{ ?s ?p ?o . ?st <{RDF}reifies> <<( ?s ?p ?o )>> ; ?sp ?sv }}
  FILTER(STRSTARTS(STR(?g), %s) && ?sp IN (<{RDF}reifies>, <{ATT}validFrom>, <{ATT}validTo>))
}}"""
STATED = f"""SELECT ?g ?t ?kind WHERE {{ GRAPH ?g {{ {{ ?d <{ATT}eventTime> ?t BIND("event" AS ?kind) }}
  UNION {{ ?a <{PROV}startedAtTime> ?t BIND("run" AS ?kind) }} }} }}"""


def stored_occurrences(store: GraphStore, iris: Iris, keys: set[Key] | None, skip: set[str]) -> list[Occurrence]:
    """The statements of the given pairs (None: all) in the stored document graphs other than `skip`."""
    if keys is not None and not keys:
        return []
    values = "" if keys is None else "VALUES (?s ?p) { " + " ".join(f"({s} {p})" for s, p in keys) + " }"
    query = (STORED % Literal(iris.document_graph_prefix)).replace("WHERE {", "WHERE { " + values, 1)
    statements: dict[tuple[str, object], dict[str, Any]] = {}
    for r in _select(store, query):
        if r["g"].value not in skip and r["s"].value.startswith(iris.entity_prefix):
            found = statements.setdefault((r["g"].value, r["st"]), {"g": r["g"].value, "s": r["s"], "p": r["p"], "o": r["o"]})
            found[r["sp"].value] = r["sv"]
    rows = list(statements.values())
    graphs = sorted({r["g"] for r in rows})
    stated: dict[str, list[date]] = {}
    if graphs:
        values = "VALUES ?g { " + " ".join(str(NamedNode(g)) for g in graphs) + " }"
        event: set[str] = set()
        for r in _select(store, STATED.replace("WHERE {", "WHERE { " + values, 1)):
            if (d := _day(r["t"])) is None:
                continue
            g = r["g"].value
            if r["kind"].value == "event" and g not in event:  # a turn's event time wins over the extraction's
                event.add(g)
                stated[g] = []
            if r["kind"].value == "event" or g not in event:
                stated.setdefault(g, []).append(d)
    return [Occurrence(r["g"], r["s"], r["p"], r["o"], _day(r.get(VALID_FROM.value)), _day(r.get(VALID_TO.value)),
                       min(stated.get(r["g"]) or [date.min])) for r in rows]


def as_stored(iris: Iris, graph: str, quads: Iterable[Quad]) -> tuple[list[Occurrence], set[Key]]:
    """What `stored_occurrences` reads from document graph `graph` once it holds the quads of `quads` in it, without
    reading it; and the pairs for which that read picks one of several rows (a statement node that reifies two
    stated facts, or has two starts or two ends), which only the store can tell."""
    if not graph.startswith(iris.document_graph_prefix):
        return [], set()
    name = NamedNode(graph)
    quads = list(quads)
    reifies: list[tuple[object, Triple]] = []
    dates: dict[object, dict[str, set[object]]] = {}
    event: list[date] = []
    started: list[date] = []
    for q in quads:  # one pass, as occurrences_in
        if (pred := q.predicate.value) not in _READ or q.graph_name != name:
            continue
        if pred == REIFIES.value:
            if isinstance(t := q.object, Triple):
                reifies.append((q.subject, t))
        elif pred in _DATES:
            dates.setdefault(q.subject, {}).setdefault(pred, set()).add(q.object)
        elif (day := _day(q.object)) is not None:
            (event if pred == EVENT_TIME.value else started).append(day)
    stated = min(event or started or [date.min])
    facts: dict[object, set[tuple[NamedNode, NamedNode, Any]]] = {}  # statement node -> the stated facts it reifies
    wanted = {Quad(t.subject, t.predicate, t.object, name) for _, t in reifies
              if isinstance(t.subject, NamedNode) and t.subject.value.startswith(iris.entity_prefix)}
    stated_facts = wanted.intersection(quads)  # only a fact the graph states is read (the query's ?s ?p ?o)
    for node, t in reifies:
        s = t.subject
        if isinstance(s, NamedNode) and Quad(s, t.predicate, t.object, name) in stated_facts:
            facts.setdefault(node, set()).add((s, t.predicate, t.object))
    out: list[Occurrence] = []
    unsure: set[Key] = set()
    for node, triples in facts.items():
        d = dates.get(node, {})
        if len(triples) > 1 or any(len(values) > 1 for values in d.values()):
            unsure.update((s, p) for s, p, _ in triples)
            continue
        ((s, p, o),) = triples
        start, end = (_day(next(iter(d[k]))) if k in d else None for k in (VALID_FROM.value, VALID_TO.value))
        out.append(Occurrence(graph, s, p, o, start, end, stated))
    return out, unsure


@dataclass
class StoredStatements:
    """The stored statements of the pairs one bulk ingest's batches read (`change`), kept for its next batches with
    each fact's `summaries`: a hub's pair is restated by many documents, and reading (or going over) all of them
    again for every batch grows with the store.

    Kept exact by what the caller tells: it writes the documents of each `change` as given, then says the store's
    `generation` once that write and what follows it are done (`settled`); only then are those documents'
    statements (`as_stored`) added. Any other write in between (another document's commit, a deletion, a SPARQL
    update) moves the generation, and everything kept is dropped, to be read again from the store."""

    generation: int | None = None  # the store's generation when `known` was current
    known: dict[Key, list[Occurrence]] = field(default_factory=dict)  # every stored statement of each kept pair
    documents: set[str] = field(default_factory=set)  # the document graphs of those statements
    facts: dict[Key, dict[object, Summary]] = field(default_factory=dict)  # `summaries` of `known`
    pending: dict[str, list[Quad]] | None = None  # the last change's documents, until written (None: no change)

    def current(self, store: GraphStore) -> None:
        """Drop everything kept if the store was written since the last settled write (and a change not written)."""
        if self.generation != store.generation:
            self.generation, self.known, self.documents, self.facts = None, {}, set(), {}
        self.pending = None

    def settled(self, iris: Iris, generation: int) -> None:
        """The last change's documents are written as given, and the store is at `generation` after that write
        (nothing to do without a change since `current`: the generation stays the one that made `known` current)."""
        if self.pending is None:
            return
        if not self.documents.isdisjoint(self.pending):  # a stored document written again
            for key, occs in self.known.items():
                occs[:] = [o for o in occs if o.document not in self.pending]
                self.facts[key] = summaries(occs).get(key, {})
        for graph, quads in self.pending.items():
            found, unsure = as_stored(iris, graph, quads)
            for o in found:
                if (key := (o.subject, o.predicate)) in self.known:
                    self.known[key].append(o)
                    self.facts[key][o.object] = _add(self.facts[key].get(o.object), o)
                    self.documents.add(graph)
            for key in unsure:
                self.known.pop(key, None)
                self.facts.pop(key, None)
        self.generation, self.pending = generation, None

    def occurrences(self, store: GraphStore, iris: Iris, keys: set[Key], skip: set[str]) -> list[Occurrence]:
        """What `stored_occurrences(store, iris, keys, skip)` returns now (after `current`), reading the pairs not
        kept."""
        missing = keys - self.known.keys()
        for key in missing:
            self.known[key] = []
        found = stored_occurrences(store, iris, missing, set())
        for o in found:
            self.known[(o.subject, o.predicate)].append(o)
            self.documents.add(o.document)
        read = summaries(found)
        self.facts.update({key: read.get(key, {}) for key in missing})
        return [o for key in keys for o in self.known[key] if o.document not in skip]

    def summaries(self, store: GraphStore, iris: Iris, keys: set[Key],
                  skip: set[str]) -> dict[Key, dict[object, Summary]] | None:
        """What `summaries` of `occurrences(...)` gives, from the kept summaries (copies); None where `skip` names a
        document of kept statements (then only the statements tell)."""
        self.occurrences(store, iris, keys - self.known.keys(), skip)
        if not self.documents.isdisjoint(skip):
            return None
        return {key: dict(self.facts[key]) for key in keys}


def intervals(occurrences: Iterable[Occurrence], changing: frozenset[str]) -> list[Interval]:
    """Each fact's interval from every statement of it. A fact's start is its earliest validFrom; its end its
    latest validTo, or the day before a newer fact of a changing predicate about the same subject begins.
    Newer: a dated fact only by a later validFrom of a dated one (a fact restated with no date never closes a
    dated one); an undated fact by any fact stated later (the document's or turn's time)."""
    return _intervals(summaries(occurrences), changing)


# what a fact's interval needs of its statements: (earliest validFrom, latest validFrom, latest statement time,
# latest validTo, the latest start as (validFrom or day one, statement time, document)); adding a statement is exact
Summary = tuple[date | None, date | None, date, date | None, tuple[date, date, str]]


def summaries(occurrences: Iterable[Occurrence]) -> dict[Key, dict[object, Summary]]:
    """Each pair's facts (object -> the summary of its statements)."""
    out: dict[Key, dict[object, Summary]] = {}
    for occ in occurrences:
        facts = out.setdefault((occ.subject, occ.predicate), {})
        facts[occ.object] = _add(facts.get(occ.object), occ)
    return out


def _add(summary: Summary | None, occ: Occurrence) -> Summary:
    start, end, latest = occ.valid_from, occ.valid_to, (occ.valid_from or date.min, occ.stated, occ.document)
    if summary is None:
        return start, start, occ.stated, end, latest
    first, last, stated, to, top = summary
    return (first if start is None or first is not None and first <= start else start,
            last if start is None or last is not None and last >= start else start,
            max(stated, occ.stated), to if end is None or to is not None and to >= end else end, max(top, latest))


def _intervals(facts: Mapping[Key, Mapping[object, Summary]], changing: frozenset[str]) -> list[Interval]:
    out = []
    for (s, p), summary in facts.items():
        for o, (first, last_dated, last_stated, to, _) in summary.items():
            closer = None
            if p.value in changing:
                newer = []
                for other, (_, other_dated, other_stated, _, (_, _, doc)) in summary.items():
                    if other == o:
                        continue
                    if last_dated is not None:
                        if other_dated is not None and other_dated > last_dated:
                            newer.append((other_dated, str(other), other, doc))
                    elif other_stated > last_stated:
                        newer.append((other_dated or other_stated, str(other), other, doc))
                closer = min(newer, key=lambda n: (n[0], n[1])) if newer else None
            end, by, where = to, None, None
            if closer is not None and (to is None or closer[0] - timedelta(days=1) < to):
                end, by, where = closer[0] - timedelta(days=1), closer[2], closer[3]
            out.append(Interval(s, p, o, first, end, by, where))
    return out


def record_quads(iris: Iris, found: Iterable[Interval]) -> list[Quad]:
    """The records of the intervals that say something (a date or a supersession)."""
    g = NamedNode(iris.validity_graph)
    out = []
    for iv in found:
        if iv.valid_from is None and iv.valid_to is None and iv.superseded_by is None:
            continue
        r = record_iri(iris, iv.subject, iv.predicate, iv.object)
        out.append(Quad(r, REIFIES, Triple(iv.subject, iv.predicate, iv.object), g))
        out.append(Quad(r, ABOUT, iv.subject, g))
        if iv.valid_from is not None:
            out.append(Quad(r, VALID_FROM, Literal(iv.valid_from.isoformat(), datatype=DATE), g))
        if iv.valid_to is not None:
            out.append(Quad(r, VALID_TO, Literal(iv.valid_to.isoformat(), datatype=DATE), g))
        if iv.superseded_by is not None:
            out.append(Quad(r, SUPERSEDED_BY, record_iri(iris, iv.subject, iv.predicate, iv.superseded_by), g))
        if iv.superseded_in is not None:
            doc = iv.superseded_in.removeprefix(iris.document_graph_prefix)
            out.append(Quad(r, SUPERSEDED_IN, NamedNode(iris.document(doc)), g))
    return out


def _drop_keys(iris: Iris, keys: set[Key]) -> str:
    values = " ".join(f"({s} {p})" for s, p in keys)
    return f"""DELETE {{ GRAPH <{iris.validity_graph}> {{ ?r ?rp ?ro }} }} WHERE {{ VALUES (?s ?p) {{ {values} }}
  GRAPH <{iris.validity_graph}> {{ ?r <{ATT}about> ?s ; <{RDF}reifies> <<( ?s ?p ?o )>> ; ?rp ?ro }} }}"""


@dataclass
class Change:
    """What a write does to graph/validity: the update operations, and the facts whose interval it changes."""

    operations: list[str]
    triples: set[Fact]


def change(store: GraphStore, iris: Iris, documents: Mapping[str, list[Quad]],
           kept: StoredStatements | None = None) -> Change:
    """The validity change of writing each of `documents` (document graph -> its new quads, [] to delete it):
    the records of every pair either version of them states, recomputed from all document graphs as they will be.
    `kept`: the stored statements earlier changes read, for a caller that writes every change it is given and
    then tells the store's generation (`StoredStatements.settled`)."""
    if kept is None:
        return _change(store, iris, documents, None)
    kept.current(store)
    found = _change(store, iris, documents, kept)
    kept.pending = dict(documents)
    return found


def _change(store: GraphStore, iris: Iris, documents: Mapping[str, list[Quad]], kept: StoredStatements | None) -> Change:
    changing = changing_predicates(store, iris)
    new = [o for g, quads in documents.items() for o in occurrences_in(iris, g, quads)]
    keys = keys_of(new, changing)
    if documents:
        old_values = " ".join(str(NamedNode(g)) for g in documents)
        for row in _select(store, f"""SELECT DISTINCT ?t ?sp WHERE {{ VALUES ?g {{ {old_values} }}
          GRAPH ?g {{ ?st <{RDF}reifies> ?t ; ?sp ?sv }}
          FILTER(?sp IN (<{RDF}reifies>, <{ATT}validFrom>, <{ATT}validTo>)) }}"""):
            t = row["t"]
            if not isinstance(t, Triple):
                continue
            s, p = t.subject, t.predicate
            if isinstance(s, NamedNode) and s.value.startswith(iris.entity_prefix) and (
                    p.value in changing or row["sp"] != REIFIES):
                keys.add((s, p))
    if not keys:
        return Change([], set())
    summed = kept.summaries(store, iris, keys, set(documents)) if kept is not None else None
    if summed is not None:  # the kept pairs' summaries, with the new statements added
        for o in new:
            if (key := (o.subject, o.predicate)) in summed:
                summed[key][o.object] = _add(summed[key].get(o.object), o)
        found = _intervals(summed, changing)
    else:
        stored = (kept.occurrences(store, iris, keys, set(documents)) if kept is not None
                  else stored_occurrences(store, iris, keys, set(documents)))
        found = intervals(stored + [o for o in new if (o.subject, o.predicate) in keys], changing)
    before = _held(store, iris, keys)
    after_quads = record_quads(iris, found)
    after = {(q.subject, q.predicate, q.object) for q in after_quads}
    ops = [_drop_keys(iris, keys)]
    if after_quads:
        ops.append(quad_data("INSERT DATA", after_quads))
    facts = {r: (t.subject, t.predicate, t.object) for r, p, t in before | after if p == REIFIES and isinstance(t, Triple)}
    return Change(ops, {facts[r] for r, _, _ in before ^ after if r in facts})


def _held(store: GraphStore, iris: Iris, keys: set[Key]) -> set[Fact]:
    values = " ".join(f"({s} {p})" for s, p in keys)
    rows = _select(store, f"""SELECT ?r ?rp ?ro WHERE {{ VALUES (?s ?p) {{ {values} }}
      GRAPH <{iris.validity_graph}> {{ ?r <{ATT}about> ?s ; <{RDF}reifies> <<( ?s ?p ?o )>> ; ?rp ?ro }} }}""")
    return {(r["r"], r["rp"], r["ro"]) for r in rows}


def recomputed(store: GraphStore, iris: Iris) -> list[Quad]:
    """What graph/validity holds when computed from every stored document graph at once."""
    changing = changing_predicates(store, iris)
    occurrences = stored_occurrences(store, iris, None, set())
    keys = keys_of(occurrences, changing)
    return record_quads(iris, intervals([o for o in occurrences if (o.subject, o.predicate) in keys], changing))


def rebuild(store: GraphStore, iris: Iris) -> None:
    """Recompute graph/validity from every document graph, in one update."""
    quads = recomputed(store, iris)
    ops = [f"DROP SILENT GRAPH <{iris.validity_graph}>"]
    if quads:
        ops.append(quad_data("INSERT DATA", quads))
    store.update(" ;\n".join(ops))


def not_holding(store: GraphStore, iris: Iris, day: date) -> set[Fact]:
    """The facts (as terms) that do not hold on `day`: ended, replaced by a newer one, or not begun."""
    on = Literal(day.isoformat(), datatype=DATE)
    rows = _select(store, f"""SELECT ?s ?p ?o WHERE {{ GRAPH <{iris.validity_graph}> {{ ?r <{RDF}reifies> <<( ?s ?p ?o )>>
      OPTIONAL {{ ?r <{ATT}validFrom> ?from }} OPTIONAL {{ ?r <{ATT}validTo> ?to }} }}
      FILTER((BOUND(?to) && ?to < {on}) || (BOUND(?from) && ?from > {on})) }}""")
    return {(r["s"], r["p"], r["o"]) for r in rows}


def future_dates(quads: Iterable[Quad], today: date | None = None) -> list[str]:
    """Warnings for a document dated in the future: facts valid only from a later day, a turn's event time to come."""
    today = today or date.today()
    facts = sorted({d for q in quads if q.predicate == VALID_FROM and (d := _day(q.object)) and d > today})
    events = sorted({d for q in quads if q.predicate == EVENT_TIME and (d := _day(q.object)) and d > today})
    out = []
    if facts:
        out.append(f"{len(facts)} date(s) in the future (valid from {', '.join(map(str, facts[:3]))}): stored, but "
                   f"not current until then")
    if events:
        out.append(f"the turn is dated in the future ({events[0]}): stored as said")
    return out
