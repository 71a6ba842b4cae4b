"""Whether the full-text index is in step with its store, told without listing the store's documents.

The index follows the store's documents: each commit writes the store, then the index (`following`). A crash between
the two leaves the index behind, so a check used to list every document at every open (29 s of a 37 s start at
50,000 documents). Now the check is skipped when one of these holds:
- this process checked the index since the store was opened, every commit since was followed by its index update
  (none failed between the two), and no write came from outside ingestion;
- the store is as its last clean close left it (clean_close.py: a digest of its files, which any open for writing
  changes, a crash included) and no document was written since the open, and the index recorded that close's
  epoch: it does so only when it was in step then, and any write of the index deletes the record.
Otherwise it lists the store's documents, as before (`attest.ingest.status.sync_fulltext`).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from attest.store import fulltext
from attest.store.fulltext import FullText

if TYPE_CHECKING:
    from attest.store.base import GraphStore
    from attest.store.clean_close import CloseRecord


def in_step(store: GraphStore, index: FullText) -> bool:
    """Whether the index is known to hold what the store holds, without reading the store's documents."""
    record = store.close_record
    if record is None:
        return False
    known = index.in_step
    if known is not None and known[0]() is record and known[1] == record.outside_writes:
        return True
    if record.epoch is not None and not record.content_writes and index.epoch() == record.epoch:
        checked(store, index)
        return True
    return False


def checked(store: GraphStore, index: FullText) -> None:
    """The index was found in step with the store (or brought in step by a full check) just now."""
    record = store.close_record
    if record is None:
        return
    index.in_step = (weakref.ref(record), record.outside_writes)
    if record not in index.hooked:
        index.hooked.add(record)
        record.after_clean_close(lambda epoch: _at_clean_close(index, record, epoch))


def _at_clean_close(index: FullText, record: CloseRecord, epoch: str) -> None:
    """Record the epoch the store's stamp will carry when the index is in step with what the close leaves."""
    known = index.in_step
    with index.follow_lock:
        if not index.closed and known is not None and known[0]() is record and known[1] == record.outside_writes and not index.in_flight:
            if index.epoch() != epoch:
                index.record_epoch(epoch)


@contextmanager
def following(store: GraphStore) -> Iterator[None]:
    """Around a write of the store that the index follows and the index update that follows it (a document's
    commit): if the block fails, the index may be behind, and this process checks it again."""
    record = store.close_record
    if record is not None:
        record.note_write()  # the store's content is no longer what its epoch named
    index = fulltext.for_store(store)
    if index is None:
        yield
        return
    with index.follow_lock:
        index.in_flight += 1
    done = False
    try:
        yield
        done = True
    finally:
        with index.follow_lock:
            index.in_flight -= 1
            if not done:
                index.in_step = None
