"""The start-up page-cache warmer: which files it reads and in what order, its bounds (the setting, the available
memory), its stop, and that a served app starts it (or not, with the setting 0) and stops it when it closes."""

from __future__ import annotations

import os

import pytest
from fastapi.testclient import TestClient

from attest.main import create_app
from attest.store import warm


def _folder(tmp_path, sizes):
    (tmp_path / "store").mkdir()
    (tmp_path / "fulltext.sqlite").write_bytes(b"f" * sizes[0])
    for i, size in enumerate(sizes[1:]):
        (tmp_path / "store" / f"{i:06d}.sst").write_bytes(b"s" * size)
    (tmp_path / "store" / "LOG").write_text("not a table file")
    return tmp_path


def test_the_full_text_index_first_then_the_newest_table_files(tmp_path):
    folder = _folder(tmp_path, [10, 20, 30, 40])
    assert [p.name for p in warm.plan(folder)] == ["fulltext.sqlite", "000002.sst", "000001.sst", "000000.sst"]
    assert warm.plan(tmp_path / "nothing-here") == []


@pytest.mark.parametrize("advise", [True, False] if warm.ADVISE else [False])
def test_it_reads_in_order_up_to_its_budget(tmp_path, monkeypatch, advise):
    monkeypatch.setattr(warm, "ADVISE", advise)  # the kernel reads each step, or the thread copies it (no posix_fadvise)
    monkeypatch.setattr(warm, "STEP", 7)  # a read that stops within a file, and steps smaller than a file
    folder = _folder(tmp_path, [50, 30, 30])
    warmer = warm.CacheWarmer(warm.plan(folder), 65)
    warmer.start()
    assert warmer.done.wait(10)
    assert warmer.read == 65  # the index whole, then 15 bytes of the newest table file
    whole = warm.CacheWarmer(warm.plan(folder), 10_000)
    whole.start()
    assert whole.done.wait(10) and whole.read == 110


def test_the_budget_is_the_setting_and_at_most_half_the_available_memory():
    mb = 1024 * 1024
    assert warm.budget(100, 1000 * mb) == 100 * mb
    assert warm.budget(4096, 1000 * mb) == 500 * mb
    assert warm.budget(100, None) == 0  # unknown memory: nothing is read
    assert warm.available_memory() is None or warm.available_memory() > 0


def test_off_with_0_and_with_nothing_to_read(tmp_path):
    folder = _folder(tmp_path, [10, 10])
    assert warm.start(folder, 0) is None
    assert warm.start(tmp_path / "empty", 100) is None


def test_a_stop_ends_the_reading(tmp_path, monkeypatch):
    monkeypatch.setattr(warm, "STEP", 1)
    folder = _folder(tmp_path, [200_000, 200_000])
    warmer = warm.CacheWarmer(warm.plan(folder), 10**9)
    warmer.start()
    warmer.stop()
    assert not warmer.is_alive() and warmer.read < 400_000


def test_a_served_app_warms_at_start_and_stops_at_close(settings):
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        assert client.get("/health").status_code == 200
        warmer = client.app.state.resources.cache_warmer
        if warm.available_memory() is not None:
            assert warmer is not None and warmer.done.wait(30) and warmer.read > 0
    assert warmer is None or not warmer.is_alive()
    off = settings.model_copy(update={"warm_cache_mb": 0})
    with TestClient(create_app(off), base_url="http://localhost") as client:
        assert client.app.state.resources.cache_warmer is None


@pytest.mark.skipif(not warm.ADVISE, reason="posix_fadvise is Linux's")
def test_the_kernel_is_asked_for_each_step_in_order_and_the_files_are_not_copied(tmp_path, monkeypatch):
    monkeypatch.setattr(warm, "STEP", 7)
    folder = _folder(tmp_path, [20, 10])
    asked, copied = [], []
    advise = os.posix_fadvise

    class Recording(warm.FileIO):
        def read(self, size=-1):
            copied.append(size)
            return super().read(size)

        def readinto(self, buffer):
            copied.append(len(buffer))
            return super().readinto(buffer)

    monkeypatch.setattr(warm.os, "posix_fadvise", lambda fd, start, n, how: asked.append((start, n, how)) or advise(fd, start, n, how))
    monkeypatch.setattr(warm, "open", lambda path, mode, buffering: Recording(path, mode), raising=False)
    warmer = warm.CacheWarmer(warm.plan(folder), 1000)
    warmer.run()
    assert [(s, n) for s, n, _ in asked] == [(0, 7), (7, 7), (14, 6), (0, 7), (7, 3)]  # the index, then the table file
    assert {how for *_, how in asked} == {os.POSIX_FADV_WILLNEED} and warmer.read == 30
    assert copied == [1] * 5  # each step's last byte only: it waits for the kernel's read
