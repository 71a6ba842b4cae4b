"""Fit the relation model's ranker (attest.extract.relation_model.Ranker): one hidden layer over sparse features.

    ranker = fit_ranker(per_doc, classes, seed)   # per_doc: train_relations.collect()'s (features, soft target) pairs

An embedding bag of the features seen at least MIN_COUNT times into HIDDEN ReLU units, softmax over the classes,
cross-entropy against the soft targets, Adam on minibatches with L2 decay on the rows a batch touches. Early
stopping on every VALIDATION-th document of the documents it is given (never on documents the model is scored
on): the parameters of the epoch with the least validation loss, stopping PATIENCE epochs after it.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from attest.extract.relation_model import Ranker

HIDDEN = 64  # chosen by inner cross-validation on the training folds (bench/RESULTS.md, 2026-11-28 session 22; was 32)
MIN_COUNT = 10  # documents' pairs a feature must occur in to get an embedding (keeps the file small)
MAX_EPOCHS = 15
PATIENCE = 2
BATCH = 256
LEARNING_RATE = 1e-3
L2 = 1e-4  # on the embeddings a batch touches
L2_OUT = 1e-5
INIT = 0.05
VALIDATION = 10


def encode(samples, index: dict[str, int], classes: list[str]) -> tuple[list[np.ndarray], np.ndarray]:
    """Each sample's feature indices (sorted, unknown ones left out) and its target distribution over the classes."""
    cindex = {c: i for i, c in enumerate(classes)}
    rows = [np.array(sorted({index[f] for f in feats if f in index}), dtype=np.int64) for feats, _ in samples]
    targets = np.zeros((len(samples), len(classes)), dtype=np.float32)
    for r, (_, target) in enumerate(samples):
        for c, w in target.items():
            targets[r, cindex.get(c, cindex["related"])] += w
    return rows, targets


def _flat(rows: list[np.ndarray], batch) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The batch's feature indices in one array, each row's start, each index's row (within the batch)."""
    lengths = np.array([len(rows[i]) for i in batch], dtype=np.int64)
    flat = np.concatenate([rows[i] for i in batch]) if lengths.sum() else np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return flat, starts, np.repeat(np.arange(len(batch)), lengths)


def _forward(params: list[np.ndarray], flat: np.ndarray, starts: np.ndarray, n: int):
    embed, hidden_bias, out, out_bias = params
    z = np.tile(hidden_bias, (n, 1))
    lengths = np.diff(np.append(starts, len(flat)))
    some = lengths > 0
    if some.any():
        z[some] += np.add.reduceat(embed[flat], starts[some], axis=0)
    h = np.maximum(z, 0)
    logits = h @ out + out_bias
    logits -= logits.max(axis=1, keepdims=True)
    p = np.exp(logits)
    return p / p.sum(axis=1, keepdims=True), z, h


def fit_ranker(per_doc: list[list], classes: list[str], seed: int) -> Ranker:
    """A ranker from the candidate pairs of these documents (train_relations.collect()), with these classes."""
    counts = Counter(f for doc in per_doc for feats, _ in doc for f in set(feats))
    features = sorted(f for f, n in counts.items() if n >= MIN_COUNT)
    index = {f: i for i, f in enumerate(features)}
    fit = [s for i, doc in enumerate(per_doc) if i % VALIDATION != VALIDATION - 1 for s in doc]
    held = [s for i, doc in enumerate(per_doc) if i % VALIDATION == VALIDATION - 1 for s in doc]
    rows, targets = encode(fit, index, classes)
    held_rows, held_targets = encode(held, index, classes)
    held_flat, held_starts, _ = _flat(held_rows, range(len(held_rows)))
    rng = np.random.default_rng(seed)
    params = [(rng.standard_normal((len(features), HIDDEN)) * INIT).astype(np.float32),
              np.zeros(HIDDEN, dtype=np.float32),
              (rng.standard_normal((HIDDEN, len(classes))) / np.sqrt(HIDDEN)).astype(np.float32),
              np.log(targets.mean(axis=0) + 1e-6).astype(np.float32)]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    step = 0
    best_loss, best_epoch, best = np.inf, -1, [p.copy() for p in params]
    for epoch in range(MAX_EPOCHS):
        order = rng.permutation(len(rows))
        for start in range(0, len(order), BATCH):
            batch = order[start:start + BATCH]
            flat, starts, owner = _flat(rows, batch)
            p, z, h = _forward(params, flat, starts, len(batch))
            delta = (p - targets[batch]) / len(batch)
            dz = (delta @ params[2].T) * (z > 0)
            by_feature = np.argsort(flat, kind="stable")
            touched, first = np.unique(flat[by_feature], return_index=True)
            grads = [np.add.reduceat(dz[owner[by_feature]], first, axis=0) + L2 * params[0][touched],
                     dz.sum(axis=0), h.T @ delta + L2_OUT * params[2], delta.sum(axis=0)]
            step += 1
            lr = LEARNING_RATE * np.sqrt(1 - 0.999 ** step) / (1 - 0.9 ** step)
            for k, (param, grad) in enumerate(zip(params, grads)):
                at = touched if k == 0 else slice(None)  # embeddings: only the rows this batch touched
                moments[k][at] = 0.9 * moments[k][at] + 0.1 * grad
                squares[k][at] = 0.999 * squares[k][at] + 0.001 * grad ** 2
                param[at] -= lr * moments[k][at] / (np.sqrt(squares[k][at]) + 1e-8)
        held_p = _forward(params, held_flat, held_starts, len(held_rows))[0]
        loss = -float((held_targets * np.log(held_p + 1e-9)).sum(axis=1).mean())
        if loss < best_loss - 1e-4:
            best_loss, best_epoch, best = loss, epoch, [p.copy() for p in params]
        elif epoch - best_epoch >= PATIENCE:
            break
    return Ranker(features, *best)
