"""The relation model's ranker: save/load round trip, deterministic predictions and training, a conjunction learnt."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from attest.extract.relation_model import Ranker, RelationModel
from tests.conftest import REPO

CLASSES = ["none", "related", "birthPlace>"]
PAIRS = [["S", "w=born", "tt=PER|LOC"], ["S", "w=born"], ["X", "tt=PER|LOC", "unknown"], ["S"], []]


def _train_ranker():
    spec = importlib.util.spec_from_file_location("train_ranker", REPO / "bench" / "train_ranker.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _model(seed: int = 1) -> RelationModel:
    rng = np.random.default_rng(seed)
    features = ["S", "X", "w=born", "tt=PER|LOC"]
    ranker = Ranker(features[1:], rng.normal(size=(3, 8)), rng.normal(size=8), rng.normal(size=(8, 3)),
                    rng.normal(size=3))
    return RelationModel(features, rng.normal(size=(4, 3)), rng.normal(size=3), CLASSES,
                         {"S": 0.4, "X": 0.5, "typed": 0.6}, "test", ranker)


def test_save_and_load_keep_the_ranker_and_its_predictions(tmp_path):
    model = _model()
    model.save(tmp_path / "m.npz")
    loaded = RelationModel.load(tmp_path / "m.npz")
    assert loaded is not None and loaded.ranker is not None
    assert loaded.ranker.features == model.ranker.features
    np.testing.assert_array_equal(loaded.ranker.embed, model.ranker.embed)  # stored as float16, kept as float16
    # the linear weights are rounded to float16 on saving: close before, identical from then on
    np.testing.assert_allclose(loaded.predict(PAIRS), model.predict(PAIRS), atol=1e-2)
    loaded.save(tmp_path / "again.npz")
    again = RelationModel.load(tmp_path / "again.npz")
    np.testing.assert_array_equal(again.predict(PAIRS), loaded.predict(PAIRS))
    assert again.decide(PAIRS) == loaded.decide(PAIRS)


def test_predict_is_the_mean_of_both_models_and_deterministic():
    model = _model()
    probs = model.predict(PAIRS)
    np.testing.assert_array_equal(probs, model.predict(PAIRS))
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    ranker = model.ranker
    model.ranker = None
    linear = model.predict(PAIRS)
    np.testing.assert_allclose(probs, (linear + ranker.predict(PAIRS)) / 2, rtol=1e-6)
    # a pair with no known feature gets the biases alone; row order does not change a row's probabilities
    np.testing.assert_allclose(RelationModel.predict(_model(), PAIRS[::-1])[::-1], probs, rtol=1e-6)


def test_a_ranker_with_other_classes_is_refused():
    ranker = Ranker(["S"], np.zeros((1, 4)), np.zeros(4), np.zeros((4, 2)), np.zeros(2))
    with pytest.raises(ValueError, match="2 classes"):
        RelationModel(["S"], np.zeros((1, 3)), np.zeros(3), CLASSES, {}, ranker=ranker)


def _xor_documents(n_docs: int = 150) -> list[list]:
    """Pairs related when exactly one of two cues is present: no linear model separates them."""
    rng = np.random.default_rng(0)
    docs = []
    for _ in range(n_docs):
        doc = []
        for _ in range(40):
            a, b = rng.random() < 0.5, rng.random() < 0.5
            feats = ["S"] + (["w=a"] if a else []) + (["w=b"] if b else []) + [f"x={rng.integers(5)}"]
            doc.append((feats, {"related" if a != b else "none": 1.0}))
        docs.append(doc)
    return docs


def test_training_is_deterministic_and_learns_a_conjunction():
    train_ranker = _train_ranker()
    docs = _xor_documents()
    first = train_ranker.fit_ranker(docs, ["none", "related"], seed=5)
    second = train_ranker.fit_ranker(docs, ["none", "related"], seed=5)
    np.testing.assert_array_equal(first.embed, second.embed)
    np.testing.assert_array_equal(first.out, second.out)
    probs = first.predict([["S"], ["S", "w=a"], ["S", "w=b"], ["S", "w=a", "w=b"]])
    related = probs[:, 1]
    assert related[1] > 0.7 and related[2] > 0.7  # one cue: related
    assert related[0] < 0.3 and related[3] < 0.3  # none or both: not


def _train_relations():
    spec = importlib.util.spec_from_file_location("train_relations", REPO / "bench" / "train_relations.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_trainer_is_deterministic_and_its_thresholds_come_from_out_of_fold_scores():
    train_relations = _train_relations()
    docs = _xor_documents(60)
    first = train_relations.train_model(docs, seed=3, pair_precision=0.5, ranker=True)
    second = train_relations.train_model(docs, seed=3, pair_precision=0.5, ranker=True)
    np.testing.assert_array_equal(first.weights, second.weights)
    np.testing.assert_array_equal(first.ranker.embed, second.ranker.embed)
    probs, classes, samples = train_relations.out_of_fold(docs, seed=3, ranker=True)
    assert len(samples) == 60 * 40 and probs.shape == (len(samples), len(classes))
    assert first.thresholds == second.thresholds == train_relations._thresholds(probs, classes, samples, 0.5)
    assert first.thresholds["S"] < 1.0  # the ranker's conjunction makes the pairs separable out of fold
