"""The Reasoner facade: reads asserted graphs from the store, keeps the closure in memory, writes inferred + records."""

from __future__ import annotations

import sys
import threading
from contextlib import nullcontext
import time
from collections.abc import Callable, Iterable, Iterator
from itertools import chain
from dataclasses import asdict, dataclass, field
from datetime import date
from typing import Any, cast

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, QuerySolutions, RdfFormat, parse

from attest.ingest import summary, validity
from attest.reasoner.engine import Delta, Engine, gc_paused
from attest.reasoner.explain import Explainer
from attest.reasoner.records import RecordWriter, is_thing_type, needed_premises, violation_iri
from attest.reasoner.stamp import ClosureStamp
from attest.reasoner.terms import THING, TYPE, Encoded, Term, TermDict
from attest.store.base import GraphStore
from attest.store.parallel import Loaders
from attest.store.rdfio import quad_data
from attest.vocab import Iris

DEFAULT = ""  # key of the store's default graph among the asserted sources
BULK_THRESHOLD = 20_000  # above this many changed triples a full rewrite of the two graphs is cheaper
RECORD_SLICE = 15_000  # inferred triples written out per bulk load (≈ 100k quads, 20 MB of N-Quads)
BULK_RECORDS = 5_000  # records written at once through the bulk loader rather than one transaction
INFERRED_COUNT = "SELECT (COUNT(*) AS ?n) WHERE {{ GRAPH <{graph}> {{ ?s ?p ?o }} }}"
STORED_STAMP = "SELECT ?v WHERE { GRAPH ?dg { ?r ?p ?v } }"


@dataclass
class ReasoningReport:
    """What a materialization did; `violations` lists each inconsistency with its rule and premises."""

    mode: str
    asserted: int
    inferred: int
    added: int = 0  # inferred triples written (new, or with a new shallowest derivation)
    removed: int = 0  # inferred triples retracted because they lost all support
    changed_graphs: list[str] = field(default_factory=list)
    violations: list[dict] = field(default_factory=list)
    seconds: float = 0.0
    reason_seconds: float = 0.0
    write_seconds: float = 0.0
    records_kept: bool = False  # a new process found the stored records already derived from these triples

    @property
    def consistent(self) -> bool:
        return not self.violations

    def to_dict(self) -> dict:
        return {**asdict(self), "consistent": self.consistent}


class Reasoner:
    """OWL 2 RL materialization of the store's asserted graphs into Iris.inferred_graph, with derivation records.

    The closure lives in memory between calls (built on first use), so a changed document costs only its
    consequences; explain, depth_of and consistency read the records from the store, so any process can use them.
    """

    def __init__(self, store: GraphStore, iris: Iris, settings=None,
                 progress: Callable[[int, int], None] | None = None) -> None:
        self.store, self.iris = store, iris
        self.max_depth = getattr(settings, "max_trace_depth", 5)
        self.progress = progress
        self.engine: Engine | None = None
        self._graphs: dict[str, set[Encoded]] = {}
        self._violations_written: set[tuple] = set()
        self._needed: set[Encoded] | None = None  # owl:Thing types written as premises (_writer)
        self._asserted_things: set[Encoded] | None = None  # asserted (x rdf:type owl:Thing), for inferred_count
        self._stamp: ClosureStamp | None = None  # of the asserted triples the engine holds (see stamp)
        self.first: ReasoningReport | None = None  # this reasoner's first (full) run
        self._lock = threading.RLock()  # one maintenance run at a time (ingest and POST /reason may overlap)
        self.explainer = Explainer(store, iris)
        self._off: set[validity.Fact] | None = None  # facts that do not hold today (graph/validity), per run
        self._held_off: set[validity.Fact] = set()  # ... as the closure last took them

    @property
    def stamp(self) -> ClosureStamp | None:
        """The closure stamp of the asserted triples the engine holds; None before the first run. A full run leaves
        it to be computed here on first use: a full write asks for it while the loaders write the records, where
        its cost (a digest per asserted triple) overlaps theirs."""
        if self._stamp is None and self.engine is not None:
            self._stamp = stamp = ClosureStamp(self.engine.terms)
            stamp.add_all(set().union(*self._graphs.values()))
        return self._stamp

    def _closure_stamp(self) -> ClosureStamp:
        stamp = self.stamp
        assert stamp is not None  # called once the closure exists
        return stamp

    # --- which graphs are asserted ---------------------------------------------------------------------------
    def is_asserted_graph(self, graph: str) -> bool:
        i = self.iris
        if graph in (i.ontology_graph, i.resolution_graph):
            return True
        return not (i.is_system_graph(graph) or graph.startswith(i.staging_graph_prefix))

    def asserted_graphs(self) -> list[str]:
        """While the fact summary is current it stands for every document graph: the reasoner reads each fact once,
        and not the documents' provenance records (chunks, mentions, statements), which no axiom is about; the
        summary also lists the other graphs to read, so the store's graphs (one or two per document) are not
        listed. Else the document graphs themselves (and not the stale summary)."""
        i = self.iris
        included = summary.included_graphs(self.store, i)
        if included is None:
            graphs = [g for g in self.store.graphs() if self.is_asserted_graph(g) and not g.startswith(i.facts_graph)]
        else:
            graphs = [g for g in (i.ontology_graph, i.resolution_graph, i.facts_graph) if self.store.has_graph(g)]
            graphs += [g for g in included if self.is_asserted_graph(g)]
        if next(iter(self._quads(DEFAULT)), None) is not None:
            graphs.append(DEFAULT)
        return graphs

    def _quads(self, graph: str) -> Iterable[Quad]:
        raw = self.store.raw
        if raw is not None:
            return raw.quads_for_pattern(None, None, None, NamedNode(graph) if graph else DefaultGraph())
        return self.store.quads(graph)  # '' is the default graph

    def _not_holding(self) -> set[validity.Fact]:
        """The facts graph/validity says do not hold today, read once per maintenance run (reset at each entry point)."""
        if self._off is None:
            self._off = validity.not_holding(self.store, self.iris, date.today())
        return self._off

    def _read(self, graph: str, terms: TermDict) -> set[Encoded]:
        enc = terms.encode
        # premises are the facts valid today; a triple term, if one comes, is kept as one more opaque term
        facts = graph == self.iris.facts_graph or graph.startswith(self.iris.document_graph_prefix)
        off = self._not_holding() if facts else set()
        return {(enc(cast(Term, q.subject)), enc(q.predicate), enc(cast(Term, q.object))) for q in self._quads(graph)
                if not off or (q.subject, q.predicate, q.object) not in off}

    # --- entry points ----------------------------------------------------------------------------------------
    def materialize(self, full: bool = False) -> ReasoningReport:
        """Bring the inferred graph up to date: from scratch when `full` or on first use, else by graph changes."""
        with self._lock, gc_paused():
            self._off = None
            return self._materialize(full)

    def _materialize(self, full: bool) -> ReasoningReport:
        if full or self.engine is None:
            return self._full(keep_records=not full)
        assert self.stamp is not None  # set with the engine
        stored = self._stored_stamps() if self._shared else None
        stamp_before = self.stamp.value()
        report = self._refresh(self._changed_by_size())
        if stored is not None and stored != [Literal(stamp_before)] and stored != [Literal(self.stamp.value())]:
            # another process reasoned over asserted triples that neither this closure's old state nor the graphs
            # that changed size account for (a graph changed in place): re-read every asserted graph and
            # maintain the closure by the difference
            again = self._refresh(sorted(set(self.asserted_graphs()) | set(self._graphs)))
            again.changed_graphs = sorted(set(report.changed_graphs) | set(again.changed_graphs))
            return again
        return report

    def _changed_by_size(self) -> list[str]:
        """Asserted graphs that appeared, went, or changed size since this closure read them."""
        current = set(self.asserted_graphs())
        known = set(self._graphs)
        sizes = self.store.graph_sizes()
        changed = (current ^ known) | {g for g in current & known
                                       if g != DEFAULT and sizes.get(g, 0) != len(self._graphs[g])}
        if DEFAULT in current:
            changed.add(DEFAULT)  # the default graph is cheap to re-read and its size may hide changes
        return sorted(changed)

    def on_graph_replaced(self, graph_iri: str) -> ReasoningReport:
        return self.refresh([graph_iri])

    def on_graph_removed(self, graph_iri: str) -> ReasoningReport:
        return self.refresh([graph_iri])

    def refresh(self, changed_graphs: Iterable[str], *, facts: set | None = None) -> ReasoningReport:
        """Re-read the given asserted graphs and maintain the closure incrementally (semi-naive add, DRed delete).
        `facts`: when document graphs changed, the summary triples that change may have added or removed; only
        those are looked up, instead of the whole summary (not on a shared store, where others write too)."""
        with self._lock, gc_paused():
            self._off = None
            return self._refresh(changed_graphs, facts=None if self._shared else facts)

    def _refresh(self, changed_graphs: Iterable[str], facts: set | None = None) -> ReasoningReport:
        if self.engine is None:
            return self._full(keep_records=True)
        start = time.perf_counter()
        e, stamp = self.engine, self.stamp
        assert stamp is not None
        # a fact that stopped or started holding since the last run (a later document replaced it, the one that
        # replaced it went, a day passed) changes the premises of every graph stating it, not only of those written
        off = self._not_holding()
        flipped, self._held_off = off ^ self._held_off, off
        if flipped:
            changed_graphs = [*changed_graphs, *self._graphs_stating(flipped)]
            facts = None if facts is None else facts | flipped
        added: list[Encoded] = []
        removed: list[Encoded] = []
        wanted = set(self.asserted_graphs())
        summarized = self.iris.facts_graph in wanted
        changed = {self.iris.facts_graph if summarized and g.startswith(self.iris.document_graph_prefix) else g
                   for g in changed_graphs}
        # a graph that became or stopped being an input (the summary came up to date or went out of it) is changed too
        graphs = sorted(g for g in changed | (wanted ^ set(self._graphs)) if g in wanted or g in self._graphs)
        for g in graphs:
            old = self._graphs.get(g, set())
            if g == self.iris.facts_graph and facts is not None and old and g in wanted:
                gained, lost = self._facts_delta(old, facts, e.terms)
                old |= gained
                old -= lost
                added.extend(gained)
                removed.extend(lost)
                continue
            new = self._read(g, e.terms) if g in wanted else set()
            removed.extend(old - new)
            added.extend(new - old)
            if new:
                self._graphs[g] = new
            else:
                self._graphs.pop(g, None)
        e.on_level = self.progress
        retracted = e.retract(removed)
        for t in set(removed):
            if t not in e.support:
                stamp.remove(t)
        new = {t for t in added if t not in e.support}
        touched = retracted.touched | e.add(added).touched
        if self._asserted_things is not None:
            self._asserted_things.difference_update(t for t in removed if t not in e.support)
            self._asserted_things.update(t for t in added if is_thing_type(t) and t in e.support)
        for t in new:
            stamp.add(t)
        reasoned = time.perf_counter()
        if added or removed:  # else nothing to write, not even the stamp: readers keep what they remember
            about = summary.iris_in(e.terms.decode(t) for t in touched)
            with self.store.writing_facts_about(about) if len(touched) <= BULK_THRESHOLD else nullcontext():
                self._write_changes(touched)
        report = self._report("incremental", start, reasoned, graphs, touched)
        report.removed = retracted.retracted
        return report

    def _graphs_stating(self, triples: set[validity.Fact]) -> set[str]:
        """The named graphs that state any of the triples."""
        listed = sorted(triples, key=str)
        out: set[str] = set()
        for i in range(0, len(listed), 500):  # VALUES rows per query
            rows = " ".join(f"({s} {p} {o})" for s, p, o in listed[i:i + 500])
            out.update(r["g"].value for r in cast(QuerySolutions, self.store.query(
                f"SELECT DISTINCT ?g WHERE {{ VALUES (?s ?p ?o) {{ {rows} }} GRAPH ?g {{ ?s ?p ?o }} }}")))
        return out

    def _facts_delta(self, held: set[Encoded], facts: set, terms: TermDict) -> tuple[set[Encoded], set[Encoded]]:
        """(gained, lost): which of `facts` the summary now holds and the closure's copy does not, and the reverse."""
        present = summary.present(self.store, self.iris, facts) - self._not_holding()
        enc = terms.encode
        now = {(enc(s), enc(p), enc(o)): (s, p, o) in present for s, p, o in facts}
        gained = {t for t, there in now.items() if there and t not in held}
        return gained, {t for t, there in now.items() if not there and t in held}

    def inferred_count(self) -> int:
        """The inferred triples the inferred graph holds (the closure less its unwritten owl:Thing types)."""
        e = self.engine
        if e is None:
            return 0
        if self._asserted_things is None:
            self._asserted_things = {t for t in e.support if is_thing_type(t)}
        typed = len(e.index.op.get(TYPE, {}).get(THING, ()))  # asserted or inferred
        needed = sum(1 for q in self._writer().needed() if q in e.why)
        return e.inferred_count() - (typed - len(self._asserted_things)) + needed

    def explain(self, s, p, o, max_depth: int | None = None) -> dict:
        return self.explainer.explain(s, p, o, max_depth or self.max_depth)

    def depth_of(self, triples) -> dict:
        return self.explainer.depth_of(triples)

    def consistency(self) -> list[dict]:
        return self.explainer.violations()

    # --- internals -------------------------------------------------------------------------------------------
    def _full(self, keep_records: bool = False) -> ReasoningReport:
        """The closure from scratch; with `keep_records`, stored records stamped with the same asserted triples
        and rules stay as they are (a new process's first run over an unchanged store)."""
        start = time.perf_counter()
        terms = TermDict()
        self._graphs = {g: self._read(g, terms) for g in self.asserted_graphs()}
        self._held_off = self._not_holding()
        self._stamp = None  # computed on first use, from self._graphs (see stamp)
        self.engine = e = Engine(terms)
        self._needed = self._asserted_things = None
        e.on_level = self.progress
        # in id order (≈ the store's subject order): the indexes then grow with better locality than in set order
        e.materialize(sorted(t for triples in self._graphs.values() for t in triples))
        reasoned = time.perf_counter()
        kept = keep_records and self._records_current()
        if kept:
            self._violations_written = set(e.violations)
        else:
            kept = not self._write_all(keep_equal=True)
        report = self._report("full", start, reasoned, sorted(self._graphs), set() if kept else set(e.inferred()))
        report.records_kept = kept
        self.first = self.first or report
        return report

    def _records_current(self) -> bool:
        """Whether the stored records carry this closure's stamp and the inferred graph holds all of it."""
        stamp = self.stamp
        if self.engine is None or stamp is None:
            return False
        if self._stored_stamps() != [stamp.quad(self.iris).object]:
            return False
        counted = cast(QuerySolutions, self.store.query(INFERRED_COUNT.format(graph=self.iris.inferred_graph)))
        stored = next(iter(counted))["n"]
        return int(stored.value) == self.inferred_count()

    @property
    def _shared(self) -> bool:
        """Whether other processes may write the store (a remote store; an embedded one is locked to this one)."""
        return self.store.raw is None

    def _stored_stamps(self) -> list:
        """The closure stamp(s) stored with the records (one when they are complete)."""
        raw = self.store.raw
        mark = ClosureStamp.quad_pattern(self.iris)
        if raw is not None:
            return [q.object for q in raw.quads_for_pattern(mark.subject, mark.predicate, None, mark.graph_name)]
        subs: dict[str, Any] = {"r": mark.subject, "p": mark.predicate, "dg": mark.graph_name}
        rows = cast(QuerySolutions, self.store.query(STORED_STAMP, substitutions=subs))
        return [row["v"] for row in rows]

    def _writer(self) -> RecordWriter:
        """A record writer that shares the owl:Thing types written as premises (RecordWriter.needed), found by one
        pass over the closure after a full run and kept up to date by each incremental write."""
        e = self.engine
        assert e is not None  # called once the closure exists
        if self._needed is None:
            self._needed = needed_premises(e)
        return RecordWriter(e, self.iris, self._needed)

    def _newly_needed(self, touched: set[Encoded]) -> set[Encoded]:
        """owl:Thing types that the touched derivations name as premises and no written record did until now: they
        are written with the touched triples (and stay written while they hold)."""
        assert self.engine is not None  # called once the closure exists
        known = self._writer().needed()
        new = needed_premises(self.engine, touched) - known
        known |= new
        return new

    def _write_all(self, keep_equal: bool = False) -> bool:
        """Replace both graphs with the whole closure's records; with `keep_equal`, leave them when they already hold
        exactly those (a full run over an unchanged store: removing them first costs more than writing them).
        Returns whether anything was written."""
        e = self.engine
        assert e is not None  # the stamp is computed from its input where it costs least (see stamp)
        self._needed = None  # found again over the whole closure: a full write keeps only what is needed now
        writer = self._writer()
        raw = self.store.raw
        if keep_equal and raw is not None and self._stored_records_equal(writer):
            self._violations_written = set(e.violations)
            return False
        violation_quads = [q for rule, prem in e.violations for q in writer.violation_quads(rule, prem)]
        if raw is None:
            quads = [*writer.all_quads(), self._closure_stamp().quad(self.iris)]
            for graph, node in ((self.iris.inferred_graph, writer.inferred), (self.iris.derivations_graph, writer.derivations)):
                self.store.replace_graph(graph, [q for q in quads if q.graph_name == node])
        else:
            # a crash inside the guard leaves a marker: the next open empties both graphs (the stamp with them),
            # and the next run re-derives them; the stamp goes in last, once every record is loaded
            with self.store.bulk_write_guard([self.iris.inferred_graph, self.iris.derivations_graph]):
                for node in (writer.inferred, writer.derivations):
                    raw.remove_graph(node)
                with Loaders() as loaders:  # each slice's records load while the next slice's are written out
                    for triples in _slices(e.inferred(), RECORD_SLICE):
                        plain, with_blanks = writer.split(triples)
                        if plain:
                            loaders.submit(_load_written, raw, "".join(plain))
                        if with_blanks:
                            loaders.submit(_extend_parsed, raw, "".join(with_blanks))
                    if violation_quads:
                        loaders.submit(raw.bulk_extend, violation_quads)
                    mark = self._closure_stamp().quad(self.iris)  # computed, if not yet, while the loaders write
                raw.add(mark)
        self._violations_written = set(e.violations)
        return True

    def _stored_records_equal(self, writer: RecordWriter) -> bool:
        """Whether the inferred and derivations graphs hold exactly what _write_all would write: each of its quads is
        looked up (the stamp first: records of other triples or rules fail at once), and the two graphs hold no
        more quads than that."""
        raw = self.store.raw
        assert raw is not None  # the embedded store's native API
        if self._closure_stamp().quad(self.iris) not in raw:
            return False
        e = writer.engine
        expected = 1
        records = chain((writer.inferred_quads(t) for t in e.inferred()),
                        (writer.violation_quads(rule, premises) for rule, premises in e.violations))
        for record in records:
            quads = set(record)  # a premise named twice is one quad
            for q in quads:
                if q not in raw:
                    return False
            expected += len(quads)
        stored = 0
        for graph in (self.iris.inferred_graph, self.iris.derivations_graph):
            counted = cast(QuerySolutions, raw.query(INFERRED_COUNT.format(graph=graph)))
            stored += int(next(iter(counted))["n"].value)
        return stored == expected

    def _write_changes(self, touched: set[Encoded]) -> None:
        e = self.engine
        assert e is not None and self.stamp is not None  # set together
        raw = self.store.raw
        if len(touched) > BULK_THRESHOLD:
            self._write_all()
            return
        if raw is None:
            self._update_changes(touched)
            return
        touched = touched | self._newly_needed(touched)
        writer = self._writer()
        mark = self.stamp.quad(self.iris)
        for q in list(raw.quads_for_pattern(mark.subject, mark.predicate, None, mark.graph_name)):
            raw.remove(q)  # until the new stamp goes in last, a crash leaves these records unstamped
        for t in touched:
            tr = writer.triple(t)
            inferred = Quad(tr.subject, tr.predicate, tr.object, writer.inferred)
            if inferred in raw:  # a triple derived for the first time has nothing stored: no write for it
                raw.remove(inferred)
            node = writer.derivation_node(tr)
            for q in list(raw.quads_for_pattern(node, None, None, writer.derivations)):
                raw.remove(q)
        gone = self._violations_written - set(e.violations)
        for rule, prem in gone:
            node = violation_iri(self.iris, rule, [writer.triple(q) for q in prem])
            for q in list(raw.quads_for_pattern(node, None, None, writer.derivations)):
                raw.remove(q)
        new = [q for t in touched for q in writer.inferred_quads(t)]
        new += [q for v in e.violations if v not in self._violations_written for q in writer.violation_quads(*v)]
        if len(new) > BULK_RECORDS:  # a bulk ingest's batch: the bulk loader, 2-3x a transaction; unstamped until
            raw.bulk_extend(new)     # the stamp goes in below, as the removals above already leave the records
        else:
            raw.extend(new)
        raw.add(mark)
        self._violations_written = set(e.violations)

    def _update_changes(self, touched: set[Encoded]) -> None:
        """_write_changes for a store without a native API (remote): the same deletions and insertions, as one
        SPARQL update, so the records change all at once for every reader."""
        e = self.engine
        assert e is not None and self.stamp is not None  # set together
        touched = touched | self._newly_needed(touched)
        writer = self._writer()
        mark = self.stamp.quad(self.iris)
        der = mark.graph_name
        triples = [writer.triple(t) for t in touched]
        if any(isinstance(term, BlankNode) for tr in triples for term in (tr.subject, tr.object)):
            # a server gives blank nodes new identities on every write: those triples cannot be deleted one by one
            self._write_all()
            return
        nodes = [writer.derivation_node(tr) for tr in triples]
        gone = self._violations_written - set(e.violations)
        nodes += [violation_iri(self.iris, rule, [writer.triple(q) for q in prem]) for rule, prem in gone]
        ops = [f"DELETE WHERE {{ GRAPH {der} {{ {mark.subject} {mark.predicate} ?stamp }} }}"]
        if triples:
            ops.append(quad_data("DELETE DATA", [Quad(tr.subject, tr.predicate, tr.object, writer.inferred)
                                                 for tr in triples]))
        if nodes:
            ops.append(f"DELETE {{ GRAPH {der} {{ ?n ?p ?o }} }} WHERE {{ VALUES ?n {{ {' '.join(map(str, nodes))} }} "
                       f"GRAPH {der} {{ ?n ?p ?o }} }}")
        new = [q for t in touched for q in writer.inferred_quads(t)]
        new += [q for v in e.violations if v not in self._violations_written for q in writer.violation_quads(*v)]
        ops.append(quad_data("INSERT DATA", [*new, mark]))
        self.store.update(" ;\n".join(ops))
        self._violations_written = set(e.violations)

    def _report(self, mode: str, start: float, reasoned: float, graphs: list[str], touched: set) -> ReasoningReport:
        e = self.engine
        assert e is not None and self.stamp is not None  # set together
        now = time.perf_counter()
        writer = self._writer()
        inferred_now = sum(1 for t in touched if e.depth.get(t, 0) > 0 and writer.written(t))
        _count(now - start, inferred_now)
        return ReasoningReport(
            mode=mode, asserted=len(e.support), inferred=self.inferred_count(),
            added=inferred_now, changed_graphs=graphs,
            violations=[writer.violation_dict(rule, prem) for rule, prem in e.violations],
            seconds=round(now - start, 4), reason_seconds=round(reasoned - start, 4), write_seconds=round(now - reasoned, 4),
        )


__all__ = ["Reasoner", "ReasoningReport", "Delta"]


def _count(seconds: float, inferred: int) -> None:
    """The Prometheus metrics of a run, in a process that has them: one that loaded attest.metrics, as the server
    does at start (GET /metrics). A command such as `attest reason` exports none, and importing prometheus_client
    would cost it a fifth of its start-up."""
    metrics = sys.modules.get("attest.metrics")
    if metrics is not None:
        metrics.reasoning_seconds.observe(seconds)
        metrics.inferred_triples.inc(inferred)


# The record text below is written here from terms the store or the engine already holds (each IRI was checked when
# it became a term; the derivation IRIs extend the base of the graph IRIs, checked by RecordWriter): `lenient` skips
# checking each IRI again while parsing, about a sixth of the bulk loader's time on records.


def _load_written(store, nquads: str) -> None:
    """Bulk-load record N-Quads without blank nodes (see above)."""
    store.bulk_load(nquads.encode(), RdfFormat.N_QUADS, lenient=True)


def _extend_parsed(store, nquads: str) -> None:
    """Load record N-Quads that mention blank nodes: `parse` keeps their labels, the bulk loader would not."""
    store.bulk_extend(parse(nquads, RdfFormat.N_QUADS, lenient=True))


def _slices(items: Iterable, size: int) -> Iterator[list]:
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
