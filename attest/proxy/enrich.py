"""LLM enrichment of stored turns: the model extracts a turn off the writer thread, behind a breaker; its
extraction then replaces the turn's rule extraction in one commit, so a turn is recallable before the model answers."""

from __future__ import annotations

import logging
from datetime import date

from attest.errors import AttestError, CircuitOpen, ExtractionError
from attest.extract.models import Extraction, Extractor
from attest.ingest.chunk import chunk_text, clean
from attest.ingest.load import load_bytes
from attest.ingest.pipeline import document_id
from attest.proxy.breaker import Breaker
from attest.proxy.turn_dates import extract_on
from attest.settings import Settings

log = logging.getLogger("attest.proxy")


class Precomputed:
    """An extractor that hands out extractions made beforehand, under the name of the extractor that made them."""

    def __init__(self, name: str, results: dict[str, Extraction]) -> None:
        self.name, self.results = name, results

    def extract(self, text: str) -> Extraction:
        if text not in self.results:
            raise ExtractionError("no extraction was made beforehand for this chunk")
        return self.results[text]


class Enricher:
    """The LLM extractor of a namespace's turns, and a breaker so that a model that keeps failing is not retried on
    every turn (it fails after all its attempts, and the turn keeps its rule extraction)."""

    def __init__(self, extractor: Extractor, settings: Settings) -> None:
        self.extractor, self.settings = extractor, settings
        self.breaker = Breaker(settings.proxy_breaker_failures, settings.proxy_breaker_cooloff_s)

    def extract(self, data: bytes, source: str, day: date) -> Precomputed | None:
        """The model's extraction of every chunk of the turn (relative dates counted from `day`, the day it was
        said), or None (breaker open, or any chunk failed)."""
        try:
            self.breaker.check(self.settings.llm_base_url)
        except CircuitOpen:
            return None
        try:
            text = load_bytes(data, source=source, media_type="text/plain", max_bytes=self.settings.max_file_bytes).text
            chunks = [c.text for c in chunk_text(document_id(source), clean(text, markdown=False))]
            results = {chunk: extract_on(self.extractor, chunk, day) for chunk in chunks}
        except AttestError as exc:
            self.breaker.failure()
            log.warning("memory: the LLM extraction of %s failed (%s); the turn keeps its rule extraction",
                        source, exc.message)
            return None
        self.breaker.success()
        return Precomputed(self.extractor.name, results)
