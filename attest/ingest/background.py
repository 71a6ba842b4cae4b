"""The thread the server ingests in: one (a pipeline commits one document at a time), niced so reads go first."""

from __future__ import annotations

import asyncio
import functools
import logging
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Callable, TypeVar

if TYPE_CHECKING:
    from attest.ingest.worker import StageWorker

log = logging.getLogger("attest.ingest")
T = TypeVar("T")


class IngestThread:
    """Runs ingestion calls one after another in a thread of niceness `nice` (Linux; elsewhere as any thread):
    when the cores are busy, the kernel gives requests that read (/context, /answer, /verify) the CPU first and
    ingestion what is left, instead of an even share."""

    def __init__(self, nice: int, worker: StageWorker | None = None) -> None:
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="ingest", initializer=_lower_priority, initargs=(nice,))
        self._worker = worker  # the process the pipeline's CPU-heavy stages run in, if any: closed with the thread

    async def run(self, call: Callable[..., T], *args, **kwargs) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool, functools.partial(call, *args, **kwargs))

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        if self._worker is not None:
            self._worker.close()


def _lower_priority(nice: int) -> None:
    if not nice or sys.platform != "linux":  # only Linux gives a thread a priority of its own (by its thread id)
        return
    thread = threading.get_native_id()
    try:
        os.setpriority(os.PRIO_PROCESS, thread, max(nice, os.getpriority(os.PRIO_PROCESS, thread)))
    except OSError as exc:
        log.warning("ingestion runs at the server's own CPU priority: %s", exc)
