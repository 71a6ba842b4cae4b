"""Benchmark: offline extraction on human-annotated Wikipedia prose (Re-DocRED dev), scored against its gold.

    python bench/extract.py [--docs 500] [--cv 5 [--folds N]] [--write] [--errors N]

Each document goes in as a user would send it: titled Markdown ("# Title" then the prose), through the ingest
pipeline's own cleaning and chunking, the offline rule extractor and the extraction validator (what the graph would
receive). Reported:
  * entities of a named gold type (PER, ORG, LOC, MISC), exact name: precision, recall, F1. A predicted entity is
    right when its name is the surface form of some gold mention of a named entity; a gold entity is found when any of
    its mention names was predicted;
  * relation pairs, untyped and either direction: precision and recall;
  * typed relations for each Wikidata property the ontology maps (owl:equivalentProperty / skos:exactMatch to
    wdt:P..., or via owl:inverseOf): precision and recall, and their micro average;
  * literal attributes (dates as written: birthDate P569, deathDate P570, inception P571, publicationDate P577)
    against the gold pairs whose tail is a TIME entity: a predicted (subject, attribute, value) is right when the
    subject is a mention name of the gold head and the value equals (case and spaces folded) a mention name of the
    gold tail; a gold pair is found when one such prediction hits it;
  * documents/s of the extraction (clean + chunk + extract + validate, one process).
--cv K trains the relation model on K-1 folds (bench/train_relations.py, fixed seed) and scores the held-out fold,
for every fold: the honest figure, since the shipped model is trained on all 500 documents (--linear: without the
one-hidden-layer ranker that the shipped model averages in).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from attest.extract.ontology_terms import load_terms  # noqa: E402
from attest.extract.validate import ExtractionValidator  # noqa: E402
from attest.ingest.chunk import chunk_text, clean  # noqa: E402
from docred import GoldDoc, folds, load_docs  # noqa: E402
from extract_errors import ErrorTally  # noqa: E402
from train_relations import ALIGNMENT, wikidata_map  # noqa: E402

ONTOLOGY = REPO / "ontology"


def run_extraction(docs: list[GoldDoc], extractor, validator) -> tuple[list[tuple[list, list, list]], float]:
    """(entities, relations, attributes) accepted for each document, and the seconds it took."""
    results = []
    start = time.perf_counter()
    for doc in docs:
        cleaned = clean(doc.markdown, markdown=True)
        entities, relations, attributes = [], [], []
        for chunk in chunk_text("bench", cleaned):
            accepted = validator.validate(extractor.extract(chunk.text)).accepted
            entities.extend(accepted.entities)
            relations.extend(accepted.relations)
            attributes.extend(accepted.attributes)
        results.append((entities, relations, attributes))
    return results, time.perf_counter() - start


def attribute_map(terms) -> dict[str, str]:
    """datatype property local name -> its Wikidata property id (skos:exactMatch)."""
    from pyoxigraph import RdfFormat, Store

    store = Store()
    for path in sorted(ONTOLOGY.glob("*.ttl")):
        store.load(path.read_bytes(), format=RdfFormat.TURTLE)
    out = {}
    for row in store.query(ALIGNMENT):
        name = row["p"].value.rsplit("#", 1)[-1]
        if name in terms.attributes:
            out[name] = row["wd"].value.rsplit("/", 1)[-1]
    return out


def fold(value: str) -> str:
    return " ".join(value.split()).casefold()


class Tally:
    def __init__(self) -> None:
        self.c = Counter()
        self.typed: dict[str, Counter] = {}
        self.literal: dict[str, Counter] = {}

    def add_attributes(self, doc: GoldDoc, attributes, attr_wd: dict[str, str]) -> None:
        """Literal attributes against the gold pairs of the mapped properties whose tail is a TIME entity."""
        wanted = set(attr_wd.values())
        gold = {(h, t, pid) for (h, t), props in doc.relations.items() for pid in props & wanted
                if doc.entities[t].type == "TIME"}
        for pid in wanted:
            self.literal.setdefault(pid, Counter())["gold"] += sum(1 for g in gold if g[2] == pid)
        hit = set()
        for a in {(a.subject, attr_wd[a.predicate], fold(a.value)) for a in attributes if a.predicate in attr_wd}:
            subject, pid, value = a
            hits = {(h, t, p) for h, t, p in gold if p == pid and subject in doc.entities[h].names
                    and value in {fold(n) for n in doc.entities[t].names}}
            t = self.literal[pid]
            t["pred"] += 1
            t["tp"] += bool(hits)
            hit |= hits
        for _, _, pid in hit:
            self.literal[pid]["found"] += 1

    def literal_report(self, attr_wd: dict[str, str]) -> str:
        names = {pid: name for name, pid in attr_wd.items()}
        lines = ["| literal attribute (gold tail a TIME entity) | precision | recall | predicted | gold |",
                 "|---|---|---|---|---|"]
        total = Counter()
        for pid, t in sorted(self.literal.items()):
            total.update(t)
            p = t["tp"] / t["pred"] if t["pred"] else 0.0
            r = t["found"] / t["gold"] if t["gold"] else 0.0
            lines.append(f"| {pid} {names[pid]} | {p:.3f} | {r:.3f} | {t['pred']} | {t['gold']} |")
        p = total["tp"] / total["pred"] if total["pred"] else 0.0
        r = total["found"] / total["gold"] if total["gold"] else 0.0
        lines.append(f"| all four (micro) | {p:.3f} | {r:.3f} | {total['pred']} | {total['gold']} |")
        return "\n".join(lines)

    def add_doc(self, doc: GoldDoc, entities, relations, wd: dict[str, tuple[str, bool]]) -> None:
        c = self.c
        by_name: dict[str, set[int]] = {}
        for i, e in enumerate(doc.entities):
            for name in e.names:
                by_name.setdefault(name, set()).add(i)
        named = {i for i, e in enumerate(doc.entities) if e.named}
        predicted = {e.name for e in entities}
        c["ent_pred"] += len(predicted)
        c["ent_tp"] += sum(1 for n in predicted if by_name.get(n, set()) & named)
        c["ent_gold"] += len(named)
        c["ent_found"] += sum(1 for i in named if doc.entities[i].names & predicted)
        gold_pairs = {frozenset(k) for k in doc.relations if k[0] != k[1]}
        c["pair_gold"] += len(gold_pairs)
        pairs = {frozenset((r.subject, r.object)) for r in relations}
        found = set()
        for pair in pairs:
            a, b = tuple(pair)
            hits = {frozenset((h, t)) for h in by_name.get(a, ()) for t in by_name.get(b, ())} & gold_pairs
            c["pair_pred"] += 1
            c["pair_tp"] += bool(hits)
            found |= hits
        c["pair_found"] += len(found)
        facts = set()
        for r in relations:
            if r.predicate in wd:
                pid, inverted = wd[r.predicate]
                facts.add((r.object, pid, r.subject) if inverted else (r.subject, pid, r.object))
        mapped = {pid for pid, _ in wd.values()}
        hit_gold = set()
        for s, pid, o in facts:
            t = self.typed.setdefault(pid, Counter())
            t["pred"] += 1
            hits = {(h, tl) for h in by_name.get(s, ()) for tl in by_name.get(o, ()) if pid in doc.relations.get((h, tl), ())}
            t["tp"] += bool(hits)
            hit_gold |= {(h, tl, pid) for h, tl in hits}
        for (h, tl), props in doc.relations.items():
            for pid in props & mapped:
                t = self.typed.setdefault(pid, Counter())
                t["gold"] += 1
                t["found"] += (h, tl, pid) in hit_gold

    def report(self, docs_per_s: float | None) -> str:
        c = self.c

        def ratio(a: float, b: float) -> float:
            return a / b if b else 0.0

        p, r = ratio(c["ent_tp"], c["ent_pred"]), ratio(c["ent_found"], c["ent_gold"])
        f1 = ratio(2 * p * r, p + r)
        lines = [
            "| measure | precision | recall | F1 | counts |",
            "|---|---|---|---|---|",
            f"| entities (PER, ORG, LOC, MISC; exact name) | {p:.3f} | {r:.3f} | {f1:.3f} | "
            f"{c['ent_pred']} predicted, {c['ent_gold']} gold |",
            f"| relation pairs (untyped, either direction) | {ratio(c['pair_tp'], c['pair_pred']):.3f} | "
            f"{ratio(c['pair_found'], c['pair_gold']):.3f} | | {c['pair_pred']} predicted, {c['pair_gold']} gold |",
        ]
        total = Counter()
        for t in self.typed.values():
            total.update(t)
        lines.append(f"| typed relations, mapped properties (micro) | {ratio(total['tp'], total['pred']):.3f} | "
                     f"{ratio(total['found'], total['gold']):.3f} | | {total['pred']} predicted, {total['gold']} gold |")
        lines += ["", "| Wikidata property | precision | recall | predicted | gold |", "|---|---|---|---|---|"]
        for pid, t in sorted(self.typed.items(), key=lambda kv: -kv[1]["gold"]):
            lines.append(f"| {pid} | {ratio(t['tp'], t['pred']):.3f} | {ratio(t['found'], t['gold']):.3f} | "
                         f"{t['pred']} | {t['gold']} |")
        if docs_per_s is not None:
            lines += ["", f"Extraction speed: {docs_per_s:.1f} documents/s (one process)."]
        return "\n".join(lines)


def make_extractor(terms, model=None):
    from attest.extract.rules import RuleExtractor

    extractor = RuleExtractor(terms)
    if model is not None:
        extractor.relation_model = model
    return extractor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=500, help="score the first N documents")
    parser.add_argument("--cv", type=int, default=0, help="K-fold cross-validation of the relation model (0: the shipped model)")
    parser.add_argument("--folds", type=int, default=0, help="with --cv: score only the first N folds (a quicker look)")
    parser.add_argument("--pair-precision", type=float, default=None,
                        help="with --cv: the pair precision the thresholds aim at on the inner held-out fifth "
                             "(default: bench/train_relations.py's PAIR_PRECISION)")
    parser.add_argument("--linear", action="store_true",
                        help="with --cv: the linear model alone, without the ranker (bench/train_ranker.py)")
    parser.add_argument("--write", action="store_true", help="put the figures into bench/RESULTS.md")
    parser.add_argument("--errors", type=int, default=-1, metavar="N",
                        help="also list the entity errors by kind, with up to N examples each (bench/extract_errors.py)")
    args = parser.parse_args()
    docs = load_docs()[: args.docs]
    terms = load_terms(ONTOLOGY)
    validator = ExtractionValidator(terms)
    wd = wikidata_map(ONTOLOGY, terms)
    attr_wd = attribute_map(terms)
    tally = Tally()
    errors = ErrorTally(terms) if args.errors >= 0 else None
    seconds = 0.0
    if args.cv:
        from train_relations import PAIR_PRECISION, RANKER, collect, train_model

        per_doc = collect(docs, terms)  # candidate pairs do not depend on the model: found once, split by fold
        for k, held in enumerate(folds(len(docs), args.cv)[: args.folds or args.cv]):
            held_set = set(held)
            model = train_model([samples for i, samples in enumerate(per_doc) if i not in held_set],
                                pair_precision=args.pair_precision or PAIR_PRECISION, ranker=RANKER and not args.linear)
            print(f"fold {k + 1}/{args.cv}: thresholds {model.thresholds}", file=sys.stderr)
            test = [docs[i] for i in held]
            results, s = run_extraction(test, make_extractor(terms, model), validator)
            seconds += s
            for doc, (entities, relations, attributes) in zip(test, results):
                tally.add_doc(doc, entities, relations, wd)
                tally.add_attributes(doc, attributes, attr_wd)
                if errors is not None:
                    errors.add_doc(doc, entities)
            print(f"fold {k + 1}/{args.cv} scored", file=sys.stderr)
    else:
        results, seconds = run_extraction(docs, make_extractor(terms), validator)
        for doc, (entities, relations, attributes) in zip(docs, results):
            tally.add_doc(doc, entities, relations, wd)
            tally.add_attributes(doc, attributes, attr_wd)
            if errors is not None:
                errors.add_doc(doc, entities)
    text = tally.report(len(docs) / seconds if seconds else None) + "\n\n" + tally.literal_report(attr_wd)
    print(text)
    if errors is not None:
        print(errors.report(args.errors))
    if args.write:
        from common import write_section

        title = f"Offline extraction on Re-DocRED dev ({len(docs)} documents" + (f", {args.cv}-fold CV)" if args.cv else ")")
        write_section(title, text, "python " + " ".join(["bench/extract.py", *sys.argv[1:]]))


if __name__ == "__main__":
    main()
