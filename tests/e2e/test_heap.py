"""What a served app loads at start is put out of the garbage collector's reach, and given back when it closes."""

from __future__ import annotations

import gc

from fastapi.testclient import TestClient

from attest.main import create_app


def test_start_up_settles_and_close_releases(settings):
    gc.unfreeze()
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/health").status_code == 200
        assert gc.get_freeze_count() > 10_000  # modules, models, the ontology: everything start-up left alive
    assert gc.get_freeze_count() == 0
