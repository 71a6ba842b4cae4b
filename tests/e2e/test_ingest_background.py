"""The server's ingest thread: one at a time, at a lower CPU priority than the requests that read."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest

from attest.ingest.background import IngestThread

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="only Linux sets the priority of one thread")


def _niceness() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@linux_only
def test_ingestion_runs_niced_and_one_call_at_a_time():
    caller = _niceness()
    thread = IngestThread(10)
    try:
        async def probe():
            return await asyncio.gather(*(thread.run(lambda: (_niceness(), threading.get_native_id())) for _ in range(4)))
        results = asyncio.run(probe())
    finally:
        thread.close()
    assert {nice for nice, _ in results} == {max(10, caller)} and len({tid for _, tid in results}) == 1
    assert _niceness() == caller  # the other threads keep theirs


@linux_only
def test_niceness_zero_leaves_the_thread_as_the_server():
    thread = IngestThread(0)
    try:
        assert asyncio.run(thread.run(_niceness)) == _niceness()
    finally:
        thread.close()


@linux_only
def test_post_documents_ingests_in_the_niced_thread(client):
    assert client.post("/documents", json={"text": "Oxigraph uses RocksDB.", "name": "a.txt"}).status_code == 201
    state = client.app.state.resources
    assert asyncio.run(state.ingest_thread.run(_niceness)) == max(state.settings.ingest_nice, _niceness())
    assert state.settings.ingest_nice == 10
