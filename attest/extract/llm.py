"""LLM extractor: sanitized chunk inside nonce delimiters, ontology-driven prompt, structured output, bounded concurrency.

Interface (stable; used by the ingest pipeline):

    extractor = LlmExtractor(settings, terms)            # terms: OntologyTerms (attest.extract.ontology_terms)
    extractor.name                                       # "llm:<model>", recorded as the extractor of each fact
    extraction = extractor.extract(text)                 # Extraction, or raises ExtractionError / LlmUnavailable
    extraction = extractor.extract(text, reference=day)  # relative dates ("last month") count from `day`
    extraction, report = extractor.extract_with_report(text)   # report: ChunkReport (sanitizer findings, attempts)
    results = extractor.extract_many(texts)              # list, in input order, of Extraction | ExtractionError;
                                                         # settings.llm_concurrency chunks at a time
    llm_available(settings) -> bool                      # re-exported probe: pick offline mode when False

The output is NOT validated against the ontology here (ExtractionValidator does that, so that rejected
items are reported); this module only guarantees schema-valid JSON, re-anchors character spans on
the original chunk text (the model saw the sanitized text, whose offsets may differ) and drops what the
model took only from sentences refused as injection attempts (attest.extract.refuse), listing them in
Extraction.refused and ChunkReport.refused.
"""

from __future__ import annotations

import hashlib
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import date

from attest.errors import ExtractionError
from attest.extract.llm_client import CallReport, LlmClient, llm_available, render_prompt
from attest.extract.models import ExtractedEntity, Extraction, RefusedSentence
from attest.extract.ontology_terms import OntologyTerms
from attest.extract.refuse import drop_refused, refused_sentences
from attest.extract.sanitize import Finding, sanitize
from attest.settings import Settings

__all__ = ["ChunkReport", "LlmExtractor", "llm_available"]


@dataclass
class ChunkReport:
    """What happened to one chunk on its way to the model and back."""

    findings: list[Finding] = field(default_factory=list)  # what sanitization neutralized
    attempts: int = 0
    response_format: str = ""
    errors: list[str] = field(default_factory=list)  # reasons of failed attempts that were retried
    refused: list[RefusedSentence] = field(default_factory=list)  # injection sentences, with what was dropped from them


def delimiter_nonce(text: str) -> str:
    """A per-chunk tag for the delimiters: derived from the content, so text cannot predict its own closing marker."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


class LlmExtractor:
    """Extractor over any OpenAI-compatible chat completions API."""

    def __init__(self, settings: Settings, terms: OntologyTerms, *, client: LlmClient | None = None) -> None:
        self.settings = settings
        self.terms = terms
        self.client = client or LlmClient(settings)
        self.name = f"llm:{settings.llm_model}"
        self._system = render_prompt(
            "extract_system",
            nonce="$nonce",  # filled per chunk below
            types=self._type_lines(),
            predicates=self._predicate_lines(),
            attributes=self._attribute_lines(),
            schema=json.dumps(Extraction.model_json_schema(), separators=(",", ":")),
        )

    def _type_lines(self) -> str:
        lines = []
        for term in sorted(self.terms.types.values(), key=lambda t: t.name):
            lines.append(f"- {term.name} - {_first_sentence(term.comment) or term.label}")
        return "\n".join(lines)

    def _predicate_lines(self) -> str:
        lines = []
        for term in sorted(self.terms.predicates.values(), key=lambda t: t.name):
            signature = f"({term.domain or 'Entity'} -> {term.range or 'Entity'})"
            lines.append(f"- {term.name} {signature} - {_first_sentence(term.comment) or term.label}")
        return "\n".join(lines)

    def _attribute_lines(self) -> str:
        lines = [f"- {term.name} (of {term.domain or 'Entity'}) - {_first_sentence(term.comment) or term.label}"
                 for term in sorted(self.terms.attributes.values(), key=lambda t: t.name)]
        return "\n".join(lines) or "- (none: leave attributes empty)"

    def messages(self, text: str, reference: date | None = None) -> tuple[list[dict[str, str]], list[Finding]]:
        """The chat messages for one chunk, and what sanitization neutralized in it; `reference`: the day relative
        dates count from (the document's or the chat turn's), when known."""
        cleaned = sanitize(text)
        nonce = delimiter_nonce(cleaned.text)
        system = self._system.replace("$nonce", nonce)
        when = f"Reference date for relative dates: {reference.isoformat()}." if reference is not None else \
            "No reference date is known: leave relative dates null."
        user = render_prompt("extract_user", nonce=nonce, text=cleaned.text, reference=when)
        return [{"role": "system", "content": system}, {"role": "user", "content": user}], cleaned.findings

    def extract_with_report(self, text: str, reference: date | None = None) -> tuple[Extraction, ChunkReport]:
        if not text.strip():
            return Extraction(), ChunkReport()
        messages, findings = self.messages(text, reference)
        try:
            extraction = self.client.structured(messages, Extraction)
        except ExtractionError as exc:
            exc.detail.setdefault("sanitized", [f.kind for f in findings])
            raise
        call: CallReport = self.client.last_call
        extraction = drop_refused(_anchor_spans(extraction, text), text, refused_sentences(text))
        report = ChunkReport(findings, call.attempts, call.response_format, list(call.errors), extraction.refused)
        return extraction, report

    def extract(self, text: str, reference: date | None = None) -> Extraction:
        return self.extract_with_report(text, reference)[0]

    def extract_many(self, texts: list[str]) -> list[Extraction | ExtractionError]:
        """Extract every text, settings.llm_concurrency at a time; a failed chunk yields its error in place."""

        def one(text: str) -> Extraction | ExtractionError:
            try:
                return self.extract(text)
            except ExtractionError as exc:
                return exc

        with ThreadPoolExecutor(max_workers=self.settings.llm_concurrency, thread_name_prefix="llm-extract") as pool:
            return list(pool.map(one, texts))


def _first_sentence(comment: str) -> str:
    sentence = comment.split(". ")[0].strip()
    return sentence if sentence.endswith(".") else sentence + "." if sentence else ""


def _anchor_spans(extraction: Extraction, text: str) -> Extraction:
    """Keep a model's span only when it covers the name in the original text; else find the name; else no span."""
    entities: list[ExtractedEntity] = []
    for entity in extraction.entities:
        start, end = entity.start, entity.end
        covered = start is not None and end is not None and 0 <= start < end <= len(text) and text[start:end].casefold() == entity.name.casefold()
        if not covered:
            match = re.search(re.escape(entity.name), text, re.IGNORECASE) if entity.name.strip() else None
            start, end = match.span() if match else (None, None)
        entities.append(entity.model_copy(update={"start": start, "end": end}))
    return extraction.model_copy(update={"entities": entities})
