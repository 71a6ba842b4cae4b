"""Retrieval for /context: link the question to entities, find source chunks, expand over facts, rank, build a budgeted context."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from pyoxigraph import Literal, NamedNode

from app.answer import queries as q
from app.answer.citations import entity_marker, relation_marker
from app.answer.inference import Inference
from app.answer.linking import LabelMatcher
from app.answer.lookup import GENERIC_PREDICATES, FactStatus, GraphLookup, Triple, relation_id
from app.answer.models import ContextEntity, ContextRelation, ContextResponse, ContextSource
from app.extract.sanitize import sanitize
from app.vocab import ONT, is_valid_id

HOP_DECAY = 0.5  # an entity reached over one more hop scores half as much as the one it was reached from
GENERIC_PENALTY = 0.6
SOURCE_WEIGHT = 0.3  # an entity found in a matching chunk counts less than one reached in one hop from the question  # relatesTo / mentions say less than a specific relation
MIN_FRONTIER = 10  # entities expanded per hop, best first: max(MIN_FRONTIER, limit)
MAX_KEYWORDS = q.CHUNK_KEYWORDS
DEPTH_SHORTLIST = 3  # depths are looked up for the best limit * 3 facts only
MAX_SOURCES = 5
SNIPPET_CHARS = 600
KEYWORD = re.compile(r"[A-Za-z0-9]{3,40}")
STOPWORDS = frozenset("""the and for are but not you all any can had her was one our out has have what which who whom
whose when where why how does did this that these those with from into onto than then them they their there here about
above below between over under again also just only very more most some such other its it's tell show give list explain
describe please using used use uses would could should will shall may might must been being were is of in on at by to
an as or if so do be we me my your yours""".split())


@dataclass
class ContextQuery:
    """A /context request after validation."""

    query: str
    entities: list[str] = field(default_factory=list)
    include_relations: bool = True
    max_hops: int = 2
    limit: int = 20
    document: str | None = None


@dataclass
class Fact:
    triple: Triple
    status: FactStatus
    depth: int
    score: float


class Retriever:
    """Builds the context an answer is composed from; every fact carries a relation id that /verify resolves."""

    def __init__(self, lookup: GraphLookup, inference: Inference, budget_chars: int) -> None:
        self.lookup, self.inference, self.budget_chars = lookup, inference, budget_chars
        self.iris = lookup.iris

    def context(self, request: ContextQuery) -> ContextResponse:
        matcher = LabelMatcher(self.lookup.label_index())
        scores = self._link(request, matcher)
        doc_graph = self.iris.document_graph(request.document) if request.document else None
        sources = self._sources(request.query, request.document)
        mentioned: dict[str, float] = {}  # entities named in matching chunks: seeds, and a bonus on top of hop scores
        for source in sources:
            for e in matcher.mentions(source.text):
                mentioned[e] = max(mentioned.get(e, 0.0), SOURCE_WEIGHT * source.score)
        for e, bonus in mentioned.items():
            scores.setdefault(e, bonus)
        hops = {e: 0 for e in scores}
        facts = self._expand(scores, hops, request.max_hops, doc_graph, max(MIN_FRONTIER, request.limit))
        for e, bonus in mentioned.items():
            if hops[e] > 0 or scores[e] > bonus:
                scores[e] = min(1.0, scores[e] + bonus)
        ranked_entities = sorted(scores, key=lambda e: (-scores[e], hops[e], e))
        total = len(ranked_entities)
        top_entities = ranked_entities[:request.limit]
        ranked_facts = self._rank_facts(facts, scores, request.limit)[:request.limit] if request.include_relations else []
        needed = set(top_entities) | {self.lookup.entity_id(x) for f in ranked_facts for x in (f.triple[0], f.triple[2])}
        details = self.lookup.details(needed)
        predicate_labels = self.lookup.property_labels(f.triple[1] for f in ranked_facts)

        entities = [
            ContextEntity(id=e, iri=self.iris.entity(e), label=details[e].label,
                          types=[t.removeprefix(ONT) for t in details[e].types], description=details[e].description,
                          score=round(scores[e], 4), hops=hops[e])
            for e in top_entities if e in details
        ]
        relations = [self._relation(f, details, predicate_labels) for f in ranked_facts]
        return ContextResponse(entities=entities, relations=relations, sources=sources,
                               context=self._text(entities, relations, sources), total_entities=total)

    # linking ------------------------------------------------------------------

    def _link(self, request: ContextQuery, matcher: LabelMatcher) -> dict[str, float]:
        scores = {e: s / 100.0 for e, s in matcher.link(request.query).items()}
        for hint in request.entities:
            if is_valid_id(hint) and hint in matcher.index:
                scores[hint] = 1.0
            elif (best := matcher.best(hint)) is not None:
                scores[best[0]] = max(scores.get(best[0], 0.0), best[1] / 100.0)
        return scores

    def _sources(self, question: str, document: str | None) -> list[ContextSource]:
        words = [w.casefold() for w in KEYWORD.findall(question)]
        keywords = sorted({w for w in words if w not in STOPWORDS}, key=lambda w: (-len(w), w))[:MAX_KEYWORDS]
        if not keywords:
            return []
        padded = keywords + [keywords[0]] * (q.CHUNK_KEYWORDS - len(keywords))
        subs = {f"k{i}": Literal(k) for i, k in enumerate(padded)}
        if document:
            subs["doc"] = NamedNode(self.iris.document(document))
        found = []
        for row in self.lookup.store.query(q.CHUNK_SEARCH_IN if document else q.CHUNK_SEARCH, substitutions=subs):
            text = row["text"].value
            lowered = text.casefold()
            score = sum(1 for k in keywords if k in lowered) / len(keywords)
            found.append((score, row["c"].value, text))
        found.sort(key=lambda f: (-f[0], f[1]))
        best = found[:MAX_SOURCES]
        spans = self.lookup.chunk_spans([chunk for _, chunk, _ in best])
        out = []
        for score, chunk, text in best:
            doc, start, end = spans.get(chunk) or (None, None, None)
            out.append(ContextSource(chunk=chunk, document=doc.rsplit("/", 1)[-1] if doc else None, start=start, end=end,
                                     text=_snippet(text[:SNIPPET_CHARS]), score=round(score, 4)))
        return out

    # expansion and ranking -------------------------------------------------------

    def _expand(self, scores: dict[str, float], hops: dict[str, int], max_hops: int,
                doc_graph: str | None, width: int) -> dict[Triple, FactStatus]:
        """Breadth-first over facts; each hop expands the `width` best-scored entities reached by the previous one."""
        facts: dict[Triple, FactStatus] = {}
        frontier = sorted(scores, key=lambda e: (-scores[e], e))[:width]
        for hop in range(1, max_hops + 1):
            if not frontier:
                break
            found = self.lookup.facts_touching(frontier)
            if doc_graph:
                found = {t: st for t, st in found.items() if doc_graph in st.asserted_in or not st.asserted}
            reached: dict[str, float] = {}
            for (s, _, o), status in found.items():
                sid, oid = self.lookup.entity_id(s), self.lookup.entity_id(o)
                if sid is None or oid is None:
                    continue
                for a, b in ((sid, oid), (oid, sid)):
                    if a in scores and hops.get(a) == hop - 1 and scores[a] * HOP_DECAY > scores.get(b, 0.0):
                        reached[b] = max(reached.get(b, 0.0), scores[a] * HOP_DECAY)
            facts.update(found)
            for e, s in reached.items():
                scores[e], hops[e] = s, hop
            frontier = sorted(reached, key=lambda e: (-reached[e], e))[:width]
        return {t: st for t, st in facts.items()
                if self.lookup.entity_id(t[0]) in scores and self.lookup.entity_id(t[2]) in scores}

    def _rank_facts(self, facts: dict[Triple, FactStatus], scores: dict[str, float], limit: int) -> list[Fact]:
        """Dedupe, score with depth 1 assumed for inferred facts, then look up real depths of the best candidates only."""
        specific_pairs = {frozenset((s, o)) for (s, p, o) in facts if p not in GENERIC_PREDICATES}
        asserted_pairs = {frozenset((s, o)) for (s, p, o), st in facts.items() if st.asserted}
        candidates: list[Fact] = []
        seen: set[tuple[str, frozenset]] = set()
        for triple, status in sorted(facts.items(), key=lambda kv: (not kv[1].asserted, kv[0])):
            s, p, o = triple
            pair = frozenset((s, o))
            if not status.asserted and (pair in asserted_pairs or (p in GENERIC_PREDICATES and pair in specific_pairs)):
                continue  # an inverse, super-property or relatesTo of a fact already shown adds nothing to read
            key = (p, frozenset((s, o)))
            if key in seen:
                continue  # the other direction of a symmetric fact
            seen.add(key)
            # the mean, not the minimum: a fact about an entity the question names beats one between two side entities
            base = (scores[self.lookup.entity_id(s)] + scores[self.lookup.entity_id(o)]) / 2
            candidates.append(Fact(triple, status, 0 if status.asserted else 1, base * _weight(p, status.asserted, 1)))
        candidates.sort(key=lambda f: (-f.score, f.depth, f.triple))
        shortlist = candidates[:limit * DEPTH_SHORTLIST]
        inferred = [f.triple for f in shortlist if not f.status.asserted]
        depths = self.lookup.memo.many("depth", inferred, self.inference.depths)
        for f in shortlist:
            if not f.status.asserted:
                f.depth = depths[f.triple] if depths[f.triple] is not None else 1
                f.score = f.score / _weight(f.triple[1], False, 1) * _weight(f.triple[1], False, f.depth)
        shortlist.sort(key=lambda f: (-f.score, f.depth, f.triple))
        return shortlist

    def _relation(self, fact: Fact, details, predicate_labels: dict[str, str]) -> ContextRelation:
        s, p, o = fact.triple
        sid, oid = self.lookup.entity_id(s), self.lookup.entity_id(o)
        name = p.removeprefix(ONT)
        words = f"{_label(details, sid)} {predicate_labels.get(p, name)} {_label(details, oid)}"
        documents = sorted(g.removeprefix(self.iris.document_graph_prefix) for g in fact.status.asserted_in
                           if g.startswith(self.iris.document_graph_prefix))
        return ContextRelation(id=relation_id(self.iris, fact.triple), subject=sid, predicate=name, object=oid,
                               text=words, status="asserted" if fact.status.asserted else "inferred",
                               depth=fact.depth, documents=documents)

    # context text -------------------------------------------------------------------

    def _text(self, entities: list[ContextEntity], relations: list[ContextRelation], sources: list[ContextSource]) -> str:
        """Sections in priority order, cut at the character budget; every document-derived string is sanitized."""
        lines = ["ENTITIES (cite as shown):"]
        lines += [f"- {entity_marker(e.id)} {_clean(e.label)}" + (f" [{', '.join(e.types)}]" if e.types else "")
                  + (f": {_clean(e.description)}" if e.description else "") for e in entities]
        if relations:
            lines.append("FACTS (cite as shown; 'inferred' facts follow from the ontology by OWL 2 RL reasoning):")
            lines += [f"- {relation_marker(r.id)} {_clean(r.text)} ({r.status}" + (f", depth {r.depth})" if r.depth else ")")
                      for r in relations]
        if sources:
            lines.append("SOURCES (background text, not citable):")
            lines += [f"- [{s.document or 'document'} {s.start}-{s.end}] {s.text}" for s in sources]
        out, used = [], 0
        for line in lines:
            if used + len(line) + 1 > self.budget_chars:
                break
            out.append(line)
            used += len(line) + 1
        return "\n".join(out)


def _weight(predicate: str, asserted: bool, depth: int) -> float:
    return (1.0 if asserted else max(0.1, 1.0 - 0.1 * depth)) * (GENERIC_PENALTY if predicate in GENERIC_PREDICATES else 1.0)


def _label(details, entity_id: str) -> str:
    info = details.get(entity_id)
    return info.label if info else entity_id


@functools.lru_cache(maxsize=4096)  # labels and descriptions recur in every context that shows their entity
def _clean(text: str) -> str:
    return sanitize(text).text.replace("\n", " ")


@functools.lru_cache(maxsize=1024)
def _snippet(text: str) -> str:
    return sanitize(text).text
