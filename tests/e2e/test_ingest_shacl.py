"""The SHACL gate's validation path: the W3C SHACL core test suite, and the project's shapes on hand-made graphs."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import rdflib
from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, parse
from pyshacl.errors import ReportableRuntimeError
from rdflib.namespace import SH

from attest.ingest.shacl_gate import ShaclGate, to_rdflib
from attest.vocab import ATT, ONT, RDF, RDFS, XSD
from tests.conftest import REPO

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
SHT = rdflib.Namespace("http://www.w3.org/ns/shacl-test#")
W3C_CORE_PASSES = 92  # of 98. pyshacl 0.40.1 run directly on these files (pyshacl.validate(file, shacl_graph=file))
# misses exactly the same six under this comparison; its own test harness counts 94 (it is laxer on the last two).
KNOWN_MISSES = {"node/xone-duplicate", "node/qualified-001", "path/path-complex-002", "path/path-unused-001",
                "property/datatype-ill-formed", "validation-reports/shared"}


def case_files(core: Path) -> list[Path]:
    files = []
    for manifest in sorted(core.glob("*/manifest.ttl")):
        g = rdflib.Graph().parse(manifest, format="turtle")
        files += [Path(str(f).removeprefix("file://")) for f in g.objects(None, MF.include)]
    return files


def _key(node) -> str:
    return "_:" if isinstance(node, rdflib.BNode) else str(node)


def result_keys(report: rdflib.Graph, root) -> Counter:
    keys = Counter()
    for r in report.objects(root, SH.result):
        keys[tuple(_key(report.value(r, p)) for p in (SH.focusNode, SH.resultPath, SH.value, SH.resultSeverity,
                                                       SH.sourceConstraintComponent, SH.sourceShape))] += 1
    return keys


def run_case(path: Path) -> bool:
    """Validate the case's data graph through the gate (pyoxigraph quads -> pruned rdflib graph -> pyshacl)."""
    g = rdflib.Graph().parse(path, format="turtle", publicID=path.as_uri())
    entry = next(g.subjects(MF.action, None))
    expected = g.value(entry, MF.result)
    gate = ShaclGate(g)
    quads = list(parse(path=str(path), format=RdfFormat.TURTLE, base_iri=path.as_uri()))
    try:
        conforms, report = gate.validate_graph(to_rdflib(quads, gate.relevant))
    except ReportableRuntimeError:
        return expected == SHT.Failure
    if expected == SHT.Failure:
        return False
    want = g.value(expected, SH.conforms).toPython()
    if conforms != want:
        return False
    got_root = next(report.subjects(rdflib.RDF.type, SH.ValidationReport))
    return result_keys(report, got_root) == result_keys(g, expected)


def test_w3c_shacl_core_suite(shared_data):
    files = case_files(shared_data / "shacl-tests" / "core")
    assert len(files) == 98
    passed = [f for f in files if run_case(f)]
    failed = sorted(f"{f.parent.name}/{f.stem}" for f in set(files) - set(passed))
    assert set(failed) == KNOWN_MISSES
    assert len(passed) == W3C_CORE_PASSES


# --- the project's shapes on hand-made document graphs ------------------------------------------------

B = "https://example.org/kg/"
G = NamedNode(B + "graph/document/t")


def q(s, p, o) -> Quad:
    return Quad(NamedNode(s), NamedNode(p), o if not isinstance(o, str) else NamedNode(o), G)


@pytest.fixture(scope="module")
def gate():
    return ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")


def entity(name: str, cls: str, confidence: str = "0.9") -> list[Quad]:
    iri = B + "entity/" + name
    return [q(iri, RDF + "type", ONT + cls), q(iri, RDFS + "label", Literal(name)),
            q(iri, ATT + "confidence", Literal(confidence, datatype=NamedNode(XSD + "decimal")))]


def test_a_conforming_graph_is_kept_whole(gate):
    quads = entity("oxigraph", "TripleStore") + entity("rust", "Language") + [
        q(B + "entity/oxigraph", ONT + "uses", B + "entity/rust")]
    result = gate.gate(quads)
    assert result.kept == quads and not result.findings


def test_out_of_range_confidence_quarantines_that_triple_then_the_incomplete_node(gate):
    quads = entity("oxigraph", "TripleStore", confidence="1.5") + entity("rust", "Language")
    result = gate.gate(quads)
    assert len(result.quarantined) == 1
    assert "[0, 1]" in result.quarantined[0].message
    assert not any(x.predicate.value == ATT + "confidence" and x.object.value == "1.5" for x in result.kept)
    assert len(result.kept) == len(quads) - 1


def test_a_node_level_violation_takes_the_node_and_every_triple_about_it(gate):
    person_doc = [q(B + "entity/alice", RDF + "type", ONT + "Person"), q(B + "entity/alice", RDF + "type", ONT + "Document"),
                  q(B + "entity/alice", RDFS + "label", Literal("Alice"))]
    quads = person_doc + entity("w3c", "StandardsBody") + [q(B + "entity/alice", ONT + "worksFor", B + "entity/w3c")]
    result = gate.gate(quads)
    assert not any(x.subject.value.endswith("/alice") or x.object.value.endswith("/alice") for x in result.kept)
    assert entity("w3c", "StandardsBody")[0] in result.kept


def test_shapes_only_see_the_predicates_they_name(gate):
    assert gate.relevant is not None and ATT + "text" not in gate.relevant and ONT + "uses" in gate.relevant
    big = [q(B + "chunk/c", ATT + "text", Literal("x" * 100_000))]
    assert len(to_rdflib(big, gate.relevant)) == 0


def test_the_memo_skips_only_nodes_whose_signature_passed_before():
    memo_gate = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    plain = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    plain.memo.enabled = False
    assert memo_gate.memo.enabled
    good = entity("oxigraph", "TripleStore") + entity("rust", "Language") + [
        q(B + "entity/oxigraph", ONT + "uses", B + "entity/rust")]
    assert memo_gate.gate(good).kept == good
    doc = memo_gate.memo.index(good, memo_gate._unshaped)
    assert memo_gate.memo.novel(doc) == []  # the same document again needs no pyshacl run
    # same shapes of data, but now the object of ont:uses is a Person: a new signature, so it is validated
    bad = entity("oxigraph", "TripleStore") + entity("alice", "Person") + [
        q(B + "entity/oxigraph", ONT + "uses", B + "entity/alice")]
    for gate_ in (memo_gate, plain):
        result = gate_.gate(bad)
        assert [f.path for f in result.quarantined] == [ONT + "uses"]
    # and a bad confidence on an otherwise known entity is caught too
    worse = entity("oxigraph", "TripleStore", confidence="7") + entity("rust", "Language")
    assert [f.path for f in memo_gate.gate(worse).quarantined] == [ATT + "confidence"]


def chunk(n: int, start: int, end: int, digest: str) -> list[Quad]:
    iri, doc = f"{B}chunk/{n}", f"{B}document/{n}"
    return [q(doc, RDF + "type", ONT + "Document"), q(doc, ATT + "contentHash", Literal(digest * 3)),
            q(iri, RDF + "type", ONT + "Chunk"), q(iri, ATT + "inDocument", doc),
            q(iri, ATT + "contentHash", Literal(digest)),
            q(iri, ATT + "charStart", Literal(str(start), datatype=NamedNode(XSD + "integer"))),
            q(iri, ATT + "charEnd", Literal(str(end), datatype=NamedNode(XSD + "integer")))]


def test_the_memo_abstracts_literals_to_the_outcomes_of_their_tests():
    memo_gate = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    assert memo_gate.gate(chunk(1, 10, 900, "a" * 64)).kept == chunk(1, 10, 900, "a" * 64)
    # new offsets and a new hash, same outcomes of every test on them: nothing left for pyshacl
    doc = memo_gate.memo.index(chunk(2, 900, 1800, "b" * 64), memo_gate._unshaped)
    assert memo_gate.memo.novel(doc) == []
    # each test's outcome is part of the signature: start not below end, a negative start, a short hash
    for bad, path in [(chunk(3, 50, 50, "c" * 64), ATT + "charStart"), (chunk(4, -5, 10, "d" * 64), ATT + "charStart"),
                      (chunk(5, 0, 10, "e" * 5), ATT + "contentHash")]:
        assert path in [f.path for f in memo_gate.gate(bad).quarantined]
    # a value of another datatype is a new signature too
    odd = [x if x.predicate.value != ATT + "charEnd" else q(x.subject.value, x.predicate.value, Literal("10"))
           for x in chunk(6, 0, 10, "f" * 64)]
    assert ATT + "charEnd" in [f.path for f in memo_gate.gate(odd).quarantined]


def test_the_memo_abstracts_labels_to_whether_the_pattern_matches():
    """Each new entity brings a new label: its signature holds whether sh:pattern "\\S" matches, not the label."""
    memo_gate = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    assert not memo_gate.gate(entity("ada-lovelace", "Person")).findings
    doc = memo_gate.memo.index(entity("grace-hopper", "Person"), memo_gate._unshaped)
    assert memo_gate.memo.novel(doc) == []  # another person, another label: nothing left for pyshacl
    blank = [x if x.predicate.value != RDFS + "label" else q(x.subject.value, x.predicate.value, Literal(" \t "))
             for x in entity("nobody", "Person")]
    assert RDFS + "label" in [f.path for f in memo_gate.gate(blank).quarantined]  # the pattern fails: validated


def test_the_memo_judges_values_of_per_value_property_shapes_one_by_one():
    memo_gate = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    uses = lambda *names: [q(B + "entity/oxigraph", ONT + "uses", B + "entity/" + n) for n in names]  # noqa: E731
    known = entity("oxigraph", "TripleStore") + entity("rust", "Language") + entity("sparql", "Concept")
    assert not memo_gate.gate(known + uses("rust")).findings
    assert not memo_gate.gate(known + uses("sparql")).findings
    doc = memo_gate.memo.index(known + uses("rust", "sparql"), memo_gate._unshaped)
    assert memo_gate.memo.novel(doc) == []  # a new mix of values that each passed before
    # a value of a new kind in the mix is validated, and only it is taken out
    mixed = known + entity("alice", "Person") + uses("rust", "alice")
    assert [(f.path, f.value) for f in memo_gate.gate(mixed).quarantined] == [(ONT + "uses", B + "entity/alice")]


def _outcome(result) -> tuple:
    findings = sorted((f.focus, f.path, f.value, f.message, f.shape, f.component, f.severity,
                       tuple(sorted(map(str, f.removed)))) for f in result.findings)
    return sorted(map(str, result.kept)), findings


def test_memoized_gate_decides_exactly_like_pyshacl_on_every_document(settings, tmp_path):
    """Generated documents whose relations often break the shapes, gated with the memos (passes skipped, failures
    replayed) and without them: the same triples kept and the same findings, document by document."""
    import importlib.util
    import random

    from attest.extract.ontology_terms import load_terms
    from attest.ingest.load import LoadedDocument
    from attest.ingest.pipeline import IngestPipeline
    from attest.ingest.session import rule_extractor
    from attest.ontology import load_ontology
    from attest.store import open_store
    from attest.vocab import Iris

    spec = importlib.util.spec_from_file_location("bench_ingest", REPO / "bench" / "ingest.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    plain = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    plain.memo.enabled = False
    memo_gate = ShaclGate.from_dirs(REPO / "shapes", REPO / "ontology")
    compared = Counter()

    class Compared(ShaclGate):
        def gate(self, quads):
            result = memo_gate.gate(quads)
            assert _outcome(result) == _outcome(plain.gate(quads))
            compared["documents"] += 1
            compared["findings"] += len(result.findings)
            return result

    store = open_store(settings)
    load_ontology(store, settings.ontology_dir, Iris(settings.base_iri))
    terms = load_terms(settings.ontology_dir)
    gate = Compared.__new__(Compared)
    pipeline = IngestPipeline(store, settings, rule_extractor(store, settings, terms), terms=terms, gate=gate)
    rng = random.Random(11)
    for i in range(40):
        text = bench.make_document(rng, i, 2)
        pipeline.ingest(LoadedDocument(f"doc{i}.md", "text/markdown", text, len(text)))
    store.close()
    assert compared["documents"] == 40 and compared["findings"] >= 15  # the prose name rules left 17
    assert memo_gate.failures._results  # failures were remembered and replayed, not only passes
