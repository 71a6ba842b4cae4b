"""Heavy requests (ingest, answers) beyond settings.max_heavy_requests get 429 with Retry-After."""

from __future__ import annotations

import threading

from fastapi.testclient import TestClient

from attest.main import create_app


def test_saturated_heavy_slots_answer_429_with_retry_after(settings):
    app = create_app(settings.model_copy(update={"max_heavy_requests": 1}))
    with TestClient(app, base_url="http://localhost") as client:
        app.state.resources.heavy_slots = slots = threading.BoundedSemaphore(1)
        slots.acquire()  # one heavy request is running
        busy_answer = client.post("/answer", json={"question": "What uses RocksDB?", "mode": "extractive"})
        busy_ingest = client.post("/documents", json={"text": "Oxigraph uses RocksDB.", "name": "a.txt"})
        slots.release()
        free_answer = client.post("/answer", json={"question": "What uses RocksDB?", "mode": "extractive"})
        assert slots.acquire(blocking=False)  # the request gave its slot back
        slots.release()
    for reply in (busy_answer, busy_ingest):
        assert reply.status_code == 429, reply.text
        assert reply.headers["retry-after"] == "5" and reply.json()["error"] == "Overloaded"
    assert free_answer.status_code == 200, free_answer.text
