"""Where an ingest run spends its time: wall clock and CPU of the calling thread, summed per stage."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageClock:
    """Sums, per stage name, the wall-clock seconds and the CPU seconds of the thread that ran it (a stage that
    waits on a worker process or on the store's background threads costs wall time here, not CPU)."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    @contextmanager
    def measure(self, stage: str, into: dict[str, float] | None = None) -> Iterator[None]:
        """Time the block as `stage`; `into` (a document's report timings) gets its wall-clock seconds too."""
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            spent = time.perf_counter() - wall
            self.wall[stage] = self.wall.get(stage, 0.0) + spent
            self.cpu[stage] = self.cpu.get(stage, 0.0) + time.thread_time() - cpu
            if into is not None:
                into[stage] = into.get(stage, 0.0) + spent
