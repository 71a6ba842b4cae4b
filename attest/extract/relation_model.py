"""The relation classifier: multinomial logistic regression over candidate-pair features (numpy only, package data).

Interface (used by RuleExtractor; trained by bench/train_relations.py):

    model = RelationModel.load()            # attest/extract/data/relations.npz, the shipped model (None if absent)
    probs = model.predict(feature_lists)    # (pairs, classes) probabilities; model.classes[i] names column i
    model.decide(feature_lists)             # [([class, ...], confidence) | None]: what to state about each pair
    model.decisions(feature_lists, probs)   # the same from probabilities already predicted
    model.save(path)

Classes are "none" (no relation), "related" (a relation the ontology has no predicate for) and "<predicate>>" or
"<predicate><" (an ontology predicate, the earlier mention as subject or as object). Unknown features are ignored.
The decision is made per pair, in two steps. A pair's score is 1 - P(none), the probability of some relation; each
kind of candidate (a pair's first feature: "S" one sentence, "X" the topic and a later sentence, "C" a country and
a name of another sentence) has its own threshold on it. Over it, the pair is related: by each predicate that holds
at least its share of the score ("typed:<class>", else the shared "typed"; 1.0 is never: a predicate too often
wrong is left to relatesTo; a town's locatedIn and country can both), else by "related" (ont:relatesTo). Its
confidence rescales the score from [threshold, 1] onto [MIN_CONFIDENCE, 1] (the validator's minimum: the threshold
is where out-of-fold training pairs reach the precision the trainer asks for).
Stored sparse: each feature's weights are centred on their median (softmax is unchanged) and those under PRUNE
dropped.
A model may carry a ranker (Ranker): a one-hidden-layer network over the frequent features (an embedding bag into
ReLU units, then softmax over the same classes), which learns conjunctions of features the linear model cannot (a
word between the names and the two types together). predict() is then the mean of the two models' probabilities.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

MODEL_PATH = Path(__file__).parent / "data" / "relations.npz"
PRUNE = 0.1
MIN_CONFIDENCE = 0.6


def _bag(index: dict[str, int], matrix: np.ndarray, feature_lists: list[list[str]], out: np.ndarray) -> None:
    """Add to each row of `out` the sum of `matrix`'s rows of that pair's known features: every row's features in
    one gather, summed per row by reduceat (row by row, in the same order, as matrix[idx].sum(axis=0) adds them)."""
    get = index.get
    rows: list[int] = []
    starts: list[int] = []
    flat: list[int] = []
    for row, feats in enumerate(feature_lists):
        idx = [i for i in map(get, feats) if i is not None]
        if idx:
            rows.append(row)
            starts.append(len(flat))
            flat.extend(idx)
    if rows:
        out[rows] += np.add.reduceat(matrix[flat], starts, axis=0)


def _softmax(logits: np.ndarray) -> np.ndarray:
    logits = logits - logits.max(axis=1, keepdims=True)
    exp = np.exp(logits)
    return exp / exp.sum(axis=1, keepdims=True)


def _as_stored(values: np.ndarray) -> np.ndarray:
    """float16 as saved, back in float32: a model predicts the same before and after save/load."""
    return values.astype(np.float16).astype(np.float32)


class Ranker:
    """One hidden layer over sparse features: relu(sum of the features' embeddings + hidden_bias) @ out + out_bias,
    softmax over the relation model's classes."""

    def __init__(self, features: list[str], embed: np.ndarray, hidden_bias: np.ndarray, out: np.ndarray,
                 out_bias: np.ndarray) -> None:
        self.features = features
        self.index = {f: i for i, f in enumerate(features)}
        self.embed, self.hidden_bias = _as_stored(embed), _as_stored(hidden_bias)
        self.out, self.out_bias = _as_stored(out), _as_stored(out_bias)

    def predict(self, feature_lists: list[list[str]]) -> np.ndarray:
        hidden = np.tile(self.hidden_bias, (len(feature_lists), 1))
        _bag(self.index, self.embed, feature_lists, hidden)
        return _softmax(np.maximum(hidden, 0) @ self.out + self.out_bias)


class RelationModel:
    def __init__(self, features: list[str], weights: np.ndarray, bias: np.ndarray, classes: list[str],
                 thresholds: dict[str, float], meta: str = "", ranker: Ranker | None = None) -> None:
        self.index = {f: i for i, f in enumerate(features)}
        self.features = features
        # a constant added to a feature's row changes no softmax: centred on the row's median, most weights are ~0
        centred = weights - np.median(weights, axis=1, keepdims=True) if len(weights) else weights
        self.weights = np.where(np.abs(centred) >= PRUNE, centred, 0).astype(np.float32)  # as stored
        self.bias = bias.astype(np.float32)
        self.classes = classes
        self.thresholds = thresholds
        self.meta = meta
        if ranker is not None and ranker.out.shape[1] != len(classes):
            raise ValueError(f"the ranker has {ranker.out.shape[1]} classes, the model {len(classes)}")
        self.ranker = ranker

    def predict(self, feature_lists: list[list[str]]) -> np.ndarray:
        logits = np.tile(self.bias, (len(feature_lists), 1))
        _bag(self.index, self.weights, feature_lists, logits)
        probs = _softmax(logits)
        if self.ranker is not None:
            probs = (probs + self.ranker.predict(feature_lists)) / 2
        return probs

    def save(self, path: Path) -> None:
        rows, cols = np.nonzero(self.weights)
        arrays: dict[str, Any] = dict(features=np.array(self.features), shape=np.array(self.weights.shape),
                                      rows=rows.astype(np.int32), cols=cols.astype(np.uint8),
                                      values=self.weights[rows, cols].astype(np.float16),
                                      bias=self.bias, classes=np.array(self.classes),
                                      threshold_kinds=np.array(list(self.thresholds)),
                                      threshold_values=np.array(list(self.thresholds.values()), dtype=np.float32),
                                      meta=np.array(self.meta))
        if (r := self.ranker) is not None:
            arrays.update(ranker_features=np.array(r.features), ranker_embed=r.embed.astype(np.float16),
                          ranker_hidden_bias=r.hidden_bias.astype(np.float16), ranker_out=r.out.astype(np.float16),
                          ranker_out_bias=r.out_bias.astype(np.float16))
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> "RelationModel | None":
        if not Path(path).exists():
            return None
        with np.load(path, allow_pickle=False) as data:
            thresholds = dict(zip(data["threshold_kinds"].tolist(), (round(float(v), 3) for v in data["threshold_values"])))
            weights = np.zeros(tuple(data["shape"]), dtype=np.float32)
            weights[data["rows"], data["cols"]] = data["values"]
            ranker = None
            if "ranker_embed" in data.files:
                ranker = Ranker(data["ranker_features"].tolist(), data["ranker_embed"], data["ranker_hidden_bias"],
                                data["ranker_out"], data["ranker_out_bias"])
            return cls(data["features"].tolist(), weights, data["bias"], data["classes"].tolist(),
                       thresholds, str(data["meta"]), ranker)

    def decide(self, feature_lists: list[list[str]]) -> list[tuple[list[str], float] | None]:
        """For each pair, the classes to state (predicate classes, else ["related"]) and their confidence, or None."""
        return self.decisions(feature_lists, self.predict(feature_lists)) if feature_lists else []

    def decisions(self, feature_lists: list[list[str]], probs: np.ndarray) -> list[tuple[list[str], float] | None]:
        """decide() from probabilities already predicted."""
        none = self.classes.index("none")
        predicates = np.array([i for i, c in enumerate(self.classes) if c not in ("none", "related")], dtype=np.int64)
        typed = self.thresholds.get("typed", 1.0)
        out: list[tuple[list[str], float] | None] = []
        for feats, row in zip(feature_lists, probs):
            threshold = self.threshold(feats)
            score = 1.0 - float(row[none])
            if threshold >= 1.0 or score < threshold:
                out.append(None)
                continue
            confidence = MIN_CONFIDENCE + (1.0 - MIN_CONFIDENCE) * (score - threshold) / (1.0 - threshold)
            labels = [self.classes[i] for i in predicates
                      if row[i] >= self.thresholds.get("typed:" + self.classes[i], typed) * score]
            out.append((labels or ["related"], round(min(confidence, 1.0), 3)))
        return out

    def threshold(self, features: list[str]) -> float:
        """The threshold of a candidate's kind (its first feature); 1.0 (never) for a kind the model does not know."""
        return self.thresholds.get(features[0] if features else "", 1.0)
