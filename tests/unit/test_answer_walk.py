"""Personalized PageRank's walked mass: each step's share along a chain, a node passed through, and the linear
system's solution less the restart on a small graph with a cycle, a fork and a dead end."""

from __future__ import annotations

import numpy as np
import pytest

from attest.answer.walk import DAMPING, walked_mass


def test_mass_along_a_chain_halves_with_each_step_and_the_restart_is_left_out():
    mass = walked_mass(3, [0, 1], [1, 2], [1.0, 1.0], {0: 1.0})
    d = DAMPING
    assert mass == pytest.approx([0.0, (1 - d) * d, (1 - d) * d * d])


def test_mass_is_the_personalized_pagerank_less_the_restart():
    edges = [(0, 1, 1.0), (0, 2, 3.0), (1, 3, 1.0), (2, 3, 1.0), (3, 0, 1.0), (3, 4, 2.0)]  # 4 is a dead end
    src, dst, w = zip(*edges)
    reset = {0: 2.0, 2: 1.0}
    mass = walked_mass(5, list(src), list(dst), list(w), reset)
    transition = np.zeros((5, 5))
    for s, t, weight in edges:
        transition[s, t] = weight
    transition /= np.maximum(transition.sum(axis=1, keepdims=True), 1e-12)
    r = np.zeros(5)
    for node, value in reset.items():
        r[node] = value
    r /= r.sum()
    exact = (1 - DAMPING) * np.linalg.solve(np.eye(5) - DAMPING * transition.T, r)
    assert mass == pytest.approx(exact - (1 - DAMPING) * r, abs=1e-3)
    assert mass[1] > 0 and mass[4] > 0


def test_no_edges_or_no_restart_walk_nowhere():
    assert not walked_mass(2, [], [], [], {0: 1.0}).any()
    assert not walked_mass(2, [0], [1], [1.0], {}).any()


def test_a_node_passed_through_takes_no_restart_share():
    """A bridge passage -> entity -> passage is one step when the entity is passed through: the far passage gets what
    the next node of a plain chain gets."""
    d = DAMPING
    mass = walked_mass(5, [0, 1, 2, 3], [1, 2, 3, 4], [1.0] * 4, {0: 1.0}, through={1, 3})
    assert mass == pytest.approx([0.0, (1 - d) * d, (1 - d) * d, (1 - d) * d * d, (1 - d) * d * d])
