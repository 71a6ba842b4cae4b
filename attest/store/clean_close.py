"""The stamp a clean close of the embedded store leaves beside it, so that the next open can skip its scans."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from attest.store.base import GraphStore

log = logging.getLogger(__name__)

STAMP = ".closed"  # `store.closed` beside the folder `store`, like `store.lock`
NOT_DATA = ("LOG", "LOCK")  # RocksDB's log for people (rewritten by every open, even read-only) and its lock file


@dataclass(frozen=True)
class Stamp:
    """`files`: the folder's files when the store was closed (`files`); `epoch`: names the content that indexes kept
    beside the store follow (the documents), kept by a close whose session wrote none of it, new otherwise."""

    files: str
    epoch: str


def _stamp_file(path: Path) -> Path:
    return path.with_name(path.name + STAMP)


def files(path: Path) -> str:
    """A digest of the store folder's files: name, size, modification time and inode of each. RocksDB starts a new
    write-ahead log and manifest at every open for writing and writes to its log at every write, so any open for
    writing since (a crash included) or a copy put in place changes it."""
    entries = []
    with os.scandir(path) as found:
        for entry in found:
            if entry.is_file(follow_symlinks=False) and not entry.name.startswith(NOT_DATA):
                st = entry.stat(follow_symlinks=False)
                entries.append(f"{entry.name} {st.st_size} {st.st_mtime_ns} {st.st_ino}")
    return hashlib.sha256("\n".join(sorted(entries)).encode()).hexdigest()


def read(path: Path) -> Stamp | None:
    """The stamp beside the store at `path`, if there is a readable one."""
    try:
        data = json.loads(_stamp_file(path).read_text(encoding="utf-8"))
        return Stamp(str(data["files"]), str(data["epoch"]))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:  # a torn write: as if there were none
        log.warning("ignored the unreadable clean-close stamp of %s: %s", path, exc)
        return None


def take(path: Path) -> Stamp | None:
    """The stamp, removed: an open for writing takes it, so that only its own clean close leaves one again."""
    stamp = read(path)
    _stamp_file(path).unlink(missing_ok=True)
    return stamp


def current(path: Path, stamp: Stamp | None) -> Stamp | None:
    """`stamp` if the folder's files are still those it names, else None."""
    return stamp if stamp is not None and path.is_dir() and files(path) == stamp.files else None


def leave(path: Path, epoch: str) -> None:
    """Stamp the store at `path` (closed, under the writers' lock) as it is now: written whole or not at all."""
    target = _stamp_file(path)
    temporary = path.with_name(path.name + STAMP + ".new")
    with open(temporary, "w", encoding="utf-8") as out:
        json.dump({"files": files(path), "epoch": epoch}, out)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, target)


class CloseRecord:
    """What an open of the embedded store did that its close needs to know to leave a stamp (EmbeddedStore.close)."""

    def __init__(self, epoch: str | None) -> None:
        # names the content that indexes beside the store follow; None: unknown (no stamp at open), they check it
        self.epoch = epoch
        self.content_writes = 0
        self.outside_writes = 0
        self.staged: set[str] = set()  # staging graphs written since the open and not yet seen gone
        self._hooks: list[Callable[[str], None]] = []

    def note_write(self, *, outside: bool = False) -> None:
        """A write that indexes beside the store follow (a document's commit: the epoch changes at close), or with
        `outside` one from outside ingestion (a client's update, a Graph Store write, `attest load`), which may
        change anything, staging graphs included: no stamp then, so the next open lists the graphs and the indexes
        check everything."""
        if outside:
            self.outside_writes += 1
        self.content_writes += 1

    def after_clean_close(self, hook: Callable[[str], None]) -> None:
        """`hook(epoch)` when the close leaves a stamp, before it does: `epoch` is the one the next open will find
        (an index in step records it). Once per hook."""
        if hook not in self._hooks:
            self._hooks.append(hook)

    def closing_epoch(self, *, staging_left: bool) -> str | None:
        """The epoch the stamp will carry: kept when nothing indexes follow was written; None: no stamp."""
        if self.outside_writes or staging_left:
            return None
        return self.epoch if self.epoch is not None and not self.content_writes else uuid.uuid4().hex

    def stamp(self, path: Path, epoch: str) -> None:
        """Run the hooks, then leave the stamp (a crash between leaves none, never one an index is behind); a failure
        costs the next open its scans, nothing else."""
        try:
            for hook in self._hooks:
                hook(epoch)
            leave(path, epoch)
        except Exception as exc:  # noqa: BLE001  # the store is closed and whole; only the shortcut is lost
            log.warning("no clean-close stamp left for %s: %s", path, exc)


def written_from_outside(store: GraphStore) -> None:
    """Call with (or before) a write from outside ingestion: a client's SPARQL update or Graph Store write, `attest
    load` or `attest update` (see CloseRecord.note_write)."""
    if store.close_record is not None:
        store.close_record.note_write(outside=True)
