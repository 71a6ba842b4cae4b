"""The rule extractor on every core: a document's chunks are shared between this process and worker processes."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from app.errors import ExtractionError
from app.extract.models import Extraction
from app.extract.ontology_terms import OntologyTerms
from app.extract.rules import RuleExtractor

_worker: RuleExtractor | None = None  # one per worker process, built by _start


def _start(terms: OntologyTerms, known: list[tuple[str, str]]) -> None:
    global _worker
    _worker = RuleExtractor(terms, known)


def _extract(text: str) -> Extraction | ExtractionError:
    try:
        return _worker.extract(text)
    except ExtractionError as exc:
        return exc


def usable_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class ParallelRuleExtractor:
    """Same results as one RuleExtractor (same ontology terms and known labels, and each chunk is extracted on
    its own), computed on several cores: this process takes a document's first chunk, workers the others."""

    name = RuleExtractor.name

    def __init__(self, terms: OntologyTerms, known: list[tuple[str, str]], workers: int) -> None:
        self.local = RuleExtractor(terms, known)
        # spawned, not forked: the parent holds the store's threads and locks
        self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_start, initargs=(terms, known))

    def extract(self, text: str) -> Extraction:
        return self.local.extract(text)

    def extract_many(self, texts: list[str]) -> list[Extraction | ExtractionError]:
        futures = [self.pool.submit(_extract, text) for text in texts[1:]]
        try:
            first: Extraction | ExtractionError = self.local.extract(texts[0])
        except ExtractionError as exc:
            first = exc
        return [first, *(f.result() for f in futures)]

    def close(self) -> None:
        self.pool.shutdown(cancel_futures=True)
