"""A name the rule extractor found in a chunk: its tokens, characters and the evidence for its type."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Mention:
    """One entity mention found in the text, with the evidence for its type."""

    start: int  # token indices in the doc
    end: int
    text: str
    type: str | None
    confidence: float
    known: bool = False
    start_char: int = 0
    end_char: int = 0

    @property
    def weak(self) -> bool:
        """A default guess that the signature of a relation may override."""
        return not self.known and self.confidence < 0.75

    def retype(self, type_name: str | None, confidence: float) -> None:
        if type_name and confidence > self.confidence:
            self.type, self.confidence = type_name, confidence
