"""Personalized PageRank over a small directed graph (HippoRAG's walk): power iteration in numpy, the restart's own
share left out of the result so that a node's mass is only what reached it along edges."""

from __future__ import annotations

import numpy as np

DAMPING = 0.5  # the share of mass that walks on at each step; the rest restarts (HippoRAG's setting)
ITERATIONS = 20  # 0.5 ** 10 < 0.001: what the walk has not settled by then is below the scores' rounding, also when
# every other step passes through without a restart


def walked_mass(size: int, sources: list[int], targets: list[int], weights: list[float],
                reset: dict[int, float], through: set[int] | frozenset[int] = frozenset()) -> np.ndarray:
    """Each node's stationary mass minus its own restart: sum over k >= 1 of (1-d) d^k (P^T)^k r, r the reset
    normalized to 1, P the edges' weights normalized over each source's out-edges (a node with none leaks its mass).
    A node in `through` takes no restart share: all that reaches it walks on, so a path through it is one step."""
    if size == 0 or not reset or not sources:
        return np.zeros(size)
    src = np.asarray(sources, dtype=np.int64)
    dst = np.asarray(targets, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64)
    out = np.bincount(src, weights=w, minlength=size)
    share = w / out[src]  # every edge's source has out-weight > 0, its own edge's
    if through:
        passing = np.zeros(size, dtype=bool)
        passing[list(through)] = True
        share = np.where(passing[src], share / DAMPING, share)
    r = np.zeros(size)
    for node, value in reset.items():
        r[node] += value
    r /= r.sum()
    step: np.ndarray = r.copy()  # the mass arriving after k steps, before the restart share is taken
    walked = np.zeros(size)
    for _ in range(ITERATIONS):
        step = DAMPING * np.bincount(dst, weights=step[src] * share, minlength=size)
        walked += step
    return (1 - DAMPING) * walked
