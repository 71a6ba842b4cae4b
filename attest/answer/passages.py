"""Passage ranking for /context: BM25 over the full-text index fused with Personalized PageRank over entities,
document facts and entity-to-chunk mentions, seeded by the question's entities and the best BM25 passages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from attest.answer.ppr import personalized_pagerank
from attest.store.fulltext import FullText, Hit

BM25_DEPTH = 50  # BM25 hits read and fused
BM25_SEEDS = 5  # the first BM25 passages seed the walk too ...
PASSAGE_SEED_WEIGHT = 0.05  # ... each at this share of its normalized score (HippoRAG 2's passage node weight)
RRF_K = 60  # reciprocal rank fusion constant (Cormack, Clarke and Buettcher 2009)
CHUNKS_PER_ENTITY = 30  # passages read per entity: a hub's others are left out, and its mass to them leaks
MAX_ENTITIES = 100  # entities expanded per request, the seeds' first
MAX_READ_CHUNKS = 100  # first-hop passages whose entities are read (the second hop starts from these)
MAX_LINKS = 4000
BATCH = 500  # values per IN (...) list
MAX_BRIDGES = 3
MAX_RANKED = 100  # graph-ranked chunks kept for the fusion


@dataclass
class Passage:
    """A ranked chunk and why it was chosen."""

    chunk: str
    document: str
    start: int | None
    end: int | None
    text: str
    score: float  # fused (reciprocal rank fusion), the best 1
    bm25_rank: int | None = None  # 1-based, None when BM25 did not find it
    bm25_score: float | None = None
    graph_rank: int | None = None
    graph_score: float | None = None  # Personalized PageRank mass, the best passage's 1
    bridges: list[str] = field(default_factory=list)  # entity IRIs that carried the most mass to it


@dataclass
class Ranking:
    passages: list[Passage]
    graph_used: bool
    note: str | None = None


class PassageRanker:
    """Ranks an index's chunks for a question; reads a bounded subgraph of the index's mention and link tables."""

    def __init__(self, index: FullText) -> None:
        self.index = index

    def rank(self, question: str, seeds: dict[str, float], k: int, document: str | None = None,
             skip: frozenset[str] = frozenset()) -> Ranking:
        hits = self.index.search(question, BM25_DEPTH, document, skip=skip)
        bm25 = [Passage(h.chunk, h.document, h.start, h.end, h.text, 0.0, bm25_rank=i + 1, bm25_score=h.score)
                for i, h in enumerate(hits)]
        known = self._counts("mentions", "entity", list(seeds))
        seeds = {iri: w for iri, w in seeds.items() if known.get(iri)}
        if not seeds:
            note: str | None = ("the question names no entity the documents mention: passages ranked by BM25 only"
                    if bm25 else "no passage matches the question's words, and it names no entity the documents mention")
            return Ranking(_fused(bm25, {}, k), False, note)
        graph = self._walk(seeds, known, hits[:BM25_SEEDS])
        by_chunk = {p.chunk: p for p in bm25}
        missing = [c for c, _, _ in graph[: k + BM25_DEPTH] if c not in by_chunk]
        for h in self._chunks(missing):
            if document is None or h.document == document:
                by_chunk[h.chunk] = Passage(h.chunk, h.document, h.start, h.end, h.text, 0.0)
        ranked = [(c, s, b) for c, s, b in graph if c in by_chunk]
        best = ranked[0][1] if ranked else 1.0
        for i, (chunk, score, bridges) in enumerate(ranked):
            p = by_chunk[chunk]
            p.graph_rank, p.graph_score, p.bridges = i + 1, round(score / best, 4), bridges
        note = None if ranked else "the question's entities lead to no passage: passages ranked by BM25 only"
        return Ranking(_fused(list(by_chunk.values()), {c: i for i, (c, _, _) in enumerate(ranked)}, k), bool(ranked), note)

    # the bounded subgraph ------------------------------------------------------------

    def _walk(self, seeds: dict[str, float], counts: dict[str, int], seed_hits: list[Hit]) -> list[tuple[str, float, list[str]]]:
        """(chunk, PPR mass, bridging entities) by mass, over entities within two mention steps of the seeds."""
        entity_chunks: dict[str, list[str]] = {}
        chunk_entities: dict[str, list[str]] = {}
        first = list(seeds)
        seed_chunks = [h.chunk for h in seed_hits]
        for chunk, entities in self._entities_of(seed_chunks).items():
            chunk_entities[chunk] = entities
            first += entities
        first = list(dict.fromkeys(first))[:MAX_ENTITIES]
        counts = {**counts, **self._counts("mentions", "entity", [e for e in first if e not in counts])}
        entity_chunks.update(self._chunks_of(first, counts))
        named_by: dict[str, int] = {}  # first-hop passages, those naming most of the seeds' entities first
        for e in first:
            for c in entity_chunks[e]:
                if c not in chunk_entities:
                    named_by[c] = named_by.get(c, 0) + 1
        reached = sorted(named_by, key=lambda c: -named_by[c])[:MAX_READ_CHUNKS]
        for chunk, entities in self._entities_of(reached).items():
            chunk_entities[chunk] = entities
        second = [e for es in chunk_entities.values() for e in es if e not in entity_chunks]
        second = list(dict.fromkeys(second))[: max(0, MAX_ENTITIES - len(first))]
        counts.update(self._counts("mentions", "entity", second))
        entity_chunks.update(self._chunks_of(second, counts))
        entities = list(entity_chunks)
        links = self._links(entities)
        link_counts = self._link_counts(entities)

        naming: dict[str, set[str]] = {c: set(es) for c, es in chunk_entities.items()}
        for e, cs in entity_chunks.items():
            for c in cs:
                naming.setdefault(c, set()).add(e)
        entity_index = {e: i for i, e in enumerate(sorted({e for es in naming.values() for e in es} | set(entities)
                                                          | {x for link in links for x in link} | set(seeds)))}
        # every entity's true number of passages, expanded or not, so that what it sends outside the subgraph leaks
        counts.update(self._counts("mentions", "entity", [e for e in entity_index if e not in counts]))
        chunk_list = sorted(naming)
        base = len(entity_index)
        size = base + len(chunk_list)
        src, dst = [], []
        for j, c in enumerate(chunk_list):
            for e in naming[c]:
                src.append(entity_index[e])
                dst.append(base + j)
        src += [entity_index[s] for s, _ in links]
        dst += [entity_index[o] for _, o in links]
        s_arr = np.array(src + dst, dtype=np.int64)  # every edge both ways
        t_arr = np.array(dst + src, dtype=np.int64)
        degrees = np.zeros(size)
        for e, i in entity_index.items():
            degrees[i] = counts.get(e, 0) + link_counts.get(e, 0)
        for j, c in enumerate(chunk_list):
            degrees[base + j] = len(chunk_entities.get(c, ())) or 1  # a chunk read only as an end: a sink
        degrees = np.maximum(degrees, np.bincount(s_arr, minlength=size))
        reset = np.zeros(size)
        for e, w in seeds.items():  # node specificity (HippoRAG): 1 / the number of passages that name it
            reset[entity_index[e]] += w / max(counts.get(e, 1), 1)
        reset /= reset.sum()
        top = max((h.score for h in seed_hits), default=0.0) or 1.0
        chunk_index = {c: base + j for j, c in enumerate(chunk_list)}
        for h in seed_hits:
            if h.chunk in chunk_index:
                reset[chunk_index[h.chunk]] += PASSAGE_SEED_WEIGHT * h.score / top
        weights = np.ones(len(s_arr))
        # A passage's graph score is the mass that reached it from the other seeds: what a BM25 seed gets back from
        # its own restart (the restart itself, and the echo through its entities) is BM25's evidence, counted once.
        # PPR is linear in the restart vector, so that part is the seed's share times its own walk's mass at itself:
        # column 0 walks from every seed, column k from the k-th seed passage alone.
        own = [chunk_index[h.chunk] for h in seed_hits if h.chunk in chunk_index and reset[chunk_index[h.chunk]] > 0]
        resets = np.zeros((size, 1 + len(own)))
        resets[:, 0] = reset
        for k, i in enumerate(own):
            resets[i, 1 + k] = 1.0
        walks = personalized_pagerank(size, s_arr, t_arr, weights, degrees, resets)
        graph = walks[:, 0].copy()
        for k, i in enumerate(own):
            graph[i] -= reset[i] / reset.sum() * walks[i, 1 + k]
        p = walks[:, 0]
        score = np.maximum(graph, 0.0)
        order = [j for j in np.argsort(-score[base:], kind="stable") if score[base + j] > 0][:MAX_RANKED]
        out = []
        for j in order:
            c = chunk_list[j]
            into = sorted(((p[entity_index[e]] / degrees[entity_index[e]], e) for e in naming[c]), key=lambda x: (-x[0], x[1]))
            out.append((c, float(score[base + j]), [e for _, e in into[:MAX_BRIDGES]]))
        return out

    def _chunks_of(self, entities: list[str], counts: dict[str, int]) -> dict[str, list[str]]:
        """Each entity's chunks, at most CHUNKS_PER_ENTITY: the others' in batches, a hub's one query each."""
        out: dict[str, list[str]] = {e: [] for e in entities}
        few = [e for e in entities if counts.get(e, 0) <= CHUNKS_PER_ENTITY]
        for batch in _batches(few):
            marks = ",".join("?" * len(batch))
            for entity, chunk in self.index.read(f"SELECT entity, chunk FROM mentions WHERE entity IN ({marks})", tuple(batch)):
                out[entity].append(chunk)
        for e in entities:
            if counts.get(e, 0) > CHUNKS_PER_ENTITY:
                out[e] = [r[0] for r in self.index.read("SELECT chunk FROM mentions WHERE entity = ? ORDER BY chunk LIMIT ?",
                                                        (e, CHUNKS_PER_ENTITY))]
        return out

    def _entities_of(self, chunks: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {c: [] for c in chunks}
        for batch in _batches(chunks):
            marks = ",".join("?" * len(batch))
            for chunk, entity in self.index.read(f"SELECT chunk, entity FROM mentions WHERE chunk IN ({marks})", tuple(batch)):
                out[chunk].append(entity)
        return out

    def _counts(self, table: str, column: str, values: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for batch in _batches(values):
            marks = ",".join("?" * len(batch))
            out.update(self.index.read(f"SELECT {column}, count(*) FROM {table} WHERE {column} IN ({marks}) GROUP BY {column}",
                                       tuple(batch)))
        return out

    def _link_counts(self, entities: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for column in ("subject", "object"):
            for e, n in self._counts("links", column, entities).items():
                out[e] = out.get(e, 0) + n
        return out

    def _links(self, entities: list[str]) -> list[tuple[str, str]]:
        out: set[tuple[str, str]] = set()
        for batch in _batches(entities):
            marks = ",".join("?" * len(batch))
            for column in ("subject", "object"):
                rows = self.index.read(f"SELECT subject, object FROM links WHERE {column} IN ({marks}) LIMIT ?",
                                       (*batch, MAX_LINKS))
                out.update((s, o) for s, o in rows if s != o)
        return sorted(out)[:MAX_LINKS]

    def _chunks(self, chunks: list[str]) -> list[Hit]:
        """Text and place of chunks the walk found, through the rows of their documents."""
        if not chunks:
            return []
        docs: dict[str, str] = {}
        for batch in _batches(chunks):
            marks = ",".join("?" * len(batch))
            docs.update(self.index.read(f"SELECT DISTINCT chunk, document FROM mentions WHERE chunk IN ({marks})", tuple(batch)))
        wanted, out = set(chunks), []
        for batch in _batches(sorted(set(docs.values()))):
            marks = ",".join("?" * len(batch))
            rows = self.index.read("SELECT chunk, document, start, end, text FROM chunks WHERE rowid IN "
                                   f"(SELECT row FROM chunk_rows WHERE document IN ({marks}))", tuple(batch))
            out += [Hit(c, d, s, e, t, 0.0) for c, d, s, e, t in rows if c in wanted]
        return out


def _fused(passages: list[Passage], graph_rank: dict[str, int], k: int) -> list[Passage]:
    """Reciprocal rank fusion of the BM25 and graph orders; without graph ranks, BM25's order is kept."""
    def rrf(p: Passage) -> float:
        score = 1 / (RRF_K + p.bm25_rank) if p.bm25_rank else 0.0
        return score + (1 / (RRF_K + 1 + graph_rank[p.chunk]) if p.chunk in graph_rank else 0.0)
    scored = sorted(((rrf(p), p) for p in passages), key=lambda x: (-x[0], x[1].bm25_rank or 1 << 30, x[1].chunk))
    best = scored[0][0] if scored else 1.0
    out = []
    for score, p in scored[:k]:
        p.score = round(score / best, 4) if best else 0.0
        out.append(p)
    return out


def _batches(values: list[str], size: int = BATCH) -> Iterator[list[str]]:
    for i in range(0, len(values), size):
        yield values[i:i + size]
