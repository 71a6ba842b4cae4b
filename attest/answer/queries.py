"""SPARQL used by retrieval and verification: fixed query texts; values come in through substitutions or safe VALUES rows.

Batching many ids into one query needs a VALUES block (pyoxigraph substitutions bind one term per variable).
`values_rows` is the only code that writes terms into query text, and it accepts nothing but pyoxigraph
NamedNode objects: their constructor validates the IRI (RFC 3987 forbids `>`, `<`, spaces, quotes, braces
and `|`), so a serialized `<iri>` cannot end early or carry SPARQL (a Literal placeholder is written in the
literal's own escaped form). Callers build IRIs only from ids that attest.answer.ids resolved and checked.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from pyoxigraph import Literal, NamedNode

from attest.vocab import ATT, DCT, ONT, OWL, PROV, RDF, RDFS, SH, SKOS


PREFIXES = (f"PREFIX rdf: <{RDF}> PREFIX rdfs: <{RDFS}> PREFIX skos: <{SKOS}> PREFIX att: <{ATT}> PREFIX ont: <{ONT}> "
            f"PREFIX dct: <{DCT}> PREFIX owl: <{OWL}> PREFIX sh: <{SH}> PREFIX prov: <{PROV}>\n")

# Every quad pattern below reads the named graphs (GRAPH ?g) and the store's own default graph (?g unbound), with
# the union default graph switched off (GraphLookup.dataset): which graph holds a triple decides whether it is a fact.

# Values of the label predicates (VALUES ?p, in order of preference) of every IRI, with the graph that holds them.
ENTITY_LABELS = PREFIXES + """
SELECT ?e ?p ?label ?g WHERE {
  VALUES ?p { %(predicates)s }
  { GRAPH ?g { ?e ?p ?label } } UNION { ?e ?p ?label }
  FILTER(isIRI(?e) && isLiteral(?label))
}"""

# IRIs that name vocabulary (classes and properties, ?t says which): never entities, whatever labels they carry.
VOCABULARY_TERMS = PREFIXES + """
SELECT DISTINCT ?x ?t WHERE {
  VALUES ?t { rdf:Property rdfs:Class owl:Class owl:ObjectProperty owl:DatatypeProperty owl:AnnotationProperty
              owl:TransitiveProperty owl:SymmetricProperty owl:FunctionalProperty owl:InverseFunctionalProperty }
  ?x a ?t
}"""

# The names of every class and property: words that name a relation or a type, not an entity.
VOCABULARY_NAMES = PREFIXES + """
SELECT DISTINCT ?text WHERE {
  VALUES ?t { rdf:Property rdfs:Class owl:Class owl:ObjectProperty owl:DatatypeProperty owl:TransitiveProperty
              owl:SymmetricProperty owl:FunctionalProperty owl:InverseFunctionalProperty }
  ?x a ?t .
  { ?x rdfs:label ?text } UNION { ?x skos:prefLabel ?text } UNION { ?x skos:altLabel ?text }
  FILTER(isLiteral(?text))
}"""

# Labels of the IRIs: an entity exists when a fact graph labels it. Types, labels and descriptions of the IRIs.
# Each VALUES row pairs an IRI with a predicate, so every row is one index lookup (a block per variable made
# Oxigraph join them after reading every triple of each IRI).
LABELS_OF = PREFIXES + """
SELECT ?e ?p ?label ?g WHERE {
  VALUES (?e ?p) { %(pairs)s }
  { GRAPH ?g { ?e ?p ?label } } UNION { ?e ?p ?label }
  FILTER(isLiteral(?label))
}"""
ENTITY_DETAILS = PREFIXES + """
SELECT ?e ?p ?v ?g WHERE {
  VALUES (?e ?p) { %(pairs)s }
  { GRAPH ?g { ?e ?p ?v } } UNION { ?e ?p ?v }
}"""

# Predicates of schema and system vocabularies say nothing about the world (labels and descriptions in other
# vocabularies are dropped in Python: their list is a setting).
NOT_FACT = """FILTER(!STRSTARTS(STR(?p), STR(rdf:)) && !STRSTARTS(STR(?p), STR(rdfs:)) && !STRSTARTS(STR(?p), STR(owl:))
         && !STRSTARTS(STR(?p), STR(sh:)) && !STRSTARTS(STR(?p), STR(att:)) && !STRSTARTS(STR(?p), STR(prov:))
         && !STRSTARTS(STR(?p), STR(skos:)))"""

# An inferred relatesTo twins every specific fact in both directions: it would double what a hop reads. ?inferred is
# the inferred graph's IRI (GraphLookup fills it in): comparing terms decodes no string, where STRENDS(STR(?g))
# decoded the graph of each of the many relatesTo rows (a VALUES block, not a substitution: pyoxigraph substitutes only
# variables that are selected, and a selected ?inferred would be decoded on every row).
NOT_TWIN = "VALUES ?inferred { %(inferred)s } FILTER(?p != ont:relatesTo || !BOUND(?g) || ?g != ?inferred)"
# The same by the graph's name, for the samples (LIMIT): they are the first rows Oxigraph gives, and the VALUES join
# changes that order (which facts a hub gives) while it saves nothing on a bounded read.
NOT_TWIN_BY_NAME = 'FILTER(!(BOUND(?g) && ?p = ont:relatesTo && STRENDS(STR(?g), "/graph/inferred")))'

# Types and labels are never facts: comparing the predicate's term leaves them out before their rows are decoded
# (about one row in five of a node's; the other schema predicates are rarer, and dropped by GraphLookup, as cheaper
# than seven STRSTARTS per row as in NOT_FACT).
NOT_TYPE_OR_LABEL = "FILTER(?p != rdf:type && ?p != rdfs:label && ?p != skos:altLabel)"

# Facts (IRI objects) and attributes (literal objects) out of, and facts into, the IRIs in the VALUES blocks.
_TOUCHING = """
  { VALUES ?s { %(entities)s } { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } FILTER(isIRI(?o) || isLiteral(?o)) }
  UNION
  { VALUES ?o { %(entities)s } { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } FILTER(isIRI(?s)) }
"""
FACTS_TOUCHING = PREFIXES + "SELECT ?s ?p ?o ?g WHERE {" + _TOUCHING + NOT_TYPE_OR_LABEL + "\n" + NOT_TWIN + "\n}"

# The same as a sample of at most LIMIT rows: schema predicates are left out by the query, so they take no room in it.
SAMPLE_TOUCHING = PREFIXES + "SELECT ?s ?p ?o ?g WHERE {" + _TOUCHING + NOT_TWIN_BY_NAME + "\n" + NOT_FACT + "} LIMIT "

# The same for hubs, read only along the predicates that matter to the question, and at most LIMIT rows in all.
HUB_FACTS = PREFIXES + """
SELECT ?s ?p ?o ?g WHERE {
  VALUES ?p { %(wanted)s }
  { VALUES ?s { %(entities)s } { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } FILTER(isIRI(?o) || isLiteral(?o)) }
  UNION
  { VALUES ?o { %(entities)s } { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } FILTER(isIRI(?s)) }
  """ + NOT_TWIN_BY_NAME + """
} LIMIT """

# The same, out of one node only, at most LIMIT rows: a hub's thousands of incoming facts cannot crowd out the few
# that leave it. One bounded branch per node (lookup.hub_facts joins them by UNION): (node, predicate) pairs let each
# read seek its rows (a VALUES ?p joined to the group read every fact leaving the nodes first: 55 against 7 ms for 21
# hubs of a dense corpus), and a bound per node keeps one node's many from filling the others' share.
HUB_FACTS_OUT = """{ SELECT ?s ?p ?o ?g WHERE {
  VALUES (?s ?p) { %(pairs)s } { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o } FILTER(isIRI(?o) || isLiteral(?o))
  """ + NOT_TWIN_BY_NAME + """
} LIMIT """

# How many triples touch each IRI of the VALUES block, by predicate (their sum is the IRI's degree: hubs are read
# differently; a node with no triple along the predicates a hop wants need not be read at all).
PREDICATE_COUNTS = PREFIXES + """
SELECT ?x ?p (COUNT(*) AS ?n) WHERE {
  VALUES ?x { %(entities)s }
  { GRAPH ?g { ?x ?p ?o } } UNION { GRAPH ?g { ?s ?p ?x } } UNION { ?x ?p ?o } UNION { ?s ?p ?x }
} GROUP BY ?x ?p"""

# The document graphs (their IRI prefix: a pyoxigraph Literal, escaped) that hold a triple, at most %(limit)d of
# them: one bounded subquery per triple (the branches are joined by UNION in lookup.documents).
TRIPLE_DOCUMENTS = """{ SELECT (%(i)d AS ?i) ?g WHERE {
  GRAPH ?g { %(triple)s } FILTER(STRSTARTS(STR(?g), %(prefix)s)) } LIMIT %(limit)d }"""

# Outgoing facts and attributes of the subjects in the VALUES block (resolving hashed relation ids); schema
# predicates are dropped by GraphLookup, as for FACTS_TOUCHING.
FACTS_FROM = PREFIXES + """
SELECT ?s ?p ?o ?g WHERE {
  VALUES ?s { %(entities)s }
  { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o }
  FILTER(isIRI(?o) || isLiteral(?o))
}"""

# The graphs that hold each triple of the VALUES block.
TRIPLE_GRAPHS = """
SELECT ?s ?p ?o ?g WHERE {
  VALUES (?s ?p ?o) { %(triples)s }
  { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o }
}"""

# Chunks ranked by how many of the keywords ?k0, ?k1, … (Literals, substituted) their lower-cased text contains,
# the best `limit` (ties by chunk IRI): the store ranks and cuts, so a remote one sends back those rows only.
# CONTAINS, not REGEX: no pattern is compiled per row. Spans are read for the best chunks only (CHUNK_SPANS):
# OPTIONALs for them here made the search three times slower. `in_document`: only chunks of the document ?doc.
CHUNK_KEYWORDS = 8


def chunk_search(keywords: int, limit: int, in_document: bool) -> str:
    hits = " + ".join(f"IF(CONTAINS(?lower, ?k{i}), 1, 0)" for i in range(keywords))
    # pyoxigraph substitutes projected variables only
    bound = " ".join(f"?k{i}" for i in range(keywords)) + (" ?doc" if in_document else "")
    return PREFIXES + f"""
SELECT ?c ?text ?hits {bound} WHERE {{
  ?c att:text ?text . {"?c att:inDocument ?doc ." if in_document else ""}
  BIND(LCASE(?text) AS ?lower)
  BIND(({hits}) AS ?hits)
  FILTER(?hits > 0)
}} ORDER BY DESC(?hits) ?c LIMIT {int(limit)}"""


CHUNK_SPANS = PREFIXES + """
SELECT ?c ?doc ?start ?end WHERE {
  VALUES ?c { %(chunks)s }
  OPTIONAL { ?c att:inDocument ?doc }
  OPTIONAL { ?c att:charStart ?start }
  OPTIONAL { ?c att:charEnd ?end }
}"""

# Depth of the derivation records in the VALUES block (their IRIs are hashes of the derived triples).
DERIVATION_DEPTHS = PREFIXES + """
SELECT ?d ?depth ?g WHERE {
  VALUES ?d { %(derivations)s }
  GRAPH ?g { ?d att:depth ?depth }
}"""

# Every derivation record reachable from the roots in the VALUES block (a record's premise that is itself derived
# leads to that premise's record), with its rule, depth, conclusion and premises: a whole proof in one query.
# Path evaluation visits each record once, so a cyclic derivation cannot loop; the depth bound is applied in Python.
DERIVATION_TREES = PREFIXES + """
SELECT ?root ?d ?rule ?depth ?conclusion ?premise ?g WHERE {
  VALUES ?root { %(derivations)s }
  GRAPH ?g {
    ?root (att:premise/^att:derives)* ?d .
    ?d att:rule ?rule ; att:depth ?depth ; att:derives ?conclusion ; att:premise ?premise
  }
} LIMIT 20000"""

# The root records alone (same columns as DERIVATION_TREES): asked only for roots that query left out, as
# Virtuoso does (its `*` path bound by VALUES drops the zero-length step, the root's own record).
DERIVATION_ROOTS = PREFIXES + """
SELECT ?root ?d ?rule ?depth ?conclusion ?premise ?g WHERE {
  VALUES ?d { %(derivations)s }
  GRAPH ?g { ?d att:rule ?rule ; att:depth ?depth ; att:derives ?conclusion ; att:premise ?premise }
}"""

# What each property of the VALUES block is called (labels, alternative labels, comments), and the texts of
# its inverse properties (?inverse bound), in any graph, ontology included.
# Labels of the classes the properties of the VALUES block lead from (rdfs:domain) and to (rdfs:range).
PROPERTY_CLASSES = PREFIXES + """
SELECT ?p ?side ?text WHERE {
  VALUES ?p { %(properties)s }
  { ?p rdfs:domain ?c BIND("domain" AS ?side) } UNION { ?p rdfs:range ?c BIND("range" AS ?side) }
  { ?c rdfs:label ?text } UNION { ?c skos:prefLabel ?text } UNION { ?c skos:altLabel ?text }
  FILTER(isLiteral(?text))
}"""

PROPERTY_TEXT = PREFIXES + """
SELECT ?p ?k ?text ?inverse WHERE {
  VALUES ?p { %(properties)s }
  { VALUES ?k { rdfs:label skos:prefLabel skos:altLabel rdfs:comment } ?p ?k ?text }
  UNION
  { { ?p owl:inverseOf ?inverse } UNION { ?inverse owl:inverseOf ?p }
    { ?inverse rdfs:label ?text } UNION { ?inverse skos:prefLabel ?text } UNION { ?inverse skos:altLabel ?text } }
  FILTER(isLiteral(?text))
}"""


# the properties that state at least one triple (a declared property no fact uses cannot be walked, and its words
# must not count as what the graph names as written)
PROPERTIES_IN_USE = """
SELECT ?p WHERE {
  VALUES ?p { %(properties)s }
  FILTER EXISTS { ?s ?p ?o }
}"""


def values_rows(rows: Iterable[Sequence[NamedNode]]) -> str:
    """Serialize rows of NamedNodes for a VALUES block; one term per row gives `<a> <b>`, several give `(<a> <b>)`."""
    out = []
    for row in rows:
        for term in row:
            if type(term) is not NamedNode:  # noqa: E721 — subclasses or other term kinds are refused on purpose
                raise TypeError(f"VALUES rows take NamedNode terms only, not {type(term).__name__}")
        out.append(str(row[0]) if len(row) == 1 else "(" + " ".join(str(t) for t in row) + ")")
    return " ".join(out)


def with_values(query: str, **blocks: Iterable[Sequence[NamedNode]] | Literal) -> str:
    """Fill a query's VALUES placeholders with serialized NamedNode rows (see module docstring); a Literal
    placeholder takes the literal's own escaped serialization."""
    return query % {name: _serialized(rows) for name, rows in blocks.items()}


def _serialized(rows: Iterable[Sequence[NamedNode]] | Literal) -> str:
    if type(rows) is Literal:  # the exact type: a subclass could write anything
        return str(rows)
    assert not isinstance(rows, Literal)
    return values_rows(rows)
