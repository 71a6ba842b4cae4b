"""Extractive answers: sentences composed from the retrieved entities and facts, cited with the same markers an LLM uses."""

from __future__ import annotations

import re

from app.answer.citations import entity_marker, relation_marker
from app.answer.models import ContextResponse
from app.extract.sanitize import sanitize

SENTENCE_BREAK = re.compile(r"[.!?]+\s+")
MAX_FACT_SENTENCES = 8
MAX_ENTITY_SENTENCES = 3
NAMED_SCORE = 0.85  # link similarity (0-1) from which an entity counts as named by the question
NOTHING_FOUND = "The knowledge graph holds nothing that matches the question."


def compose_extractive(context: ContextResponse) -> str:
    """One sentence per top entity (with a description) and per top fact; nothing is said that the graph does not hold."""
    if not context.entities and not context.relations:
        return NOTHING_FOUND
    labels = {e.id: _clean(e.label) for e in context.entities}
    sentences = []
    named = [e for e in context.entities if e.hops == 0 and e.score >= NAMED_SCORE]  # entities the question names
    for e in named[:MAX_ENTITY_SENTENCES]:
        kind = f" ({', '.join(e.types)})" if e.types else ""
        about = f": {_clean(e.description).rstrip('.')}" if e.description else ""
        sentences.append(f"{labels[e.id]}{kind} {entity_marker(e.id)}{about}.")
    for r in context.relations[:MAX_FACT_SENTENCES]:
        how = "" if r.status == "asserted" else f" (inferred by OWL 2 RL reasoning, depth {r.depth})"
        sentences.append(f"{_clean(r.text)}{how} {entity_marker(r.subject)} {entity_marker(r.object)} {relation_marker(r.id)}.")
    return " ".join(s[0].upper() + s[1:] for s in sentences)


def _clean(text: str) -> str:
    """Document-derived text may carry planted markers or instructions: neutralized before it reaches an answer."""
    # sentence ends inside a label or description would split one composed claim into an uncited one
    return SENTENCE_BREAK.sub("; ", " ".join(sanitize(text).text.split())).rstrip(".!?") if text else text
