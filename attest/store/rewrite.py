"""Rewrite of the embedded store through Oxigraph's bulk loader into a sibling folder, swapped in crash-safely.

Why: Oxigraph compresses RocksDB levels >= 2 only, and a full compaction (`optimize`) of a store under a few GB
leaves it all in its base level, uncompressed; the bulk loader writes LZ4-compressed files, about half the bytes
(bench/RESULTS.md "Data folder right after `attest ingest`").

The swap, for a store folder `store`:
  1. the quads are bulk-loaded into `store.new`, counted against the store, and every file synced;
  2. `store` is renamed `store.old`;  3. `store.new` is renamed `store`;  4. `store.old` is removed.
`settle`, which every open of the store runs first, finishes or rolls back a swap that a crash cut off: with a
complete `store` in place it removes what is left beside it (an unfinished `store.new`, a replaced `store.old`);
without one, `store.new` (complete: it was synced before step 2) is moved into place, else `store.old` goes back.

Locks (flock, so that two opens in one process exclude each other too): `store.lock` is held by whoever opens the
store for writing, for as long as it is open, so no second writer (a server, another ingest) opens it between the
steps; `store.readers` is held shared by each read-only open, and a rewrite starts only when it can hold it alone.
"""

from __future__ import annotations

import fcntl
import gc
import logging
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Callable, Iterable

from pyoxigraph import Store

from attest.errors import StoreError
from attest.store import clean_close

log = logging.getLogger(__name__)

NEW, OLD, LOCK, READERS = ".new", ".old", ".lock", ".readers"
READER_WAIT_S = 60.0  # a read-only open waits this long for a rewrite to finish (a rewrite copies ~40k quads/s)
LOCK_HINT = " (is `attest serve` running on it? use the HTTP API or stop the server)"


class RewriteSkipped(Exception):
    """The rewrite could not be done safely now; the store is left as it was."""


@dataclass(frozen=True)
class Rewritten:
    """What a rewrite did: the store folder's bytes before and after, its quads, and the seconds it took."""

    before: int
    after: int
    quads: int
    seconds: float


def sibling(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def is_store(path: Path) -> bool:
    return (path / "CURRENT").is_file()


def folder_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.is_dir() else 0


def table_bytes(path: Path) -> int:
    """Bytes of the store's table files (its data, without logs and manifests)."""
    return sum(f.stat().st_size for f in path.glob("*.sst")) if path.is_dir() else 0


# locks ------------------------------------------------------------------------------------------------------

def lock_writer(path: Path) -> IO[bytes]:
    """Hold `store.lock` (exclusive) until the returned handle is closed; StoreError when another holder has it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(sibling(path, LOCK), "a+b")  # noqa: SIM115  # held open as the lock
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError as exc:
        handle.close()
        raise StoreError(f"cannot open store at {path}: it is open for writing elsewhere{LOCK_HINT}",
                         path=str(path)) from exc
    sibling(path, READERS).touch(exist_ok=True)  # so that read-only opens find a file to hold
    return handle


def lock_reader(path: Path, wait_s: float = READER_WAIT_S) -> IO[bytes] | None:
    """Hold `store.readers` shared until the returned handle is closed, waiting out a rewrite in progress; None
    where there is no such file (no writer opened this store since rewrites exist, or a read-only folder)."""
    try:
        handle = open(sibling(path, READERS), "rb")  # noqa: SIM115  # held open as the lock
    except OSError:
        return None
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return handle
        except BlockingIOError as exc:
            if time.monotonic() >= deadline:
                handle.close()
                raise StoreError(f"cannot open store at {path}: it is being rewritten (`attest ingest` or "
                                 f"`attest compact` compacting it); try again when that command ends",
                                 path=str(path)) from exc
            time.sleep(0.05)


# the swap ---------------------------------------------------------------------------------------------------

def settle(path: Path) -> str | None:
    """Finish or roll back a swap that a crash cut off (call it holding `store.lock`); what it did, or None."""
    new, old = sibling(path, NEW), sibling(path, OLD)
    if is_store(path):
        done = []
        if new.exists():  # cut off before the swap began: the store in place is the whole one
            shutil.rmtree(new)
            done.append(f"dropped the unfinished rewrite {new.name}")
        if old.exists():  # cut off after the new store was in place: the old one only had to go
            shutil.rmtree(old)
            done.append(f"removed {old.name}, which a finished rewrite replaced")
        return "; ".join(done) or None
    if not old.exists():
        return None  # no swap: a store not created yet
    if path.is_dir() and not any(path.iterdir()):
        path.rmdir()  # an empty folder made in the moment between the renames: the rename below needs the name
    if is_store(new):  # between the renames: the new store was complete before the old one moved
        new.rename(path)
        _sync_dir(path.parent)
        shutil.rmtree(old)
        return f"finished a rewrite: moved {new.name} into place"
    old.rename(path)
    _sync_dir(path.parent)
    return f"rolled back a rewrite: moved {old.name} back"


def needs_settling(path: Path) -> bool:
    return sibling(path, NEW).exists() or sibling(path, OLD).exists()


def rewrite_store(path: Path, *, on_step: Callable[[str], None] | None = None) -> Rewritten:
    """Rewrite the store at `path` through the bulk loader and swap it in (module docstring).

    The caller holds `store.lock` and has no Store open on `path`. RewriteSkipped, with the store unchanged, when
    a read-only open holds it or this process still has it open; StoreError when the copy differs from the store
    (the copy is dropped). `on_step(name)` is called after each step (tests stop there to play a crash)."""
    step = on_step or (lambda name: None)
    new = sibling(path, NEW)
    readers = open(sibling(path, READERS), "a+b")  # noqa: SIM115  # held open as the lock
    try:
        try:
            fcntl.flock(readers, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise RewriteSkipped("a read-only command has the store open") from exc
        start, before = time.perf_counter(), folder_bytes(path)
        stamp = clean_close.current(path, clean_close.read(path))  # the copy holds the same quads and graphs
        shutil.rmtree(new, ignore_errors=True)
        quads = _copy(path, new, step)
        step("copied")
        sync_tree(new)
        step("synced")
        _closed_here(path)
        swap_in(path, step)
        Store(str(path))  # opened and dropped: the first open deletes the write-ahead logs the copy left obsolete
        if stamp is not None:  # as clean as the store it copies
            clean_close.leave(path, stamp.epoch)
        return Rewritten(before, folder_bytes(path), quads, time.perf_counter() - start)
    finally:
        readers.close()


def swap_in(path: Path, on_step: Callable[[str], None] | None = None) -> None:
    """Put the complete, synced store at `store.new` in place of the one at `path` (if any), crash-safely (module
    docstring); the caller holds `store.lock`."""
    step = on_step or (lambda name: None)
    new, old = sibling(path, NEW), sibling(path, OLD)
    if path.exists():
        path.rename(old)
        _sync_dir(path.parent)
    step("old-moved")
    new.rename(path)
    _sync_dir(path.parent)
    step("new-in-place")
    shutil.rmtree(old, ignore_errors=True)
    step("old-removed")


def sync_tree(folder: Path) -> None:
    """fsync every file of `folder` (a store: flat), then the folder itself."""
    for f in folder.iterdir():
        if f.is_file():
            fd = os.open(f, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    _sync_dir(folder)


def _copy(path: Path, new: Path, step: Callable[[str], None]) -> int:
    """Every quad and every named graph of the store at `path` into a new store at `new`; their count."""
    try:
        source = Store(str(path))
    except OSError as exc:  # its RocksDB lock: still open somewhere in this process
        raise RewriteSkipped(f"the store is still open in this process ({exc})") from exc
    try:
        target = Store(str(new))
        step("copying")
        target.bulk_extend(source)
        held = set(target.named_graphs())
        empty = [g for g in source.named_graphs() if g not in held]  # declared named graphs without quads
        for graph in empty:
            target.add_graph(graph)
        quads, copied = len(source), len(target)
        graphs, copied_graphs = _count(source.named_graphs()), _count(target.named_graphs())
        if (quads, graphs) != (copied, copied_graphs):
            raise StoreError(f"the rewritten store differs: {copied} quads in {copied_graphs} graphs, the store has "
                             f"{quads} in {graphs}; kept the store as it was", path=str(path))
        target.flush()
    except BaseException:
        target = source = None  # type: ignore[assignment]  # closes both before the copy goes
        gc.collect()
        shutil.rmtree(new, ignore_errors=True)
        raise
    target = source = None  # type: ignore[assignment]
    gc.collect()
    return quads


def _count(graphs: Iterable[object]) -> int:
    return sum(1 for _ in graphs)


def _closed_here(path: Path) -> None:
    """RewriteSkipped unless this process has really closed the store (an object still referring to it would go
    on writing into the folder about to move): a second open fails while the first is alive."""
    try:
        probe = Store(str(path))
    except OSError as exc:
        shutil.rmtree(sibling(path, NEW), ignore_errors=True)
        raise RewriteSkipped(f"the store is still open in this process ({exc})") from exc
    del probe


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
