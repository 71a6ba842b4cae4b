"""RDF 1.2 triple terms for stores without them (store_triple_terms=encoded): reversible IRIs plus descriptions.

A triple term `<<( s p o )>>` is stored as the IRI `urn:attest:triple:` + the percent-encoded N-Triples text of
`s p o`, and beside every quad holding it, in the same graph, as `<enc> rdf:subject s ; rdf:predicate p ;
rdf:object o` (left behind when that quad is deleted: they describe a constant). Query text is rewritten token by
token (strings, IRIs and comments are never touched): a constant triple term becomes its IRI, one with variables
the pattern `[ rdf:subject A ; rdf:predicate B ; rdf:object C ]`; an update's INSERT gets the descriptions of the
constant triple terms it writes. Results are decoded back into pyoxigraph Triples before they are parsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator, TypeVar
from urllib.parse import quote, unquote
from xml.sax.saxutils import escape, quoteattr

from pyoxigraph import BlankNode, DefaultGraph, Literal, NamedNode, Quad, RdfFormat, Triple, parse

from attest.errors import BadRequest
from attest.sparql.lexer import TOKEN

T = TypeVar("T")
PREFIX = "urn:attest:triple:"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
SUBJECT, PREDICATE, OBJECT = NamedNode(RDF + "subject"), NamedNode(RDF + "predicate"), NamedNode(RDF + "object")
# a query over all quads leaves the descriptions out with this filter on ?s ?p
NOT_DESCRIPTION = (f'FILTER(!(STRSTARTS(STR(?s), "{PREFIX}") && ?p IN ({SUBJECT}, {PREDICATE}, {OBJECT})))')


# the codec ------------------------------------------------------------------------------------------------------

def _nt(term: object) -> str:
    if isinstance(term, Triple):
        return f"<<( {_nt(term.subject)} {_nt(term.predicate)} {_nt(term.object)} )>>"
    return str(term)


def encode(triple: Triple) -> NamedNode:
    """The IRI standing for a triple term."""
    return NamedNode(PREFIX + quote(f"{_nt(triple.subject)} {_nt(triple.predicate)} {_nt(triple.object)}", safe=""))


@lru_cache(maxsize=65536)
def decode_iri(iri: str) -> Triple:
    """The triple term an encoded IRI stands for; ValueError when it is not one we wrote."""
    if not iri.startswith(PREFIX):
        raise ValueError(f"not an encoded triple term: {iri[:80]}")
    text = unquote(iri[len(PREFIX):])
    try:
        quads = list(parse(f"<urn:x:s> <urn:x:p> <<( {text} )>> .", RdfFormat.N_TRIPLES))
    except SyntaxError as exc:
        raise ValueError(f"a malformed encoded triple term: {iri[:80]}") from exc
    if len(quads) != 1 or not isinstance(quads[0].object, Triple):
        raise ValueError(f"a malformed encoded triple term: {iri[:80]}")
    return quads[0].object


def decode_term(term: T) -> T | Triple:
    """A result term with encoded triple terms decoded (other terms as they are)."""
    if isinstance(term, NamedNode) and term.value.startswith(PREFIX):
        return decode_iri(term.value)
    return term


def descriptions(triple: Triple, graph: NamedNode | BlankNode | DefaultGraph) -> Iterator[Quad]:
    """The quads describing an encoded triple term in `graph` (nested triple terms described too)."""
    node = encode(triple)
    parts = []
    for predicate, part in ((SUBJECT, triple.subject), (PREDICATE, triple.predicate), (OBJECT, triple.object)):
        if isinstance(part, Triple):
            yield from descriptions(part, graph)
            part = encode(part)
        parts.append(Quad(node, predicate, part, graph))
    yield from parts


def encode_quads(quads: Iterable[Quad]) -> Iterator[Quad]:
    """Quads with triple-term objects replaced by their IRI, each followed by its descriptions once per batch."""
    described: set[tuple[Triple, NamedNode | BlankNode | DefaultGraph]] = set()
    for q in quads:
        if not isinstance(q.object, Triple):
            yield q
            continue
        yield Quad(q.subject, q.predicate, encode(q.object), q.graph_name)
        if (q.object, q.graph_name) not in described:
            described.add((q.object, q.graph_name))
            yield from descriptions(q.object, q.graph_name)


# results ----------------------------------------------------------------------------------------------------------

_DESCRIPTION_LINE = re.compile(
    rf"^<{re.escape(PREFIX)}[^>]*>[ \t]+<{re.escape(RDF)}(?:subject|predicate|object)>[^\n]*\n?", re.MULTILINE)
# strings first, so an IRI-looking text inside a literal is skipped whole
_NT_TOKEN = re.compile(rf'"(?:[^"\\\n]|\\.)*"|<({re.escape(PREFIX)}[^>]*)>')
_XML_URI = re.compile(rf"<uri>({re.escape(PREFIX)}[^<]*)</uri>")


def decode_lines(text: str, *, graph: bool) -> str:
    """TSV results or N-Triples with each encoded IRI back as `<<( s p o )>>`; a graph drops the descriptions."""
    if PREFIX not in text:
        return text
    if graph:
        text = _DESCRIPTION_LINE.sub("", text)
    return _NT_TOKEN.sub(lambda m: _nt(decode_iri(m.group(1))) if m.group(1) else m.group(), text)


def _xml_term(term: NamedNode | BlankNode | Literal | Triple) -> str:
    if isinstance(term, Triple):
        return (f"<triple><subject>{_xml_term(term.subject)}</subject><predicate>{_xml_term(term.predicate)}"
                f"</predicate><object>{_xml_term(term.object)}</object></triple>")
    if isinstance(term, NamedNode):
        return f"<uri>{escape(term.value)}</uri>"
    if isinstance(term, BlankNode):
        return f"<bnode>{escape(term.value)}</bnode>"
    if term.language:
        return f"<literal xml:lang={quoteattr(term.language)}>{escape(term.value)}</literal>"
    return f"<literal datatype={quoteattr(term.datatype.value)}>{escape(term.value)}</literal>"


def decode_xml(text: str) -> str:
    """SPARQL XML results with each encoded IRI back as a <triple> element."""
    if PREFIX not in text:
        return text
    return _XML_URI.sub(lambda m: _xml_term(decode_iri(m.group(1))), text)


# query and update text --------------------------------------------------------------------------------------------

_SCAN = re.compile(r"(?P<tt><<\()|" + TOKEN.pattern, re.DOTALL)
_SKIP = re.compile(r"(?:\s|#[^\n\r]*)*")
_LITERAL_SUFFIX = re.compile(r'@[A-Za-z]+(?:-[A-Za-z0-9]+)*|\^\^(?:<[^<>"{}|^`\\\x00-\x20]*>|[A-Za-z_][\w.-]*:[\w.:-]*|:[\w.:-]*)')
_BARE = re.compile(r"[^\s()<>{}\[\];,#\"']+")  # numbers, true/false, `a`, blank node labels
_CLOSE = re.compile(r"\s*\)>>")


@dataclass
class _Term:
    """A parsed triple term: its three parts, each a text leaf or a nested _Term."""

    parts: tuple[str | _Term, ...]
    variable: bool  # holds a variable or a blank node somewhere


def _match_end(pattern: re.Pattern[str], text: str, pos: int) -> int:
    m = pattern.match(text, pos)
    return m.end() if m else pos


def _leaf(text: str, pos: int) -> tuple[str | _Term, int, bool]:
    pos = _match_end(_SKIP, text, pos)
    if text.startswith("<<(", pos):
        return _triple_term(text, pos + 3)
    m = _SCAN.match(text, pos)
    if m and m.lastgroup == "string":
        end = m.end()
        suffix = _LITERAL_SUFFIX.match(text, end)
        end = suffix.end() if suffix else end
        return text[pos:end], end, False
    if m and m.lastgroup in ("iri", "var", "pname"):
        return m.group(), m.end(), m.lastgroup == "var"
    m = _BARE.match(text, pos)
    if m is None:
        raise BadRequest(f"cannot read the triple term at offset {pos}: {text[pos:pos + 40]!r}")
    return m.group(), m.end(), m.group().startswith("_:")


def _triple_term(text: str, pos: int) -> tuple[_Term, int, bool]:
    parts: list[str | _Term] = []
    variable = False
    for _ in range(3):
        part, pos, var = _leaf(text, pos)
        parts.append(part)
        variable |= var
    close = _CLOSE.match(text, pos)
    if close is None:
        raise BadRequest(f"a triple term is not closed by ')>>' at offset {pos}: {text[pos:pos + 40]!r}")
    return _Term(tuple(parts), variable), close.end(), variable


def _prologue(text: str) -> str:
    """The PREFIX and BASE declarations of a query or update, in Turtle-compatible form."""
    tokens = [m for m in TOKEN.finditer(text) if m.lastgroup != "comment"]
    out = []
    for i, m in enumerate(tokens):
        word = m.group().upper() if m.lastgroup == "word" else ""
        if word == "PREFIX" and i + 2 < len(tokens) and tokens[i + 2].lastgroup == "iri":
            out.append(f"PREFIX {tokens[i + 1].group()} {tokens[i + 2].group()}")
        elif word == "BASE" and i + 1 < len(tokens) and tokens[i + 1].lastgroup == "iri":
            out.append(f"BASE {tokens[i + 1].group()}")
    return "\n".join(out)


def _source(term: _Term) -> str:
    return "<<( " + " ".join(_source(p) if isinstance(p, _Term) else p for p in term.parts) + " )>>"


def _constant(term: _Term, prologue: str) -> Triple | None:
    """The triple a constant triple term denotes (prefixed names resolved), None when Turtle cannot read it."""
    try:
        quads = list(parse(f"{prologue}\n<urn:x:s> <urn:x:p> {_source(term)} .", RdfFormat.TURTLE))
    except SyntaxError:
        return None
    return quads[0].object if len(quads) == 1 and isinstance(quads[0].object, Triple) else None


def _render(term: _Term, prologue: str, constants: list[Triple]) -> str:
    if not term.variable:
        triple = _constant(term, prologue)
        if triple is not None:
            constants.append(triple)
            return str(encode(triple))
    parts = [_render(p, prologue, constants) if isinstance(p, _Term) else p for p in term.parts]
    return f"[ {SUBJECT} {parts[0]} ; {PREDICATE} {parts[1]} ; {OBJECT} {parts[2]} ]"


def rewrite(text: str) -> str:
    """Query or update text with its triple terms encoded (see the module docstring)."""
    if "<<(" not in text:
        return text
    prologue = _prologue(text)
    out: list[str] = []
    described: dict[str, list[Triple]] = {}  # graph token ('' for the default graph) -> triples an INSERT wrote
    depth_graphs: list[str] = [""]  # the graph each open brace writes into
    pending_graph: str | None = None
    operation = ""  # the last top-level INSERT / DELETE / WHERE keyword of the current operation
    last_word = ""
    pos = 0
    while True:
        m = _SCAN.search(text, pos)
        if m is None:
            out.append(text[pos:])
            break
        kind = m.lastgroup
        if kind == "tt":
            out.append(text[pos:m.start()])
            term, pos, _ = _triple_term(text, m.end())
            constants: list[Triple] = []
            out.append(_render(term, prologue, constants))
            if operation == "INSERT" and constants:
                described.setdefault(depth_graphs[-1], []).extend(constants)
            continue
        out.append(text[pos:m.end()])
        pos = m.end()
        token = m.group()
        if kind == "word":
            word = token.upper()
            if len(depth_graphs) == 1 and word in ("INSERT", "DELETE", "WHERE"):
                operation = word
            last_word = word
        elif kind in ("iri", "pname", "var") and last_word == "GRAPH":
            pending_graph, last_word = token, ""
        elif kind == "open" and token == "{":
            depth_graphs.append(pending_graph if pending_graph is not None else depth_graphs[-1])
            pending_graph = None
        elif kind == "close" and token == "}" and len(depth_graphs) > 1:
            depth_graphs.pop()
        elif kind == "semicolon" and len(depth_graphs) == 1:
            operation = ""
    result = "".join(out)
    if described:
        result = f"{result.rstrip().removesuffix(';')} ;\n{_describe(described)}"
    return result


def _describe(described: dict[str, list[Triple]]) -> str:
    groups = []
    for graph, triples in described.items():
        if graph.startswith(("?", "$")):
            raise BadRequest("a constant triple term inserted into a variable graph (GRAPH ?g) cannot be "
                             "described under store_triple_terms=encoded; name the graph")
        lines = " ".join(f"{q.subject} {q.predicate} {q.object} ."
                         for t in dict.fromkeys(triples) for q in descriptions(t, DefaultGraph()))
        groups.append(f"GRAPH {graph} {{ {lines} }}" if graph else lines)
    return f"INSERT DATA {{ {' '.join(groups)} }}"  # constant terms hold no blank nodes (`_:b` is a variable here)


__all__ = ["PREFIX", "NOT_DESCRIPTION", "encode", "decode_iri", "decode_term", "descriptions", "encode_quads",
           "decode_lines", "decode_xml", "rewrite"]
