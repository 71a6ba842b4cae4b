"""What a served app loads at start is put out of the garbage collector's reach, and given back when it closes."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from attest import heap
from attest.main import create_app


def test_start_up_settles_and_close_releases(settings):
    gc.unfreeze()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 10_000  # modules, models, the ontology: everything start-up left alive
    assert gc.get_freeze_count() == 0


def test_a_settled_app_collects_its_young_objects_less_often_until_it_closes(settings):
    before = gc.get_threshold()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/health").status_code == 200
        assert gc.get_threshold() == (max(before[0], heap.SETTLED_YOUNG_THRESHOLD), *before[1:])
    assert gc.get_threshold() == before


def test_settle_twice_keeps_the_first_thresholds_to_give_back():
    before = gc.get_threshold()
    try:
        heap.settle()
        heap.settle()  # two apps in one process: the second sees the raised threshold, not the one to give back
        assert gc.get_threshold()[0] == max(before[0], heap.SETTLED_YOUNG_THRESHOLD)
    finally:
        heap.release()
    assert gc.get_threshold() == before
