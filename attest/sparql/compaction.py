"""Background compaction of the live store once its writes go quiet, so query snapshots read one sorted run."""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from attest.store.base import GraphStore

log = logging.getLogger(__name__)

QUIET_S = 5.0  # how long the write generation must stay put before compacting
POLL_S = 0.5
MAX_DUTY = 0.1  # after a compaction that took d seconds, the next waits at least d / MAX_DUTY after it


class Compactor:
    """Runs Oxigraph's `optimize` (a RocksDB full compaction) on `store` when its write generation changed and
    then stayed put for `quiet_s`; calls `on_compacted` after each compaction. Before compacting it writes the
    store's class statistics if the writes since the last quiet period dropped them (attest/store/statistics.py);
    their write leaves the generation as it is, and the compaction's new files make the snapshot stale.

    Why: a snapshot (RocksDB checkpoint) flushes the writes still in the memtable into new level-0 files, one per
    index, and every index seek of a query then consults them too. On LUBM(1) the few hundred ontology triples the
    server rewrites at start made q8 and q2 cost ~20-25% more CPU in the workers than on a compacted store;
    RocksDB itself only compacts level 0 once four files pile up there. The first compaction runs after the
    first quiet period, since the store may hold level-0 files from writes before it was opened. A full
    compaction rewrites the whole store, so on a large one it runs at most a tenth of the time (MAX_DUTY).
    """

    def __init__(self, store: GraphStore, on_compacted: Callable[[], None], *, quiet_s: float | None = None,
                 poll_s: float | None = None) -> None:
        self.store = store  # an EmbeddedStore: `generation` and `raw`
        self.on_compacted = on_compacted
        self.quiet_s = QUIET_S if quiet_s is None else quiet_s
        self.poll_s = POLL_S if poll_s is None else poll_s
        self.compactions = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="store-compactor", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        compacted: int | None = None  # the generation the store had at the last compaction
        seen, since = self.store.generation, time.monotonic()
        not_before = 0.0  # monotonic time before which no compaction starts (MAX_DUTY)
        while not self._stop.wait(self.poll_s):
            generation = self.store.generation
            now = time.monotonic()
            if generation != seen:
                seen, since = generation, now
            elif generation != compacted and now - since >= self.quiet_s and now >= not_before:
                try:
                    native = self.store.raw
                    if native is None:  # a server store compacts its own files
                        return
                    refresh = getattr(self.store, "refresh_statistics", None)
                    if refresh is not None:  # the class counts, flushed and compacted with the rest: the snapshot
                        refresh()  # the next query takes (on_compacted) has them
                        native.flush()
                    native.optimize()
                except (OSError, AttributeError) as exc:  # store closed or gone under us: nothing to compact
                    log.warning("store compaction failed: %s", exc)
                    return
                took = time.monotonic() - now
                not_before = now + took / MAX_DUTY
                compacted = generation
                self.on_compacted()  # before the count: whoever sees the compaction counted sees its effect too
                self.compactions += 1
                log.info("store compacted in %.2f s", took)

    def close(self) -> None:
        """Stop; waits for a compaction in progress, so the store can be closed after this returns."""
        self._stop.set()
        self._thread.join()
