"""Variable bindings for a remote query: terms serialized by pyoxigraph, checked, and placed in a VALUES block.

A remote server takes no pyoxigraph `substitutions`, so the bindings travel inside the query text: a VALUES
block opening the query's WHERE group binds the variables before anything else there (what substitution does),
and the bound text is only ever a term pyoxigraph wrote and then parsed back to the same term.
"""

from __future__ import annotations

import re
from typing import Mapping

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, parse

from app.errors import BadRequest
from app.sparql.lexer import top_level_words
from app.store.base import Term

_VARIABLE = re.compile(r"[A-Za-z0-9_]\w*")


def checked_term(term: Term) -> str:
    """The term in SPARQL / N-Triples syntax, proven to parse back to the same term (triple terms: each part)."""
    if isinstance(term, Triple):
        return f"<<( {checked_term(term.subject)} {checked_term(term.predicate)} {checked_term(term.object)} )>>"
    if not isinstance(term, (NamedNode, Literal)):
        raise BadRequest(f"only IRIs and literals can be bound in a remote query, not {type(term).__name__}")
    text = str(term)
    try:
        parsed = next(iter(parse(f"<urn:x:s> <urn:x:p> {text} .", RdfFormat.N_TRIPLES)))
    except (SyntaxError, StopIteration) as exc:
        raise BadRequest(f"a bound term does not serialize cleanly: {text[:80]!r}") from exc
    if parsed.object != term:
        raise BadRequest(f"a bound term does not serialize cleanly: {text[:80]!r}")
    return text


def where_group_start(query: str) -> int:
    """Offset just after the '{' that opens the query's WHERE group."""
    words = [k for k in top_level_words(query) if k is not None]
    forms = [k.word for k in words if k.word in ("SELECT", "CONSTRUCT", "DESCRIBE", "ASK")]
    for i, k in enumerate(words):
        if k.word == "WHERE":
            if i and words[i - 1].word == "CONSTRUCT":
                raise BadRequest("bindings need the long CONSTRUCT { ... } WHERE { ... } form")
            brace = next((w for w in words[i + 1:] if w.word == "{"), None)
            if brace is not None:
                return brace.start + 1
    if forms and forms[0] in ("SELECT", "ASK"):  # WHERE is optional before the group
        brace = next((w for w in words if w.word == "{"), None)
        if brace is not None:
            return brace.start + 1
    raise BadRequest("cannot bind variables: the query has no WHERE group")


def bind_values(query: str, substitutions: Mapping[str, Term]) -> str:
    """The query with `substitutions` bound by a VALUES block at the start of its WHERE group."""
    names, terms = [], []
    for name, term in substitutions.items():
        if not _VARIABLE.fullmatch(name):
            raise BadRequest(f"{name[:40]!r} is not a SPARQL variable name")
        names.append(f"?{name}")
        terms.append(checked_term(term))
    if not names:
        return query
    at = where_group_start(query)
    block = f" VALUES ({' '.join(names)}) {{ ({' '.join(terms)}) }} "
    return query[:at] + block + query[at:]
