"""Checks a generated SPARQL query on its parsed form before it runs: it parses, reads only, calls no SERVICE, names
only IRIs the store holds, and gets a LIMIT.

The checks read rdflib's parse tree and algebra, never the prompt or the question: whatever text persuaded the
model, what runs is bounded by these checks. An update (INSERT, DELETE, LOAD, CLEAR, DROP ...) does not parse as
a query and is refused; the query that passes is only ever handed to a query evaluator (store.query), never to
an update one.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from pyoxigraph import NamedNode
from pyparsing import ParseException
from rdflib import URIRef
from rdflib.plugins.sparql.algebra import translateQuery
from rdflib.plugins.sparql.parser import parseQuery, parseUpdate
from rdflib.plugins.sparql.parserutils import CompValue

from attest.answer.queries import with_values
from attest.store.results import solutions
from attest.answer.sparql_models import CheckName
from attest.errors import BadRequest
from attest.sparql.lexer import bare_words, top_level_words, with_page
from attest.store import GraphStore
from attest.vocab import XSD

# Datatypes of casts and literals name no resource: they need not be in the store.
ALWAYS_KNOWN = (XSD,)
UPDATE_WORDS = frozenset({"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE", "ADD", "MOVE", "COPY", "WITH", "USING"})
MAX_SHOWN = 5
MAX_QUERY_CHARS = 8000  # a question's query is short; the parser's time grows fast with long boolean chains  # unknown IRIs named in a step's detail

# Which of the IRIs of the VALUES block the store holds: in a triple of any graph (union default graph), or as a
# graph's name. EXISTS stops at the first match, so a predicate on millions of triples costs one lookup.
KNOWN_IRIS = """
SELECT ?x WHERE {
  VALUES ?x { %(iris)s }
  FILTER(EXISTS { ?x ?p ?o } || EXISTS { ?s ?x ?o } || EXISTS { ?s ?p ?x } || EXISTS { GRAPH ?x { ?s ?p ?o } })
}"""


@dataclass
class Step:
    """One check and its outcome."""

    check: CheckName
    ok: bool
    detail: str


@dataclass
class Checked:
    """A query after the checks: `query` (the text to run, with its LIMIT) is set when every step passed."""

    steps: list[Step] = field(default_factory=list)
    query: str | None = None

    @property
    def failure(self) -> Step | None:
        return next((s for s in self.steps if not s.ok), None)


def known_iris_in(store: GraphStore) -> Callable[[list[str]], set[str]]:
    """The existence test over a store: which of the IRIs it holds (one query per 200)."""

    def known(iris: list[str]) -> set[str]:
        out: set[str] = set()
        for i in range(0, len(iris), 200):
            rows = [(NamedNode(x),) for x in iris[i:i + 200]]
            out.update(row["x"].value for row in solutions(store.query(with_values(KNOWN_IRIS, iris=rows))))
        return out

    return known


def check_query(text: str, known: Callable[[list[str]], set[str]], max_rows: int) -> Checked:
    """Run the checks in order and stop at the first that fails."""
    out = Checked()
    if len(text) > MAX_QUERY_CHARS:
        out.steps.append(Step("parse", False, f"the query is over {MAX_QUERY_CHARS} characters"))
        return out
    try:
        parsed = parseQuery(text)
    except RecursionError:
        out.steps.append(Step("parse", False, "the query is nested too deeply for the checks to read it"))
        return out
    except ParseException as exc:
        if _parses_as_update(text):
            out.steps.append(Step("parse", True, "parses as a SPARQL update"))
            out.steps.append(Step("read_only", False, "an update (INSERT, DELETE, LOAD, CLEAR, DROP, CREATE, ADD, "
                                                      "MOVE, COPY) is refused: only a SELECT query runs"))
        else:
            out.steps.append(Step("parse", False, f"not a SPARQL query: {_one_line(exc)}"))
        return out
    try:
        algebra = translateQuery(parsed).algebra
    except Exception as exc:  # noqa: BLE001 — rdflib raises plain Exception (e.g. an undeclared prefix); reported, not swallowed
        out.steps.append(Step("parse", False, f"the query cannot be read: {_one_line(exc)}"))
        return out
    out.steps.append(Step("parse", True, "parses as a SPARQL query"))

    # a second reading of the text with the project's own lexer, tokenized as Oxigraph reads it: a keyword rdflib's
    # parse did not see (a parser disagreement, e.g. over what is a comment) refuses the query all the same
    words = bare_words(text)
    if words & UPDATE_WORDS:
        out.steps.append(Step("read_only", False, f"the text holds the update keyword(s) {', '.join(sorted(words & UPDATE_WORDS))}"))
        return out
    if algebra.name != "SelectQuery":
        form = algebra.name.removesuffix("Query").upper()
        out.steps.append(Step("read_only", False, f"a {form} query: only SELECT is run"))
        return out
    out.steps.append(Step("read_only", True, "a SELECT query; it runs on the query evaluator only"))

    iris: set[str] = set()
    names: set[str] = set()
    try:
        _walk(algebra, iris, names)
    except RecursionError:
        out.steps.append(Step("no_service", False, "the query is nested too deeply for the checks to read it"))
        return out
    if "ServiceGraphPattern" in names or "SERVICE" in words:
        out.steps.append(Step("no_service", False, "SERVICE (a call to another endpoint) is refused"))
        return out
    out.steps.append(Step("no_service", True, "no SERVICE clause"))

    named = sorted(i for i in iris if not i.startswith(ALWAYS_KNOWN))
    valid = [i for i in named if _valid_iri(i)]  # an IRI pyoxigraph refuses cannot be in the store either
    held = known(valid) if valid else set()
    unknown = [i for i in named if i not in held]
    if unknown:
        shown = ", ".join(f"<{i}>" for i in unknown[:MAX_SHOWN]) + (" ..." if len(unknown) > MAX_SHOWN else "")
        out.steps.append(Step("iris_exist", False, f"{len(unknown)} IRI(s) are in neither the graph nor the "
                                                     f"ontology: {shown}"))
        return out
    out.steps.append(Step("iris_exist", True, f"all {len(named)} IRI(s) are in the graph or the ontology"))

    try:
        limited, room = _with_limit(text, max_rows)
    except BadRequest as exc:
        out.steps.append(Step("limit", False, exc.message))
        return out
    own = algebra.p.length if algebra.p.name == "Slice" else None
    kept = own is not None and own <= max_rows
    out.steps.append(Step("limit", True, f"its own LIMIT {own} kept" if kept else f"LIMIT {room} applied"))
    out.query = limited
    return out


def _with_limit(text: str, max_rows: int) -> tuple[str, int]:
    """The query with its outermost LIMIT at most `max_rows` (the lexer's pager), written before a trailing VALUES
    clause, which the grammar puts after the solution modifiers."""
    trailing = [k.start for k in top_level_words(text) if k is not None and k.word == "VALUES"]
    head, tail = (text[:trailing[-1]], text[trailing[-1]:]) if trailing else (text, "")
    limited, room = with_page(head, max_rows, 0)
    return f"{limited}\n{tail}" if tail else limited, room


def _parses_as_update(text: str) -> bool:
    try:
        parseUpdate(text)
    except (ParseException, RecursionError):
        return False
    return True


def _walk(node: object, iris: set[str], names: set[str]) -> None:
    """Every IRI and every algebra operator name in a parsed query (filters, subqueries and EXISTS included)."""
    if isinstance(node, URIRef):
        iris.add(str(node))
    elif isinstance(node, CompValue):
        names.add(node.name)
        for value in node.values():
            _walk(value, iris, names)
    elif isinstance(node, dict):
        for value in node.values():
            _walk(value, iris, names)
    elif isinstance(node, (list, tuple, set, frozenset)):
        for value in node:
            _walk(value, iris, names)


def _valid_iri(iri: str) -> bool:
    try:
        NamedNode(iri)
    except ValueError:
        return False
    return True


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())[:300]

