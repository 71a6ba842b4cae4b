"""Optional LLM review of a proposal: labels, altLabels and comments in words, validated like extraction output.

A reply is parsed into the pydantic model below (malformed or off-schema JSON is retried by the client, then the
batch is left as the statistics made it). A parsed reply is refused whole, and changes nothing, when it names a
term that was not in its batch or carries control characters, injection attempts or query/markup payloads.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from concurrent.futures import ThreadPoolExecutor

from pydantic import BaseModel, ConfigDict, Field
from pyoxigraph import Literal

from attest.discover.proposals import Proposal, ProposedTerm, Statement
from attest.errors import ExtractionError, LlmUnavailable
from attest.extract.llm_client import LlmClient, render_prompt
from attest.extract.validate import text_problem
from attest.settings import Settings
from attest.vocab import RDFS

BATCH = 25  # terms per call
MAX_LABEL = 60
MAX_COMMENT = 300
MAX_ALT_LABELS = 8
# a label in words: letters, digits, spaces and the punctuation names use
WORDS = re.compile(r"^[^\W_][\w '’()&/,.+-]*$")


class ReviewedTerm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    iri: str
    label: str = Field(max_length=MAX_LABEL * 2)
    alt_labels: list[str] = Field(default_factory=list, max_length=MAX_ALT_LABELS * 2)
    comment: str = Field("", max_length=MAX_COMMENT * 2)


class Review(BaseModel):
    model_config = ConfigDict(extra="forbid")

    terms: list[ReviewedTerm]


def reply_problem(review: Review, asked: set[str]) -> str | None:
    """Why a parsed reply is refused, or None."""
    named: set[str] = set()
    for item in review.terms:
        if item.iri not in asked:
            return f"the reply names a term that was not asked about: {item.iri[:120]!r}"
        if item.iri in named:
            return f"the reply names {item.iri} twice"
        named.add(item.iri)
        for what, text, limit in [("label", item.label, MAX_LABEL), ("comment", item.comment, MAX_COMMENT),
                                  *[("altLabel", a, MAX_LABEL) for a in item.alt_labels]]:
            if problem := text_problem(what, text, limit):
                return f"{problem} for {item.iri}"
            if what != "comment" and not WORDS.match(unicodedata.normalize("NFKC", text)):
                return f"{what} {text[:80]!r} of {item.iri} is not in words"
        if len(item.alt_labels) > MAX_ALT_LABELS:
            return f"more than {MAX_ALT_LABELS} altLabels for {item.iri}"
    return None


class Reviewer:
    """Sends a proposal's terms to the model in batches and applies the replies that pass validation."""

    def __init__(self, settings: Settings, *, client: LlmClient | None = None) -> None:
        self.client = client or LlmClient(settings)
        self.model = settings.llm_model
        self.concurrency = settings.llm_concurrency
        self._system = render_prompt("discover_review_system", nonce="$nonce",
                                     schema=json.dumps(Review.model_json_schema(), separators=(",", ":")))

    def review(self, proposal: Proposal) -> None:
        """Relabel the proposal's terms in place, `llm_concurrency` batches at a time; what was refused is noted."""
        batches = [proposal.terms[i:i + BATCH] for i in range(0, len(proposal.terms), BATCH)]
        self._unavailable: str | None = None
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            outcomes = list(pool.map(self._review_batch, batches))
        applied, refused, first = 0, [], 1
        for batch, (items, problem) in zip(batches, outcomes):
            where = f"terms {first}-{first + len(batch) - 1}"
            first += len(batch)
            if problem:
                refused.append(f"{where}: {problem}")
                continue
            asked = {t.iri: t for t in batch}
            for item in items:
                _apply(asked[item.iri], item, self.model)
                applied += 1
        proposal.notes.append(f"review by {self.model}: {applied} of {len(proposal.terms)} terms relabelled")
        proposal.notes += [f"review left unchanged {r}" for r in refused]

    def _review_batch(self, batch: list[ProposedTerm]) -> tuple[list[ReviewedTerm], str | None]:
        """The batch's validated reply items, or why there are none."""
        if self._unavailable:  # no server: the other batches would fail the same way, slowly
            return [], self._unavailable
        payload = json.dumps([_term_for_review(t) for t in batch], ensure_ascii=False, indent=1)
        nonce = hashlib.sha256(payload.encode()).hexdigest()[:12]
        messages = [{"role": "system", "content": self._system.replace("$nonce", nonce)},
                    {"role": "user", "content": render_prompt("discover_review_user", nonce=nonce, terms=payload)}]
        try:
            reply = self.client.structured(messages, Review, schema_name="OntologyReview")
        except LlmUnavailable as exc:
            self._unavailable = exc.message
            return [], exc.message
        except ExtractionError as exc:
            return [], exc.message
        if problem := reply_problem(reply, {t.iri for t in batch}):
            return [], f"reply refused, {problem}"
        return reply.terms, None


def _term_for_review(term: ProposedTerm) -> dict[str, object]:
    return {"iri": term.iri, "kind": "class" if term.is_class else "property", "name": term.label or None,
            "evidence": term.evidence + [s.evidence for s in term.statements if s.predicate != RDFS + "label"]}


def _apply(term: ProposedTerm, item: ReviewedTerm, model: str) -> None:
    label = " ".join(item.label.split())
    before = term.label
    term.label, term.label_source = label, "review"
    why = f"from the review by {model}" + (f" (the statistics named it {before!r})" if before else "")
    labelled = [s for s in term.statements if s.predicate == RDFS + "label"]
    for statement in labelled:
        statement.value, statement.confidence, statement.evidence = Literal(label, language="en"), 0.8, why
    if not labelled:  # a cluster class has no label of its own
        term.statements.insert(0, Statement(RDFS + "label", Literal(label, language="en"), 0.8, why))
    seen = {label.casefold()}
    term.alt_labels = []
    for alt in item.alt_labels:
        alt = " ".join(alt.split())
        if alt and alt.casefold() not in seen:
            seen.add(alt.casefold())
            term.alt_labels.append(alt)
    term.comment = " ".join(item.comment.split())
