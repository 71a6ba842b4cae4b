"""solutions(): a SELECT's answer read as rows from any store; an ASK or CONSTRUCT answer is refused, not iterated."""

from __future__ import annotations

import pytest
from pyoxigraph import NamedNode, Quad

from attest.answer.solutions import solutions

SUBJECT, PREDICATE, OBJECT = NamedNode("urn:x:s"), NamedNode("urn:x:p"), NamedNode("urn:x:o")


def test_a_select_answer_is_its_rows(store):
    store.add([Quad(SUBJECT, PREDICATE, OBJECT, NamedNode("urn:x:g"))])
    rows = [(row["s"], row["o"]) for row in solutions(store.query("SELECT ?s ?o WHERE { GRAPH ?g { ?s <urn:x:p> ?o } }"))]
    assert rows == [(SUBJECT, OBJECT)]


@pytest.mark.parametrize("query, kind", [("ASK { ?s ?p ?o }", "QueryBoolean"),
                                         ("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "QueryTriples")])
def test_other_answers_are_refused(store, query, kind):
    with pytest.raises(TypeError, match=kind):
        solutions(store.query(query))
