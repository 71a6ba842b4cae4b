"""Protocol request parsing, content negotiation and the lexer behind FROM detection and using-graph-uri."""

from __future__ import annotations

import pytest

from attest.errors import BadRequest, NotAcceptable, PayloadTooLarge, UnsupportedFormat
from attest.sparql.formats import format_named, negotiate
from attest.sparql.lexer import add_using_clauses, has_dataset_clause, has_relative_iri
from attest.sparql.protocol import Dataset, QueryRequest, UpdateRequest, parse_request

LIMITS = dict(accept=None, max_chars=1000, default_timeout_s=30.0, max_timeout_s=300.0)


def parse(method, params=(), content_type=None, body=b"", **over):
    return parse_request(method, list(params), content_type, body, **{**LIMITS, **over})


# requests ---------------------------------------------------------------------------------------------

def test_get_query_with_dataset_and_timeout():
    op = parse("GET", [("query", "ASK {}"), ("default-graph-uri", "http://a"), ("named-graph-uri", "http://b"),
                       ("named-graph-uri", "http://c"), ("timeout", "2.5")])
    assert op == QueryRequest("ASK {}", Dataset(("http://a",), ("http://b", "http://c")), 2.5, None)


def test_get_without_query_asks_for_the_service_description():
    assert parse("GET") is None


def test_post_form_merges_url_and_body_parameters():
    op = parse("POST", [("default-graph-uri", "http://g")], "application/x-www-form-urlencoded",
               b"query=SELECT%20*%20%7B%7D&timeout=1")
    assert isinstance(op, QueryRequest) and op.query == "SELECT * {}" and op.dataset.default_graphs == ("http://g",)
    assert op.timeout_s == 1.0


def test_post_direct_query_and_update():
    assert parse("POST", [], "application/sparql-query; charset=utf-8", b"ASK {}").query == "ASK {}"
    op = parse("POST", [("using-graph-uri", "http://u"), ("using-named-graph-uri", "http://n")],
               "application/sparql-update", b"CLEAR ALL")
    assert op == UpdateRequest("CLEAR ALL", Dataset(("http://u",), ("http://n",)))


def test_form_update():
    assert parse("POST", [], "application/x-www-form-urlencoded", b"update=CLEAR+ALL") == UpdateRequest("CLEAR ALL")


@pytest.mark.parametrize("method,params,ctype,body,error", [
    ("GET", [("query", "ASK {}"), ("query", "ASK {}")], None, b"", BadRequest),
    ("GET", [("update", "CLEAR ALL")], None, b"", BadRequest),
    ("POST", [], "text/plain", b"ASK {}", UnsupportedFormat),
    ("POST", [], None, b"query=ASK%20%7B%7D", UnsupportedFormat),
    ("POST", [], "application/sparql-query; charset=UTF-16", b"ASK {}", UnsupportedFormat),
    ("POST", [], "application/sparql-query", b"\xff\xfeA", BadRequest),
    ("POST", [], "application/x-www-form-urlencoded", b"update=A&update=B", BadRequest),
    ("POST", [], "application/x-www-form-urlencoded", b"query=A&update=B", BadRequest),
    ("POST", [], "application/x-www-form-urlencoded", b"nothing=here", BadRequest),
    ("POST", [("query", "ASK {}")], "application/sparql-query", b"ASK {}", BadRequest),
    ("GET", [("query", "ASK {}"), ("default-graph-uri", "not an iri")], None, b"", BadRequest),
    ("GET", [("query", "ASK {}"), ("using-graph-uri", "http://a")], None, b"", BadRequest),
    ("POST", [("default-graph-uri", "http://a")], "application/sparql-update", b"CLEAR ALL", BadRequest),
    ("GET", [("query", "ASK {}"), ("timeout", "soon")], None, b"", BadRequest),
    ("GET", [("query", "ASK {}"), ("timeout", "-1")], None, b"", BadRequest),
    ("GET", [("query", "ASK {}"), ("timeout", "nan")], None, b"", BadRequest),
    ("GET", [("query", "ASK {}"), ("format", "png")], None, b"", BadRequest),
])
def test_bad_requests_are_4xx(method, params, ctype, body, error):
    with pytest.raises(error) as err:
        parse(method, params, ctype, body)
    assert 400 <= err.value.status_code < 500


def test_query_text_over_the_limit_is_413():
    with pytest.raises(PayloadTooLarge) as err:
        parse("GET", [("query", "ASK {}" + " " * 1000)])
    assert err.value.status_code == 413
    with pytest.raises(PayloadTooLarge):
        parse("POST", [], "application/sparql-update", b"CLEAR ALL" + b" " * 1000)


def test_timeout_is_bounded_by_the_maximum():
    assert parse("GET", [("query", "ASK {}"), ("timeout", "9999")]).timeout_s == 300.0
    assert parse("GET", [("query", "ASK {}")], default_timeout_s=7).timeout_s == 7


def test_format_parameter_overrides_accept():
    assert parse("GET", [("query", "ASK {}"), ("format", "csv")], accept="application/json").accept == "text/csv"


# negotiation ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("accept,kind,name", [
    (None, "solutions", "json"),
    ("*/*", "graph", "turtle"),
    ("application/sparql-results+xml", "solutions", "xml"),
    ("text/csv;q=0.5, text/tab-separated-values", "solutions", "tsv"),
    ("application/json, text/javascript", "boolean", "json"),
    ("application/xml", "graph", "rdfxml"),
    ("text/*", "solutions", "csv"),
    ("application/n-triples", "graph", "ntriples"),
    ("text/plain", "graph", "ntriples"),
    ("application/trig", "graph", "trig"),
    ("application/ld+json", "graph", "jsonld"),
    ("image/png, */*;q=0.1", "solutions", "json"),
    ("application/rdf+xml;q=0.9, text/turtle", "graph", "turtle"),
])
def test_negotiation_picks_the_preferred_format(accept, kind, name):
    assert negotiate(accept, kind).name == name


@pytest.mark.parametrize("accept,kind", [("image/png", "solutions"), ("text/turtle", "solutions"),
                                         ("text/csv", "graph"), ("text/turtle;q=0", "graph")])
def test_unservable_accept_is_406(accept, kind):
    with pytest.raises(NotAcceptable) as err:
        negotiate(accept, kind)
    assert err.value.status_code == 406


def test_format_names():
    assert format_named("TriG").media_type == "application/trig"
    with pytest.raises(BadRequest):
        format_named("yaml")


# lexer --------------------------------------------------------------------------------------------------

def test_dataset_clause_is_found_only_at_the_top_level():
    assert has_dataset_clause("SELECT * FROM <http://g> WHERE { ?s ?p ?o }")
    assert has_dataset_clause("select * from named <http://g> { graph ?g { ?s ?p ?o } }")
    assert not has_dataset_clause('SELECT * WHERE { ?s ?p "FROM <x>" }')
    assert not has_dataset_clause("SELECT * WHERE { ?s <http://ex/from> ?o } # FROM <http://g>")
    assert not has_dataset_clause("SELECT ?from WHERE { ?from ?p ?o }")


def test_using_clauses_go_before_each_modify_where():
    update = ('PREFIX ex: <http://ex/> INSERT DATA { ex:a ex:b "WHERE" } ; '
              'DELETE { ?s ?p ?o } INSERT { ?s ?p 1 } WHERE { ?s ?p ?o } ; DELETE WHERE { ?s ?p ?o }')
    out = add_using_clauses(update, ("http://g1",), ("http://g2",))
    assert out.count("USING <http://g1> USING NAMED <http://g2> WHERE") == 1
    assert 'ex:b "WHERE"' in out and out.endswith("DELETE WHERE { ?s ?p ?o }")


def test_using_parameters_conflict_with_using_or_with_in_the_update():
    for update in ("WITH <http://g> DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }",
                   "DELETE { ?s ?p ?o } USING <http://g> WHERE { ?s ?p ?o }"):
        with pytest.raises(BadRequest):
            add_using_clauses(update, ("http://a",), ())
    assert add_using_clauses("WITH <http://g> CLEAR ALL", (), ()) == "WITH <http://g> CLEAR ALL"


def test_using_graph_iris_cannot_inject():
    with pytest.raises(ValueError):
        add_using_clauses("DELETE { ?s ?p ?o } WHERE { ?s ?p ?o }", ("http://a> } ; DROP ALL ; #",), ())


def test_relative_iris():
    assert has_relative_iri("CONSTRUCT { <s> <p> 1 } WHERE {}")
    assert not has_relative_iri("SELECT * WHERE { <http://s> ?p ?o FILTER(?o < 3) }")


def test_without_lateral_drops_the_keyword_only():
    from attest.sparql.lexer import without_lateral

    text = 'SELECT * WHERE { ?s ?p ?o LATERAL { ?o ?q "LATERAL" } # LATERAL in a comment\n ?lateral <urn:LATERAL> x:lateral }'
    assert without_lateral(text) == ('SELECT * WHERE { ?s ?p ?o  { ?o ?q "LATERAL" } # LATERAL in a comment\n'
                                     ' ?lateral <urn:LATERAL> x:lateral }')
    assert without_lateral("SELECT * WHERE { ?s ?p ?o lateral{?o ?q ?r} }") == "SELECT * WHERE { ?s ?p ?o {?o ?q ?r} }"
