"""solutions() and boolean(): a query answer read as the kind its form gives, from any store; another kind is refused."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode, Quad

from attest.errors import StoreError
from attest.store.results import boolean, solutions

SUBJECT, PREDICATE, OBJECT = NamedNode("urn:x:s"), NamedNode("urn:x:p"), NamedNode("urn:x:o")


def test_a_select_answer_is_its_rows(store):
    store.add([Quad(SUBJECT, PREDICATE, OBJECT, NamedNode("urn:x:g"))])
    rows = [(row["s"], row["o"]) for row in solutions(store.query("SELECT ?s ?o WHERE { GRAPH ?g { ?s <urn:x:p> ?o } }"))]
    assert rows == [(SUBJECT, OBJECT)]


@pytest.mark.parametrize("query, kind", [("ASK { ?s ?p ?o }", "QueryBoolean"),
                                         ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "QueryTriples")])
def test_other_answers_are_refused(store, query, kind):
    with pytest.raises(StoreError, match=kind):
        solutions(store.query(query))


def test_an_ask_answer_is_a_boolean_and_nothing_else_is(store):
    assert boolean(store.query("ASK { ?s ?p ?o }")) is False
    with pytest.raises(StoreError, match="QuerySolutions"):
        boolean(store.query("SELECT * WHERE { ?s ?p ?o }"))
