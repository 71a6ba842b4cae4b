"""Passage ranking for /context: BM25 over the full-text index, lifted through what passages are about. A passage about
an entity the question names, or about one that the best BM25 passages name (the bridge of a second hop), moves up;
a Personalized PageRank walk over those passages and entities reaches the passages of further hops; the second passage
is the one that best covers the question words the first leaves out."""

from __future__ import annotations

import heapq
import itertools
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from attest.answer.walk import walked_mass
from attest.store.fulltext import TERM, FullText, Hit

BM25_DEPTH = 50  # BM25 hits read
BRIDGE_FROM = 5  # the first BM25 passages, whose entities lead to a second hop
NAMED_WEIGHT = 0.25  # a passage about an entity the question names gains this (the best BM25 passage scores 1)
BRIDGE_WEIGHT = 0.5  # a passage about an entity a first-hop passage names gains this share of that passage's score
COVERAGE_WEIGHT = 0.5  # the second passage: this share of its score is over the question words the first leaves out
SECOND_POOL = 30  # the passages the second is chosen among (the first's bridges besides)
MAX_ENTITIES = 200  # first-hop entities followed, the best passages' first
TOPIC_CHUNKS = 20  # passages read per entity they are about: a hub's others are left out
BATCH = 500  # values per IN (...) list
TOPIC_BATCH = 100  # entities per compound read (SQLite allows 500 SELECTs in one)
WALK_WEIGHT = 0.5  # the passage the walk brings most mass gains this (as a passage bridged from the best BM25 one), the
# others in proportion to their mass
WALK_EXPAND = 30  # passages whose entities lead the walk a hop further, each round: the best lifted, then the walk's best
WALK_ENTITIES = 100  # entities those passages name that the walk follows each round, the most specific first
WALK_CHUNKS = 50  # passages the walk lifts, by mass
WALK_BRIDGES = 3  # entities named as a walked passage's bridges, by the mass they carried
WALK_ROUNDS = 2  # rounds of reading the graph outwards: 2 reach passages three bridges past the first
BRIDGE_NAMES = 2  # a bridge entity is named by at least two passages, one naming it and the one about it: the walk
# goes to a name n passages write with weight BRIDGE_NAMES / n, at most 1
COUNTED = 100  # mention rows read to count an entity's passages: past that its weight (1/n) is nil anyway
PASSAGES_KEPT = 2048  # passages (text and place) the readers remember: ~1.3 KB of text each at 50,000 generated documents


@dataclass
class Passage:
    """A ranked chunk and why it was chosen."""

    chunk: str
    document: str
    start: int | None
    end: int | None
    text: str
    score: float  # BM25 plus what the graph added, the best 1
    bm25_rank: int | None = None  # 1-based, None when it is not among BM25's first BM25_DEPTH
    bm25_score: float | None = None  # the best BM25 hit's 1; for a passage found through the graph past BM25's first
    # BM25_DEPTH, computed for it alone (None only when BM25 found nothing to scale it by)
    graph_rank: int | None = None  # its rank by what the graph added, None when it added nothing
    graph_score: float | None = None  # what the graph added: NAMED_WEIGHT, BRIDGE_WEIGHT times a bridging passage's
    # score, and WALK_WEIGHT times its walked mass (the best 1)
    bridges: list[str] = field(default_factory=list)  # the entities it is about that the question or a first hop
    # names, then those that carried the walk's mass to it


@dataclass
class Ranking:
    passages: list[Passage]
    graph_used: bool
    note: str | None = None


class PassageRanker:
    """Ranks an index's chunks for a question; reads the index's mention and topic tables, bounded."""

    def __init__(self, index: FullText) -> None:
        self.index = index

    def rank(self, question: str, seeds: dict[str, float], k: int, document: str | None = None,
             skip: frozenset[str] = frozenset()) -> Ranking:
        hits = self.index.search(question, BM25_DEPTH, document, skip=skip)
        passages = {h.chunk: _passage(h, i + 1) for i, h in enumerate(hits)}
        first_hop = hits[:BRIDGE_FROM]
        named = list(seeds)
        mentioned = self._entities_of([h.chunk for h in first_hop])
        followed = list(dict.fromkeys(named + [e for h in first_hop for e in mentioned.get(h.chunk, ())]))[:MAX_ENTITIES]
        about = self._topic_chunks(followed)
        own_topics = self._topics_of([h.chunk for h in first_hop])

        bridges: dict[str, list[str]] = {}
        named_about = {chunk for e in named for chunk in about.get(e, ())}
        for e in named:
            for chunk in about.get(e, ()):
                bridges.setdefault(chunk, []).append(e)
        added = dict.fromkeys(named_about, NAMED_WEIGHT)
        via: dict[str, set[str]] = {}  # a bridged passage -> the first-hop passages that lead to it
        lift: dict[str, float] = {}
        for h in first_hop:
            for e in mentioned.get(h.chunk, ()):
                if e in own_topics.get(h.chunk, ()):
                    continue  # what a passage is about leads back to itself and its look-alikes, not to a next hop
                for chunk in about.get(e, ()):
                    if chunk != h.chunk:
                        lift[chunk] = max(lift.get(chunk, 0.0), BRIDGE_WEIGHT * h.score)
                        via.setdefault(chunk, set()).add(h.chunk)
                        if e not in bridges.setdefault(chunk, []):
                            bridges[chunk].append(e)
        for chunk, value in lift.items():
            added[chunk] = added.get(chunk, 0.0) + value
        if WALK_WEIGHT:
            for chunk, (mass, through) in self._walk(seeds, first_hop, followed, mentioned, own_topics, about,
                                                     added).items():
                added[chunk] = added.get(chunk, 0.0) + WALK_WEIGHT * mass
                bridges.setdefault(chunk, []).extend(e for e in through if e not in bridges[chunk])
        found = [c for c in added if c not in passages]
        # every chunk the graph found is one of `topics` (what documents are about): without a document to keep to,
        # its document is read with its text, for the few whose text is read (about 790 -> 35 a question)
        in_documents = {c: "" for c in found} if document is None else self._documents(found)
        unread = set()
        for chunk, in_document in in_documents.items():
            if document is None or in_document == document:
                passages[chunk] = Passage(chunk, in_document, None, None, "", 0.0)
                unread.add(chunk)
        self._fill(question, hits, passages, unread, added, via, k, skip)
        added = {c: v for c, v in added.items() if c in passages}

        note: str | None
        if not added:
            note = ("the question names no entity the documents mention: passages ranked by BM25 only"
                    if hits else "no passage matches the question's words, and it names no entity the documents mention")
            return Ranking(_ordered(list(passages.values()), k), False, note)
        for rank, chunk in enumerate(sorted(added, key=lambda c: (-added[c], c)), 1):
            p = passages[chunk]
            p.graph_rank, p.graph_score, p.bridges = rank, round(added[chunk], 4), bridges[chunk]
            p.score = (p.bm25_score or 0.0) + added[chunk]
        order = _ordered(list(passages.values()), len(passages))
        if len(order) > 2:
            second = self._second(question, order, via, named_about, skip)
            order = [order[0], second] + [p for p in order[1:] if p is not second]
        note = None if named_about else ("the question names no entity the documents are about: passages ranked by BM25 "
                                         "and the entities its best passages name")
        return Ranking(_normalized(order[:k]), True, note)

    def _second(self, question: str, order: list[Passage], via: dict[str, set[str]], named_about: set[str],
                skip: frozenset[str]) -> Passage:
        """The passage that best adds to the first: BM25 over the question words the first leaves out, mixed with its
        own BM25 score, plus the lift of a bridge from the first and of an entity the question names."""
        first = order[0]
        seen = {w.casefold() for w in _words(first.text)}
        rest = " ".join(w for w in dict.fromkeys(_words(question)) if w.casefold() not in seen)
        pool = order[1:SECOND_POOL] + [p for p in order[SECOND_POOL:] if first.chunk in via.get(p.chunk, ())]
        scores = self.index.bm25_of(rest, [p.text for p in pool], skip=skip) if rest else []
        best = max(scores, default=0.0) or 1.0
        covers = {p.chunk: s / best for p, s in zip(pool, scores)}

        def value(p: Passage) -> float:
            return (COVERAGE_WEIGHT * covers.get(p.chunk, 0.0) + (1 - COVERAGE_WEIGHT) * (p.bm25_score or 0.0)
                    + BRIDGE_WEIGHT * (first.chunk in via.get(p.chunk, ())) + NAMED_WEIGHT * (p.chunk in named_about))
        return max(pool, key=value)  # max keeps the first of equals: the better ranked

    def _walk(self, seeds: dict[str, float], first_hop: list[Hit], followed: list[str], mentioned: dict[str, list[str]],
              own_topics: dict[str, set[str]], about: dict[str, list[str]],
              lifted: dict[str, float]) -> dict[str, tuple[float, list[str]]]:
        """Chunk -> (the mass a Personalized PageRank walk brought it, the best 1; the entities that carried the most).
        The walk restarts at the question's entities and the first BM25 passages, and goes from a passage to the
        entities it names (not those it is about) and from an entity to the passages about it. It is read outwards
        in rounds: the first passages and the best lifted ones, then the passages the walk so far brought most mass
        (WALK_ROUNDS rounds reach passages WALK_ROUNDS + 1 bridges past the first). Node specificity as HippoRAG's:
        an entity named in n passages restarts with weight 1/n and is walked to with `_specific(n)`. A passage's mass
        goes only to the entities it names that lead on to another passage: most names in a paragraph have no passage
        of their own, and the mass sent to them would be lost to every further hop. Those weights are not scaled up
        to 1: a passage whose names that lead on are hubs loses the rest of its mass, rather than sending it all to
        the few passages about a hub."""
        first = [h.chunk for h in first_hop]
        seen = set(first)
        leads: dict[str, list[str]] = {}
        counts: dict[str, int] = {}
        about, read = dict(about), set(followed)
        expand = first + [c for c in sorted(lifted, key=lambda c: (-lifted[c], c)) if c not in seen][:WALK_EXPAND]
        names, topics = dict(mentioned), dict(own_topics)
        for round_ in range(WALK_ROUNDS):
            unknown = [c for c in expand if c not in names]
            names.update(self._entities_of(unknown))
            topics.update(self._topics_of(unknown))
            for c in expand:
                leads[c] = [e for e in dict.fromkeys(names.get(c, ())) if e not in topics.get(c, ())]
            entities = [e for e in dict.fromkeys([*seeds, *(e for c in expand for e in leads[c])]) if e not in counts]
            counts.update(dict.fromkeys(entities, 0) | self._passage_counts(entities))
            new = sorted((e for e in entities if e not in read), key=lambda e: (counts[e], e))[:WALK_ENTITIES]
            about.update(self._topic_chunks(new))
            read.update(new)
            mass, nodes = _walked(seeds, first_hop, leads, about, counts)
            if round_ + 1 < WALK_ROUNDS:
                expand = [name for m, name in _best_chunks(mass, nodes) if name not in leads][:WALK_EXPAND]
        ranked = _best_chunks(mass, nodes)[:WALK_CHUNKS]
        if not ranked:
            return {}
        carried: dict[str, list[tuple[float, str]]] = {}
        for e, chunks in about.items():
            if ("e", e) in nodes and (m := float(mass[nodes[("e", e)]])) > 0:
                for chunk in chunks:
                    carried.setdefault(chunk, []).append((m, e))
        best = ranked[0][0]
        return {chunk: (m / best, [e for _, e in sorted(carried.get(chunk, []), key=lambda x: (-x[0], x[1]))[:WALK_BRIDGES]])
                for m, chunk in ranked}

    # bounded reads of the index ----------------------------------------------------

    # each read below, and the passages `_read_scored` reads, is remembered by the index until its next commit
    # (`FullText.remembered`): the questions of a stream name the same hubs and read the same passages (about 15 of a
    # /context's 55-65 ms CPU at 50,000 documents)

    def _passage_counts(self, entities: list[str]) -> dict[str, int]:
        """Entity -> the number of passages that name it, counted up to COUNTED (a hub's index range read no further)."""
        return self.index.remembered("passage counts", entities, self._read_passage_counts)

    def _read_passage_counts(self, entities: list[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        for batch in _batches(entities, TOPIC_BATCH):
            bounded = " UNION ALL ".join(
                ["SELECT * FROM (SELECT entity, chunk FROM mentions WHERE entity = ? LIMIT ?)"] * len(batch))
            out.update(self.index.read(f"SELECT entity, count(DISTINCT chunk) FROM ({bounded}) GROUP BY entity",
                                       tuple(v for e in batch for v in (e, COUNTED))))
        return out

    def _entities_of(self, chunks: list[str]) -> dict[str, list[str]]:
        return self.index.remembered("entities of", chunks, self._read_entities_of)

    def _read_entities_of(self, chunks: list[str]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for batch in _batches(chunks):
            marks = ",".join("?" * len(batch))
            for chunk, entity in self.index.read(f"SELECT DISTINCT chunk, entity FROM mentions WHERE chunk IN ({marks})",
                                                 tuple(batch)):
                out.setdefault(chunk, []).append(entity)
        return out

    def _topics_of(self, chunks: list[str]) -> dict[str, set[str]]:
        return self.index.remembered("topics of", chunks, self._read_topics_of)

    def _read_topics_of(self, chunks: list[str]) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {}
        for batch in _batches(chunks):
            marks = ",".join("?" * len(batch))
            for chunk, entity in self.index.read(f"SELECT chunk, entity FROM topics WHERE chunk IN ({marks})", tuple(batch)):
                out.setdefault(chunk, set()).add(entity)
        return out

    def _topic_chunks(self, entities: list[str]) -> dict[str, list[str]]:
        """Entity -> the chunks of the documents about it, at most TOPIC_CHUNKS each."""
        return self.index.remembered("topic chunks", entities, self._read_topic_chunks)

    def _read_topic_chunks(self, entities: list[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        # one read a batch (a query per entity was 200 round trips), each entity's chunks an index range that stops
        # at TOPIC_CHUNKS (numbering every row of a hub's topics first cost 140 ms a question at 50,000 documents)
        for batch in _batches(entities, TOPIC_BATCH):
            bounded = " UNION ALL ".join(
                ["SELECT * FROM (SELECT entity, chunk FROM topics WHERE entity = ? ORDER BY chunk LIMIT ?)"] * len(batch))
            for entity, chunk in self.index.read(f"SELECT entity, chunk FROM ({bounded}) ORDER BY entity, chunk",
                                                 tuple(v for e in batch for v in (e, TOPIC_CHUNKS))):
                found.setdefault(entity, []).append(chunk)
        return {e: found[e] for e in entities if e in found}

    def _fill(self, question: str, hits: list[Hit], passages: dict[str, Passage], unread: set[str],
              added: dict[str, float], via: dict[str, set[str]], k: int, skip: frozenset[str]) -> None:
        """Reads the text and place of the passages found through the graph that the ranking shows or weighs by their
        words: those that may come within the first SECOND_POOL (k when more) and those the first bridges to
        (`_second`'s pool), not the hundreds it only scores (at 50,000 documents it read ~2,400 chunk texts a
        question to use ~35). A passage read gets its own BM25 score for the question, as `search` scores a row (the
        index's idf and mean length), the best hit's 1: it is fused on the same terms as BM25's own passages rather
        than with none. Until read, it counts with the most BM25 can give a passage it did not rank: the last hit's
        score, or none when every passage naming a word of the question is among the hits. They are read in that
        order, until the next one's most is no more than the scores of as many passages as are shown (a threshold
        algorithm; one that could at most tie them is left below them). A chunk the index holds no text for is
        dropped, as a whole read dropped it."""
        most = hits[-1].score if len(hits) >= BM25_DEPTH else 0.0
        shown = max(SECOND_POOL, k)
        top = heapq.nlargest(shown, ((p.bm25_score or 0.0) + added.get(c, 0.0) for c, p in passages.items()
                                     if c not in unread))
        heapq.heapify(top)  # the best `shown` scores known, the lowest first
        pending = sorted(unread, key=lambda c: (-added.get(c, 0.0), c))
        done = 0
        while done < len(pending):
            floor = top[0] if len(top) >= shown else -math.inf
            batch = list(itertools.takewhile(lambda c: most + added.get(c, 0.0) > floor, pending[done:done + shown]))
            if not batch:
                break
            done += len(batch)
            for score in self._read_scored(question, hits, passages, batch, added, skip):
                if len(top) < shown:
                    heapq.heappush(top, score)
                else:
                    heapq.heappushpop(top, score)
        left = set(pending[done:])  # none of them can come within the first `shown`
        if left and len(passages) > len(left):
            first = min((c for c in passages if c not in left), key=lambda c: (
                -((passages[c].bm25_score or 0.0) + added.get(c, 0.0)), passages[c].bm25_rank or 1 << 30, c))
            self._read_scored(question, hits, passages, [c for c in pending[done:] if first in via.get(c, ())], added,
                              skip)

    def _read_scored(self, question: str, hits: list[Hit], passages: dict[str, Passage], chunks: list[str],
                     added: dict[str, float], skip: frozenset[str]) -> list[float]:
        """Reads the chunks' text and place and gives them their own BM25 (`_fill`); drops those the index holds no
        text for. Their scores, with what the graph added."""
        found = self.index.remembered("passages", chunks, self._passages, PASSAGES_KEPT)
        read = [found[c] for c in chunks if c in found]
        for h, score in zip(read, self._own_bm25(question, hits, read, skip)):
            p = passages[h.chunk]
            p.document, p.start, p.end, p.text, p.bm25_score = h.document, h.start, h.end, h.text, score
        for chunk in chunks:
            if chunk not in found:
                del passages[chunk]
        return [(passages[h.chunk].bm25_score or 0.0) + added.get(h.chunk, 0.0) for h in read]

    def _own_bm25(self, question: str, hits: list[Hit], read: list[Hit], skip: frozenset[str]) -> list[float | None]:
        """Each passage's BM25 for the question, the best hit's 1 (see `_fill`); None when BM25 found nothing."""
        if not read or not hits:
            return [None] * len(read)
        if len(hits) < BM25_DEPTH:
            return [0.0] * len(read)  # every passage naming a word of the question is among the hits
        best, *scores = self.index.bm25_of(question, [hits[0].text] + [h.text for h in read], skip=skip,
                                           as_indexed=True)
        return [round(s / best, 4) for s in scores] if best > 0 else [None] * len(read)

    def _passages(self, chunks: list[str]) -> dict[str, Hit]:
        return {h.chunk: h for h in self._read(chunks, set(self._documents(chunks).values()))}

    def _documents(self, chunks: list[str]) -> dict[str, str]:
        """Chunk -> its document, for chunks found through the graph (what documents are about)."""
        docs: dict[str, str] = {}
        for batch in _batches(chunks):
            marks = ",".join("?" * len(batch))
            docs.update(self.index.read(f"SELECT chunk, document FROM topics WHERE chunk IN ({marks})", tuple(batch)))
        return docs

    def _read(self, chunks: list[str], documents: set[str]) -> list[Hit]:
        """Text and place of chunks of the given documents, through the rows of those documents."""
        wanted, out = set(chunks), []
        for batch in _batches(sorted(documents)):
            marks = ",".join("?" * len(batch))
            rows = self.index.read("SELECT chunk, document, start, end, text FROM chunks WHERE rowid IN "
                                   f"(SELECT row FROM chunk_rows WHERE document IN ({marks}))", tuple(batch))
            out += [Hit(c, d, s, e, t, 0.0) for c, d, s, e, t in rows if c in wanted]
        return out


def _walked(seeds: dict[str, float], first_hop: list[Hit], leads: dict[str, list[str]], about: dict[str, list[str]],
            counts: dict[str, int]) -> tuple[np.ndarray, dict[tuple[str, str], int]]:
    """The walk's mass over the graph read so far, and its nodes ((kind, name) -> index)."""
    nodes: dict[tuple[str, str], int] = {}

    def node(kind: str, name: str) -> int:
        return nodes.setdefault((kind, name), len(nodes))
    # the edges in a fixed order (the sums of the walk follow it), each node numbered when first met; inlined, as
    # thousands of edges a question made the calls a third of the walk's time at 50,000 documents
    src: list[int] = []
    dst: list[int] = []
    weight: list[float] = []
    for chunk, entities_named in leads.items():
        c_node = None
        sent = 0.0
        for e in entities_named:
            others = about.get(e)
            if others and (len(others) > 1 or others[0] != chunk):  # an entity that leads to no other passage is left out
                if c_node is None:
                    c_node = nodes.setdefault(("c", chunk), len(nodes))
                src.append(c_node)
                dst.append(nodes.setdefault(("e", e), len(nodes)))
                weight.append(_specific(counts.get(e, 1)))
                sent += weight[-1]
        if c_node is not None and sent < 1:  # names less specific than a bridge pass on that much: the rest is lost
            src.append(c_node)
            dst.append(nodes.setdefault(("lost", ""), len(nodes)))
            weight.append(1 - sent)
    for e, chunks in about.items():
        if not chunks:
            continue
        e_node = nodes.setdefault(("e", e), len(nodes))
        for chunk in chunks:
            src.append(e_node)
            dst.append(nodes.setdefault(("c", chunk), len(nodes)))
        weight += [1.0] * len(chunks)
    reset: dict[int, float] = {}
    for e, value in seeds.items():
        if value > 0:
            i = node("e", e)
            reset[i] = reset.get(i, 0.0) + value / max(counts.get(e, 1), 1)
    for h in first_hop:
        i = node("c", h.chunk)
        reset[i] = reset.get(i, 0.0) + h.score
    through = {i for (kind, _), i in nodes.items() if kind == "e"}  # a bridge (passage -> entity -> passage) is one step
    return walked_mass(len(nodes), src, dst, weight, reset, through), nodes


def _specific(named: int) -> float:
    """How specific a name is as a bridge, 1 for one that two passages name (the fewest a bridge has: the passage
    naming it and the one about it), BRIDGE_NAMES / n for one that n passages name (HippoRAG's node specificity, 1/n,
    scaled so that a bridge keeps its full weight)."""
    return min(1.0, BRIDGE_NAMES / max(named, 1))


def _best_chunks(mass: np.ndarray, nodes: dict[tuple[str, str], int]) -> list[tuple[float, str]]:
    chunks = [(name, i) for (kind, name), i in nodes.items() if kind == "c"]
    masses = mass[[i for _, i in chunks]].tolist()  # one read of the array, not one numpy scalar a passage
    return sorted(((m, name) for m, (name, _) in zip(masses, chunks) if m > 0), key=lambda x: (-x[0], x[1]))


def _passage(hit: Hit, rank: int) -> Passage:
    """A BM25 hit at its rank."""
    return Passage(hit.chunk, hit.document, hit.start, hit.end, hit.text, hit.score, bm25_rank=rank,
                   bm25_score=hit.score)


def _ordered(passages: list[Passage], k: int) -> list[Passage]:
    """Best score first; BM25's order among equals (without the graph, BM25's order)."""
    ranked = sorted(passages, key=lambda p: (-p.score, p.bm25_rank or 1 << 30, p.chunk))[:k]
    return _normalized(ranked)


def _normalized(passages: list[Passage]) -> list[Passage]:
    best = max((p.score for p in passages), default=0.0)
    for p in passages:
        p.score = round(p.score / best, 4) if best else 0.0
    return passages


def _words(text: str) -> list[str]:
    return TERM.findall(text)


def _batches(values: list[str], size: int = BATCH) -> Iterator[list[str]]:
    for i in range(0, len(values), size):
        yield values[i:i + size]
