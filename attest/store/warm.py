"""Reads a store's files into the operating system's page cache in a background thread when a server starts."""

from __future__ import annotations

import logging
import os
import threading
import time
from pathlib import Path

log = logging.getLogger("attest.warm")
STEP = 8 * 1024 * 1024  # bytes read at a time: the thread stops within one step of a close
MEMORY_SHARE = 0.5  # at most this share of the memory the system has available is filled
NICE = 19  # the reading thread's CPU niceness (Linux): requests get the cores first


def plan(data_dir: Path) -> list[Path]:
    """The files to read, most read first: the full-text index (every /context searches it and reads its passage
    tables), then the store's table files, newest first (a bulk ingest's compaction writes the newest)."""
    index = data_dir / "fulltext.sqlite"
    tables = sorted((data_dir / "store").glob("*.sst"), key=lambda p: p.name, reverse=True)
    return ([index] if index.is_file() else []) + tables


def available_memory() -> int | None:
    """Bytes the system says it can give without swapping (MemAvailable), None where /proc/meminfo is unreadable."""
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def budget(limit_mb: int, available: int | None) -> int:
    """Bytes to read: the setting's bound, and at most MEMORY_SHARE of the available memory (nothing when unknown)."""
    if available is None:
        return 0
    return max(0, min(limit_mb * 1024 * 1024, int(available * MEMORY_SHARE)))


class CacheWarmer(threading.Thread):
    """Reads `files` in order, STEP bytes at a time, until `limit` bytes are read or `stop` is called; what it read is
    in `read` and `seconds`. Reading a page the cache holds costs a copy only, so a warm store costs little."""

    def __init__(self, files: list[Path], limit: int) -> None:
        super().__init__(name="cache-warmer", daemon=True)
        self.files, self.limit = files, limit
        self.read = 0
        self.seconds = 0.0
        self.done = threading.Event()
        self._stop_reading = threading.Event()

    def run(self) -> None:
        start = time.perf_counter()
        try:
            try:
                os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), NICE)
            except (AttributeError, OSError):  # not Linux: the thread reads at the process's priority
                pass
            buffer = bytearray(STEP)
            for path in self.files:
                if not self._read_file(path, buffer):
                    break
        finally:
            self.seconds = time.perf_counter() - start
            log.info("page cache warmed: %.0f MB of the store's files in %.1f s", self.read / 1e6, self.seconds)
            self.done.set()

    def _read_file(self, path: Path, buffer: bytearray) -> bool:
        """False once the budget is spent or a stop is asked for."""
        try:
            with open(path, "rb", buffering=0) as f:
                view = memoryview(buffer)
                while not self._stop_reading.is_set():
                    room = self.limit - self.read
                    if room <= 0:
                        return False
                    n = f.readinto(view[:min(STEP, room)])
                    if not n:
                        return True
                    self.read += n
        except OSError:  # a table file compacted away meanwhile: the next one
            return not self._stop_reading.is_set()
        return False

    def stop(self) -> None:
        self._stop_reading.set()
        if self.is_alive():
            self.join()


def start(data_dir: Path, limit_mb: int) -> CacheWarmer | None:
    """A started warmer for an embedded store's folder; None when the setting is 0 or nothing is to be read."""
    if limit_mb <= 0:
        return None
    files = plan(data_dir)
    limit = budget(limit_mb, available_memory())
    if not files or limit <= 0:
        return None
    warmer = CacheWarmer(files, limit)
    warmer.start()
    return warmer
