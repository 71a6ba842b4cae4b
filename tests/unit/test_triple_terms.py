"""The triple-term codec for stores without RDF 1.2 triple terms: round trips, query and update rewrites, decoding."""

from __future__ import annotations

import pytest
from pyoxigraph import (
    BlankNode, Literal, NamedNode, Quad, QueryResultsFormat, RdfFormat, Store, Triple, parse, parse_query_results,
)

from attest.errors import BadRequest
from attest.store.triple_terms import (
    PREFIX, decode_iri, decode_lines, decode_term, decode_xml, encode, encode_quads, rewrite,
)

EX = "http://example.org/"
XSD = "http://www.w3.org/2001/XMLSchema#"


def ex(name: str) -> NamedNode:
    return NamedNode(EX + name)


ODD_OBJECTS = [
    Literal("plain"),
    Literal('quote " backslash \\ newline \n tab \t <<( not a term )>> %41 ünïcode 😀'),
    Literal("colour", language="en-GB"),
    Literal("2.50", datatype=NamedNode(XSD + "decimal")),
    Literal("x y", datatype=NamedNode("http://example.org/dt?a=b&c=%20#frag")),
    NamedNode("http://example.org/with%20space/and#hash?query=1"),
    BlankNode("b1"),
]


@pytest.mark.parametrize("obj", ODD_OBJECTS, ids=lambda o: type(o).__name__ + str(ODD_OBJECTS.index(o)))
def test_round_trip_of_odd_terms(obj):
    triple = Triple(ex("s"), ex("p"), obj)
    iri = encode(triple)
    assert iri.value.startswith(PREFIX) and all(c not in iri.value for c in ' <>"{}|\\^`')
    assert decode_iri(iri.value) == triple
    assert decode_term(iri) == triple and decode_term(ex("s")) == ex("s")


def test_nested_triple_terms_round_trip_and_differ():
    inner = Triple(ex("a"), ex("b"), Literal("c", language="fr"))
    outer = Triple(ex("d"), ex("says"), Triple(ex("e"), ex("f"), inner))
    assert decode_iri(encode(outer).value) == outer
    assert encode(inner) != encode(Triple(ex("a"), ex("b"), Literal("c")))


def test_malformed_encoded_iri_is_refused():
    with pytest.raises(ValueError):
        decode_iri(PREFIX + "%3Chttp%3A%2F%2Fa%3E")  # one term, not three
    with pytest.raises(ValueError):
        decode_iri("http://example.org/not-encoded")


def test_encoded_quads_carry_descriptions_in_the_same_graph():
    g = ex("g")
    t = Triple(ex("a"), ex("b"), Triple(ex("c"), ex("d"), ex("e")))
    quads = list(encode_quads([Quad(ex("r1"), ex("derives"), t, g), Quad(ex("r2"), ex("derives"), t, g)]))
    assert not any(isinstance(q.object, Triple) for q in quads)
    assert all(q.graph_name == g for q in quads)
    assert len(quads) == 2 + 6  # both quads; the outer and the nested term described once each


# the rewrite, checked by evaluating it on a real engine: encoded data + rewritten query = native data + query

DATA = f"""
@prefix ex: <{EX}> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
ex:g1 {{ ex:st1 rdf:reifies <<( ex:alice ex:knows ex:bob )>> ; ex:conf 0.9 .
        ex:st2 rdf:reifies <<( ex:alice ex:name "Alice"@en-GB )>> .
        ex:d1 ex:derives <<( ex:bob ex:says <<( ex:alice ex:knows ex:bob )>> )>> .
        ex:text ex:value "<<( ex:alice ex:knows ex:bob )>>" . }}
ex:g2 {{ ex:st3 rdf:reifies <<( ex:carol ex:knows ex:bob )>> . }}
"""

QUERIES = [
    # variables inside a triple term, in a named graph
    f"PREFIX ex: <{EX}> SELECT ?g ?s ?o WHERE {{ GRAPH ?g {{ ?st <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( ?s ex:knows ?o )>> }} }}",
    # a constant one, prefixed names and `a`-free, with a literal carrying a language tag
    f"PREFIX ex: <{EX}> SELECT ?st WHERE {{ GRAPH ?g {{ ?st ?p <<( ex:alice ex:name \"Alice\"@en-gb )>> }} }}",
    # nested, with a variable in the inner term
    f"PREFIX ex: <{EX}> SELECT ?who WHERE {{ GRAPH ?g {{ ?d ex:derives <<( ex:bob ex:says <<( ?who ex:knows ex:bob )>> )>> }} }}",
    # a string that looks like a triple term is not touched
    f"PREFIX ex: <{EX}> SELECT ?x WHERE {{ GRAPH ?g {{ ?x ex:value \"<<( ex:alice ex:knows ex:bob )>>\" }} }}",
    # the term itself comes back as a result
    f"PREFIX ex: <{EX}> SELECT ?t WHERE {{ GRAPH ex:g2 {{ ?st <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> ?t }} }}",
]


def _stores() -> tuple[Store, Store]:
    quads = list(parse(DATA, RdfFormat.TRIG))
    native, encoded = Store(), Store()
    native.extend(quads)
    encoded.extend(encode_quads(quads))
    return native, encoded


def _decoded_rows(store: Store, query: str) -> list:
    xml = store.query(rewrite(query)).serialize(format=QueryResultsFormat.XML).decode()
    solutions = parse_query_results(decode_xml(xml).encode(), QueryResultsFormat.XML)
    return sorted(tuple(str(s[v]) for v in solutions.variables) for s in solutions)


@pytest.mark.parametrize("query", QUERIES)
def test_rewritten_query_over_encoded_data_answers_like_native(query):
    native, encoded = _stores()
    expected = sorted(tuple(str(s[v]) for v in r.variables) for r in [native.query(query)] for s in r)
    assert expected, "the query must select something for the comparison to mean anything"
    assert _decoded_rows(encoded, query) == expected


def test_strings_iris_and_comments_are_never_rewritten():
    query = f'SELECT * WHERE {{ ?s ?p "<<( <{EX}a> <{EX}b> <{EX}c> )>>" ; ?q \'<<(\' }} # <<( ?x ?y ?z )>>'
    assert rewrite(query) == query


def test_unclosed_triple_term_is_a_clear_error():
    with pytest.raises(BadRequest, match=r"\)>>"):
        rewrite(f"SELECT * WHERE {{ ?s ?p <<( <{EX}a> <{EX}b> <{EX}c> }}")


def test_update_inserts_descriptions_into_the_graph_it_writes():
    update = (f"PREFIX ex: <{EX}> INSERT DATA {{ GRAPH ex:g {{ ex:r ex:derives <<( ex:a ex:b \"c\" )>> }} }} ;\n"
              f"DELETE DATA {{ GRAPH ex:g {{ ex:r ex:derives <<( ex:x ex:y ex:z )>> }} }}")
    store = Store()
    store.update(rewrite(update))
    term = Triple(ex("a"), ex("b"), Literal("c"))
    assert Quad(ex("r"), ex("derives"), encode(term), ex("g")) in store
    rows = store.query(rewrite(f"PREFIX ex: <{EX}> SELECT ?o WHERE {{ GRAPH ex:g {{ ?r ex:derives <<( ex:a ex:b ?o )>> }} }}"))
    assert [s["o"] for s in rows] == [Literal("c")]
    # nothing was described for the DELETE: only the inserted term's three descriptions and the quad itself
    assert len(list(store.quads_for_pattern(None, None, None, ex("g")))) == 4


def test_update_into_a_variable_graph_is_refused_clearly():
    with pytest.raises(BadRequest, match="variable graph"):
        rewrite(f"INSERT {{ GRAPH ?g {{ <{EX}r> <{EX}p> <<( <{EX}a> <{EX}b> <{EX}c> )>> }} }} WHERE {{ GRAPH ?g {{ ?s ?p ?o }} }}")


def test_decoded_graph_answer_drops_descriptions_and_parses():
    _, encoded = _stores()
    nt = encoded.query("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }").serialize(format=RdfFormat.N_TRIPLES)
    triples = list(parse(decode_lines(nt.decode(), graph=True), RdfFormat.N_TRIPLES))
    native, _ = _stores()
    expected = set(native.query("CONSTRUCT { ?s ?p ?o } WHERE { GRAPH ?g { ?s ?p ?o } }"))
    assert {q.triple for q in triples} == expected


def test_decoded_tsv_leaves_literals_alone():
    iri = encode(Triple(ex("a"), ex("b"), ex("c")))
    tsv = f'?t\t?text\n{iri}\t"{iri}"\n'
    decoded = decode_lines(tsv, graph=False)
    row = next(iter(parse_query_results(decoded.encode(), QueryResultsFormat.TSV)))
    assert row["t"] == Triple(ex("a"), ex("b"), ex("c")) and row["text"] == Literal(str(iri))
