"""A small SPARQL lexer for the two facts the protocol needs from query text: top-level keywords and where they are."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

from pyoxigraph import NamedNode

from attest.errors import BadRequest

# strings first (they may hold anything), then IRIs (no spaces or braces inside; \u escapes), comments, braces,
# variables, prefixed names (any letters; %-escapes and \-escapes in the local name, whose \' must not open a
# string), and the bare words among which the keywords are
TOKEN = re.compile(
    r'(?P<string>"""(?:[^"\\]|\\.|"(?!""))*"""|\'\'\'(?:[^\'\\]|\\.|\'(?!\'\'))*\'\'\'|"(?:[^"\\\n\r]|\\.)*"|\'(?:[^\'\\\n\r]|\\.)*\')'
    r'|(?P<iri><(?:[^<>"{}|^`\\\x00-\x20]|\\u[0-9A-Fa-f]{4}|\\U[0-9A-Fa-f]{8})*>)'
    r'|(?P<comment>\#[^\n\r]*)'
    r'|(?P<open>[{(\[])|(?P<close>[})\]])'
    r'|(?P<semicolon>;)'
    r'|(?P<var>[?$]\w+)'
    r"|(?P<pname>(?:[^\W\d][\w.-]*)?:(?:[\w.:-]|%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%])*)"
    r'|(?P<word>[A-Za-z_][A-Za-z0-9_-]*)',
    re.DOTALL,
)


@dataclass(frozen=True)
class Keyword:
    """A bare word outside any braces, strings, IRIs and comments, upper-cased, with its offset in the text."""

    word: str
    start: int


def top_level_words(text: str) -> Iterator[Keyword | None]:
    """Words (and '{' of groups) at brace depth 0, in order; None marks a top-level ';' (an operation boundary)."""
    depth = 0
    for match in TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            if depth == 0 and match.group() == "{":
                yield Keyword("{", match.start())
            depth += 1
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif depth == 0 and kind == "semicolon":
            yield None
        elif depth == 0 and kind == "word":
            yield Keyword(match.group().upper(), match.start())


def without_lateral(text: str) -> str:
    """The query with each LATERAL keyword left out (SPARQL 1.2), for stores that only read SPARQL 1.1: the lateral
    group becomes a plain one, which joins the same rows when no filter inside it reads an outer variable."""
    return "".join(text[m.start():m.end()] if m.lastgroup != "word" or m.group().upper() != "LATERAL" else ""
                   for m in _ALL_TEXT.finditer(text))


_ALL_TEXT = re.compile(TOKEN.pattern + r"|(?P<other>.)", re.DOTALL)  # every character, in tokens or one at a time
_FROM_WORD = re.compile(r"(?<![\w:?$])from\b", re.IGNORECASE)


def has_dataset_clause(query: str) -> bool:
    """Whether a query names its own dataset (FROM / FROM NAMED), which the union default graph must not override."""
    if _FROM_WORD.search(query) is None:  # cheap test first: most queries never say FROM
        return False
    return any(k is not None and k.word == "FROM" for k in top_level_words(query))


def without_dataset_clause(query: str) -> str:
    """The query with its FROM / FROM NAMED clauses removed (when the protocol's dataset replaces them)."""
    if not has_dataset_clause(query):
        return query
    tokens = [m for m in TOKEN.finditer(query) if m.lastgroup != "comment"]
    cuts, depth = [], 0
    for i, m in enumerate(tokens):
        if m.lastgroup == "open":
            depth += 1
        elif m.lastgroup == "close":
            depth = max(depth - 1, 0)
        elif depth == 0 and m.lastgroup == "word" and m.group().upper() == "FROM":
            j = i + 1 + (i + 1 < len(tokens) and tokens[i + 1].group().upper() == "NAMED")
            if j < len(tokens) and tokens[j].lastgroup in ("iri", "pname"):
                cuts.append((m.start(), tokens[j].end()))
    out, pos = [], 0
    for start, end in cuts:
        out.append(query[pos:start])
        pos = end
    out.append(query[pos:])
    return "".join(out)


def add_using_clauses(update: str, using: tuple[str, ...], using_named: tuple[str, ...]) -> str:
    """Apply the protocol's using-graph-uri / using-named-graph-uri to each DELETE/INSERT … WHERE operation.

    The graph IRIs are validated as IRIs and written in their canonical `<…>` form before each top-level WHERE
    of a modify operation; an update that has its own USING or WITH conflicts with them (400, SPARQL 1.1
    Protocol §2.2.3).
    """
    if not using and not using_named:
        return update
    clause = " ".join([f"USING {NamedNode(g)}" for g in using] + [f"USING NAMED {NamedNode(g)}" for g in using_named])
    inserts: list[int] = []
    operation: list[str] = []
    for keyword in top_level_words(update):
        if keyword is None:
            operation = []
            continue
        if keyword.word in ("USING", "WITH"):
            raise BadRequest("the update has its own USING/WITH clause and the request gives "
                             "using-graph-uri/using-named-graph-uri: they conflict")
        # a modify operation has a template group before its WHERE; DELETE WHERE has none and takes no USING
        if keyword.word == "WHERE" and "{" in operation and ("DELETE" in operation or "INSERT" in operation):
            inserts.append(keyword.start)
        operation.append(keyword.word)
    for start in reversed(inserts):
        update = f"{update[:start]}{clause} {update[start:]}"
    return update


_RELATIVE_IRI = re.compile(r'<(?![A-Za-z][A-Za-z0-9+.-]*:)[^<>"{}|^`\\\x00-\x20]*>')


def has_relative_iri(text: str) -> bool:
    """Whether the text may hold an IRI reference without a scheme, which only a base IRI resolves.

    One regex search, no tokenizing: a false positive (inside a string) only adds a harmless BASE.
    """
    return _RELATIVE_IRI.search(text) is not None


_INTEGER = re.compile(r"\s*(\d+)")


def with_page(query: str, limit: int, offset: int, *, probe: bool = False) -> tuple[str, int]:
    """(the query with its outermost LIMIT and OFFSET replaced by a page of `limit` rows after `offset`, rows the
    page may hold): a page never reaches past the query's own LIMIT, and counts from its own OFFSET. `probe`
    asks for one row more, which tells whether another page follows."""
    own = {}
    cut = len(query)
    for keyword in top_level_words(query):
        if keyword is not None and keyword.word in ("LIMIT", "OFFSET"):
            number = _INTEGER.match(query, keyword.start + len(keyword.word))
            if number is None:
                raise BadRequest(f"the query's {keyword.word} is not followed by a number")
            own[keyword.word] = int(number.group(1))
            cut = min(cut, keyword.start)
        elif keyword is not None and keyword.word == "VALUES" and own:
            raise BadRequest("a query with a VALUES clause after its LIMIT cannot be paged")
    room = limit if "LIMIT" not in own else max(0, min(limit, own["LIMIT"] - offset))
    return f"{query[:cut].rstrip()}\nLIMIT {room + probe} OFFSET {own.get('OFFSET', 0) + offset}", room


def bare_words(text: str) -> set[str]:
    """Every bare word of the text at any depth (keywords and function names), upper-cased; words inside strings,
    IRIs, comments, variables and prefixed names are not bare words."""
    return {m.group().upper() for m in TOKEN.finditer(text) if m.lastgroup == "word"}
