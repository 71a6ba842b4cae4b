"""Retrieval for /context: link the question, search relation paths from the linked entities, keep the best paths
whole, find source chunks, build a budgeted context."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from datetime import date

from pyoxigraph import Literal, NamedNode

from attest.answer import queries as q
from attest.answer.citations import entity_marker, relation_marker
from attest.answer.direction import fact_sentence
from attest.answer.inference import Inference
from attest.answer.linking import LabelMatcher
from attest.answer.lookup import (
    SUPPORT_CAP, EntityInfo, FactStatus, GraphLookup, Triple, is_literal, literal_value, relation_id,
)
from attest.answer.models import ContextEntity, ContextLink, ContextPath, ContextRelation, ContextResponse, ContextSource
from attest.answer.passages import PassageRanker
from attest.answer.path_query import path_sparql
from attest.answer.paths import BIG_NODE, HUB_SAMPLE, Path, PathSearch
from attest.answer.predicates import CAMEL, asks_for_person, focus_stems, question_terms
from attest.store.results import solutions
from attest.answer.validtime import PAST_WEIGHT, Validity, phrase
from attest.extract.sanitize import sanitize
from attest.store import fulltext
from attest.store.base import Term

NOTHING_NAMED = "NOTHING FOUND: the question names no entity of the graph, and no passage matches it."
NAMING_LINK = 0.5  # a link this strong names an entity: its words are not read as relation words
SOURCE_WEIGHT = 0.3  # an entity named in a matching chunk is a weaker start than one the question names
MAX_SOURCE_SEEDS = 5  # ... and at most this many from each passage
MAX_SIGNATURES = 3  # the best path of each of this many kinds of path is kept before the rest by score
SIGNATURE_SHARE = 0.3  # ... when it scores at least this share of the best path
MAX_KEYWORDS = q.CHUNK_KEYWORDS
MAX_SOURCES = 5  # passages in `sources` unless the request says `k`
MAX_DOCUMENTS = 3  # document ids shown per fact (how many there are is counted)
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
    k: int = MAX_SOURCES
    as_of: date | None = None  # the day the facts should hold on (None: today)


class Retriever:
    """Builds the context an answer is composed from; every fact carries a relation id that /verify resolves."""

    def __init__(self, lookup: GraphLookup, inference: Inference, budget_chars: int) -> None:
        self.lookup, self.inference, self.budget_chars = lookup, inference, budget_chars
        self.iris, self.ids = lookup.iris, lookup.ids

    def context(self, request: ContextQuery) -> ContextResponse:
        matcher = LabelMatcher(self.lookup.label_index())
        links = matcher.link(request.query)
        seeds = {iri: link.score for link in links for iri in link.iris}
        mentions = {iri: link.start for link in links for iri in link.iris}
        hinted = set()
        for hint in request.entities:
            iri = self.ids.iri(hint)
            if iri is None or iri not in matcher.index:
                iri = best[0] if (best := matcher.best(hint)) else None
            if iri is not None:
                seeds[iri] = 1.0
                hinted.add(iri)
        sources, notes = self._sources(request.query, request.document, seeds, request.k)
        if not seeds:  # the question names nothing: start from what the best matching passages name
            for source in sources:
                for iri in sorted(matcher.mentions(source.text))[:MAX_SOURCE_SEEDS]:
                    seeds.setdefault(iri, SOURCE_WEIGHT * source.score)

        allowed = None
        if request.document:  # that document's facts, and what is inferred
            own = self.lookup.graph_triples(self.iris.document_graph(request.document))
            allowed = lambda t, st: t in own or not st.asserted  # noqa: E731
        spans = [(link.start, link.end) for link in links if link.score >= NAMING_LINK]  # weaker ones may be words
        search = PathSearch(self.lookup, question_terms(request.query, spans), focus_stems(request.query, spans), allowed,
                            declared=self.lookup.properties_in_use(matcher.index.properties), question=request.query,
                            mentions={link.start: link.end for link in links}, person=asks_for_person(request.query, spans))
        ordered = sorted(seeds.items(), key=lambda kv: (-kv[1], kv[0]))
        paths = search.search([(iri, score, mentions.get(iri)) for iri, score in ordered], request.max_hops)
        if search.sampled:
            notes = [*notes, f"{len(search.sampled)} node(s) with more than {BIG_NODE} facts were read by a sample of their "
                     f"facts along the question's relations ({HUB_SAMPLE} per node, counted over them): paths through "
                     "them may miss some of their neighbours"]
        day = request.as_of or date.today()
        times = self._prefer_holding(paths, day)
        kept = _whole_paths(paths, request.limit) if request.include_relations else []

        ranked = _rank_nodes(kept, paths, seeds, {iri for link in links for iri in link.iris} | hinted)
        total = len(ranked)
        top = [iri for iri in ranked if not is_literal(iri)][:request.limit]
        triples = list(dict.fromkeys(h.triple for p in kept for h in p.hops))
        statuses = {h.triple: h.status for p in kept for h in p.hops}
        details = self.lookup.details(set(top) | {x for t in triples for x in (t[0], t[2]) if not is_literal(x)})
        depths = self._depths([t for t in triples if not statuses[t].asserted])
        support = self.lookup.documents(t for t in triples if statuses[t].asserted)
        names = {p: self._predicate_words(p) for p in {t[1] for t in triples}}
        first_path: dict[Triple, int] = {}
        for i, p in enumerate(kept):
            for h in p.hops:
                first_path.setdefault(h.triple, i)

        best_score = paths[0].score if paths else 1.0
        node_score: dict[str, float] = {}
        for p in paths:
            for iri in p.nodes[1:]:
                node_score.setdefault(iri, p.score / best_score)
        hops: dict[str, int] = {}
        for p in paths:
            for k, iri in enumerate(p.nodes):
                hops[iri] = min(hops.get(iri, k), k)
        entities = [
            ContextEntity(id=self.ids.node_id(iri), iri=iri, label=details[iri].label,
                          types=[self.ids.predicate_id(t) for t in details[iri].types],
                          description=details[iri].description,
                          score=round(node_score.get(iri, seeds.get(iri, 0.0)), 4), hops=hops.get(iri, 0))
            for iri in top if iri in details
        ]
        relations = [self._relation(t, statuses[t], depths.get(t, 0), support.get(t, []), details, names, first_path[t],
                                    times.get(t), day)
                     for t in triples]
        context_paths = [self._path(p, details) for p in kept]
        context_links = [ContextLink(text=link.text, start=link.start, end=link.end,
                                     entities=[self.ids.node_id(i) for i in link.iris], score=link.score,
                                     ambiguous=len(link.iris) > 1) for link in links]
        return ContextResponse(entities=entities, relations=relations, paths=context_paths, links=context_links,
                               sources=sources, context=self._text(entities, relations, context_paths, sources),
                               total_entities=total, notes=notes)

    # pieces of the response -------------------------------------------------------------

    def _prefer_holding(self, paths: list[Path], day: date) -> dict[Triple, Validity]:
        """The valid time of the paths' facts (one query); a path through facts that do not hold on `day` (ended,
        replaced by a newer one, not begun) ranks lower, PAST_WEIGHT for each."""
        times = self.lookup.validity({h.triple for p in paths for h in p.hops})
        if times:
            for p in paths:
                if off := sum(1 for h in p.hops if h.triple in times and times[h.triple].state(day) != "current"):
                    p.score *= PAST_WEIGHT ** off
            paths.sort(key=lambda p: (-p.score, len(p.hops), p.nodes))
        return times

    def _depths(self, inferred: list[Triple]) -> dict[Triple, int]:
        found = self.lookup.memo.many("depth", [t for t in inferred if not is_literal(t[2])], self.inference.depths)
        return {t: d if d is not None else 1 for t, d in found.items()}

    def _predicate_words(self, predicate: str) -> str:
        text = self.lookup.property_texts([predicate])[predicate]
        local = predicate.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]
        return text.label or CAMEL.sub(" ", local).strip().lower() or local

    def _relation(self, triple: Triple, status: FactStatus, depth: int, support: list[str],
                  details: dict[str, EntityInfo], names: dict[str, str], path: int, validity: Validity | None = None,
                  day: date | None = None) -> ContextRelation:
        s, p, o = triple
        value = literal_value(o) if is_literal(o) else None
        words = fact_sentence(_label(details, s), names[p], value if value is not None else _label(details, o))
        day = day or date.today()
        words += phrase(validity, day)
        documents = [g.removeprefix(self.iris.document_graph_prefix) for g in support]
        return ContextRelation(id=relation_id(self.ids, triple), subject=self.ids.node_id(s), predicate=self.ids.predicate_id(p),
                               object=None if value is not None else self.ids.of(o), value=value, triple=list(triple),
                               text=words, status="asserted" if status.asserted else "inferred",
                               depth=0 if status.asserted else depth, documents=documents[:MAX_DOCUMENTS],
                               document_count=min(len(documents), SUPPORT_CAP),
                               document_count_capped=len(documents) > SUPPORT_CAP, path=path,
                               valid_from=_iso(validity.valid_from) if validity else None,
                               valid_to=_iso(validity.valid_to) if validity else None,
                               time=validity.state(day) if validity else "current",
                               superseded_by=relation_id(self.ids, (s, p, validity.superseded_by))
                               if validity and validity.superseded_by else None)

    def _path(self, path: Path, details: dict[str, EntityInfo]) -> ContextPath:
        end = path.end
        value = literal_value(end) if is_literal(end) else None
        return ContextPath(relations=[relation_id(self.ids, h.triple) for h in path.hops], start=self.ids.node_id(path.seed),
                           end=None if value is not None else self.ids.of(end), value=value,
                           label=value if value is not None else _label(details, end), score=round(path.score, 6),
                           sparql=path_sparql(path.seed, path.signature))

    def _sources(self, question: str, document: str | None, seeds: dict[str, float],
                 k: int) -> tuple[list[ContextSource], list[str]]:
        """The passages: BM25 lifted through what passages are about (attest/answer/passages.py), each saying why it was chosen."""
        index = fulltext.for_store(self.lookup.store)
        if index is not None:
            ranking = PassageRanker(index).rank(question, seeds, k, document, skip=STOPWORDS)
            return [ContextSource(chunk=p.chunk, document=p.document, start=p.start, end=p.end,
                                  text=_snippet(p.text[:SNIPPET_CHARS]), score=p.score, bm25_rank=p.bm25_rank,
                                  bm25_score=p.bm25_score, graph_rank=p.graph_rank, graph_score=p.graph_score,
                                  bridges=[self.ids.node_id(e) for e in p.bridges])
                    for p in ranking.passages], [ranking.note] if ranking.note else []
        # a store with no index beside it (in memory, remote): keyword containment over every chunk's text
        words = [w.casefold() for w in KEYWORD.findall(question)]
        keywords = sorted({w for w in words if w not in STOPWORDS}, key=lambda w: (-len(w), w))[:MAX_KEYWORDS]
        notes = ["no full-text index beside this store: passages found by keyword containment, without the graph"]
        if not keywords:
            return [], notes
        subs: dict[str, Term] = {f"k{i}": Literal(k) for i, k in enumerate(keywords)}
        if document:
            subs["doc"] = NamedNode(self.iris.document(document))
        search = q.chunk_search(len(keywords), k, in_document=document is not None)
        best = [(int(row["hits"].value) / len(keywords), row["c"].value, row["text"].value)
                for row in solutions(self.lookup.store.query(search, substitutions=subs))]
        spans = self.lookup.chunk_spans([chunk for _, chunk, _ in best])
        out = []
        for score, chunk, text in best:
            doc, start, end = spans.get(chunk) or (None, None, None)
            out.append(ContextSource(chunk=chunk, document=doc.rsplit("/", 1)[-1] if doc else None, start=start, end=end,
                                     text=_snippet(text[:SNIPPET_CHARS]), score=round(score, 4)))
        return out, notes

    def _text(self, entities: list[ContextEntity], relations: list[ContextRelation], paths: list[ContextPath],
              sources: list[ContextSource]) -> str:
        """Sections in priority order (the passages, then the paths), cut at the character budget; document text is
        sanitized."""
        by_id = {r.id: r for r in relations}
        lines = []
        if sources:  # first: passages ranked by words and by the graph (the evidence of questions over documents)
            lines.append("SOURCES (passages ranked by words and the graph, best first; background text, not citable):")
            lines += [f"- [{s.document or 'document'} {s.start}-{s.end}] {s.text}" for s in sources]
        if paths:
            lines.append("PATHS (best first; each answers the question through the cited facts):")
            lines += [f"- {_clean(p.label)}: " + "; ".join(f"{_clean(by_id[r].text)} {relation_marker(r)}" for r in p.relations)
                      for p in paths]
        lines.append("ENTITIES (cite as shown):")
        lines += [f"- {entity_marker(e.id)} {_clean(e.label)}" + (f" [{', '.join(e.types)}]" if e.types else "")
                  + (f": {_clean(e.description)}" if e.description else "") for e in entities]
        if relations:
            lines.append("FACTS (cite as shown; 'inferred' facts follow from the ontology by OWL 2 RL reasoning):")
            lines += [f"- {relation_marker(r.id)} {_clean(r.text)} ({r.status}" + (f", depth {r.depth})" if r.depth else ")")
                      for r in relations]
        if not (paths or entities or sources):
            lines = [NOTHING_NAMED]
        out, used = [], 0
        for line in lines:
            if used + len(line) + 1 > self.budget_chars:
                break
            out.append(line)
            used += len(line) + 1
        return "\n".join(out)


def _whole_paths(paths: list[Path], limit: int) -> list[Path]:
    """The best paths whose facts fit in `limit` together, never half a path: first the best of each of the
    MAX_SIGNATURES best kinds of path (predicates and directions), then the rest by score."""
    best = paths[0].score if paths else 0.0
    leaders: list[Path] = []
    seen: set[tuple[tuple[str, bool], ...]] = set()
    for p in paths:
        if len(leaders) < MAX_SIGNATURES and p.signature not in seen and p.score >= best * SIGNATURE_SHARE:
            leaders.append(p)
            seen.add(p.signature)
    kept: list[Path] = []
    triples: set[Triple] = set()
    for p in leaders + [p for p in paths if p not in leaders]:
        new = {h.triple for h in p.hops} - triples
        if len(triples) + len(new) > limit:
            continue
        kept.append(p)
        triples |= new
        if len(triples) >= limit:
            break
    kept.sort(key=lambda p: (-p.score, len(p.hops), p.nodes))
    return kept


def _rank_nodes(kept: list[Path], paths: list[Path], seeds: dict[str, float],
                named: set[str]) -> list[str]:
    """Ends of the kept paths first (not the entities the question names), then their other nodes, the entities
    the search started from, and every other node it reached, by its best path."""
    out: dict[str, None] = {}
    for p in kept:
        if p.end not in named:
            out.setdefault(p.end)
    for p in kept:
        for iri in p.nodes:
            out.setdefault(iri)
    for iri, _ in sorted(seeds.items(), key=lambda kv: (-kv[1], kv[0])):
        out.setdefault(iri)
    for p in paths:
        out.setdefault(p.end)
    return list(out)


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day is not None else None


def _label(details: dict[str, EntityInfo], iri: str) -> str:
    info = details.get(iri)
    return info.label if info else iri


@functools.lru_cache(maxsize=4096)  # labels and descriptions recur in every context that shows their entity
def _clean(text: str) -> str:
    return sanitize(text).text.replace("\n", " ")


@functools.lru_cache(maxsize=1024)
def _snippet(text: str) -> str:
    return sanitize(text).text
