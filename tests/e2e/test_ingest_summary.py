"""The fact summary (graph/facts): exact under add, replace and delete, and each commit says whether it changed it."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st
from pyoxigraph import Literal, NamedNode, Quad

from attest.ingest import summary
from attest.ingest.batch import CommitBatch
from attest.ingest.status import commit
from attest.store import open_store
from attest.vocab import ATT, ONT, RDFS, Iris

IRIS = Iris("https://w3id.org/attest/")
ENTITIES = [NamedNode(IRIS.entity(f"e{i}")) for i in range(5)]
# a small pool, so documents share triples: the summary must keep a triple while any document still holds it
TRIPLES = ([(e, NamedNode(RDFS + "label"), Literal(f"E{i}")) for i, e in enumerate(ENTITIES)]
           + [(a, NamedNode(ONT + "uses"), b) for a in ENTITIES[:3] for b in ENTITIES[2:]]
           + [(ENTITIES[0], NamedNode(ATT + "confidence"), Literal("0.9")),  # provenance: never summarized
              (NamedNode(IRIS.chunk("c1")), NamedNode(ONT + "mentions"), ENTITIES[1])])  # not about an entity
DOCS = ["a", "b", "c"]
OPS = st.lists(st.tuples(st.sampled_from(["write", "delete", "batch"]), st.sampled_from(DOCS),
                         st.sets(st.integers(0, len(TRIPLES) - 1), max_size=6)), min_size=1, max_size=12)


def _quads(doc: str, picks: set[int]) -> list[Quad]:
    graph = NamedNode(IRIS.document_graph(doc))
    return [Quad(*TRIPLES[i], graph) for i in sorted(picks)]


def _summary(store) -> set:
    m = summary.marker(IRIS)
    return {(q.subject, q.predicate, q.object) for q in store.quads(IRIS.facts_graph)} - {(m.subject, m.predicate, m.object)}


def _recomputed(store) -> set:
    out = set()
    for g in store.graphs():
        if g.startswith(IRIS.document_graph_prefix):
            out |= {(q.subject, q.predicate, q.object) for q in store.quads(g) if summary.is_summarized(IRIS, q)}
    return out


def _closure(reasoner) -> set:
    decode = reasoner.engine.terms.decode
    return {decode(t) for t in reasoner.engine.depth}


@hsettings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS)
def test_summary_equals_a_recomputation_after_any_writes(tmp_path_factory, ops):
    """...and a reasoner kept up to date from what each commit says it changed holds the closure a full run gives."""
    from attest.reasoner import Reasoner
    from attest.settings import load_settings

    store = open_store(load_settings(None, data_dir=tmp_path_factory.mktemp("summary")))
    try:
        summary.ensure(store, IRIS)
        reasoner = Reasoner(store, IRIS)
        reasoner.materialize()
        for op, doc, picks in ops:
            exists = store.has_graph(IRIS.document_graph(doc))
            held, generation = _summary(store), store.facts_generation
            facts, graph = None, IRIS.document_graph(doc)
            if op == "delete":
                if exists:
                    facts = commit(store, IRIS, doc, document=[], status=[], quarantine=[], fresh=False)
            elif op == "batch" and not exists:  # the bulk path takes new documents only
                batch = CommitBatch(store, IRIS, max_quads=1000)
                batch.add(doc, document=_quads(doc, picks), status=[], quarantine=[])
                batch.flush()
            else:
                facts = commit(store, IRIS, doc, document=_quads(doc, picks), status=[], quarantine=[], fresh=not exists)
                assert facts is not None
            reasoner.refresh([graph], facts=facts)
            assert _summary(store) == _recomputed(store)
            if op != "batch" or exists:  # single commits say whether they change facts (answers keep their memos)
                assert (store.facts_generation != generation) == (_summary(store) != held)
            full = Reasoner(store, IRIS)
            full.materialize(full=True)
            assert _closure(reasoner) == _closure(full)
        assert summary.is_current(store, IRIS)
    finally:
        store.close()


def test_a_clients_update_marks_it_out_of_date_and_a_start_rebuilds_it(tmp_path):
    from fastapi.testclient import TestClient

    from attest.main import create_app
    from attest.settings import load_settings
    from tests.conftest import REPO

    settings = load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology",
                             shapes_dir=REPO / "shapes", queries_dir=REPO / "queries")
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        store = client.app.state.resources.store
        commit(store, IRIS, "a", document=_quads("a", {0, 5}), status=[], quarantine=[], fresh=True)
        assert summary.is_current(store, IRIS) and _summary(store) == _recomputed(store)
        update = f"INSERT DATA {{ GRAPH <{IRIS.document_graph('a')}> {{ <{IRIS.entity('e4')}> <{RDFS}label> \"E4\" }} }}"
        script = {"X-Requested-With": "test"}  # a form-encoded update without a token (docs/security.md)
        assert client.post("/sparql", data={"update": update}, headers=script).status_code == 204
        assert not summary.is_current(store, IRIS)  # readers go back to the document graphs
        bad = client.post("/sparql", data={"update": "INSERT DATA { <x:a> <x:b> "}, headers=script)
        assert bad.status_code == 400
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        store = client.app.state.resources.store
        assert summary.is_current(store, IRIS) and _summary(store) == _recomputed(store)
        assert (ENTITIES[4], NamedNode(RDFS + "label"), Literal("E4")) in _summary(store)


def test_a_graph_uploaded_beside_the_documents_is_read_before_and_after_the_rebuild(tmp_path):
    from fastapi.testclient import TestClient

    from attest.main import create_app
    from attest.settings import load_settings
    from tests.conftest import REPO

    settings = load_settings(None, data_dir=tmp_path / "data", ontology_dir=REPO / "ontology",
                             shapes_dir=REPO / "shapes", queries_dir=REPO / "queries")
    turtle = ('<https://example.org/Zorblax> <http://www.w3.org/2000/01/rdf-schema#label> "Zorblax" ; '
              '<https://example.org/orbits> <https://example.org/Quux> . '
              '<https://example.org/Quux> <http://www.w3.org/2000/01/rdf-schema#label> "Quux" .')
    for restart in (False, True):
        with TestClient(create_app(settings), base_url="http://localhost") as client:
            if not restart:
                assert client.post("/store", content=turtle, headers={"Content-Type": "text/turtle"}).status_code == 201
                assert not summary.is_current(client.app.state.resources.store, IRIS)  # until the next rebuild
            else:
                assert summary.included_graphs(client.app.state.resources.store, IRIS)  # the uploaded graph is listed
            body = client.post("/context", json={"query": "What does Zorblax orbit?"}).json()
            assert [e["label"] for e in body["entities"]][:1] == ["Quux"], body


def test_the_reasoner_reads_the_summary_and_derives_what_the_document_graphs_give(store, settings):
    """Over the fact summary the reasoner reads each fact once and no provenance record, and its closure about
    entities is the one the document graphs give; an incremental change (a delete) keeps that true."""
    from attest.reasoner import Reasoner
    from tests.conftest import REPO
    from tests.ingest_support import offline_pipeline

    pipeline = offline_pipeline(store, settings)
    pipeline.reasoner = reasoner = Reasoner(store, IRIS, settings)
    summary.ensure(store, IRIS)
    for path in sorted((REPO / "demo" / "corpus").iterdir())[:5]:
        pipeline.ingest_path(path)
    assert IRIS.facts_graph in reasoner.asserted_graphs()
    assert not any(g.startswith(IRIS.document_graph_prefix) for g in reasoner.asserted_graphs())

    def about_entities(r) -> set:
        terms = r.engine.terms
        decoded = {terms.decode(t) for t in r.engine.inferred()}
        return {t for t in decoded if isinstance(t[0], NamedNode) and t[0].value.startswith(IRIS.entity_prefix)}

    over_summary = about_entities(reasoner)
    store.update(summary.invalidation(IRIS))
    over_documents = Reasoner(store, IRIS, settings)
    over_documents.materialize(full=True)
    assert over_summary and about_entities(over_documents) == over_summary

    summary.ensure(store, IRIS)
    first = next(g for g in store.graphs() if g.startswith(IRIS.document_graph_prefix))
    assert pipeline.delete(first[len(IRIS.document_graph_prefix):])
    incremental = about_entities(reasoner)
    fresh = Reasoner(store, IRIS, settings)
    fresh.materialize(full=True)
    assert incremental == about_entities(fresh) != over_summary
