"""Terms between pyoxigraph and rdflib (pyshacl's model), with a cache: labels, IRIs and numbers repeat across documents."""

from __future__ import annotations

import rdflib
from pyoxigraph import BlankNode, Literal, NamedNode

from attest.vocab import XSD

XSD_STRING = XSD + "string"

_TERMS: dict = {}  # pyoxigraph term -> rdflib term; labels, IRIs and numbers repeat across documents


def to_rdf(term) -> rdflib.term.Node:
    converted = _TERMS.get(term)
    if converted is None:
        if len(_TERMS) > 500_000:
            _TERMS.clear()
        converted = _TERMS[term] = _convert(term)
    return converted


def _convert(term) -> rdflib.term.Node:
    if isinstance(term, NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.value)
    if isinstance(term, Literal):
        if term.language:
            return rdflib.Literal(term.value, lang=term.language)
        if term.datatype.value == XSD_STRING:  # RDF 1.1: a simple literal is an xsd:string; rdflib keeps them apart
            return rdflib.Literal(term.value)
        return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))
    raise TypeError(f"cannot convert {term!r} to rdflib")


def to_oxi(term) -> NamedNode | BlankNode | Literal:
    if isinstance(term, rdflib.URIRef):
        return NamedNode(str(term))
    if isinstance(term, rdflib.BNode):
        return BlankNode(str(term))
    if isinstance(term, rdflib.Literal):
        if term.language:
            return Literal(str(term), language=term.language)
        if term.datatype is not None:
            return Literal(str(term), datatype=NamedNode(str(term.datatype)))
        return Literal(str(term))
    raise TypeError(f"cannot convert {term!r} to pyoxigraph")
