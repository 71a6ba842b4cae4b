"""Relation-aware path search: a beam over facts from the linked entities, scored by link, predicate relevance and hubs."""

from __future__ import annotations

import math
from itertools import repeat
from dataclasses import dataclass, field
from typing import Callable, Sequence

from attest.answer import direction, lexicon
from attest.answer.lookup import GENERIC_PREDICATES, HUB_DEGREE, FactStatus, GraphLookup, Triple, is_literal
from attest.answer.many_words import term_matches_many
from attest.answer.predicates import (
    CAMEL, PropertyText, Term, class_words, describing_words, relevance, relevance_of, term_matches, word_shares,
)
from attest.answer.words import normalize

IRRELEVANT = 0.05  # a hop whose predicate the question never mentions keeps this much of the path's score
GENERIC = 0.6  # relatesTo / mentions say less than a specific relation
INFERRED = 0.9  # an inferred hop is worth a little less than an asserted one
HOP_COST = 0.95  # of two paths that explain the question equally, the shorter wins
HUB_FREE = 50  # degree up to which a node passed through costs nothing; above, the score falls with log(degree)
BEAM = 96  # paths kept after each hop
PER_KIND = 12  # ... at most this many of one kind (predicates and directions): ties of one kind cannot crowd out another
PRUNE = 0.02  # paths under this share of the best one are not extended
WANTED = 0.3  # past the first hop, facts are read only along predicates at least this relevant
HUB_SAMPLE = 24  # facts read along the wanted predicates from a big node past the first hop (with those leaving it)
BIG_NODE = 200  # ... a node with more facts than this (a country, a genre): its damping already says it explains little;
# reading all of them (Italy's 199 along "located in" among 2Wiki's 6,119 paragraphs) made the slowest 5% of /context
EXPAND = 32  # nodes past the first hop whose facts are read, best paths' ends first: a third of the beam's ends
# (a read per node: the slowest 5% of /context on 2Wiki's 6,119 paragraphs expanded 70-96 nodes at their second hop)
WIDEN = 10  # ... or, when the question names no relation, this many
COVERAGE = 2  # a path that leaves a relation word of the question unexplained loses more than one matched weakly
ANCHOR = 1.3  # a path whose first hop is the relation word nearest the entity's mention
TYPE_MATCH = 1.5  # a path ending in what the question asks for ("which movies": the domain or range is a movie)
SPELLED = 0.5  # a predicate's name matching a word this well (not a comment's passing mention) names its relation
WRONG_KIND = 0.5  # a path ending in someone when the question asks for a thing, or the reverse
RIGHT_KIND = 1.3  # ... and one ending in what it asks for
WRONG_WAY = 0.4  # a first hop walked against the question's wording ("who uses X" read as X -> uses -> ?)


@dataclass(frozen=True)
class Hop:
    """One step of a path: the fact, the direction it was walked, and how relevant its predicate is."""

    triple: Triple
    forward: bool  # subject -> object
    status: FactStatus = field(compare=False, hash=False)
    relevance: float = field(compare=False, hash=False)
    matched: frozenset[int] = field(compare=False, hash=False)

    @property
    def target(self) -> str:
        return self.triple[2] if self.forward else self.triple[0]


@dataclass
class Path:
    """A walk from a linked entity; its end is a candidate answer."""

    seed: str
    mention: int | None = None  # where the question names the seed (None: a hint or a source mention)
    hops: tuple[Hop, ...] = ()
    damping: float = 1.0
    score: float = 0.0

    @property
    def end(self) -> str:
        return self.hops[-1].target if self.hops else self.seed

    @property
    def nodes(self) -> list[str]:
        return [self.seed] + [h.target for h in self.hops]

    @property
    def signature(self) -> tuple[tuple[str, bool], ...]:
        return tuple((h.triple[1], h.forward) for h in self.hops)


@dataclass(slots=True)
class Step:
    """A fact out of a node in one hop of the search, with its Hop and weight once weighed."""

    triple: Triple
    status: FactStatus
    forward: bool
    target: str
    weighed: tuple[Hop, float] | None = None


@dataclass
class Steps:
    """The facts out of one node in one hop of the search, and the texts of their predicates."""

    texts: dict[str, PropertyText]
    facts: list[Step]


class PathSearch:
    """Finds the paths of at most `max_hops` facts that best explain a question from its linked entities."""

    def __init__(self, lookup: GraphLookup, terms: list[Term], focus: frozenset[str] = frozenset(),
                 allowed: Callable[[Triple, FactStatus], bool] | None = None, declared: Sequence[str] = (),
                 question: str = "", mentions: dict[int, int] | None = None, person: bool | None = None) -> None:
        """`focus`: stems of what the question asks for; `allowed(triple, status)`: a filter on facts (e.g. one
        document's), None keeps every fact; `declared`: the properties the graph declares (scored up front, so
        a relation the question names is read even where the first hop never met it); `question` and `mentions`
        (start -> end of each entity's mention): the wording that says which way the first hop goes; `person`:
        whether the question asks for someone (True), something else (False) or does not say (None)."""
        self.lookup, self.terms, self.focus, self.allowed = lookup, terms, focus, allowed
        self.words = direction.question_words(question) if question else []
        self.mentions = mentions or {}
        self.person = person
        self._words: dict[tuple[str, bool], tuple[float, frozenset[int]]] = {}
        self._degrees: dict[str, int] = {}
        self.lexical: frozenset[int] | None = None  # the terms that may match a predicate through WordNet
        self.sampled: set[str] = set()  # the big nodes past the first hop whose facts were read by a sample
        self.shares: list[float] | None = None  # each term's weight by how many declared properties name it
        self._valued: dict[tuple[str, bool], float] = {}  # a hop to a value: its predicate's relevance by the shares
        if terms and declared:
            texts = lookup.property_texts(declared)
            # each declared property's words met by the question's, once for the two weighings below
            keys = [(p, forward) for p in declared for forward in (True, False)]
            many = [describing_words(texts[p], _local(p), not forward) for p, forward in keys]
            matches = dict(zip(keys, term_matches_many(terms, many)))  # a word met before: from each one's memo
            # a relation word the graph names as written means that relation: only the other words are read
            # through WordNet (whose other senses of "starred" would also reach "has tags")
            spelled = frozenset().union(*(m for r, m in map(relevance_of, matches.values(), repeat(frozenset()))
                                          if r >= SPELLED))
            self.lexical = frozenset(range(len(terms))) - spelled
            self._words.update({key: relevance_of(m, self.lexical) for key, m in matches.items()})
            self.shares = word_shares((m for (_, forward), m in matches.items() if forward), SPELLED)

    def search(self, seeds: list[tuple[str, float, int | None]], max_hops: int) -> list[Path]:
        """Every path kept by the beam, best first (a path of any length from 1 to max_hops); a seed is
        (IRI, link score, offset of its mention in the question or None)."""
        beam = [Path(iri, mention, score=score) for iri, score, mention in seeds]
        found: list[Path] = []
        for hop in range(max_hops):
            beam = [p for p in beam if not is_literal(p.end)]
            if not beam:
                break
            best = max(p.score for p in beam)
            beam = [p for p in beam if p.score >= best * PRUNE]
            # past the first hop, read along the predicates the question is about (declared ones, and those the
            # first hop met) from the EXPAND best nodes; when it names none, widen from the WIDEN best only (a
            # dense graph would otherwise be read whole at every hop)
            wanted = sorted({p for (p, _), (r, _) in self._words.items() if r >= WANTED}) if hop else []
            if hop:  # each node expanded is a read: only the best few are
                ends = set(list(dict.fromkeys(p.end for p in beam))[:EXPAND if wanted else WIDEN])
                beam = [p for p in beam if p.end in ends]
            facts = self._facts({p.end for p in beam}, wanted)
            steps: dict[str, Steps] = {}  # each end node's hops, weighed once for all paths ending there
            beam = _diverse([q for p in beam for q in self._extend(p, self._steps(p.end, facts.get(p.end, {}), steps))])
            found.extend(beam)
        self._rescore(found)
        found.sort(key=lambda p: (-p.score, len(p.hops), p.nodes))
        return found

    def _facts(self, nodes: set[str], wanted: list[str]) -> dict[str, dict[Triple, FactStatus]]:
        """The facts touching each node: along the wanted predicates when there are any, else whole for ordinary
        nodes and a bounded sample for hubs."""
        if wanted:  # a bounded read; a hub gets a small share of its own, so it cannot fill the others' bound
            counts = self.lookup.predicate_counts(nodes)
            self._degrees.update({n: sum(c.values()) for n, c in counts.items() if n not in self._degrees})
            hubs = {n for n in nodes if self._degrees.get(n, 0) > BIG_NODE}
            self.sampled |= hubs
            # a node with no triple along the wanted relations has nothing to give this hop: it is not read (about
            # half the nodes past the first hop on 2Wiki's paragraphs)
            along = set(wanted)
            useful = {n for n in nodes if not along.isdisjoint(counts.get(n, ()))}
            # an ordinary node (at most BIG_NODE triples touch it) is read whole, as the first hop reads it, and
            # remembered until a write: a country or region many questions pass through is read once, not once per
            # question's relations; its facts along the wanted relations are kept here
            found = {t: s for t, s in self.lookup.facts_touching(sorted(useful - hubs)).items() if t[1] in along}
            if hubs & useful:  # all the hubs, or the share each gets of the bound would change
                found.update(self.lookup.hub_facts(sorted(hubs), wanted, limit=HUB_SAMPLE))
        else:
            self._degrees.update(self.lookup.degrees([n for n in nodes if n not in self._degrees]))
            hubs = {n for n in nodes if self._degrees.get(n, 0) > HUB_DEGREE}
            found = dict(self.lookup.facts_touching(sorted(nodes - hubs)))
            # a hub is read along the relations the question names (its sample would miss them), else sampled
            relevant = sorted({p for (p, _), (r, _) in self._words.items() if r >= WANTED})
            found.update(self.lookup.hub_facts(sorted(hubs), relevant))
        by_node: dict[str, dict[Triple, FactStatus]] = {}
        for triple, status in found.items():
            if self.allowed is not None and not self.allowed(triple, status):
                continue
            for end in (triple[0], triple[2]):
                if end in nodes:
                    by_node.setdefault(end, {})[triple] = status
        for node in nodes:
            self._degrees.setdefault(node, len(by_node.get(node, ())))
        return by_node

    def _steps(self, node: str, facts: dict[Triple, FactStatus], steps: dict[str, Steps]) -> Steps:
        """The facts out of `node` as hops, weighed when first taken: what a hop is worth depends on the node and the
        fact, not on the path that reached the node, so paths sharing an end (a country many seeds reach) weigh its
        facts once. (A fact back into a path is never weighed: its predicate's relevance, once computed, widens what
        the next hop reads.)"""
        found = steps.get(node)
        if found is None:
            texts = self.lookup.property_texts({t[1] for t in facts})
            found = steps[node] = Steps(texts, [])
            for triple, status in facts.items():
                forward = triple[0] == node
                if forward or triple[2] == node:
                    found.facts.append(Step(triple, status, forward, triple[2] if forward else triple[0]))
        return found

    def _extend(self, path: Path, steps: Steps) -> list[Path]:
        visited = set(path.nodes)
        # one extension per next node and question words explained: the best fact to it ("directed by X" and
        # "written by X" to the same film are two readings of the question; an inferred twin of a fact is not)
        best: dict[tuple[str, frozenset[int]], tuple[tuple[bool, float, bool, bool, str], Hop, float]] = {}
        hub = _hub_damping(self._degrees.get(path.end, 0)) if path.hops else 1.0
        for step in steps.facts:
            if step.target in visited:
                continue
            if step.weighed is None:
                triple, status = step.triple, step.status
                rel, matched = self._relevance(triple[1], step.forward, steps.texts)
                # a value is the answer itself, with no further fact to say it is the one asked for: its predicate
                # counts by the question's distinctive words, a word many properties are named by ("date") less
                valued = self._value_relevance(triple[1], step.forward, steps.texts) if is_literal(step.target) else rel
                weight = (IRRELEVANT + (1 - IRRELEVANT) * valued) * (1.0 if status.asserted else INFERRED)
                weight *= GENERIC if triple[1] in GENERIC_PREDICATES else 1.0
                step.weighed = (Hop(triple, step.forward, status, rel, matched), weight)
            hop, weight = step.weighed
            # passing through a hub says little, unless the question names the relation that leaves it: then the
            # hub is the intermediate the question walks through ("the headquarters of the employer of X")
            damping = path.damping * (hub if hop.relevance < WANTED else 1.0)
            score = path.score * weight * HOP_COST
            key = (step.target, hop.matched)
            preference = _preference(hop, score)
            if key not in best or preference > best[key][0]:
                best[key] = (preference, hop, damping)  # the Path is made for the winner only
        return [Path(path.seed, path.mention, path.hops + (hop,), damping, preference[1])
                for preference, hop, damping in best.values()]

    def _relevance(self, predicate: str, forward: bool, texts: dict[str, PropertyText]) -> tuple[float, frozenset[int]]:
        key = (predicate, forward)
        if key not in self._words:
            self._words[key] = relevance(self.terms, describing_words(texts[predicate], _local(predicate), not forward),
                                         self.lexical)
        return self._words[key]

    def _value_relevance(self, predicate: str, forward: bool, texts: dict[str, PropertyText]) -> float:
        if self.shares is None:
            return self._relevance(predicate, forward, texts)[0]
        key = (predicate, forward)
        if key not in self._valued:
            words = describing_words(texts[predicate], _local(predicate), not forward)
            self._valued[key] = relevance_of(term_matches(self.terms, words), self.lexical, self.shares)[0]
        return self._valued[key]

    def _rescore(self, paths: list[Path]) -> None:
        """The final score: the hops' product, times how much of the question's relation words the path covers,
        the hubs it went through, whether its first hop is the relation the question attaches to the entity, and
        whether it ends in what the question asks for."""
        relation_terms = frozenset().union(*(m for _, m in self._words.values())) if self._words else frozenset()
        texts = self.lookup.property_texts({p.hops[-1].triple[1] for p in paths}) if self.focus else {}
        lasts = self.lookup.property_texts({p.hops[-1].triple[1] for p in paths}) if self.person is not None else {}
        firsts = self.lookup.property_texts({p.hops[0].triple[1] for p in paths}) if self.words else {}
        anchors = {p.mention: self._anchor(p.mention, relation_terms) for p in paths}
        for p in paths:
            coverage = len(self._covered(p)) / len(relation_terms) if relation_terms else 0.0
            anchor = anchors[p.mention]
            anchored = ANCHOR if anchor in p.hops[0].matched else 1.0
            if anchor is not None and anchored > 1.0 and firsts and self._against_wording(p, anchor, firsts):
                anchored = WRONG_WAY
            p.score = p.score * p.damping * (1.0 + coverage) ** COVERAGE * anchored * self._answer_type(p, texts)
            kind = self._ends_in_someone(p, lasts) if lasts else None
            if kind is not None:
                p.score *= RIGHT_KIND if kind == self.person else WRONG_KIND

    def _ends_in_someone(self, path: Path, texts: dict[str, PropertyText]) -> bool | None:
        """Whether the path ends in someone: the doer of its last relation (the object of "directed by", the subject
        of "uses") or what a noun naming the relation calls a person ("actors"); False for what is done to or a
        thing ("genre"); None when the predicate's name does not say."""
        hop = path.hops[-1]
        name = self._name(hop.triple[1], texts)
        form = direction.voice(name)
        if form is not None:
            return hop.forward == (form == direction.PASSIVE)
        nouns = [w for w in normalize(CAMEL.sub(" ", name)).split(" ") if len(w) >= 3][-1:]
        if hop.forward and nouns:
            return lexicon.is_kind_of(nouns[0], "person")
        return True if any(lexicon.is_kind_of(o, "person") for n in nouns for o in lexicon.noun_opposites(n)) else None

    @staticmethod
    def _name(predicate: str, texts: dict[str, PropertyText]) -> str:
        return texts[predicate].label or CAMEL.sub(" ", _local(predicate))

    def _against_wording(self, path: Path, anchor: int, texts: dict[str, PropertyText]) -> bool:
        """Whether the first hop goes against the way the question's wording walks its relation."""
        end = self.mentions.get(path.mention) if path.mention is not None else None
        if path.mention is None or end is None:
            return False
        role, as_verb = direction.mention_role(self.words, (path.mention, end), self.terms[anchor].start)
        hop = path.hops[0]
        expected = direction.expected_forward(role, as_verb, direction.voice(self._name(hop.triple[1], texts)))
        return expected is not None and expected != hop.forward

    def _covered(self, path: Path) -> set[int]:
        """The question words a path accounts for: each hop one word it matches, the first not yet accounted for,
        so "the screenwriter of X also wrote" asks for two hops of the writer relation, not one."""
        covered: set[int] = set()
        for hop in path.hops:
            covered.update(sorted(hop.matched - covered)[:1])
        return covered

    def _anchor(self, mention: int | None, relation_terms: frozenset[int]) -> int | None:
        """The relation word that governs an entity's mention: the nearest one before it ("the director of X",
        "movies starred by X"), else the nearest one after it ("X co-wrote ..."). It names the first hop."""
        if mention is None or not relation_terms:
            return None
        before = [i for i in relation_terms if self.terms[i].start < mention]
        if before:
            return max(before, key=lambda i: self.terms[i].start)
        return min(relation_terms, key=lambda i: self.terms[i].start)

    def _answer_type(self, path: Path, texts: dict[str, PropertyText]) -> float:
        if not texts:
            return 1.0
        last = path.hops[-1]
        text = texts[last.triple[1]]
        return TYPE_MATCH if class_words(text.range if last.forward else text.domain) & self.focus else 1.0


def _diverse(paths: list[Path]) -> list[Path]:
    """The best BEAM paths, at most PER_KIND of each kind, best first."""
    paths.sort(key=lambda p: (-p.score, len(p.hops), p.nodes))
    kinds: dict[tuple[tuple[str, bool], ...], int] = {}
    kept: list[Path] = []
    for p in paths:
        n = kinds.get(p.signature, 0)
        if n < PER_KIND:
            kinds[p.signature] = n + 1
            kept.append(p)
            if len(kept) == BEAM:
                break
    return kept


def _preference(hop: Hop, score: float) -> tuple[bool, float, bool, bool, str]:
    """Which of several facts between the same two nodes a path takes (its last `hop`, the path's `score` with it):
    an asserted one (an inverse, super-property or symmetric twin inferred from it adds nothing to read), then the
    best scored, walked forward, specific."""
    return hop.status.asserted, score, hop.forward, hop.triple[1] not in GENERIC_PREDICATES, hop.triple[1]


def _local(predicate: str) -> str:
    """A predicate IRI's local name."""
    return predicate.rstrip("/#").rsplit("#", 1)[-1].rsplit("/", 1)[-1]


def _hub_damping(degree: int) -> float:
    """HippoRAG-style node specificity: passing through a node linked to thousands says little about the start."""
    return 1.0 if degree <= HUB_FREE else math.log(HUB_FREE) / math.log(degree)
