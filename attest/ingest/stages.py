"""Where an ingest run spends its time: wall clock and CPU of the calling thread, summed per stage."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager


class StageClock:
    """Sums, per stage name, the wall-clock seconds and the CPU seconds of the thread that ran it (a stage that
    waits on a worker process or on the store's background threads costs wall time here, not CPU). A stage timed
    inside another (a batch written when a commit fills it) is counted as itself only, not in the outer stage."""

    def __init__(self) -> None:
        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self._inner = threading.local()  # per thread: [wall, cpu] of the stages nested in each open one

    @contextmanager
    def measure(self, stage: str, into: dict[str, float] | None = None) -> Iterator[None]:
        """Time the block as `stage`; `into` (a document's report timings) gets its wall-clock seconds too."""
        stack = self._inner.__dict__.setdefault("stack", [])
        stack.append([0.0, 0.0])
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            yield
        finally:
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            nested = stack.pop()
            self.wall[stage] = self.wall.get(stage, 0.0) + wall - nested[0]
            self.cpu[stage] = self.cpu.get(stage, 0.0) + cpu - nested[1]
            if stack:
                stack[-1][0] += wall
                stack[-1][1] += cpu
            if into is not None:
                into[stage] = into.get(stage, 0.0) + wall
