"""Variable bindings for a remote query: terms serialized by pyoxigraph, checked, and placed in a VALUES block.

A remote server takes no pyoxigraph `substitutions`, so the bindings travel inside the query text: a VALUES
block opening the query's WHERE group binds the variables before anything else there (what substitution does),
and the bound text is only ever a term pyoxigraph wrote and then parsed back to the same term.
"""

from __future__ import annotations

import re
from typing import Mapping

from pyoxigraph import Literal, NamedNode, RdfFormat, Triple, parse

from attest.errors import BadRequest
from attest.sparql.lexer import TOKEN
from attest.store.base import Term

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


def _where_groups(query: str) -> list[tuple[int, int]]:
    """(start, end) offsets inside the braces of each query form's WHERE group: the query's and each subquery's."""
    tokens = [(m.lastgroup, m.group(), m.start()) for m in TOKEN.finditer(query) if m.lastgroup != "comment"]
    groups = []
    for i, (kind, text, _) in enumerate(tokens):
        if kind != "word" or text.upper() not in ("SELECT", "ASK", "CONSTRUCT", "DESCRIBE"):
            continue
        j, parens = i + 1, 0
        if text.upper() == "CONSTRUCT":
            if j < len(tokens) and tokens[j][1].upper() == "WHERE":
                raise BadRequest("bindings need the long CONSTRUCT { ... } WHERE { ... } form")
            j = _after_group(tokens, j)  # the template
        while j < len(tokens):
            kind_j, text_j, _ = tokens[j]
            if text_j == "(":
                parens += 1
            elif text_j == ")":
                parens -= 1
            elif text_j == "{" and parens == 0:
                break
            j += 1
        if j < len(tokens):
            close = _after_group(tokens, j) - 1
            groups.append((tokens[j][2] + 1, tokens[close][2] if close < len(tokens) else len(query)))
    if not groups:
        raise BadRequest("cannot bind variables: the query has no WHERE group")
    return groups


def _after_group(tokens: list[tuple[str | None, str, int]], j: int) -> int:
    """Index just past the balanced braces opening at or after token j."""
    while j < len(tokens) and tokens[j][1] != "{":
        j += 1
    depth = 0
    while j < len(tokens):
        if tokens[j][1] == "{":
            depth += 1
        elif tokens[j][1] == "}":
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return j


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
    values = dict(zip(names, terms))
    out = query
    # pyoxigraph substitutes a variable everywhere, subqueries included: each query form's WHERE group that
    # mentions a bound variable opens with a VALUES block for it (from the last group back: offsets stay valid)
    for start, end in sorted(_where_groups(query), reverse=True):
        mentioned = {m.group().replace("$", "?", 1) for m in TOKEN.finditer(query, start, end) if m.lastgroup == "var"}
        here = [n for n in names if n in mentioned]
        if here:
            block = f" VALUES ({' '.join(here)}) {{ ({' '.join(values[n] for n in here)}) }} "
            out = out[:start] + block + out[start:]
    return out
