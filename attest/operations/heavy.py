"""Concurrency limit of heavy work (ingest, answers): a few run at once, the rest are refused (429 with Retry-After)."""

from __future__ import annotations

import contextlib
import threading
from typing import Iterator

from attest import metrics
from attest.errors import Overloaded
from attest.operations.resources import AppResources

WAIT_S = 0.5  # a request waits this long for a slot before it is refused
RETRY_AFTER_S = 5
_create = threading.Lock()


def _slots(resources: AppResources) -> threading.BoundedSemaphore:
    with _create:
        if resources.heavy_slots is None:
            resources.heavy_slots = threading.BoundedSemaphore(resources.settings.max_heavy_requests)
        return resources.heavy_slots


@contextlib.contextmanager
def heavy(resources: AppResources) -> Iterator[None]:
    """Holds one of settings.max_heavy_requests slots of the app while the block runs; 429 when none frees."""
    slots = _slots(resources)
    if not slots.acquire(timeout=WAIT_S):
        metrics.query_rejections.labels("heavy").inc()
        limit = resources.settings.max_heavy_requests
        raise Overloaded(f"{limit} heavy requests (ingest, answers) are already running; retry in {RETRY_AFTER_S} s",
                         retry_after=RETRY_AFTER_S)
    try:
        yield
    finally:
        slots.release()
