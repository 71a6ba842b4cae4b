"""Where the gold relation pairs the extractor misses go: each missed pair put in the first class that explains it.

    python bench/pair_errors.py [--docs 500] [--examples 8] [--cv 5]

--cv K scores each fold's documents with a relation model trained on the other folds (bench/extract.py --cv's
procedure): the honest count of "candidate, not stated"; without it the shipped model, trained on these documents.

For every annotated relation pair (untyped, either direction) of Re-DocRED dev, sent through the ingest cleaning and
chunking and the shipped extractor as bench/extract.py sends it, the first of these that holds:
  * found: the extractor states a relation between two of the pair's names (bench/extract.py's hit);
  * literal end: one end is a date or number (TIME / NUM: attributes, not entities);
  * name not found: no mention of one end overlaps any of its annotated mentions (by its gold type and shape:
    lower case, several words with a lower-case connector, one word, several words);
  * other boundary: one end is found only under another span (a mention overlapping its annotated mention): longer,
    shorter, crossing, or the annotation's leading "the" ("the United States");
  * other chunk: both ends found, but never in one chunk;
  * candidate, not stated: the two names form a candidate pair (relation_pairs) that the classifier and the
    rules left unstated, by the kind of the candidates (S one sentence, X the topic and a later sentence, C a
    country and another sentence) and how near the best one's score came to its kind's threshold;
  * no candidate, one sentence: the two ends share a sentence in the gold but no candidate joins them (a mention
    missing in that sentence, names more than MAX_GAP tokens apart, or a line that is not prose);
  * no candidate, a pronoun: the ends never share a sentence, and a sentence holding one has a pronoun or opens
    with "The <noun>" right after a sentence naming the other (a loose upper bound of what coreference could reach);
  * no candidate, the topic: one end is the document's first named entity (what the topic candidates should catch);
  * no candidate, other sentences: the rest (relations between two non-topic names of different sentences).
The annotation is used for this analysis only: no rule is taken from these documents' words.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from attest.extract.ontology_terms import load_terms  # noqa: E402
from attest.extract.relation_pairs import candidate_pairs  # noqa: E402
from attest.extract.rules import RuleExtractor  # noqa: E402
from attest.extract.validate import ExtractionValidator  # noqa: E402
from attest.ingest.chunk import chunk_text, clean  # noqa: E402
from docred import GoldDoc, folds, load_docs  # noqa: E402

ONTOLOGY = REPO / "ontology"
PRONOUNS = {"he", "she", "it", "they", "his", "her", "its", "their", "him", "them"}
CONNECTORS = {"of", "and", "the", "de", "for", "on", "in", "at", "von", "van", "la", "le", "du", "des", "del"}


def _shape(names: set[str]) -> str:
    if all(n[:1].islower() for n in names):
        return "lower case"
    longest = max(names, key=len).split()
    if len(longest) == 1:
        return "one word"
    if any(w.lower() in CONNECTORS or w[:1].islower() for w in longest[1:-1]):
        return "with a connector"
    return "several words"


def _boundary(doc: GoldDoc, entity, mentions: list[tuple[int, int, int, str]]) -> str:
    """How the first mention overlapping one of the entity's annotated mentions differs from it."""
    gs, ge, s, e = next((gs, ge, s, e) for _, s, e, _ in mentions for _, gs, ge in entity.spans if s < ge and gs < e)
    gold = doc.text[gs:ge]
    if gold.lower().startswith("the ") and s == gs + 4 and e == ge:
        return "the annotation holds a leading 'the'"
    if s <= gs and e >= ge:
        return "the mention is longer" + (" (words before)" if s < gs else " (words after)")
    if s >= gs and e <= ge:
        return "the mention is shorter" + (" (words cut after)" if s == gs else " (words cut before)")
    return "the spans cross"


class PairErrors:
    def __init__(self, terms) -> None:
        self.extractor = RuleExtractor(terms)
        self.validator = ExtractionValidator(terms)
        self.classes: Counter = Counter()
        self.examples: dict[str, list[str]] = defaultdict(list)
        self.gold = 0
        self.best: dict[frozenset[str], tuple[str, float]] = {}  # a name pair's best candidate: kind, score - threshold

    def add_doc(self, doc: GoldDoc) -> None:
        cleaned = clean(doc.markdown, markdown=True)
        self.best.clear()
        # (chunk index, start, end in doc.text, text) of each mention; candidate pairs as name pairs per chunk
        mentions: list[tuple[int, int, int, str]] = []
        candidates: set[frozenset[str]] = set()
        stated: set[frozenset[str]] = set()
        for k, chunk in enumerate(chunk_text("bench", cleaned)):
            parsed, found, _, _ = self.extractor.analyse(chunk.text)
            for m in found:
                if m.type is None:
                    continue
                s = cleaned.to_original(chunk.clean_start + m.start_char) - doc.body_offset
                e = cleaned.to_original(chunk.clean_start + m.end_char - 1) + 1 - doc.body_offset
                mentions.append((k, s, e, m.text))
            pairs = [p for p in candidate_pairs(parsed, found) if p.a.type is not None and p.b.type is not None]
            model = self.extractor.relation_model
            scores = model.predict([p.features for p in pairs]) if model is not None and pairs else None
            for i, p in enumerate(pairs):
                key = frozenset((p.a.text, p.b.text))
                candidates.add(key)
                if scores is not None:
                    gap = (1.0 - float(scores[i][model.classes.index("none")])) - model.threshold(p.features)
                    if key not in self.best or gap > self.best[key][1]:
                        self.best[key] = (p.features[0], gap)
            accepted = self.validator.validate(self.extractor.extract(chunk.text)).accepted
            stated |= {frozenset((r.subject, r.object)) for r in accepted.relations}
        texts = {t for *_, t in mentions}
        sentence_of = [0] * (len(doc.text) + 1)
        for i, (s, e) in enumerate(doc.sentence_spans):
            for c in range(s, min(e + 1, len(sentence_of))):
                sentence_of[c] = i
        lowered = [doc.text[s:e].lower().split() for s, e in doc.sentence_spans]
        topic = next((i for i, e in enumerate(doc.entities) if e.named and any(sp[0] == 0 for sp in e.spans)), None)
        pairs = {frozenset(k) for k in doc.relations if k[0] != k[1]}
        for pair in pairs:
            self.gold += 1
            h, t = sorted(pair)
            kind = self._classify(doc, h, t, mentions, texts, candidates, stated, lowered, topic)
            self.classes[kind] += 1
            eh, et = doc.entities[h], doc.entities[t]
            props = ",".join(sorted(doc.relations.get((h, t), set()) | doc.relations.get((t, h), set())))
            self.examples[kind].append(f"{doc.title}: {min(eh.names, key=len)} ({eh.type}) -- "
                                       f"{min(et.names, key=len)} ({et.type}) [{props}]")

    def _classify(self, doc, h, t, mentions, texts, candidates, stated, lowered, topic) -> str:
        eh, et = doc.entities[h], doc.entities[t]
        if any(frozenset((a, b)) in stated for a in eh.names for b in et.names):
            return "found"
        if not (eh.named and et.named):
            return "literal end (TIME / NUM)"
        for e in (eh, et):
            if not e.names & texts:
                overlap = any(s < ge and gs < en for _, s, en, _ in mentions for _, gs, ge in e.spans)
                if not overlap:
                    return f"name not found: {e.type}, {_shape(e.names)}"
        for e in (eh, et):
            if not e.names & texts:
                return "other boundary: " + _boundary(doc, e, mentions)
        chunks_h = {k for k, _, _, x in mentions if x in eh.names}
        chunks_t = {k for k, _, _, x in mentions if x in et.names}
        if not chunks_h & chunks_t:
            return "other chunk"
        keys = [frozenset((a, b)) for a in eh.names for b in et.names if frozenset((a, b)) in candidates]
        if keys:
            kind, gap = max((self.best.get(k, ("?", -1.0)) for k in keys), key=lambda kg: kg[1])
            near = "within 0.1 of" if gap >= -0.1 else "0.1-0.3 under" if gap >= -0.3 else "over 0.3 under"
            return f"candidate, not stated: {kind}, best score {near} its threshold" if gap < 0 else \
                f"candidate, not stated: {kind}, over its threshold (a rule, a type check or the cap dropped it)"
        sents_h = {sp[0] for sp in eh.spans}
        sents_t = {sp[0] for sp in et.spans}
        if sents_h & sents_t:
            return "no candidate, one sentence"
        if self._pronoun_reaches(doc, eh, et, lowered) or self._pronoun_reaches(doc, et, eh, lowered):
            return "no candidate, a pronoun or 'the <noun>' after the other end"
        if topic in (h, t):
            return "no candidate, the topic"
        return "no candidate, other sentences"

    @staticmethod
    def _pronoun_reaches(doc, near, far, lowered) -> bool:
        """A sentence holding `near` has a pronoun (or opens with "The <noun>") and the latest named entity
        annotated before that sentence's pronoun is `far`."""
        far_sents = {sp[0] for sp in far.spans}
        for k in {sp[0] for sp in near.spans}:
            words = lowered[k]
            if not (set(words) & PRONOUNS or (words[:1] == ["the"] and len(words) > 1 and words[1].isalpha())):
                continue
            earlier = max((sp[0] for e in doc.entities if e.named for sp in e.spans if sp[0] < k), default=None)
            if earlier is not None and k - 1 in far_sents | {earlier} and (k - 1) in far_sents:
                return True
            if 0 in far_sents and any(w in {"he", "she", "his", "her"} for w in words[:2]):
                return True
        return False

    def report(self, examples: int) -> str:
        found = self.classes["found"]
        lines = [f"{self.gold} gold pairs; found {found} ({found / self.gold:.3f}); missed, by class:"]
        for kind, n in self.classes.most_common():
            if kind == "found":
                continue
            lines.append(f"  {n:5d}  {n / self.gold:.3f}  {kind}")
            lines += [f"           {x}" for x in self.examples[kind][:examples]]
        return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=500)
    parser.add_argument("--examples", type=int, default=8)
    parser.add_argument("--cv", type=int, default=0, help="K-fold: each fold scored by a model trained on the others")
    args = parser.parse_args()
    terms = load_terms(ONTOLOGY)
    tally = PairErrors(terms)
    docs = load_docs()[: args.docs]
    if not args.cv:
        for doc in docs:
            tally.add_doc(doc)
    else:
        from train_relations import PAIR_PRECISION, collect, train_model

        per_doc = collect(docs, terms)
        for held in folds(len(docs), args.cv):
            held_set = set(held)
            tally.extractor.relation_model = train_model(
                [samples for i, samples in enumerate(per_doc) if i not in held_set], pair_precision=PAIR_PRECISION)
            for i in held:
                tally.add_doc(docs[i])
    print(tally.report(args.examples))


if __name__ == "__main__":
    main()
