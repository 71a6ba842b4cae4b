"""Validate a text's citations against the graph in a few batched queries and score its claims (DESIGN.md confidence model)."""

from __future__ import annotations

from dataclasses import dataclass

from app.answer.citations import Citation, parse_citations
from app.answer.claims import split_claims
from app.answer.inference import Inference
from app.answer.linking import LabelMatcher, label_confidence
from app.answer.lookup import GraphLookup, Triple, relation_id, split_relation_id
from app.answer.models import CitationReport, ClaimReport, VerifyReport
from app.answer.queries import PREDICATE_NAME
from app.vocab import ONT, Iris, is_valid_id

FLAG_UNDER = 0.5
REMOVE_UNDER = 0.3


@dataclass
class EntityHit:
    """How an entity reference (id or written label) resolved."""

    entity_id: str
    label: str
    confidence: float
    match: float | None  # similarity when resolved through a label


class Verifier:
    """Resolves every citation of a text with a handful of batched queries, then scores claims and the whole text."""

    def __init__(self, lookup: GraphLookup, inference: Inference, max_trace_depth: int) -> None:
        self.lookup, self.inference, self.max_trace_depth = lookup, inference, max_trace_depth
        self.iris: Iris = lookup.iris

    def verify(self, text: str) -> VerifyReport:
        citations = parse_citations(text)
        reports = self.resolve(citations)
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

    # resolution -------------------------------------------------------------

    def resolve(self, citations: list[Citation]) -> list[CitationReport]:
        """One report per citation, in order."""
        refs: set[str] = set()  # entity references: marker payloads and S/O of S|P|O
        subjects: set[str] = set()  # subjects of hashed relation ids
        for c in citations:
            if c.kind == "entity":
                refs.add(c.ref)
            elif c.parts:
                refs.update((c.parts[0], c.parts[2]))
            elif (rid := split_relation_id(c.ref)) is not None:
                subjects.add(rid[0])
        entities = self._entities(refs | subjects)

        hashed: dict[str, Triple] = {}
        if subjects:
            for triple in self.lookup.facts_from(subjects):
                hashed[relation_id(self.iris, triple)] = triple
        spo: dict[int, Triple] = {}  # keyed by id(citation)
        for c in citations:
            if c.kind == "relation" and c.parts and PREDICATE_NAME.match(c.parts[1]):
                s, o = entities.get(c.parts[0]), entities.get(c.parts[2])
                if s and o:
                    spo[id(c)] = (self.iris.entity(s.entity_id), ONT + c.parts[1], self.iris.entity(o.entity_id))
        wanted = set(spo.values()) | {hashed[c.ref] for c in citations if c.kind == "relation" and c.ref in hashed}
        status = self.lookup.status(wanted) if wanted else {}
        inferred_only = [t for t, st in status.items() if st.inferred and not st.asserted]
        traces = self.lookup.memo.many(f"trace {self.max_trace_depth}", inferred_only,
                                       lambda ts: self.inference.traces(ts, self.max_trace_depth))
        depths = {t: steps[0].depth for t, steps in traces.items() if steps}  # the root's own record comes first
        labels = self._labels_of(status, entities)

        out = []
        for c in citations:
            if c.kind == "entity":
                out.append(self._entity_report(c, entities.get(c.ref)))
                continue
            triple = spo.get(id(c)) or hashed.get(c.ref)
            parts = (entities.get(c.parts[0]), entities.get(c.parts[2])) if c.parts else ()
            out.append(self._relation_report(c, triple, status.get(triple) if triple else None, depths, traces, parts, labels))
        return out

    def _entities(self, refs: set[str]) -> dict[str, EntityHit]:
        """Reference -> hit: ids in one details query; the rest through the label index (one more query, only if needed)."""
        ids = {r for r in refs if is_valid_id(r)}
        labels = self.lookup.labels_of(ids) if ids else {}
        hits = {r: EntityHit(r, labels[r], 1.0, None) for r in ids if r in labels}
        missing = [r for r in refs if r not in hits and r.strip()]
        if missing:
            matcher = LabelMatcher(self.lookup.label_index())
            matched = {r: best for r in missing if (best := matcher.best(r)) is not None}
            # the label index may be cached: confirm the matched entities still exist (one more batched query)
            current = self.lookup.labels_of({entity_id for entity_id, _ in matched.values()}) if matched else {}
            for r, (entity_id, score) in matched.items():
                if entity_id in current:
                    hits[r] = EntityHit(entity_id, current[entity_id], label_confidence(score), score)
        return hits

    def _labels_of(self, status, entities: dict[str, EntityHit]) -> dict[str, str]:
        labels = {self.iris.entity(h.entity_id): h.label for h in entities.values()}
        missing = {self.iris.entity_id(x) for t in status for x in (t[0], t[2]) if x not in labels}
        missing.discard(None)
        if missing:
            labels.update({self.iris.entity(i): label for i, label in self.lookup.labels_of(missing).items()})
        return labels

    def _entity_report(self, c: Citation, hit: EntityHit | None) -> CitationReport:
        if hit is None:
            return CitationReport(marker=c.marker, kind="entity", ref=c.ref, confidence=0.0,
                                  status="not_found" if c.ref.strip() else "invalid")
        return CitationReport(
            marker=c.marker, kind="entity", ref=c.ref, iri=self.iris.entity(hit.entity_id), label=hit.label,
            status="found" if hit.match is None else "label_match", match=hit.match, confidence=hit.confidence)

    def _relation_report(self, c, triple, status, depths, traces, parts, labels) -> CitationReport:
        base = dict(marker=c.marker, kind="relation", ref=c.ref)
        if c.parts is None and split_relation_id(c.ref) is None:
            return CitationReport(**base, status="invalid", confidence=0.0)
        if triple is None or status is None:
            return CitationReport(**base, status="not_found", confidence=0.0,
                                  triple=list(triple) if triple else None)
        words = f"{labels.get(triple[0], triple[0])} {triple[1].removeprefix(ONT)} {labels.get(triple[2], triple[2])}"
        part_confidence = min((p.confidence for p in parts if p is not None), default=1.0)
        if status.asserted:
            return CitationReport(**base, status="asserted", triple=list(triple), label=words, depth=0,
                                  confidence=min(1.0, part_confidence))
        depth = depths.get(triple, self.max_trace_depth)
        trace = traces.get(triple) or []
        confidence = round(max(0.0, 1.0 - 0.1 * depth), 4)
        return CitationReport(**base, status="inferred", triple=list(triple), label=words, depth=depth,
                              confidence=min(confidence, part_confidence), trace=trace)


def _claim(text: str, start: int, end: int, citations: list[CitationReport]) -> ClaimReport:
    if not citations:
        return ClaimReport(text=text[start:end], start=start, end=end, confidence=None, flags=["ungrounded"])
    confidence = min(c.confidence for c in citations)
    flags = []
    if confidence < FLAG_UNDER:
        flags.append("low_confidence")
    if confidence < REMOVE_UNDER:
        flags.append("removed")
    return ClaimReport(text=text[start:end], start=start, end=end, confidence=confidence, flags=flags, citations=citations)


def _report(text: str, claims: list[ClaimReport]) -> VerifyReport:
    cited = [c for c in claims if c.confidence is not None]
    weights = [max(1, len(c.text.split())) for c in cited]
    confidence = round(sum(w * c.confidence for w, c in zip(weights, cited)) / sum(weights), 4) if cited else 0.0
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
