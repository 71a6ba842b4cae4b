"""A full write through the bulk loaders stores exactly the record quads, blank nodes as the store's own nodes."""

from __future__ import annotations

import subprocess
import sys

from pyoxigraph import BlankNode, NamedNode, RdfFormat, Triple

from attest.reasoner import Reasoner
from attest.store import EmbeddedStore
from attest.vocab import Iris
from tests.conftest import REPO

EX = "http://example.org/"
ONTOLOGY = f"""@prefix owl: <http://www.w3.org/2002/07/owl#> . @prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
<{EX}Chair> owl:equivalentClass [ a owl:Restriction ; owl:onProperty <{EX}heads> ;
                                  owl:someValuesFrom <{EX}Department> ] .
<{EX}Chair> rdfs:subClassOf <{EX}Professor> .
<{EX}heads> rdfs:domain <{EX}Person> .
"""
DATA = f"""<{EX}ann> <{EX}heads> <{EX}d0> .
<{EX}d0> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Department> .
<{EX}bob> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <{EX}Chair> .
<{EX}caf\\u00e9> <{EX}heads> <{EX}d0> .
"""


def stored_records(store: EmbeddedStore, iris: Iris) -> set:
    return {q for g in (iris.inferred_graph, iris.derivations_graph)
            for q in store.raw.quads_for_pattern(None, None, None, NamedNode(g))}


def test_the_bulk_write_stores_the_record_quads_with_the_ontology_s_blank_nodes(tmp_path):
    iris = Iris("https://w3id.org/attest/")
    store = EmbeddedStore(tmp_path / "store", iris)
    try:
        store.raw.load(ONTOLOGY.encode(), RdfFormat.TURTLE, to_graph=NamedNode(iris.ontology_graph))
        store.raw.load(DATA.encode(), RdfFormat.N_TRIPLES, to_graph=NamedNode(iris.document_graph("d")))
        restriction = next(q.object for q in store.raw.quads_for_pattern(NamedNode(EX + "Chair"), None, None, None)
                           if isinstance(q.object, BlankNode))
        reasoner = Reasoner(store, iris)
        report = reasoner.materialize(full=True)
        assert report.consistent and not report.records_kept
        writer = reasoner._writer()
        expected = set(writer.all_quads()) | {reasoner._closure_stamp().quad(iris)}
        stored = stored_records(store, iris)
        assert stored == expected  # the same quads as the records' Python objects: nothing renamed, nothing more
        # ann heads d0, a Department: ann is a member of the restriction, so a Chair, so a Professor; the records
        # that name the restriction name the ontology's own blank node, not a copy
        blanks = {t for q in stored for term in (q.subject, q.object)
                  for t in ((term.subject, term.object) if isinstance(term, Triple) else (term,))
                  if isinstance(t, BlankNode)}
        assert blanks == {restriction}
    finally:
        store.close()


def test_a_reason_process_imports_neither_the_metrics_nor_the_config_parsers(tmp_path):
    """`attest reason` exports no metrics and reads no config file here: prometheus_client and yaml stay out."""
    code = ("import sys; sys.argv = ['attest', '--data-dir', sys.argv[1], 'reason', '--full']\n"
            "from attest.cli import main\n"
            "import attest.cli as c; c.EXIT_WITHOUT_TEARDOWN = frozenset()\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('prometheus_client', 'attest.metrics', 'yaml', 'tomllib') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "data")], cwd=REPO, capture_output=True,
                          text=True, check=True)
    assert "full:" in done.stdout
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_process_with_the_metrics_loaded_counts_each_run(tmp_path):
    from attest import metrics

    iris = Iris("https://w3id.org/attest/")
    store = EmbeddedStore(tmp_path / "store", iris)
    try:
        store.raw.load(DATA.encode(), RdfFormat.N_TRIPLES, to_graph=NamedNode(iris.document_graph("d")))
        store.raw.load(ONTOLOGY.encode(), RdfFormat.TURTLE, to_graph=NamedNode(iris.ontology_graph))
        runs = metrics.reasoning_seconds.collect()[0]
        before = next(s.value for s in runs.samples if s.name.endswith("_count"))
        inferred = metrics.inferred_triples._value.get()
        report = Reasoner(store, iris).materialize(full=True)
        runs = metrics.reasoning_seconds.collect()[0]
        assert next(s.value for s in runs.samples if s.name.endswith("_count")) == before + 1
        assert metrics.inferred_triples._value.get() == inferred + report.added > inferred
    finally:
        store.close()
