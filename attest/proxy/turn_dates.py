"""A chat turn's valid time: its relative dates count from the day it was said, and what it does not date holds from then."""

from __future__ import annotations

from datetime import date

from attest.extract.llm import LlmExtractor
from attest.extract.models import Extraction, Extractor
from attest.extract.rules import RuleExtractor


def extract_on(extractor: Extractor, text: str, day: date) -> Extraction:
    """The extractor's reading of `text` with `day` as the reference of relative dates, where it reads dates."""
    if isinstance(extractor, (RuleExtractor, LlmExtractor)):
        return extractor.extract(text, reference=day)
    return extractor.extract(text)


def from_the_turn(extraction: Extraction, day: date) -> Extraction:
    """Relations the turn gives no date hold from the turn's day ("I work for Contoso", said on 2026-11-26); a relation
    with only an end ("until 2005") is left as it is: a start after its end would contradict it."""
    relations = [r if r.valid_from is not None or r.valid_to is not None else r.model_copy(update={"valid_from": day})
                 for r in extraction.relations]
    return extraction.model_copy(update={"relations": relations})


class TurnDated:
    """An extractor for one turn: the inner extractor's reading, dated by the turn's day (recorded under its name)."""

    def __init__(self, inner: Extractor, day: date) -> None:
        self.inner, self.day, self.name = inner, day, inner.name

    def extract(self, text: str) -> Extraction:
        return from_the_turn(extract_on(self.inner, text, self.day), self.day)


__all__ = ["TurnDated", "extract_on", "from_the_turn"]
