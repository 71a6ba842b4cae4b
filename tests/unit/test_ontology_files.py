"""The ontology and shapes files: they parse, document themselves, stay in OWL 2 RL, and reason and validate as intended."""

from __future__ import annotations

import re
from pathlib import Path

import owlrl
import pyoxigraph
import pytest
from pyshacl import validate
from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.namespace import OWL, RDF, RDFS, SH, SKOS

from tests.conftest import REPO

ONTOLOGY_FILES = sorted((REPO / "ontology").glob("*.ttl"))
SHAPES_FILES = sorted((REPO / "shapes").glob("*.ttl"))

ONT = Namespace("https://w3id.org/attest/ontology#")
ATT = Namespace("https://w3id.org/attest/vocab#")
XSD = Namespace("http://www.w3.org/2001/XMLSchema#")  # plain Namespace: rdflib's XSD warns under pytest
EX = Namespace("https://example.org/entity/")
ERR = Namespace("http://www.daml.org/2002/03/agents/agent-ont#")  # where owlrl writes inconsistencies

# the IRIs other modules code against (the brief's contract); renaming one must fail here
CONTRACT_CLASSES = {
    "Entity", "Concept", "Person", "Organization", "Technology", "Location", "Section", "Document", "Chunk",
}
CONTRACT_OBJECT_PROPERTIES = {
    "mentions", "defines", "relatesTo", "contains", "partOf", "uses", "improves", "cites", "proposes",
    "implements", "usedBy", "hasPart", "containedIn", "implementedBy", "proposedBy", "citedBy",
    "mentionedIn", "developedBy", "developed", "locatedIn", "memberOf", "worksFor", "sectionOf", "hasSection",
}
TRANSITIVE = {"partOf", "hasPart", "contains", "containedIn", "locatedIn"}
NOT_TRANSITIVE = {"improves", "uses", "relatesTo", "cites", "mentions"}

# constructs outside OWL 2 RL (or needing a DL reasoner) that must not appear anywhere
NON_RL_TERMS = {
    OWL.ReflexiveProperty, OWL.disjointUnionOf, OWL.hasSelf, OWL.minCardinality, OWL.cardinality,
    OWL.minQualifiedCardinality, OWL.qualifiedCardinality, OWL.NegativePropertyAssertion,
}
# class expressions that OWL 2 RL admits only on one side of rdfs:subClassOf
NOT_IN_SUPERCLASS_POSITION = {OWL.unionOf, OWL.someValuesFrom, OWL.oneOf}
NOT_IN_SUBCLASS_POSITION = {OWL.allValuesFrom, OWL.complementOf, OWL.maxCardinality}
RL_DATATYPES = {XSD.string, XSD.decimal, XSD.integer, XSD.boolean, XSD.dateTime, XSD.anyURI, RDF.langString}


def _ontology() -> Graph:
    graph = Graph()
    for path in ONTOLOGY_FILES:
        graph.parse(path, format="turtle")
    return graph


def _shapes() -> Graph:
    graph = Graph()
    for path in SHAPES_FILES:
        graph.parse(path, format="turtle")
    return graph


def _ours(term: object) -> bool:
    return isinstance(term, URIRef) and str(term).startswith(str(ONT))


def _declared(graph: Graph, kind: URIRef) -> set[URIRef]:
    return {s for s in graph.subjects(RDF.type, kind) if _ours(s)}


@pytest.fixture(scope="module")
def ontology() -> Graph:
    return _ontology()


@pytest.fixture(scope="module")
def shapes() -> Graph:
    return _shapes()


# ---------------------------------------------------------------- parsing


def test_files_exist() -> None:
    assert len(ONTOLOGY_FILES) >= 2 and len(SHAPES_FILES) >= 2


@pytest.mark.parametrize("path", ONTOLOGY_FILES + SHAPES_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parses_with_rdflib_and_pyoxigraph_to_the_same_triple_count(path: Path) -> None:
    rdflib_graph = Graph().parse(path, format="turtle")
    oxigraph_triples = list(pyoxigraph.parse(path=str(path), format=pyoxigraph.RdfFormat.TURTLE))
    assert len(rdflib_graph) > 10
    assert len(oxigraph_triples) == len(rdflib_graph)


def test_exactly_one_ontology_header(ontology: Graph) -> None:
    headers = list(ontology.subjects(RDF.type, OWL.Ontology))
    assert headers == [URIRef("https://w3id.org/attest/ontology")]


# ---------------------------------------------------------------- contract and documentation


def test_contract_iris_are_declared(ontology: Graph) -> None:
    classes = {c.removeprefix(str(ONT)) for c in _declared(ontology, OWL.Class)}
    properties = {p.removeprefix(str(ONT)) for p in _declared(ontology, OWL.ObjectProperty)}
    assert CONTRACT_CLASSES <= classes, CONTRACT_CLASSES - classes
    assert CONTRACT_OBJECT_PROPERTIES <= properties, CONTRACT_OBJECT_PROPERTIES - properties
    assert (ONT.description, RDF.type, OWL.DatatypeProperty) in ontology


def test_every_term_has_an_english_label_and_a_comment(ontology: Graph) -> None:
    terms = _declared(ontology, OWL.Class) | _declared(ontology, OWL.ObjectProperty) | _declared(
        ontology, OWL.DatatypeProperty
    )
    assert len(terms) > 40
    for term in terms:
        labels = [lab for lab in ontology.objects(term, RDFS.label) if isinstance(lab, Literal) and lab.language == "en"]
        comments = [c for c in ontology.objects(term, RDFS.comment) if str(c).strip()]
        assert len(labels) == 1, f"{term} needs exactly one @en label"
        assert comments, f"{term} needs an rdfs:comment"
        for alt in ontology.objects(term, SKOS.altLabel):
            assert isinstance(alt, Literal) and alt.language == "en"


def test_every_ontology_iri_used_is_declared(ontology: Graph, shapes: Graph) -> None:
    declared = (
        _declared(ontology, OWL.Class) | _declared(ontology, OWL.ObjectProperty) | _declared(ontology, OWL.DatatypeProperty)
    )
    for graph in (ontology, shapes):
        used = {t for triple in graph for t in triple if _ours(t)}
        assert used - declared == set(), f"undeclared (typo?) {used - declared}"


def test_domains_and_ranges_point_at_declared_classes(ontology: Graph) -> None:
    classes = _declared(ontology, OWL.Class)
    for prop in _declared(ontology, OWL.ObjectProperty):
        for pred in (RDFS.domain, RDFS.range):
            for cls in ontology.objects(prop, pred):
                assert cls in classes, f"{prop} {pred} {cls} is not a declared class"
    for prop in _declared(ontology, OWL.DatatypeProperty):
        assert set(ontology.objects(prop, RDFS.domain)) <= classes
        assert set(ontology.objects(prop, RDFS.range)) <= RL_DATATYPES


def test_class_hierarchy_is_rooted_and_deep(ontology: Graph) -> None:
    for cls in _declared(ontology, OWL.Class):
        if cls not in (ONT.Entity, ONT.InformationResource):
            assert list(ontology.objects(cls, RDFS.subClassOf)), f"{cls} has no superclass"
    depth = {ONT.Entity: 0}
    changed = True
    while changed:
        changed = False
        for sub, sup in ontology.subject_objects(RDFS.subClassOf):
            if sup in depth and depth.get(sub, -1) < depth[sup] + 1:
                depth[sub], changed = depth[sup] + 1, True
    assert max(depth.values()) >= 4  # e.g. TripleStore < Database < Software < Technology < Topic < Entity
    assert ONT.Document not in depth and ONT.Chunk not in depth  # information resources are not entities


def test_property_characteristics(ontology: Graph) -> None:
    for name in TRANSITIVE:
        assert (ONT[name], RDF.type, OWL.TransitiveProperty) in ontology, name
    for name in NOT_TRANSITIVE:
        assert (ONT[name], RDF.type, OWL.TransitiveProperty) not in ontology, name
    assert (ONT.relatesTo, RDF.type, OWL.SymmetricProperty) in ontology
    for name in ("uses", "improves", "implements", "cites", "proposes", "partOf", "contains", "developedBy", "locatedIn"):
        assert (ONT[name], RDFS.subPropertyOf, ONT.relatesTo) in ontology, name


def test_inverse_pairs_swap_domain_and_range(ontology: Graph) -> None:
    pairs = list(ontology.subject_objects(OWL.inverseOf))
    assert len(pairs) >= 12
    for prop, inverse in pairs:
        assert set(ontology.objects(prop, RDFS.domain)) <= set(ontology.objects(inverse, RDFS.range)) | {ONT.Entity}
        assert set(ontology.objects(prop, RDFS.range)) <= set(ontology.objects(inverse, RDFS.domain)) | {ONT.Entity}
        transitive = {(p, RDF.type, OWL.TransitiveProperty) in ontology for p in (prop, inverse)}
        assert len(transitive) == 1, f"{prop} and its inverse {inverse} must agree on transitivity"


# ---------------------------------------------------------------- OWL 2 RL profile


def test_stays_within_owl2_rl(ontology: Graph) -> None:
    used = {t for triple in ontology for t in triple}
    assert used & NON_RL_TERMS == set()
    for sub, sup in ontology.subject_objects(RDFS.subClassOf):
        assert not {p for p in ontology.predicates(sup)} & NOT_IN_SUPERCLASS_POSITION, f"{sup} under {sub}"
        assert not {p for p in ontology.predicates(sub)} & NOT_IN_SUBCLASS_POSITION, f"{sub} over {sup}"
    for pred in (RDFS.domain, RDFS.range):
        for cls in ontology.objects(None, pred):
            assert not {p for p in ontology.predicates(cls)} & NOT_IN_SUPERCLASS_POSITION
    for restriction in ontology.subjects(OWL.maxCardinality, None):
        assert int(ontology.value(restriction, OWL.maxCardinality)) in (0, 1)


def test_irreflexive_and_asymmetric_properties_are_simple(ontology: Graph) -> None:
    # OWL 2 global restriction: no transitive property below or beside an irreflexive/asymmetric one
    transitive = set(ontology.subjects(RDF.type, OWL.TransitiveProperty))
    for kind in (OWL.IrreflexiveProperty, OWL.AsymmetricProperty):
        for prop in ontology.subjects(RDF.type, kind):
            below = set(ontology.transitive_subjects(RDFS.subPropertyOf, prop))
            inverses = set(ontology.objects(prop, OWL.inverseOf)) | set(ontology.subjects(OWL.inverseOf, prop))
            assert not (below | inverses) & transitive, prop


# ---------------------------------------------------------------- reasoning with owlrl


def _closure(instances: str) -> Graph:
    graph = _ontology()
    graph.parse(data=instances, format="turtle")
    owlrl.DeductiveClosure(owlrl.OWLRL_Semantics).expand(graph)
    return graph


def _errors(graph: Graph) -> list[str]:
    return [str(graph.value(m, ERR.error)) for m in graph.subjects(RDF.type, ERR.ErrorMessage)]


INSTANCES = """
@prefix ont: <https://w3id.org/attest/ontology#> .
@prefix ex: <https://example.org/entity/> .
ex:Oxigraph a ont:TripleStore ; ont:implements ex:SPARQL ; ont:uses ex:RocksDB ;
    ont:developedBy ex:Tpt .
ex:SPARQL a ont:Language ; ont:partOf ex:SemanticWebStack .
ex:SemanticWebStack ont:partOf ex:WebPlatform .
ex:SPARQL11 ont:extends ex:SPARQL .
ex:ComplEx ont:improves ex:DistMult . ex:DistMult ont:improves ex:RESCAL .
ex:DBpedia ont:locatedIn ex:Leipzig . ex:Leipzig ont:locatedIn ex:Saxony . ex:Saxony ont:locatedIn ex:Germany .
"""


@pytest.fixture(scope="module")
def closed() -> Graph:
    return _closure(INSTANCES)


def test_owlrl_derives_transitive_facts(closed: Graph) -> None:
    assert (EX.SPARQL, ONT.partOf, EX.WebPlatform) in closed  # prp-trp
    assert (EX.DBpedia, ONT.locatedIn, EX.Germany) in closed  # prp-trp over two steps
    assert (EX.WebPlatform, ONT.hasPart, EX.SPARQL) in closed  # prp-inv + prp-trp
    assert (EX.ComplEx, ONT.improves, EX.RESCAL) not in closed  # improves is deliberately not transitive


def test_owlrl_derives_inverse_and_super_properties(closed: Graph) -> None:
    assert (EX.SPARQL, ONT.implementedBy, EX.Oxigraph) in closed  # prp-inv1
    assert (EX.Tpt, ONT.developed, EX.Oxigraph) in closed
    assert (EX.RocksDB, ONT.usedBy, EX.Oxigraph) in closed
    assert (EX.SPARQL11, ONT.uses, EX.SPARQL) in closed  # prp-spo1: extends < uses
    assert (EX.SemanticWebStack, ONT.contains, EX.SPARQL) in closed  # partOf -inv-> hasPart -spo-> contains
    assert (EX.SPARQL, ONT.containedIn, EX.WebPlatform) in closed


def test_owlrl_derives_symmetric_relates_to(closed: Graph) -> None:
    assert (EX.Oxigraph, ONT.relatesTo, EX.RocksDB) in closed  # prp-spo1
    assert (EX.RocksDB, ONT.relatesTo, EX.Oxigraph) in closed  # prp-symp
    assert (EX.Germany, ONT.relatesTo, EX.DBpedia) in closed


def test_owlrl_derives_classes_from_hierarchy_domains_and_ranges(closed: Graph) -> None:
    for cls in (ONT.Database, ONT.Software, ONT.Technology, ONT.Topic, ONT.Entity):
        assert (EX.Oxigraph, RDF.type, cls) in closed  # cax-sco
    assert (EX.Tpt, RDF.type, ONT.Agent) in closed  # prp-rng
    assert (EX.Germany, RDF.type, ONT.Location) in closed  # prp-rng of locatedIn
    assert (EX.RocksDB, RDF.type, ONT.Topic) in closed
    assert _errors(closed) == []


@pytest.mark.parametrize(
    "instances, clash",
    [
        ("ex:W3C a ont:StandardsBody , ont:Person .", "Person"),  # cax-adc through cax-sco
        ("ex:X a ont:Technology . ex:Y ont:uses ex:Alice . ex:Alice a ont:Person .", "Alice"),  # prp-rng then cax-adc
        ("ex:Paris a ont:City , ont:Country .", "Paris"),  # cax-dw
        ("ex:D a ont:Document , ont:Concept .", "InformationResource"),  # documents are not entities
        ("ex:RDF ont:improves ex:RDF .", "RDF"),  # prp-irp
    ],
)
def test_owlrl_detects_contradictions(instances: str, clash: str) -> None:
    prefixes = "@prefix ont: <https://w3id.org/attest/ontology#> . @prefix ex: <https://example.org/entity/> .\n"
    errors = _errors(_closure(prefixes + instances))
    assert errors and any(clash in e for e in errors), errors


# ---------------------------------------------------------------- SHACL with pyshacl


GOOD = """
@prefix ont: <https://w3id.org/attest/ontology#> .
@prefix att: <https://w3id.org/attest/vocab#> .
@prefix prov: <http://www.w3.org/ns/prov#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix skos: <http://www.w3.org/2004/02/skos/core#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <https://example.org/entity/> .
@prefix doc: <https://example.org/document/> .
@prefix chunk: <https://example.org/chunk/> .

doc:d1 a ont:Document ; att:contentHash "9f2c1a7be0d44c31" .
chunk:c1 a ont:Chunk ; att:charStart 0 ; att:charEnd 512 ; att:inDocument doc:d1 ;
    prov:wasDerivedFrom doc:d1 ; att:contentHash "0a1b2c3d4e5f6a7b" ; ont:mentions ex:Oxigraph, ex:SPARQL .
ex:Oxigraph a ont:TripleStore ; rdfs:label "Oxigraph"@en ; skos:altLabel "oxigraph" ;
    ont:description "A graph database implementing SPARQL, written in Rust." ;
    att:confidence 0.92 ; att:extractor "rules" ;
    ont:implements ex:SPARQL ; ont:uses ex:RocksDB ; ont:developedBy ex:Tpt ; ont:relatesTo ex:Tpt .
ex:SPARQL a ont:Language ; rdfs:label "SPARQL" ; att:confidence 1.0 .
ex:RocksDB a ont:Database ; rdfs:label "RocksDB" .
ex:Tpt a ont:Person ; rdfs:label "Thomas Pellissier Tanon" ; ont:locatedIn ex:Paris ; ont:worksFor ex:Lab .
ex:Paris a ont:City ; rdfs:label "Paris" .
ex:Lab a ont:ResearchLab ; rdfs:label "A lab" .
ex:stmt1 att:confidence 0.75 ; att:extractor "llm:test-model" .
"""


def _validate(data: str) -> tuple[bool, Graph]:
    conforms, report, _ = validate(
        Graph().parse(data=data, format="turtle"), shacl_graph=_shapes(), ont_graph=_ontology(),
        inference="none", advanced=False, allow_warnings=False,
    )
    return conforms, report


def _failures(report: Graph) -> set[tuple[str, str]]:
    """(focus node local name, source shape or path local name) of every violation."""
    found = set()
    for result in report.subjects(RDF.type, SH.ValidationResult):
        focus = str(report.value(result, SH.focusNode)).rsplit("/", 1)[-1]
        path = report.value(result, SH.resultPath)
        shape = report.value(result, SH.sourceShape)
        found.add((focus, str(path if path is not None else shape).rsplit("#", 1)[-1]))
    return found


def test_shapes_accept_a_conforming_graph() -> None:
    conforms, report = _validate(GOOD)
    assert conforms, report.serialize(format="turtle")


@pytest.mark.parametrize(
    "edit, expected",
    [
        (("rdfs:label \"RocksDB\"", "ont:description \"a store\""), ("RocksDB", "label")),  # missing label
        (("rdfs:label \"RocksDB\"", "rdfs:label \"   \""), ("RocksDB", "label")),  # blank label
        (("rdfs:label \"RocksDB\"", "rdfs:label \"" + "x" * 301 + "\""), ("RocksDB", "label")),
        (("att:confidence 0.92", "att:confidence 1.5"), ("Oxigraph", "confidence")),
        (("att:confidence 0.75", "att:confidence -0.1"), ("stmt1", "confidence")),
        (("att:confidence 0.92", "att:confidence \"0.9\""), ("Oxigraph", "confidence")),  # not a decimal
        (("att:confidence 0.92", "att:confidence 0.9, 0.8"), ("Oxigraph", "confidence")),
        (("written in Rust.\"", "written in Rust.\", \"second\""), ("Oxigraph", "description")),
        (("ont:uses ex:RocksDB", "ont:uses ex:Tpt"), ("Oxigraph", "uses")),  # uses a Person
        (("ont:implements ex:SPARQL", "ont:implements ex:Paris"), ("Oxigraph", "implements")),
        (("ont:developedBy ex:Tpt", "ont:developedBy ex:SPARQL"), ("Oxigraph", "developedBy")),
        (("ont:worksFor ex:Lab", "ont:worksFor ex:Paris"), ("Tpt", "worksFor")),
        (("ont:locatedIn ex:Paris", "ont:locatedIn ex:RocksDB"), ("Tpt", "locatedIn")),
        (("att:charStart 0", "att:charStart -3"), ("c1", "charStart")),
        (("att:charStart 0", "att:charStart 600"), ("c1", "charStart")),  # start after end
        (("att:charEnd 512", "att:charEnd \"512\""), ("c1", "charEnd")),
        (("att:inDocument doc:d1 ;", ""), ("c1", "inDocument")),
        (("prov:wasDerivedFrom doc:d1", "prov:wasDerivedFrom ex:SPARQL"), ("c1", "wasDerivedFrom")),
        (("att:extractor \"rules\"", "att:extractor ex:Tpt"), ("Oxigraph", "extractor")),
        (("ex:Paris a ont:City", "ex:Paris a ont:City, ont:Document"), ("Paris", "EntityShape")),
    ],
)
def test_shapes_reject_bad_graphs(edit: tuple[str, str], expected: tuple[str, str]) -> None:
    old, new = edit
    assert GOOD.count(old) == 1, old
    conforms, report = _validate(GOOD.replace(old, new))
    assert not conforms
    assert expected in _failures(report), _failures(report)


def test_a_relation_object_must_carry_a_type() -> None:
    # an untyped object cannot be checked, so it is a violation, not a pass
    conforms, report = _validate(GOOD + "\nex:Oxigraph ont:uses ex:Untyped .\n")
    assert not conforms
    assert ("Oxigraph", "uses") in _failures(report)


def test_shapes_reference_real_terms(shapes: Graph, ontology: Graph) -> None:
    targets = set(shapes.objects(None, SH.targetClass)) | set(shapes.objects(None, SH["class"]))
    assert targets <= _declared(ontology, OWL.Class)
    relation_targets = {p for p in shapes.objects(None, SH.targetSubjectsOf) if _ours(p)}
    # the literal attributes (datatype properties) have shapes of their own; every other target is an object property
    object_targets = relation_targets - _declared(ontology, OWL.DatatypeProperty)
    assert object_targets == _declared(ontology, OWL.ObjectProperty), "one relation shape per object property"
    assert BNode not in {type(s) for s in shapes.subjects(RDF.type, SH.NodeShape)}


# ---------------------------------------------------------------- demo corpus


def test_demo_corpus_has_twelve_documents_of_the_agreed_size_listed_in_its_readme() -> None:
    documents = sorted((REPO / "demo" / "corpus").iterdir())
    readme = (REPO / "demo" / "README.md").read_text(encoding="utf-8")
    assert len(documents) == 12
    assert {p.suffix for p in documents} == {".md", ".txt", ".html"}
    for path in documents:
        words = len(re.sub(r"<[^>]+>", " ", path.read_text(encoding="utf-8")).split())
        assert 300 <= words <= 900, f"{path.name}: {words} words"
        assert f"`{path.name}`" in readme, f"{path.name} is not listed in demo/README.md"
