"""Personalized PageRank by power iteration over an edge list (numpy), with leaking degrees for bounded subgraphs;
several restart vectors are walked at once."""

from __future__ import annotations

import numpy as np

DAMPING = 0.5  # HippoRAG's published default: half the mass restarts at the seeds each step
ITERATIONS = 30  # at most; with damping 0.5 each step halves the change, so about 20 reach TOLERANCE
TOLERANCE = 1e-6  # L1 change of a step: far below the mass that separates two ranked passages


def personalized_pagerank(size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray,
                          degrees: np.ndarray, reset: np.ndarray, damping: float = DAMPING) -> np.ndarray:
    """Scores of `size` nodes: p = (1 - d) * reset + d * sum over edges u->v of p[u] * w / degree[u].

    `reset` is one restart vector (size,) or one per column (size, m), each normalized to sum 1.
    `degrees` is each node's whole out-weight in the full graph, which may exceed the edges given: the mass a node
    sends to neighbours outside the subgraph leaks away instead of being poured into the few it kept (a hub whose
    thousands of passages were not read passes each read one a thousandth, as the whole graph would)."""
    single = reset.ndim == 1
    r = reset.reshape(size, -1).astype(float)
    sums = r.sum(axis=0)
    r = np.divide(r, sums, out=np.zeros_like(r), where=sums > 0)
    p: np.ndarray = r.copy()
    if len(sources) == 0:
        return p[:, 0] if single else p
    order = np.argsort(targets, kind="stable")
    src, tgt = sources[order], targets[order]
    share = np.where(degrees[src] > 0, weights[order] / np.maximum(degrees[src], 1e-12), 0.0)[:, None]
    starts = np.flatnonzero(np.r_[True, tgt[1:] != tgt[:-1]])
    into = tgt[starts]
    for _ in range(ITERATIONS):
        nxt = (1 - damping) * r
        nxt[into] += damping * np.add.reduceat(p[src] * share, starts, axis=0)
        if np.abs(nxt - p).sum() < TOLERANCE:
            p = nxt
            break
        p = nxt
    return p[:, 0] if single else p
