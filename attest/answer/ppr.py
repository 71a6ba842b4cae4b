"""Personalized PageRank by power iteration over an edge list (numpy), with leaking degrees for bounded subgraphs."""

from __future__ import annotations

import numpy as np

DAMPING = 0.5  # HippoRAG's published default: half the mass restarts at the seeds each step
ITERATIONS = 30  # 0.5 ** 30 of the first step's mass is left: converged far below any rank change
TOLERANCE = 1e-9


def personalized_pagerank(size: int, sources: np.ndarray, targets: np.ndarray, weights: np.ndarray,
                          degrees: np.ndarray, reset: np.ndarray, damping: float = DAMPING) -> np.ndarray:
    """Scores of `size` nodes: p = (1 - d) * reset + d * sum over edges u->v of p[u] * w / degree[u].

    `degrees` is each node's whole out-weight in the full graph, which may exceed the edges given: the mass a node
    sends to neighbours outside the subgraph leaks away instead of being poured into the few it kept (a hub whose
    thousands of passages were not read passes each read one a thousandth, as the whole graph would)."""
    reset = reset / reset.sum() if reset.sum() > 0 else reset
    share = np.where(degrees[sources] > 0, weights / np.maximum(degrees[sources], 1e-12), 0.0)
    p = reset.copy()
    for _ in range(ITERATIONS):
        nxt = (1 - damping) * reset + damping * np.bincount(targets, weights=p[sources] * share, minlength=size)
        if np.abs(nxt - p).sum() < TOLERANCE:
            return nxt
        p = nxt
    return p
