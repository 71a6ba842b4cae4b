"""Change detection for a store several processes write: a write token every write replaces, compared on read."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from pyoxigraph import Literal, NamedNode

from attest.errors import StoreError
from attest.vocab import ATT

WRITE_TOKEN = ATT + "writeToken"  # a fresh value after every write through any Attest process (see `generation`)


class WriteTokens:
    """`generation` counts the writes this process has seen, its own and other processes': each write ends by
    putting a fresh write token into the store (in the same update request where it is one), and reading
    `generation` compares the stored token with the last one seen, at most every `check_s` seconds."""

    def __init__(self, graph: NamedNode, check_s: float) -> None:
        self.graph = graph  # where the token is kept (a staging graph: never listed)
        self.check_s = check_s
        self._generation, self._read_at = 0, float("-inf")
        self._token: Literal | None = None
        self._lock = threading.Lock()

    @property
    def read_query(self) -> str:
        return f"SELECT ?t WHERE {{ GRAPH {self.graph} {{ {self.graph} <{WRITE_TOKEN}> ?t }} }}"

    def generation(self, read_token: Callable[[], Literal | None]) -> int:
        """The count, after `read_token()` (the stored token, by read_query) when the last read is over check_s
        old; one thread reads it while the others go on with the count as it is."""
        if time.monotonic() - self._read_at >= self.check_s and self._lock.acquire(blocking=False):
            try:
                token = read_token()
                self._read_at = time.monotonic()
                if token != self._token:
                    self._token, self._generation = token, self._generation + 1
            except StoreError:
                pass  # unreachable: the request's own queries will say so
            finally:
                self._lock.release()
        return self._generation

    def replacing(self, token: Literal) -> str:
        """Update operations that replace the stored write token, run last in a write's update request."""
        return (f"DELETE WHERE {{ GRAPH {self.graph} {{ {self.graph} <{WRITE_TOKEN}> ?t }} }} ;\n"
                f"INSERT DATA {{ GRAPH {self.graph} {{ {self.graph} <{WRITE_TOKEN}> {token} }} }}")

    def wrote(self, token: Literal | None) -> None:
        """After a write of this process (applied or not: a failed one may have been): its caches go, and the token
        it wrote, if any, is not taken for another process's write."""
        self._generation += 1
        if token is not None:
            self._token = token
