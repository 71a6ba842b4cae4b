"""Valid time of the facts an answer shows (graph/validity, attest/ingest/validity.py): read in one batched query."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal as Kind

from pyoxigraph import Literal, NamedNode, QuerySolutions

from attest.answer import queries as q
from attest.store import GraphStore
from attest.vocab import ATT, RDF

State = Kind["current", "past", "future"]
PAST_WEIGHT = 0.5  # a path through a fact that does not hold on the asked day ranks below one that does
SUPERSEDED_CONFIDENCE = 0.4  # a citation of a superseded fact as it stands: under the 0.5 flag, over the 0.3 cut

VALIDITY = f"""SELECT ?s ?p ?o ?from ?to ?by WHERE {{ VALUES (?s ?p) {{ %(pairs)s }}
  GRAPH %(graph)s {{ ?r <{ATT}about> ?s ; <{RDF}reifies> <<( ?s ?p ?o )>>
    OPTIONAL {{ ?r <{ATT}validFrom> ?from }} OPTIONAL {{ ?r <{ATT}validTo> ?to }}
    OPTIONAL {{ ?r <{ATT}supersededBy> ?n . ?n <{RDF}reifies> ?newer }} }}
  BIND(OBJECT(?newer) AS ?by) }}"""  # a triple-term pattern inside the OPTIONAL would be matched unbound: a scan


@dataclass(frozen=True)
class Validity:
    """When a fact holds (open ends None) and, when a newer fact closed it, that fact's object."""

    valid_from: date | None
    valid_to: date | None
    superseded_by: str | None = None  # object IRI, or N-Triples literal, of the fact that replaced it

    def state(self, day: date) -> State:
        if self.valid_from is not None and day < self.valid_from:
            return "future"
        if self.valid_to is not None and day > self.valid_to:
            return "past"
        return "current"


def term_key(term: object) -> str:
    """A term as a Triple of attest.answer.lookup holds it: an IRI's value, a literal in N-Triples form."""
    return term.value if isinstance(term, NamedNode) else str(term)


def read_validity(store: GraphStore, graph: str, triples: list[tuple[str, str, str]]) -> dict[tuple[str, str, str], Validity]:
    """The validity records of some facts (those without one are left out), one query per 500 subject-predicate pairs."""
    wanted = set(triples)
    pairs = sorted({(s, p) for s, p, _ in triples if not s.startswith('"')})
    out: dict[tuple[str, str, str], Validity] = {}
    for i in range(0, len(pairs), 500):
        rows = [(NamedNode(s), NamedNode(p)) for s, p in pairs[i:i + 500]]
        query = VALIDITY % {"pairs": q.values_rows(rows), "graph": NamedNode(graph)}
        result = store.query(query)
        assert isinstance(result, QuerySolutions), "a SELECT query"
        for row in result:
            key = (row["s"].value, row["p"].value, term_key(row["o"]))
            if key in wanted:
                by = row["by"]
                out[key] = Validity(_day(row["from"]), _day(row["to"]), term_key(by) if by is not None else None)
    return out


def _day(term: object) -> date | None:
    if isinstance(term, Literal):
        try:
            return date.fromisoformat(term.value[:10])
        except ValueError:
            return None
    return None


def phrase(validity: Validity | None, day: date) -> str:
    """How a fact's time reads after it: '(until 2026-10-14; past)', '(since 2020-03-01)', ''."""
    if validity is None:
        return ""
    state = validity.state(day)
    if state == "past":
        return f" (past: until {validity.valid_to})"
    if state == "future":
        return f" (not yet: from {validity.valid_from})"
    if validity.valid_from is not None and validity.valid_to is not None:
        return f" (from {validity.valid_from} until {validity.valid_to})"
    return f" (since {validity.valid_from})" if validity.valid_from is not None else (
        f" (until {validity.valid_to})" if validity.valid_to is not None else "")
