"""Train the relation classifier shipped as attest/extract/data/relations.npz from Re-DocRED dev (fixed seed).

    python bench/train_relations.py [--out attest/extract/data/relations.npz]

The candidate pairs are the offline extractor's own (its mentions on each document, sent as titled Markdown through
the ingest pipeline's cleaning and chunking; attest.extract.relation_pairs), so the model learns on exactly what it
will see. A pair's label comes from the gold: a mention stands for the gold entities one of whose mentions has its
exact name; a Wikidata property the ontology aligns (skos:exactMatch wdt:P...) gives "<predicate>>" or
"<predicate><" by direction, any other annotated relation "related", no relation "none". A pair with several
properties (P131 and P17) spreads its target over them. Multinomial logistic regression, trained by Adam on
minibatches with L2 decay; features seen fewer than MIN_COUNT times are dropped. The decision thresholds (_thresholds:
a pair score per kind of candidate, a share per predicate) are chosen on out-of-fold probabilities of the training
documents (INNER_FOLDS inner fits, each scoring the documents it left out), never on documents the model is scored
on. Each fit also trains the one-hidden-layer ranker (bench/train_ranker.py) on the same documents, and the model's
probabilities are the mean of the two (RANKER; --linear: the linear model alone). PAIR_PRECISION, the operating
point, was chosen from the 5-fold cross-validated curve of `bench/extract.py --cv 5` (bench/RESULTS.md).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from pyoxigraph import RdfFormat, Store  # noqa: E402

from attest.extract.ontology_terms import OntologyTerms, load_terms, local_name  # noqa: E402
from attest.extract.relation_model import MODEL_PATH, RelationModel  # noqa: E402
from attest.extract.relation_pairs import candidate_pairs  # noqa: E402
from attest.ingest.chunk import chunk_text, clean  # noqa: E402
from docred import GoldDoc, load_docs  # noqa: E402
from train_ranker import encode, fit_ranker  # noqa: E402

SEED = 13
MIN_COUNT = 3
MIN_CLASS = 40  # a predicate direction seen fewer times is trained as "related"
EPOCHS = 4
BATCH = 512
LEARNING_RATE = 0.05
L2 = 3e-4
PAIR_PRECISION = 0.50  # of the relation pairs kept, out of fold (bench/RESULTS.md: the 5-fold curve of `bench/extract.py --cv 5`)
TYPED_PRECISION = 0.72  # of their predicates
PREDICATE_MIN = 20  # out-of-fold statements for a predicate's own share
INNER_FOLDS = 5
RANKER = True  # whether the linear model is averaged with a one-hidden-layer ranker (bench/train_ranker.py)
SEPARATE = {"C"}  # candidate kinds fitted apart from the others (_fit_by_kind)
CLASS_ABSENT = -20.0  # the logit of a class a kind's group never saw
WINDOW = 0.1  # of pair score, where a kind's marginal precision is measured
ONTOLOGY = REPO / "ontology"
ALIGNMENT = """
PREFIX skos: <http://www.w3.org/2004/02/skos/core#>
SELECT ?p ?wd WHERE { ?p skos:exactMatch ?wd . FILTER(STRSTARTS(STR(?wd), "http://www.wikidata.org/prop/")) }
"""


def wikidata_map(ontology_dir: Path, terms: OntologyTerms) -> dict[str, tuple[str, bool]]:
    """predicate local name -> (Wikidata property id, inverted?): its own alignment, or its inverse's, reversed."""
    store = Store()
    for path in sorted(ontology_dir.glob("*.ttl")):
        store.load(path.read_bytes(), format=RdfFormat.TURTLE)
    aligned: dict[str, str] = {}
    for row in store.query(ALIGNMENT):
        name = local_name(row["p"].value)
        if name in terms.predicates and (m := re.search(r"/(P\d+)$", row["wd"].value)):
            aligned[name] = m.group(1)
    out = {name: (pid, False) for name, pid in aligned.items()}
    for name, term in terms.predicates.items():
        if name not in out and term.inverse in aligned:
            out[name] = (aligned[term.inverse], True)
    return out


def collect(docs: list[GoldDoc], terms: OntologyTerms) -> list[list[tuple[list[str], dict[str, float]]]]:
    """For each document, (features, soft target) of every candidate pair the extractor finds in it."""
    from attest.extract.rules import RuleExtractor

    extractor = RuleExtractor(terms)
    extractor.relation_model = None
    by_property = {pid: name for name, (pid, inverted) in wikidata_map(ONTOLOGY, terms).items() if not inverted}
    out = []
    for doc in docs:
        samples = []
        out.append(samples)
        by_name: dict[str, set[int]] = {}
        for i, e in enumerate(doc.entities):
            for name in e.names:
                by_name.setdefault(name, set()).add(i)
        for chunk in chunk_text("train", clean(doc.markdown, markdown=True)):
            parsed, mentions, _, _ = extractor.analyse(chunk.text)
            for pair in candidate_pairs(parsed, mentions):
                labels = set()
                related = False
                for h in by_name.get(pair.a.text, ()):
                    for t in by_name.get(pair.b.text, ()):
                        for head, tail, arrow in ((h, t, ">"), (t, h, "<")):
                            for pid in doc.relations.get((head, tail), ()):
                                related = True
                                if pid in by_property:
                                    labels.add(by_property[pid] + arrow)
                target = {c: 1 / len(labels) for c in labels} if labels else {"related" if related else "none": 1.0}
                samples.append((pair.features, target))
    return out


def _fit(samples, classes: list[str], features: list[str], seed: int) -> tuple[np.ndarray, np.ndarray]:
    rows, targets = encode(samples, {f: i for i, f in enumerate(features)}, classes)
    rng = np.random.default_rng(seed)
    W = np.zeros((len(features), len(classes)), dtype=np.float32)
    b = np.log(targets.mean(axis=0) + 1e-6).astype(np.float32)
    mW, vW = np.zeros_like(W), np.zeros_like(W)
    mb, vb = np.zeros_like(b), np.zeros_like(b)
    beta1, beta2, eps, step = 0.9, 0.999, 1e-8, 0
    for _ in range(EPOCHS):
        order = rng.permutation(len(samples))
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            lengths = np.array([len(rows[i]) for i in batch])
            flat = np.concatenate([rows[i] for i in batch]) if lengths.sum() else np.zeros(0, dtype=np.int64)
            owner = np.repeat(np.arange(len(batch)), lengths)
            logits = np.tile(b, (len(batch), 1))
            np.add.at(logits, owner, W[flat])
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            delta = (p - targets[batch]) / len(batch)
            touched, inverse = np.unique(flat, return_inverse=True)
            grad = np.zeros((len(touched), len(classes)), dtype=np.float32)
            np.add.at(grad, inverse, delta[owner])
            grad += L2 * W[touched]
            step += 1
            lr = LEARNING_RATE * np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
            mW[touched] = beta1 * mW[touched] + (1 - beta1) * grad
            vW[touched] = beta2 * vW[touched] + (1 - beta2) * grad ** 2
            W[touched] -= lr * mW[touched] / (np.sqrt(vW[touched]) + eps)
            gb = delta.sum(axis=0)
            mb = beta1 * mb + (1 - beta1) * gb
            vb = beta2 * vb + (1 - beta2) * gb ** 2
            b -= lr * mb / (np.sqrt(vb) + eps)
    return W, b


def _fit_by_kind(samples, classes: list[str], features: list[str], seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One fit per group of candidate kinds (SEPARATE: the country's pairs apart), merged into one weight matrix:
    the groups' features are their own, and each group's bias goes onto its kinds' feature rows (every pair has its
    kind as a feature), so each group scores as if alone; a class its group never saw gets CLASS_ABSENT."""
    W = np.zeros((len(features), len(classes)), dtype=np.float32)
    index = {f: i for i, f in enumerate(features)}
    apart = [s for s in samples if s[0][0] in SEPARATE]
    rest = [s for s in samples if s[0][0] not in SEPARATE]
    for group in (rest, apart):
        if not group:
            continue
        _, group_classes = _vocabulary(group)
        group_W, group_b = _fit(group, group_classes, features, seed)
        touched = np.flatnonzero(np.abs(group_W).sum(axis=1))
        if np.abs(W[touched]).sum():
            raise ValueError("candidate kinds fitted apart share a feature")
        columns = [classes.index(c) for c in group_classes]
        W[np.ix_(touched, columns)] = group_W[touched]
        for kind in sorted({s[0][0] for s in group}):
            W[index[kind]] = CLASS_ABSENT
            W[index[kind], columns] = group_W[index[kind]] + group_b
    return W, np.zeros(len(classes), dtype=np.float32)


def _vocabulary(samples) -> tuple[list[str], list[str]]:
    counts = Counter(f for feats, _ in samples for f in set(feats))
    features = sorted(f for f, n in counts.items() if n >= MIN_COUNT)
    class_counts = Counter(c for _, target in samples for c in target)
    classes = ["none", "related"] + sorted(c for c, n in class_counts.items() if n >= MIN_CLASS and c not in ("none", "related"))
    return features, classes


def _pair_thresholds(score: np.ndarray, truth: np.ndarray, kinds: np.ndarray, pair_precision: float) -> dict[str, float]:
    """A pair-score threshold per kind of candidate, where the kept pairs of all kinds together reach pair_precision
    and recall most: each kind's threshold is the least score from which its pairs scoring within WINDOW above it
    are right at a common marginal precision, the least marginal precision that keeps pair_precision overall
    (kinds score on different scales: the topic's pairs are surer of themselves than they are right)."""
    grid = np.arange(0.2, 0.96, 0.025)
    names = sorted(set(kinds.tolist()))
    for marginal in np.arange(0.2, 0.96, 0.025):
        out: dict[str, float] = {}
        for kind in names:
            out[kind] = 1.0
            for threshold in grid:
                window = (kinds == kind) & (score >= threshold) & (score < threshold + WINDOW)
                if window.sum() >= 20 and truth[window].mean() >= marginal:
                    out[kind] = round(float(threshold), 3)
                    break
        kept = score >= np.array([out[k] for k in kinds.tolist()])
        if kept.sum() >= 20 and truth[kept].mean() >= pair_precision:
            return out
    return {kind: 1.0 for kind in names}


def _thresholds(probs: np.ndarray, classes: list[str], samples,
                pair_precision: float = PAIR_PRECISION) -> dict[str, float]:
    """The decision thresholds, from the training pairs' out-of-fold probabilities (`probs`, columns `classes`):
    for each kind of candidate a pair score (1 - P(none): some relation), where the kept pairs reach pair_precision
    (_pair_thresholds); under "typed", the least share of that score on a predicate at which the kept pairs'
    predicates over it reach TYPED_PRECISION (1.0, never, where none does), under "typed:<class>" the same for
    one predicate stated often enough to be judged alone."""
    none = classes.index("none")
    score = 1.0 - probs[:, none]
    truth = np.array([("none" not in target) for _, target in samples])
    kinds = np.array([feats[0] for feats, _ in samples])
    out = _pair_thresholds(score, truth, kinds, pair_precision)
    kept = score >= np.array([out[k] for k in kinds.tolist()])
    predicates = [i for i, c in enumerate(classes) if c not in ("none", "related")]
    share = probs[:, predicates] / np.maximum(score, 1e-9)[:, None]  # every predicate over the share is stated
    right = np.array([[classes[c] in target for c in predicates] for _, target in samples])
    # a predicate stated often enough out of fold gets its own share: the least at which its statements reach
    # TYPED_PRECISION, or 1.0 (stated as relatesTo) where they never do; the rarer ones share "typed"
    rare = np.zeros(len(predicates), dtype=bool)
    for column, c in enumerate(predicates):
        if (kept & (share[:, column] >= 0.3)).sum() < PREDICATE_MIN:
            rare[column] = True
            continue
        out["typed:" + classes[c]] = 1.0
        for threshold in np.arange(0.3, 0.96, 0.025):
            stated = kept & (share[:, column] >= threshold)
            if stated.sum() >= PREDICATE_MIN and right[stated, column].mean() >= TYPED_PRECISION:
                out["typed:" + classes[c]] = round(float(threshold), 3)
                break
    out["typed"] = 1.0
    for threshold in np.arange(0.3, 0.96, 0.025):
        typed = kept[:, None] & (share >= threshold) & rare[None, :]
        if typed.sum() >= PREDICATE_MIN and right[typed].mean() >= TYPED_PRECISION:
            out["typed"] = round(float(threshold), 3)
            break
    return out


def _model(per_doc: list[list], seed: int, ranker: bool) -> RelationModel:
    """The linear model (and the ranker) fitted on these documents' pairs, without thresholds."""
    samples = [s for doc in per_doc for s in doc]
    features, classes = _vocabulary(samples)
    W, b = _fit_by_kind(samples, classes, features, seed)
    return RelationModel(features, W, b, classes, {}, ranker=fit_ranker(per_doc, classes, seed) if ranker else None)


def out_of_fold(per_doc: list[list], seed: int = SEED, ranker: bool = RANKER) -> tuple[np.ndarray, list[str], list]:
    """The training pairs' out-of-fold probabilities (columns: the classes of all the documents' pairs) and the pairs:
    INNER_FOLDS fits, each on all but one inner fold of the training documents, scoring that fold."""
    samples = [s for doc in per_doc for s in doc]
    _, classes = _vocabulary(samples)
    column = {c: i for i, c in enumerate(classes)}
    probs = np.zeros((len(samples), len(classes)), dtype=np.float32)
    starts = np.cumsum([0] + [len(doc) for doc in per_doc])
    for k in range(INNER_FOLDS):
        model = _model([doc for i, doc in enumerate(per_doc) if i % INNER_FOLDS != k], seed, ranker)
        inner_classes = model.classes
        held = [i for i in range(len(per_doc)) if i % INNER_FOLDS == k]
        rows = np.concatenate([np.arange(starts[i], starts[i + 1]) for i in held]).astype(np.int64)
        predicted = model.predict([samples[r][0] for r in rows])
        for c, name in enumerate(inner_classes):  # a class too rare in this inner fit keeps probability 0
            if name in column:
                probs[rows, column[name]] = predicted[:, c]
    return probs, classes, samples


def train_model(per_doc: list[list], seed: int = SEED, pair_precision: float = PAIR_PRECISION,
                ranker: bool = RANKER) -> RelationModel:
    """A model from the candidate pairs of the training documents (collect()); its thresholds from out-of-fold
    probabilities (out_of_fold)."""
    probs, classes, samples = out_of_fold(per_doc, seed, ranker)
    model = _model(per_doc, seed, ranker)
    model.thresholds = _thresholds(probs, classes, samples, pair_precision)
    model.meta = f"trained on {len(per_doc)} Re-DocRED dev documents, {len(samples)} candidate pairs, seed {seed}" + \
        (f", ranker {model.ranker.embed.shape[0]} features x {model.ranker.embed.shape[1]} hidden" if model.ranker else "")
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--linear", action="store_true", help="the linear model alone, without the ranker")
    args = parser.parse_args()
    model = train_model(collect(load_docs(), load_terms(ONTOLOGY)), ranker=RANKER and not args.linear)
    model.save(args.out)
    print(f"{args.out}: {len(model.features)} features x {len(model.classes)} classes, thresholds {model.thresholds}, "
          f"{args.out.stat().st_size / 1024:.0f} KiB; {model.meta}")


if __name__ == "__main__":
    main()
