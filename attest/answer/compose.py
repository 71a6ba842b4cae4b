"""Extractive answers: the ends of the best retrieved paths, each claim citing its path's facts with the markers an LLM uses."""

from __future__ import annotations

import re
from collections.abc import Callable

from attest.answer.citations import entity_marker, relation_marker
from attest.answer.models import AnswerItem, ContextPath, ContextResponse
from attest.extract.sanitize import sanitize

SENTENCE_BREAK = re.compile(r"[.!?]+\s+")
MAX_ANSWERS = 3  # answers named, each with the path that supports it
ANSWER_SHARE = 0.7  # a path scoring under this share of the best one is an alternative the context shows, not an answer
MAX_ENTITY_SENTENCES = 3
NOTHING_FOUND = "The knowledge graph holds nothing that matches the question."


def compose_extractive(context: ContextResponse, keep: Callable[[ContextPath], bool] | None = None,
                       describe: bool = True) -> tuple[str, list[AnswerItem]]:
    """(text, answers named): one sentence per answer, its path's facts as a reader says them ("PostgreSQL is
    developed by PGDG"), each followed by its citation, so the answer is named by the fact that leads to it (a chip
    beside its own label would say it twice); without paths, what the graph says of the entities the question
    names. Nothing is said the graph does not hold. `keep` says which paths' ends may be answers (the kind the
    question asks for); `describe` False says nothing (NOTHING_FOUND) rather than describing the question's
    entities when no path is kept."""
    by_id = {r.id: r for r in context.relations}
    sentences: list[str] = []
    answers: list[AnswerItem] = []
    best = max((p.score for p in context.paths), default=0.0)
    for path in context.paths:
        if path.score < best * ANSWER_SHARE:
            break  # the paths come best first
        if keep is not None and not keep(path):
            continue
        key = path.end or f"value:{path.value}"
        if any((a.id or f"value:{a.value}") == key for a in answers):
            continue
        if len(answers) == MAX_ANSWERS:
            break
        facts = ", and ".join(f"{_clean(by_id[r].text)} {relation_marker(r)}" for r in path.relations)
        sentences.append(f"{facts}.")
        answers.append(AnswerItem(id=path.end, label=path.label, value=path.value, score=path.score))
    if not sentences and describe:
        for e in [e for e in context.entities if e.hops == 0][:MAX_ENTITY_SENTENCES]:
            kind = f" ({', '.join(e.types)})" if e.types else ""
            about = f": {_clean(e.description).rstrip('.')}" if e.description else ""
            sentences.append(f"{_clean(e.label)}{kind} {entity_marker(e.id)}{about}.")
    if not sentences:
        return NOTHING_FOUND, []
    return " ".join(s[0].upper() + s[1:] for s in sentences), answers


def _clean(text: str) -> str:
    """Document-derived text may carry planted markers or instructions: neutralized before it reaches an answer."""
    # sentence ends inside a label or description would split one composed claim into an uncited one
    return SENTENCE_BREAK.sub("; ", " ".join(sanitize(text).text.split())).rstrip(".!?") if text else text
