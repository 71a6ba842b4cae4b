"""The OWL 2 RL engine: rule behaviour, shallowest derivations, inconsistencies, incremental == full, owlrl oracle."""

from __future__ import annotations

import rdflib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from attest.reasoner.datatypes import is_ill_typed, value_datatypes, value_key, values_differ
from attest.reasoner.engine import Engine
from attest.reasoner.terms import DATATYPES, TermDict
from attest.vocab import OWL, RDF, RDFS
from tests.reasoner_oracle import attest_closure, is_documented_difference, ox_triples, owlrl_run

EX = "http://example.org/"


def n(x: str) -> NamedNode:
    if x.startswith(("rdf:", "rdfs:", "owl:")):
        prefix, local = x.split(":")
        return NamedNode({"rdf": RDF, "rdfs": RDFS, "owl": OWL}[prefix] + local)
    return NamedNode(EX + x)


def tr(s: str, p: str, o) -> Triple:
    return Triple(n(s), n(p), o if isinstance(o, (Literal, BlankNode, NamedNode)) else n(o))


def run(triples):
    terms = TermDict()
    e = Engine(terms)
    e.materialize(terms.encode_triples(triples))
    return e, terms


def derivation(e: Engine, terms: TermDict, t: Triple):
    enc = (terms.lookup(t.subject), terms.lookup(t.predicate), terms.lookup(t.object))
    if None in enc or enc not in e.depth:
        return None
    rule, premises = e.why.get(enc, (None, ()))
    return e.depth[enc], rule, [terms.decode(q) for q in premises]


def test_subclass_chain_gives_depth_by_shallowest_derivation():
    e, terms = run([tr("A", "rdfs:subClassOf", "B"), tr("B", "rdfs:subClassOf", "C"), tr("x", "rdf:type", "A")])
    depth, rule, premises = derivation(e, terms, tr("x", "rdf:type", "C"))
    # two derivations exist: x:B then cax-sco (depth 2), or scm-sco A⊑C (depth 1) then cax-sco (depth 2)
    assert (depth, rule) == (2, "cax-sco")
    assert derivation(e, terms, tr("x", "rdf:type", "B"))[:2] == (1, "cax-sco")
    assert derivation(e, terms, tr("A", "rdfs:subClassOf", "C"))[:2] == (1, "scm-sco")
    assert derivation(e, terms, tr("x", "rdf:type", "A"))[0] == 0


def test_transitive_property_depth_grows_logarithmically_not_linearly():
    chain = [tr(f"n{i}", "partOf", f"n{i + 1}") for i in range(8)]
    e, terms = run(chain + [tr("partOf", "rdf:type", "owl:TransitiveProperty")])
    depth, rule, premises = derivation(e, terms, tr("n0", "partOf", "n8"))
    assert rule == "prp-trp" and depth == 3  # 8 = 2^3 hops: semi-naive doubles the reach per level
    assert len(premises) == 3 and premises[0] == tr("partOf", "rdf:type", "owl:TransitiveProperty")


def test_property_rules_inverse_chain_and_restriction():
    r = BlankNode()
    e, terms = run([
        tr("hasParent", "owl:inverseOf", "hasChild"), tr("a", "hasParent", "b"),
        Triple(n("hasGrandparent"), n("owl:propertyChainAxiom"), BlankNode("l1")),
        Triple(BlankNode("l1"), n("rdf:first"), n("hasParent")), Triple(BlankNode("l1"), n("rdf:rest"), BlankNode("l2")),
        Triple(BlankNode("l2"), n("rdf:first"), n("hasParent")), Triple(BlankNode("l2"), n("rdf:rest"), n("rdf:nil")),
        tr("b", "hasParent", "c"),
        Triple(r, n("owl:someValuesFrom"), n("Person")), Triple(r, n("owl:onProperty"), n("hasChild")),
        tr("a", "rdf:type", "Person"), Triple(n("Parent"), n("owl:equivalentClass"), r),
    ])
    assert derivation(e, terms, tr("b", "hasChild", "a"))[1] == "prp-inv1"
    assert derivation(e, terms, tr("a", "hasGrandparent", "c"))[1] == "prp-spo2"
    assert derivation(e, terms, Triple(n("b"), n("rdf:type"), r))[1] == "cls-svf1"
    depth, rule, _ = derivation(e, terms, tr("b", "rdf:type", "Parent"))
    assert depth == 3 and rule in ("cax-eqc2", "cax-sco")  # equally shallow: via Parent≡r, or r⊑Parent (scm-eqc1)


def test_same_as_is_symmetric_transitive_and_rewrites_statements():
    e, terms = run([tr("a", "owl:sameAs", "b"), tr("b", "owl:sameAs", "c"), tr("a", "knows", "z")])
    assert derivation(e, terms, tr("c", "owl:sameAs", "a")) is not None
    assert derivation(e, terms, tr("c", "knows", "z"))[1] == "eq-rep-s"


def test_inconsistencies_are_reported_with_premises_not_stored():
    e, terms = run([
        tr("Cat", "owl:disjointWith", "Dog"), tr("rex", "rdf:type", "Cat"), tr("rex", "rdf:type", "Dog"),
        tr("p", "rdf:type", "owl:IrreflexiveProperty"), tr("a", "p", "a"),
        tr("u", "owl:sameAs", "v"), tr("u", "owl:differentFrom", "v"),
    ])
    found = {(v.rule, tuple(terms.decode(q) for q in v.premises)) for v in e.list_violations()}
    rules = {r for r, _ in found}
    assert {"cax-dw", "prp-irp", "eq-diff1"} <= rules
    dw = next(p for r, p in found if r == "cax-dw")
    assert tr("rex", "rdf:type", "Cat") in dw and tr("rex", "rdf:type", "Dog") in dw
    assert not any(t[1] == terms.lookup(n("owl:Nothing")) for t in e.depth)  # no 'false' triple stored


def test_literal_subjects_are_never_produced():
    e, terms = run([tr("p", "owl:inverseOf", "q"), tr("a", "p", Literal("x")), tr("p", "rdf:type", "owl:SymmetricProperty")])
    assert all(not isinstance(terms.terms[t[0]], Literal) for t in e.depth)


def test_retracting_a_premise_removes_exactly_the_unsupported_consequences():
    base = [tr("A", "rdfs:subClassOf", "B"), tr("C", "rdfs:subClassOf", "B"), tr("x", "rdf:type", "A")]
    terms = TermDict()
    e = Engine(terms)
    e.materialize(terms.encode_triples(base))
    extra = terms.encode_triples([tr("x", "rdf:type", "C")])
    e.add(extra)
    xb = (terms.lookup(n("x")), 0, terms.lookup(n("B")))
    assert e.depth[xb] == 1
    e.retract(terms.encode_triples([tr("x", "rdf:type", "A")]))
    assert e.depth[xb] == 1 and e.why[xb][1][0] == (terms.lookup(n("C")), 4, terms.lookup(n("B")))
    e.retract(extra)
    assert xb not in e.depth


# --- property tests -------------------------------------------------------------------------------------------

NODES = ["a", "b", "c", "d"]
CLASSES = ["A", "B", "C"]
ONE = Literal("1", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#nonNegativeInteger"))
ZERO = Literal("0", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#nonNegativeInteger"))
PROPS = ["p", "q", "r"]
SCHEMA = st.one_of(
    st.tuples(st.sampled_from(CLASSES), st.sampled_from(["rdfs:subClassOf", "owl:equivalentClass", "owl:disjointWith"]),
              st.sampled_from(CLASSES)),
    st.tuples(st.sampled_from(PROPS), st.sampled_from(["rdfs:subPropertyOf", "owl:inverseOf", "owl:equivalentProperty"]),
              st.sampled_from(PROPS)),
    st.tuples(st.sampled_from(PROPS), st.sampled_from(["rdfs:domain", "rdfs:range"]), st.sampled_from(CLASSES)),
    st.tuples(st.sampled_from(PROPS), st.just("rdf:type"),
              st.sampled_from(["owl:TransitiveProperty", "owl:SymmetricProperty", "owl:FunctionalProperty",
                               "owl:InverseFunctionalProperty", "owl:IrreflexiveProperty"])),
    # restrictions named by IRIs (the rules do not care whether a restriction is a blank node)
    st.tuples(st.sampled_from(["R1", "R2"]), st.just("owl:onProperty"), st.sampled_from(PROPS)),
    st.tuples(st.sampled_from(["R1", "R2"]), st.sampled_from(["owl:someValuesFrom", "owl:allValuesFrom"]),
              st.sampled_from(CLASSES + ["owl:Thing"])),
    st.tuples(st.sampled_from(["R1", "R2"]), st.just("owl:hasValue"), st.sampled_from(NODES)),
    st.tuples(st.sampled_from(["R1", "R2"]), st.just("owl:maxCardinality"), st.sampled_from([ONE, ZERO])),
    st.tuples(st.sampled_from(CLASSES), st.sampled_from(["owl:equivalentClass", "rdfs:subClassOf"]),
              st.sampled_from(["R1", "R2"])),
)
DATA = st.one_of(
    st.tuples(st.sampled_from(NODES), st.sampled_from(PROPS), st.sampled_from(NODES)),
    st.tuples(st.sampled_from(NODES), st.just("rdf:type"), st.sampled_from(CLASSES)),
    st.tuples(st.sampled_from(NODES), st.just("owl:sameAs"), st.sampled_from(NODES)),
)
GRAPH = st.lists(st.one_of(SCHEMA, DATA), min_size=1, max_size=14)


def _triples(spec) -> list[Triple]:
    return [tr(*t) for t in spec]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(GRAPH)
def test_closure_equals_owlrl_on_random_graphs(spec):
    triples = set(_triples(spec))
    g = rdflib.Graph()
    for t in triples:
        o = t.object
        obj = rdflib.Literal(o.value, datatype=o.datatype.value) if isinstance(o, Literal) else rdflib.URIRef(o.value)
        g.add((rdflib.URIRef(t.subject.value), rdflib.URIRef(t.predicate.value), obj))
    closure, inconsistent = owlrl_run(g)
    ours, engine = attest_closure(ox_triples(g))
    assert {t for t in ours if not is_documented_difference(t)} == {t for t in closure if not is_documented_difference(t)}
    assert bool(engine.violations) == inconsistent


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 3), GRAPH), min_size=1, max_size=6))
def test_incremental_equals_full_recomputation(steps):
    """Random adds and deletes of four 'documents'; after each step the closure and every depth match a full run."""
    terms = TermDict()
    inc = Engine(terms)
    inc.materialize([])
    docs: dict[int, list] = {}
    for add, doc, spec in steps:
        old = docs.pop(doc, [])
        if old:
            inc.retract(old)
        if add:
            docs[doc] = list(dict.fromkeys(terms.encode_triples(_triples(spec))))
            inc.add(docs[doc])
        full = Engine(terms)
        full.materialize([t for triples in docs.values() for t in triples])
        assert inc.depth == full.depth
        assert set(inc.violations) == set(full.violations)
        assert {t for t, why in inc.why.items()} == {t for t in full.why}
        assert inc.inferred_count() == sum(1 for _ in inc.inferred()) == full.inferred_count()


def test_ill_typed_literals_are_inconsistent_well_typed_ones_are_not():
    xsd = "http://www.w3.org/2001/XMLSchema#"
    bad = tr("a", "age", Literal("128", datatype=NamedNode(xsd + "byte")))
    good = tr("b", "age", Literal("127", datatype=NamedNode(xsd + "byte")))
    e, terms = run([bad, good, tr("c", "when", Literal("2009-04-21T12:30:15Z", datatype=NamedNode(xsd + "dateTimeStamp")))])
    assert [(v.rule, [terms.decode(q) for q in v.premises]) for v in e.list_violations()] == [("dt-not-type", [bad])]


# --- datatype rules folded for nodes owl:sameAs a literal (rules_literal.py) --------------------------------------

XSD_ = "http://www.w3.org/2001/XMLSchema#"


def typed(lex: str, dt: str) -> Literal:
    return Literal(lex, datatype=NamedNode(XSD_ + dt))


def test_a_node_same_as_a_literal_gets_every_datatype_holding_the_value():
    e, terms = run([tr("w", "owl:sameAs", typed("42", "short"))])
    types = {terms.decode(t).object.value for t in e.depth if terms.decode(t).subject == n("w")
             and terms.decode(t).predicate == n("rdf:type")}
    holding = {XSD_ + d for d in ("decimal", "integer", "nonNegativeInteger", "positiveInteger", "long", "int",
                                  "short", "byte", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte")}
    assert types == holding | {RDFS + "Literal"}
    assert derivation(e, terms, tr("w", "rdf:type", NamedNode(XSD_ + "byte")))[:2] == (1, "dt-type2")
    assert not e.violations


def test_same_value_makes_nodes_the_same_and_different_values_different():
    e, terms = run([tr("w", "owl:sameAs", typed("42", "short")), tr("v", "owl:sameAs", typed("+042", "int")),
                    tr("u", "owl:sameAs", typed("42.0", "decimal")), tr("z", "owl:sameAs", typed("3.141", "decimal")),
                    tr("y", "owl:sameAs", typed("42", "short"))])
    depth, rule, premises = derivation(e, terms, tr("w", "owl:sameAs", "v"))
    assert (depth, rule) == (1, "dt-eq") and set(premises) == {tr("w", "owl:sameAs", typed("42", "short")),
                                                               tr("v", "owl:sameAs", typed("+042", "int"))}
    assert derivation(e, terms, tr("u", "owl:sameAs", "w"))[1] == "dt-eq"  # integers are decimals
    assert derivation(e, terms, tr("y", "owl:sameAs", "w"))[1] == "eq-trans"  # the same literal
    assert derivation(e, terms, tr("z", "owl:differentFrom", "w"))[:2] == (1, "dt-diff")
    assert derivation(e, terms, tr("w", "owl:differentFrom", "v")) is None
    assert not e.violations


def test_values_compare_by_their_value_space():
    lit = Literal
    e, terms = run([tr("a", "owl:sameAs", lit("abc", language="de")), tr("b", "owl:sameAs", lit("abc", language="DE")),
                    tr("c", "owl:sameAs", lit("abc")), tr("d", "owl:sameAs", typed("1.0", "float")),
                    tr("f", "owl:sameAs", typed("1.0", "double")), tr("g", "owl:sameAs", typed("1", "decimal")),
                    tr("h", "owl:sameAs", typed("2009-04-21T12:30:15Z", "dateTime")),
                    tr("i", "owl:sameAs", typed("2009-04-21T14:30:15+02:00", "dateTimeStamp")),
                    tr("j", "owl:sameAs", typed("2009-04-21T12:30:15", "dateTime"))])

    def relation(x, y):
        for p in ("owl:sameAs", "owl:differentFrom"):
            if derivation(e, terms, tr(x, p, y)):
                return p
        return None

    assert relation("a", "b") == "owl:sameAs"  # language tags compare case-insensitively
    assert relation("a", "c") == "owl:differentFrom"  # a language-tagged string is not an xsd:string
    assert relation("d", "f") == relation("d", "g") == relation("f", "g") == "owl:differentFrom"  # disjoint spaces
    assert relation("h", "i") == "owl:sameAs"  # the same instant
    assert relation("h", "j") is None  # with and without a time zone: not comparable
    assert not e.violations


def test_a_node_typed_outside_its_literal_value_or_equal_to_two_values_is_inconsistent():
    e, terms = run([tr("v", "rdf:type", NamedNode(XSD_ + "integer")), tr("v", "owl:sameAs", typed("false", "boolean"))])
    assert [v.rule for v in e.list_violations()] == ["dt-not-type"]
    e, terms = run([tr("v", "rdf:type", NamedNode(XSD_ + "string")), tr("v", "owl:sameAs", Literal("abc"))])
    assert not e.violations
    e, terms = run([tr("v", "owl:sameAs", typed("1", "integer")), tr("v", "owl:sameAs", typed("2", "integer"))])
    assert [v.rule for v in e.list_violations()] == ["eq-diff1"]


def test_retracting_a_literal_identity_retracts_what_it_implied():
    terms = TermDict()
    inc = Engine(terms)
    base = terms.encode_triples([tr("w", "owl:sameAs", typed("42", "short")), tr("w", "name", Literal("W"))])
    extra = terms.encode_triples([tr("v", "owl:sameAs", typed("42.0", "decimal"))])
    inc.materialize(base + extra)
    assert derivation(inc, terms, tr("v", "name", Literal("W")))[1] == "eq-rep-s"
    inc.retract(extra)
    full = Engine(terms)
    full.materialize(base)
    assert inc.depth == full.depth and inc.why.keys() == full.why.keys()
    assert derivation(inc, terms, tr("v", "owl:sameAs", "w")) is None


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(DATATYPES),
       st.text(max_size=30) | st.from_regex(r"[+-]?[0-9]{0,40}(\.[0-9]{0,5})?([eE][+-]?[0-9]{1,4})?", fullmatch=True))
def test_any_literal_gets_a_value_or_none_and_never_raises(datatype, lexical):
    lit = Literal(lexical, datatype=NamedNode(datatype))
    key = value_key(lit)
    types = value_datatypes(lit)
    assert (key is None) == (types == ())
    if key is not None:  # a known value: well typed, of its own datatype, and the same as itself
        assert not is_ill_typed(lit) and datatype in types and not values_differ(key, key)
