"""Score an extractor against the hand-written gold sets (tests/gold/*.jsonl): entity and relation P/R/F1.

Run:  .venv/bin/python -m tests.gold.score [dev|heldout|lowercase|lowercase-heldout] [-v]   (rule extractor, raw and validated)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from attest.extract.models import Extraction
from attest.extract.ontology_terms import OntologyTerms

HERE = Path(__file__).resolve().parent
# dev and heldout are the original sets; the lowercase sets (issue 11) hold lower-case technical names, scored apart
SETS = {"dev": HERE / "extraction.jsonl", "heldout": HERE / "heldout.jsonl",
        "lowercase": HERE / "lowercase.jsonl", "lowercase-heldout": HERE / "lowercase_heldout.jsonl"}


def load_gold(name: str = "dev") -> list[dict]:
    return [json.loads(line) for line in SETS[name].read_text(encoding="utf-8").splitlines() if line.strip()]


def fold(name: str) -> str:
    return " ".join(name.split()).casefold()


@dataclass
class Counts:
    tp: int = 0
    predicted: int = 0
    gold: int = 0

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 1.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def line(self, label: str) -> str:
        return f"{label:<28} P={self.precision:.3f} R={self.recall:.3f} F1={self.f1:.3f}  (tp={self.tp}, predicted={self.predicted}, gold={self.gold})"


def canonical(terms: OntologyTerms, s: str, p: str, o: str) -> tuple[str, str, str]:
    """One spelling per fact: of a property and its inverse the alphabetically first; symmetric ones sorted."""
    term = terms.predicates.get(p)
    if term and term.inverse and term.inverse < p:
        s, p, o = o, term.inverse, s
    if p == "relatesTo" and o < s:
        s, o = o, s
    return fold(s), p, fold(o)


@dataclass
class Score:
    names: Counts
    entities: Counts  # name and compatible type
    exact_types: Counts  # name and the very same type
    relations: Counts
    unlabeled: Counts  # relations ignoring predicate and direction


def score(terms: OntologyTerms, items: list[dict], predictions: list[Extraction]) -> Score:
    result = Score(Counts(), Counts(), Counts(), Counts(), Counts())
    for item, predicted in zip(items, predictions):
        gold_types = {fold(e["name"]): e["type"] for e in item["entities"]}
        seen: set[str] = set()
        for entity in predicted.entities:
            key = fold(entity.name)
            if key in seen:
                continue
            seen.add(key)
            for c in (result.names, result.entities, result.exact_types):
                c.predicted += 1
            if key in gold_types:
                result.names.tp += 1
                gold_type = gold_types[key]
                if terms.is_subtype(entity.type, gold_type) or terms.is_subtype(gold_type, entity.type):
                    result.entities.tp += 1
                if entity.type == gold_type:
                    result.exact_types.tp += 1
        for c in (result.names, result.entities, result.exact_types):
            c.gold += len(gold_types)
        gold_rel = {canonical(terms, r["subject"], r["predicate"], r["object"]) for r in item["relations"]}
        pred_rel = {canonical(terms, r.subject, r.predicate, r.object) for r in predicted.relations}
        result.relations.tp += len(gold_rel & pred_rel)
        result.relations.predicted += len(pred_rel)
        result.relations.gold += len(gold_rel)
        gold_pairs = {frozenset((s, o)) for s, _, o in gold_rel}
        pred_pairs = {frozenset((s, o)) for s, _, o in pred_rel}
        result.unlabeled.tp += len(gold_pairs & pred_pairs)
        result.unlabeled.predicted += len(pred_pairs)
        result.unlabeled.gold += len(gold_pairs)
    return result


def main() -> None:
    import sys

    from attest.extract.ontology_terms import load_terms
    from attest.extract.rules import RuleExtractor
    from attest.extract.validate import ExtractionValidator

    repo = Path(__file__).resolve().parents[2]
    terms = load_terms(repo / "ontology")
    extractor, validator = RuleExtractor(terms), ExtractionValidator(terms)
    chosen = [a for a in sys.argv[1:] if a in SETS] or list(SETS)
    for set_name in chosen:
        items = load_gold(set_name)
        raw = [extractor.extract(item["text"]) for item in items]
        validated = [validator.validate(x).accepted for x in raw]
        for label, predictions in (("rule extractor (raw)", raw), ("rule extractor + validator", validated)):
            s = score(terms, items, predictions)
            print(f"[{set_name}] {label}, {len(items)} passages:")
            for name in ("names", "entities", "exact_types", "relations", "unlabeled"):
                print("  " + getattr(s, name).line(name))
    if "-v" in sys.argv:
        for item, x in zip(items, validated):
            print(item["id"], item["text"])
            print("   gold E:", sorted((e["name"], e["type"]) for e in item["entities"]))
            print("   got  E:", sorted((e.name, e.type, e.confidence) for e in x.entities))
            print("   gold R:", sorted(canonical(terms, r["subject"], r["predicate"], r["object"]) for r in item["relations"]))
            print("   got  R:", sorted(canonical(terms, r.subject, r.predicate, r.object) for r in x.relations))


if __name__ == "__main__":
    main()
