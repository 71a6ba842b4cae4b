"""`attest compact`, and the compaction that ends a bulk `attest ingest`: a rewrite through the bulk loader when it pays."""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING

import typer

from attest.cli.base import cli, settings_of
from attest.errors import StoreError

if TYPE_CHECKING:
    from attest.settings import Settings
    from attest.store.rewrite import Rewritten

MB = 1_000_000


@cli.command()
def compact(ctx: typer.Context) -> None:
    """Rewrite the store compactly through the bulk loader (about half the bytes; the server must be stopped)."""
    from attest.store.rewrite import RewriteSkipped, is_store, needs_settling

    settings = settings_of(ctx)
    if settings.store == "sparql":
        raise StoreError("a remote store compacts its own files; `attest compact` rewrites the embedded store only")
    path = settings.store_path
    if not is_store(path) and not needs_settling(path):
        raise StoreError(f"no store at {path} yet (load or ingest something first)", path=str(path))
    try:
        done = rewrite(settings)
    except RewriteSkipped as exc:
        raise StoreError(f"store not rewritten: {exc}") from exc
    typer.echo(describe(done))


def tables_now(settings: Settings) -> int:
    """Bytes of the embedded store's table files now (0 for a remote store); `attest ingest` takes them before it
    writes, to tell what the run added (finish_bulk_ingest)."""
    from attest.store.rewrite import table_bytes

    return 0 if settings.store == "sparql" else table_bytes(settings.store_path)


def finish_bulk_ingest(settings: Settings, tables_before: int) -> None:
    """After an ingest that wrote documents, with the store closed: rewrite it through the bulk loader when it pays
    (rewrite_declined), else compact it in place (Oxigraph's `optimize`, a RocksDB full compaction)."""
    from attest.store.rewrite import RewriteSkipped, table_bytes

    if settings.store == "sparql":
        return  # a server store compacts its own files
    gc.collect()  # the closed store's last references, so that its lock is free
    tables = table_bytes(settings.store_path)
    declined = rewrite_declined(settings, tables, tables - tables_before)
    if declined is None:
        try:
            typer.echo(describe(rewrite(settings)), err=True)
            return
        except (RewriteSkipped, StoreError) as exc:
            declined = f"it cannot be done safely now: {exc}"
    start = time.perf_counter()
    if compact_in_place(settings):
        typer.echo(f"store compacted in place in {time.perf_counter() - start:.1f} s, not rewritten: {declined}", err=True)


def rewrite_declined(settings: Settings, tables: int, grown: int) -> str | None:
    """Why a bulk ingest that left the store's tables at `tables` bytes, `grown` more than before it, is not followed
    by a rewrite; None: rewrite. The rewrite copies the whole store (~25 µs a quad, bench/RESULTS.md) to save about
    half of it, so it is worth it when the store is big enough for half of it to matter (ingest_rewrite_min_mb)
    and this run wrote enough of it (ingest_rewrite_growth) that the copy costs a fraction of the run's own time,
    not minutes after a few documents added to a large store."""
    if not settings.ingest_rewrite:
        return "ingest_rewrite is off"
    if tables < settings.ingest_rewrite_min_mb * MB:
        return f"its tables are {tables / MB:.1f} MB, under ingest_rewrite_min_mb ({settings.ingest_rewrite_min_mb:g})"
    before = tables - grown
    if grown < settings.ingest_rewrite_growth * before:
        return (f"this run grew its tables by {max(grown, 0) / MB:.1f} MB, under ingest_rewrite_growth "
                f"({settings.ingest_rewrite_growth:g}) of the {before / MB:.1f} MB before it; `attest compact` rewrites it")
    return None


def rewrite(settings: Settings) -> Rewritten:
    """Rewrite the embedded store under the writers' lock (StoreError when another process holds it)."""
    from attest.store.rewrite import lock_writer, rewrite_store, settle

    path = settings.store_path
    with lock_writer(path):
        settle(path)
        return rewrite_store(path)


def compact_in_place(settings: Settings) -> bool:
    """Oxigraph's `optimize`, then one more open (False when another process has the store by now): RocksDB deletes the write-ahead logs that the compaction's flush
    made obsolete only when it opens a store, and after a bulk ingest they were 40% of the data folder (72 of 175
    MB for 1,000 Wikipedia paragraphs, bench/footprint.py)."""
    from attest.store import open_store

    try:
        store = open_store(settings, check=False)
        try:
            store.compact()
        finally:
            store.close()
        gc.collect()
        open_store(settings, check=False).close()
        return True
    except StoreError as exc:  # held by another process since the ingest closed it: it compacts on its own
        typer.echo(f"note: the store was not compacted ({exc})", err=True)
        return False


def describe(done: Rewritten) -> str:
    return (f"store rewritten compactly: {done.before / MB:.1f} MB -> {done.after / MB:.1f} MB, "
            f"{done.quads} quads, {done.seconds:.1f} s")
