"""The proposal as Turtle: a header, then one block per term, its evidence and confidence in comments above it."""

from __future__ import annotations

import re

from pyoxigraph import Literal, NamedNode

from attest.discover.proposals import Proposal, ProposedTerm
from attest.vocab import OWL, RDF, RDFS, SKOS, XSD

PREFIXES = {"rdf": RDF, "rdfs": RDFS, "owl": OWL, "xsd": XSD, "skos": SKOS}
_LOCAL = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")
_BREAKS = re.compile(r"[\r\n\u2028\u2029\x0b\x0c\x85]+")


def comment(text: str) -> str:
    """One comment line: line breaks cannot end the comment and start Turtle."""
    return "# " + _BREAKS.sub(" ", text)


def term_text(value: NamedNode | Literal | str) -> str:
    """A term as Turtle: a CURIE for the standard vocabularies, else the term's own escaped serialization."""
    if isinstance(value, str):
        value = NamedNode(value)
    if isinstance(value, NamedNode):
        for prefix, namespace in PREFIXES.items():
            local = value.value[len(namespace):]
            if value.value.startswith(namespace) and _LOCAL.match(local):
                return f"{prefix}:{local}"
    return str(value)


def write_turtle(proposal: Proposal, *, created: str, command: str) -> str:
    stats = proposal.stats
    lines = [
        comment(f"Ontology proposed by `{command}` on {created}"),
        comment(f"from {stats.total_triples:,} triples in {len(stats.graphs)} graph(s): {len(proposal.terms)} terms "
                f"proposed, {proposal.skipped_known} already in the ontology left out"),
        comment("Nothing here is in the ontology until a person accepts it: move this file into the ontology folder "
                "(or run `attest ontology accept FILE`), then `attest ontology reload`."),
        comment("Delete a block, or a line of one, to leave it out; each line's evidence is in the comments above it."),
    ]
    lines += [comment(note) for note in proposal.notes]
    lines.append("")
    lines += [f"@prefix {prefix}: <{namespace}> ." for prefix, namespace in PREFIXES.items()]
    for term in proposal.terms:
        lines.append("")
        lines += _block(term)
    return "\n".join(lines) + "\n"


def _block(term: ProposedTerm) -> list[str]:
    lines = [comment(f"{term.label or _local(term.iri)} — confidence {term.confidence:.2f}")]
    lines += [comment(e) for e in term.evidence]
    body: list[tuple[str, NamedNode | Literal, str | None]] = [(RDF + "type", NamedNode(term.kind), None)]
    body += [(s.predicate, s.value, f"{s.confidence:.2f}: {s.evidence}") for s in term.statements]
    body += [(SKOS + "altLabel", Literal(a, language="en"), "from the review") for a in term.alt_labels]
    if term.comment:
        body = [b for b in body if b[0] != RDFS + "comment"]  # the review's comment replaces the statistics' one
        body.append((RDFS + "comment", Literal(term.comment, language="en"), "from the review"))
    lines.append(term_text(term.iri))
    for i, (predicate, value, why) in enumerate(body):
        if why:
            lines.append("    " + comment(why))
        end = " ." if i == len(body) - 1 else " ;"
        lines.append(f"    {term_text(predicate) if predicate != RDF + 'type' else 'a'} {term_text(value)}{end}")
    return lines


def _local(iri: str) -> str:
    return iri.rsplit("#", 1)[-1].rsplit("/", 1)[-1]
