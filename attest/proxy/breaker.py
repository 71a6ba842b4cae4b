"""A circuit breaker per upstream: open after N consecutive failed attempts, one trial call after a short cool-off."""

from __future__ import annotations

import threading
import time
from typing import Callable

from attest.errors import CircuitOpen


class Breaker:
    """closed -> (N failures) open -> (cool-off passed) half-open: one trial call; success closes, failure reopens."""

    def __init__(self, failures: int, cooloff_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.threshold, self.cooloff_s, self._clock = failures, cooloff_s, clock
        self.failures = 0
        self.opened_at: float | None = None
        self._trial = False
        self._lock = threading.Lock()

    @property
    def state(self) -> str:
        if self.opened_at is None:
            return "closed"
        return "half-open" if self._clock() - self.opened_at >= self.cooloff_s else "open"

    def check(self, url: str) -> None:
        """Raise CircuitOpen while open (or while another caller holds the half-open trial)."""
        with self._lock:
            if self.opened_at is None:
                return
            left = self.cooloff_s - (self._clock() - self.opened_at)
            if left <= 0 and not self._trial:
                self._trial = True  # this caller is the trial
                return
            raise CircuitOpen(f"upstream {url} failed {self.failures} times in a row; calls are refused for "
                              f"{max(left, 0.0):.1f} s more", code="upstream_circuit_open",
                              retry_after=max(1, int(left + 0.999)))

    def success(self) -> None:
        with self._lock:
            self.failures, self.opened_at, self._trial = 0, None, False

    def failure(self) -> None:
        with self._lock:
            self.failures += 1
            if self._trial or self.failures >= self.threshold:
                self.opened_at, self._trial = self._clock(), False

    @property
    def is_open(self) -> bool:
        return self.opened_at is not None
