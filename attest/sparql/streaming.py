"""Stream bytes that a blocking serializer writes in a worker thread to the event loop, in bounded chunks."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections import deque
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import AsyncIterator, Callable

from attest.errors import AttestError, QueryTimeout

log = logging.getLogger(__name__)

CHUNK_BYTES = 64 * 1024
MAX_PENDING_CHUNKS = 8  # back-pressure: the writer thread waits when the client reads slower than it writes


class Aborted(Exception):
    """Raised inside the writer thread when the reader went away or the deadline passed; ends the serializer."""


class ChunkPipe:
    """A write-only file for pyoxigraph serializers whose chunks are read on the event loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop, deadline: float, chunk_bytes: int = CHUNK_BYTES) -> None:
        self._loop = loop
        self._items: deque[tuple[str, bytes | BaseException]] = deque()  # delivered on the loop, read by next()
        self._waiter: asyncio.Future[None] | None = None
        self._parts: list[bytes] = []
        self._size = 0
        self._chunk_bytes = chunk_bytes
        self._slots = threading.Semaphore(MAX_PENDING_CHUNKS)
        self._aborted = False
        self.deadline = deadline
        self.media_type: str | None = None  # set by the producer before its first write

    # writer side (worker thread) ----------------------------------------------------

    def write(self, data: bytes) -> int:
        if self._aborted or time.monotonic() > self.deadline:
            raise Aborted("the response was abandoned or its deadline passed")
        self._parts.append(bytes(data))
        self._size += len(data)
        if self._size >= self._chunk_bytes:
            self._emit("chunk", self._take())
        return len(data)

    def flush(self) -> None:
        """pyoxigraph flushes at the end; chunking is ours, so nothing to do."""

    def writable(self) -> bool:
        return True

    def finish(self) -> None:
        self._emit("last", self._take())

    def fail(self, exc: BaseException) -> None:
        self._loop.call_soon_threadsafe(self._deliver, ("error", exc))

    def _take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts, self._size = [], 0
        return data

    def _emit(self, kind: str, data: bytes) -> None:
        while not self._slots.acquire(timeout=0.1):
            if self._aborted or time.monotonic() > self.deadline:
                raise Aborted("the response was abandoned or its deadline passed")
        self._loop.call_soon_threadsafe(self._deliver, (kind, data))

    # reader side (event loop) ---------------------------------------------------------

    def _deliver(self, item: tuple[str, bytes | BaseException]) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    async def next(self) -> tuple[str, bytes | BaseException]:
        """The next item; TimeoutError at the deadline. A bare future and timer: no task per chunk."""
        if not self._items:
            self._waiter = waiter = self._loop.create_future()
            timer = self._loop.call_later(max(self.deadline - time.monotonic(), 0.0), _expire, waiter)
            try:
                await waiter
            except BaseException:
                self.abort()
                raise
            finally:
                timer.cancel()
                self._waiter = None
        kind, value = self._items.popleft()
        if kind != "error":  # errors are sent without taking a slot
            self._slots.release()
        return kind, value

    def abort(self) -> None:
        self._aborted = True


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(TimeoutError())


@dataclass
class Streamed:
    """What a producer wrote: the media type, the first chunk, and the rest (None when the first was all)."""

    media_type: str
    head: bytes
    rest: AsyncIterator[bytes] | None
    truncated: str | None = None  # "rows" or "bytes" when a result limit cut the output


Producer = Callable[[ChunkPipe], None]  # runs in a worker thread; sets pipe.media_type, then writes


async def run_streamed(pool: Executor, produce: Producer, timeout_s: float) -> Streamed:
    """Run `produce` in `pool`; wait (at most until the deadline) for its first chunk or its error.

    Errors raised before the first chunk propagate here, so they still become a proper 4xx/5xx status.
    """
    loop = asyncio.get_running_loop()
    pipe = ChunkPipe(loop, time.monotonic() + timeout_s)

    def job() -> None:
        try:
            produce(pipe)
            pipe.finish()
        except Aborted:
            pass  # the reader is gone; nobody is left to tell
        except BaseException as exc:  # handed to the reader, which re-raises it
            if not isinstance(exc, AttestError):
                log.exception("SPARQL worker thread failed")
            pipe.fail(_detached(exc))

    pool.submit(job)
    try:
        kind, value = await pipe.next()
    except (asyncio.TimeoutError, TimeoutError):
        raise QueryTimeout(f"the query ran past its deadline of {timeout_s:g} s and was stopped", timeout_s=timeout_s) from None
    except asyncio.CancelledError:
        pipe.abort()
        raise
    if isinstance(value, BaseException):  # kind "error"
        raise value
    assert pipe.media_type is not None
    if kind == "last":
        return Streamed(pipe.media_type, value, None)
    return Streamed(pipe.media_type, value, _rest(pipe))


def _detached(exc: BaseException) -> BaseException:
    """Drop the tracebacks here: their frames hold pyoxigraph results, which must not be freed on another thread."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.__traceback__ = None
        current = current.__cause__ or current.__context__
    return exc


async def _rest(pipe: ChunkPipe) -> AsyncIterator[bytes]:
    try:
        while True:
            kind, value = await pipe.next()
            if isinstance(value, BaseException):  # kind "error" mid-stream: the connection is cut, the client sees a broken body
                raise value
            yield value
            if kind == "last":
                return
    finally:
        pipe.abort()
