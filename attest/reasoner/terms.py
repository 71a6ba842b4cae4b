"""Dictionary encoding of RDF terms to ints, with the OWL 2 RL vocabulary pre-interned at fixed ids."""

from __future__ import annotations

from typing import Iterable, cast

from pyoxigraph import BlankNode, Literal, NamedNode, Triple

from attest.reasoner.datatypes import is_ill_typed
from attest.vocab import OWL, RDF, RDFS, XSD

Term = NamedNode | BlankNode | Literal
Encoded = tuple[int, int, int]

# (constant name, IRI) in id order: the engine's rule code refers to these ids as module constants
_VOCAB: list[tuple[str, str]] = [
    ("TYPE", RDF + "type"), ("FIRST", RDF + "first"), ("REST", RDF + "rest"), ("NIL", RDF + "nil"),
    ("SCO", RDFS + "subClassOf"), ("SPO", RDFS + "subPropertyOf"), ("DOMAIN", RDFS + "domain"),
    ("RANGE", RDFS + "range"), ("SAME", OWL + "sameAs"), ("DIFF", OWL + "differentFrom"),
    ("EQC", OWL + "equivalentClass"), ("EQP", OWL + "equivalentProperty"), ("INV", OWL + "inverseOf"),
    ("DW", OWL + "disjointWith"), ("PDW", OWL + "propertyDisjointWith"), ("CLASS", OWL + "Class"),
    ("THING", OWL + "Thing"), ("NOTHING", OWL + "Nothing"), ("OBJPROP", OWL + "ObjectProperty"),
    ("DATAPROP", OWL + "DatatypeProperty"), ("FUNCTIONAL", OWL + "FunctionalProperty"),
    ("INVFUNCTIONAL", OWL + "InverseFunctionalProperty"), ("IRREFLEXIVE", OWL + "IrreflexiveProperty"),
    ("SYMMETRIC", OWL + "SymmetricProperty"), ("ASYMMETRIC", OWL + "AsymmetricProperty"),
    ("TRANSITIVE", OWL + "TransitiveProperty"), ("CHAIN", OWL + "propertyChainAxiom"),
    ("HASKEY", OWL + "hasKey"), ("SOURCE", OWL + "sourceIndividual"), ("ASSERTPROP", OWL + "assertionProperty"),
    ("TARGETIND", OWL + "targetIndividual"), ("TARGETVAL", OWL + "targetValue"),
    ("ALLDIFFERENT", OWL + "AllDifferent"), ("MEMBERS", OWL + "members"),
    ("DISTINCTMEMBERS", OWL + "distinctMembers"), ("ALLDISJOINTCLASSES", OWL + "AllDisjointClasses"),
    ("ALLDISJOINTPROPS", OWL + "AllDisjointProperties"), ("INTERSECTION", OWL + "intersectionOf"),
    ("UNION", OWL + "unionOf"), ("COMPLEMENT", OWL + "complementOf"), ("ONEOF", OWL + "oneOf"),
    ("SVF", OWL + "someValuesFrom"), ("AVF", OWL + "allValuesFrom"), ("HASVALUE", OWL + "hasValue"),
    ("ONPROP", OWL + "onProperty"), ("ONCLASS", OWL + "onClass"), ("MAXC", OWL + "maxCardinality"),
    ("MAXQC", OWL + "maxQualifiedCardinality"), ("ANNOTPROP", OWL + "AnnotationProperty"),
    ("DATATYPE", RDFS + "Datatype"),
]
(TYPE, FIRST, REST, NIL, SCO, SPO, DOMAIN, RANGE, SAME, DIFF, EQC, EQP, INV, DW, PDW, CLASS, THING, NOTHING,
 OBJPROP, DATAPROP, FUNCTIONAL, INVFUNCTIONAL, IRREFLEXIVE, SYMMETRIC, ASYMMETRIC, TRANSITIVE, CHAIN, HASKEY,
 SOURCE, ASSERTPROP, TARGETIND, TARGETVAL, ALLDIFFERENT, MEMBERS, DISTINCTMEMBERS, ALLDISJOINTCLASSES,
 ALLDISJOINTPROPS, INTERSECTION, UNION, COMPLEMENT, ONEOF, SVF, AVF, HASVALUE, ONPROP, ONCLASS, MAXC, MAXQC,
 ANNOTPROP, DATATYPE) = range(len(_VOCAB))
assert [n for n, _ in _VOCAB][-1] == "DATATYPE"  # keep the unpacking above in _VOCAB's order

# prp-ap: the annotation properties the OWL 2 RL rule table declares
ANNOTATION_PROPERTIES = [RDFS + n for n in ("label", "comment", "seeAlso", "isDefinedBy")] + [
    OWL + n for n in ("deprecated", "versionInfo", "priorVersion", "backwardCompatibleWith", "incompatibleWith")]
# dt-type1: the datatypes of OWL 2 RL (Section 4.3), plus rdf:HTML, xsd:date, xsd:time as owlrl declares them too
DATATYPES = [RDF + "PlainLiteral", RDF + "XMLLiteral", RDF + "langString", RDF + "HTML", RDFS + "Literal"] + [XSD + n for n in (
    "decimal", "integer", "nonNegativeInteger", "nonPositiveInteger", "positiveInteger", "negativeInteger", "long",
    "int", "short", "byte", "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte", "double", "float",
    "string", "normalizedString", "token", "language", "Name", "NCName", "NMTOKEN", "boolean", "hexBinary",
    "base64Binary", "anyURI", "dateTime", "dateTimeStamp", "date", "time")]


class TermDict:
    """Bidirectional map term <-> int; literals are flagged so no rule puts one in subject position."""

    def __init__(self) -> None:
        self.ids: dict[Term, int] = {}
        self.terms: list[Term] = []
        self.literals: set[int] = set()
        self.blanks: set[int] = set()
        self.ill_typed: set[int] = set()  # literals outside their datatype's lexical space (dt-not-type)
        self._nt: list[str | None] = []
        for _, iri in _VOCAB:
            self.encode(NamedNode(iri))

    def encode(self, term: Term) -> int:
        i = self.ids.get(term)
        if i is None:
            i = self.ids[term] = len(self.terms)
            self.terms.append(term)
            self._nt.append(None)
            if isinstance(term, Literal):
                self.literals.add(i)
                if is_ill_typed(term):
                    self.ill_typed.add(i)
            elif isinstance(term, BlankNode):
                self.blanks.add(i)
        return i

    def nt(self, i: int) -> str:
        """The N-Triples form of term i (cached)."""
        text = self._nt[i]
        if text is None:
            text = self._nt[i] = str(self.terms[i])
        return text

    def lookup(self, term: Term) -> int | None:
        return self.ids.get(term)

    def encode_triples(self, triples: Iterable[Triple]) -> list[Encoded]:
        enc = self.encode  # a triple term, if one comes, is kept as one more opaque term
        return [(enc(cast(Term, t.subject)), enc(t.predicate), enc(cast(Term, t.object))) for t in triples]

    def decode(self, t: Encoded) -> Triple:
        terms = self.terms
        # no rule puts a literal in subject position, and predicates are IRIs
        return Triple(cast(NamedNode | BlankNode, terms[t[0]]), cast(NamedNode, terms[t[1]]), terms[t[2]])

    def int_value(self, i: int) -> int | None:
        """The integer value of a literal id (cardinalities), or None."""
        term = self.terms[i]
        if isinstance(term, Literal):
            try:
                return int(term.value)
            except ValueError:
                return None
        return None
