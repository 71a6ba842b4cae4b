"""Validate a text's citations against the graph in a few batched queries and score its claims (DESIGN.md confidence model)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal, TypedDict

from attest.answer.citations import Citation, parse_citations
from attest.answer.claims import split_claims
from attest.answer.inference import Inference
from attest.answer.linking import LabelMatcher, label_confidence
from attest.answer.lookup import (
    FactStatus, GraphLookup, Triple, is_literal, literal_value, relation_id, split_relation_id,
)
from attest.answer.models import CitationReport, ClaimFlag, ClaimReport, TraceStep, VerifyReport
from attest.answer.validtime import SUPERSEDED_CONFIDENCE, Validity
from attest.vocab import Iris

UNSAFE = re.compile(r"[<>\"{}|\\^`]")  # never in an id or a label a citation could mean

FLAG_UNDER = 0.5
REMOVE_UNDER = 0.3


@dataclass
class EntityHit:
    """How an entity reference (id or written label) resolved."""

    iri: str
    label: str
    confidence: float
    match: float | None  # similarity when resolved through a label


class _RelationMarker(TypedDict):
    """The fields every report of a relation citation starts from."""

    marker: str
    kind: Literal["relation"]
    ref: str


class Verifier:
    """Resolves every citation of a text with a handful of batched queries, then scores claims and the whole text."""

    def __init__(self, lookup: GraphLookup, inference: Inference, max_trace_depth: int) -> None:
        self.lookup, self.inference, self.max_trace_depth = lookup, inference, max_trace_depth
        self.iris: Iris = lookup.iris
        self.ids = lookup.ids

    def verify(self, text: str, as_of: date | None = None) -> VerifyReport:
        """`as_of`: the day the text speaks of (default today): a cited fact a newer one replaced before it is
        `superseded`."""
        citations = parse_citations(text)
        return assemble(text, citations, self.resolve(citations, as_of or date.today()))

    # resolution -------------------------------------------------------------

    def resolve(self, citations: list[Citation], day: date | None = None) -> list[CitationReport]:
        """One report per citation, in order."""
        day = day or date.today()
        refs: set[str] = set()  # entity references: marker payloads and S/O of S|P|O
        subjects: set[str] = set()  # subject IRIs of hashed relation ids
        for c in citations:
            if c.kind == "entity":
                refs.add(c.ref)
            elif c.parts:
                refs.add(c.parts[0])
                if not _quoted(c.parts[2]):
                    refs.add(c.parts[2])
            elif (rid := split_relation_id(c.ref)) is not None and (iri := self.ids.iri(rid[0])) is not None:
                subjects.add(iri)
        entities = self._entities(refs)

        spo: dict[int, Triple] = {}  # keyed by id(citation)
        literal_subjects: set[str] = set()
        for c in citations:
            if c.kind == "relation" and c.parts and (p := self.ids.predicate_iri(c.parts[1])) is not None:
                s = self._iri_of(c.parts[0], entities)
                if _quoted(c.parts[2]):
                    if s:
                        spo[id(c)] = (s, p, c.parts[2])
                        literal_subjects.add(s)
                elif s and (o := self._iri_of(c.parts[2], entities)):
                    spo[id(c)] = (s, p, o)
        outgoing = self.lookup.facts_from(subjects | literal_subjects) if subjects or literal_subjects else {}
        hashed = {relation_id(self.ids, t): t for t in outgoing if t[0] in subjects}
        for key, (s, p, o) in list(spo.items()):
            if _quoted(o):  # a value cited by its lexical form, whatever its datatype
                value = o[1:-1]
                spo[key] = next((t for t in outgoing if t[0] == s and t[1] == p and is_literal(t[2])
                                 and literal_value(t[2]) == value), (s, p, o))
        wanted = set(spo.values()) | {hashed[c.ref] for c in citations if c.kind == "relation" and c.ref in hashed}
        status = {t: st for t, st in outgoing.items() if t in wanted}
        status.update(self.lookup.status(t for t in wanted if t not in status))
        inferred_only = [t for t, st in status.items() if st.inferred and not st.asserted]
        traces = self.lookup.memo.many(f"trace {self.max_trace_depth}", inferred_only,
                                       lambda ts: self.inference.traces(ts, self.max_trace_depth))
        depths = {t: steps[0].depth for t, steps in traces.items() if steps}  # the root's own record comes first
        times = {t: v for t, v in self.lookup.validity(t for t, st in status.items() if st.asserted).items()
                 if v.superseded_by is not None and v.state(day) == "past"}
        newer = [(s, p, v.superseded_by) for (s, p, _), v in times.items() if v.superseded_by is not None]
        labels = self._labels_of([*status, *newer], entities)

        out = []
        for c in citations:
            if c.kind == "entity":
                out.append(self._entity_report(c, entities.get(c.ref)))
                continue
            triple = spo.get(id(c)) or hashed.get(c.ref)
            parts = (entities.get(c.parts[0]), entities.get(c.parts[2])) if c.parts else ()
            report = self._relation_report(c, triple, status.get(triple) if triple else None, depths, traces, parts, labels)
            out.append(self._superseded(report, times[triple], labels) if triple in times else report)
        return out

    def _iri_of(self, ref: str, entities: dict[str, EntityHit]) -> str | None:
        """The IRI an S or O of S|P|O names: the entity it resolved to, else the IRI its id names (an unlabelled node)."""
        hit = entities.get(ref)
        return hit.iri if hit else self.ids.iri(ref)

    def _entities(self, refs: set[str]) -> dict[str, EntityHit]:
        """Reference -> hit: ids in one labels query; the rest through the label index (one more query, only if needed)."""
        by_iri = {r: iri for r in refs if (iri := self.ids.iri(r)) is not None}
        labels = self.lookup.labels_of(set(by_iri.values())) if by_iri else {}
        hits = {r: EntityHit(iri, labels[iri], 1.0, None) for r, iri in by_iri.items() if iri in labels}
        missing = [r for r in refs if r not in hits and r.strip() and not UNSAFE.search(r)]
        if missing:
            matcher = LabelMatcher(self.lookup.label_index())
            matched = {r: best for r in missing if (best := matcher.best(r)) is not None}
            # the label index may be cached: confirm the matched entities still exist (one more batched query)
            current = self.lookup.labels_of({iri for iri, _ in matched.values()}) if matched else {}
            for r, (iri, score) in matched.items():
                if iri in current:
                    hits[r] = EntityHit(iri, current[iri], label_confidence(score), score)
        return hits

    def _labels_of(self, triples: list[Triple], entities: dict[str, EntityHit]) -> dict[str, str]:
        labels = {h.iri: h.label for h in entities.values()}
        missing = {x for t in triples for x in (t[0], t[2]) if x not in labels and not is_literal(x)}
        if missing:
            labels.update(self.lookup.labels_of(missing))
        return labels

    def _superseded(self, report: CitationReport, validity: Validity, labels: dict[str, str]) -> CitationReport:
        """An asserted fact a newer one replaced: status superseded, lower confidence, and the fact that replaced it."""
        if report.status != "asserted" or report.triple is None or validity.superseded_by is None:
            return report
        s, p, _ = report.triple
        newer = (s, p, validity.superseded_by)
        obj = literal_value(newer[2]) if is_literal(newer[2]) else labels.get(newer[2], newer[2])
        return report.model_copy(update={
            "status": "superseded", "confidence": min(report.confidence, SUPERSEDED_CONFIDENCE),
            "label": f"{report.label} (until {validity.valid_to}; replaced by {obj})",
            "valid_to": validity.valid_to.isoformat() if validity.valid_to else None,
            "superseded_by": relation_id(self.ids, newer), "superseded_by_triple": list(newer)})

    def _entity_report(self, c: Citation, hit: EntityHit | None) -> CitationReport:
        if hit is None:
            malformed = not c.ref or UNSAFE.search(c.ref) or any(ch.isspace() for ch in c.ref)
            return CitationReport(marker=c.marker, kind="entity", ref=c.ref, confidence=0.0,
                                  status="invalid" if malformed else "not_found")
        return CitationReport(
            marker=c.marker, kind="entity", ref=c.ref, iri=hit.iri, label=hit.label,
            status="found" if hit.match is None else "label_match", match=hit.match, confidence=hit.confidence)

    def _relation_report(self, c: Citation, triple: Triple | None, status: FactStatus | None, depths: dict[Triple, int],
                         traces: dict[Triple, list[TraceStep] | None], parts: tuple[EntityHit | None, ...],
                         labels: dict[str, str]) -> CitationReport:
        base = _RelationMarker(marker=c.marker, kind="relation", ref=c.ref)
        if c.parts is None and split_relation_id(c.ref) is None:
            return CitationReport(**base, status="invalid", confidence=0.0)
        if triple is None or status is None:
            return CitationReport(**base, status="not_found", confidence=0.0,
                                  triple=list(triple) if triple else None)
        obj = literal_value(triple[2]) if is_literal(triple[2]) else labels.get(triple[2], triple[2])
        words = f"{labels.get(triple[0], triple[0])} {self.ids.predicate_id(triple[1])} {obj}"
        part_confidence = min((p.confidence for p in parts if p is not None), default=1.0)
        if status.asserted:
            return CitationReport(**base, status="asserted", triple=list(triple), label=words, depth=0,
                                  confidence=min(1.0, part_confidence))
        depth = depths.get(triple, self.max_trace_depth)
        trace = traces.get(triple) or []
        confidence = round(max(0.0, 1.0 - 0.1 * depth), 4)
        return CitationReport(**base, status="inferred", triple=list(triple), label=words, depth=depth,
                              confidence=min(confidence, part_confidence), trace=trace)


def assemble(text: str, citations: list[Citation], reports: list[CitationReport]) -> VerifyReport:
    """The report of a text from one resolved report per citation: claims (sentences) scored and flagged."""
    claims: list[ClaimReport] = []
    i = 0
    for span in split_claims(text):
        mine: list[CitationReport] = []
        while i < len(citations) and citations[i].start < span.end:
            if citations[i].start >= span.start:
                mine.append(reports[i])
            i += 1
        claims.append(_claim(text, span.start, span.end, mine))
    return _report(text, claims)


def _quoted(ref: str) -> bool:
    return len(ref) >= 2 and ref[0] == ref[-1] == '"'


def _claim(text: str, start: int, end: int, citations: list[CitationReport]) -> ClaimReport:
    if not citations:
        return ClaimReport(text=text[start:end], start=start, end=end, confidence=None, flags=["ungrounded"])
    confidence = min(c.confidence for c in citations)
    flags: list[ClaimFlag] = []
    if confidence < FLAG_UNDER:
        flags.append("low_confidence")
    if confidence < REMOVE_UNDER:
        flags.append("removed")
    return ClaimReport(text=text[start:end], start=start, end=end, confidence=confidence, flags=flags, citations=citations)


def _report(text: str, claims: list[ClaimReport]) -> VerifyReport:
    cited = [c for c in claims if c.confidence is not None]
    weights = [max(1, len(c.text.split())) for c in cited]
    weighted = sum(w * (c.confidence or 0.0) for w, c in zip(weights, cited))  # every cited claim has a confidence
    confidence = round(weighted / sum(weights), 4) if cited else 0.0
    flags = []
    if any("ungrounded" in c.flags for c in claims):
        flags.append("ungrounded_claims")
    if any("low_confidence" in c.flags for c in claims):
        flags.append("low_confidence_claims")
    if any("removed" in c.flags for c in claims):
        flags.append("removed_claims")
    if not cited:
        flags.append("no_citations")
    return VerifyReport(text=_without_removed(text, claims), original=text, confidence=confidence, flags=flags, claims=claims)


def _without_removed(text: str, claims: list[ClaimReport]) -> str:
    out, pos = [], 0
    for c in claims:
        if "removed" in c.flags:
            out.append(text[pos:c.start])
            pos = c.end
            while pos < len(text) and text[pos] in " \t":
                pos += 1
    out.append(text[pos:])
    return "".join(out).strip()
