"""Entity- and triple-keyed lookups remembered per store write generation: any write drops them all."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, Iterable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
MAX_ENTRIES = 50_000  # per store; least recently used entries go first
_STORES: "weakref.WeakKeyDictionary[object, GenerationCache]" = weakref.WeakKeyDictionary()
_create = threading.Lock()


class GenerationCache:
    """Values valid for one write generation of one store; a newer generation empties it, an older one is ignored."""

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self.generation: int | None = None
        self.entries: OrderedDict[Hashable, object] = OrderedDict()
        self.max_entries = max_entries
        self.lock = threading.Lock()

    def get_many(self, generation: int, keys: Iterable[Hashable]) -> tuple[dict, list]:
        """(cached key -> value, keys not cached)."""
        found, missing = {}, []
        with self.lock:
            current = self.generation == generation
            for key in keys:
                if current and key in self.entries:
                    self.entries.move_to_end(key)
                    found[key] = self.entries[key]
                else:
                    missing.append(key)
        return found, missing

    def put_many(self, generation: int, values: dict) -> None:
        with self.lock:
            if self.generation is None or generation > self.generation:
                self.generation = generation
                self.entries.clear()
            if generation != self.generation:
                return  # read before a write that a newer request has already seen
            self.entries.update(values)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)


class Memo:
    """One request's view of its store's cache: the generation is read once, when the request starts.

    A value cached under generation G came from a query that saw at least every write counted in G (the
    deadline executor's snapshots guarantee it), so it is never older than what a fresh query would return.
    Stores that do not count their writes (no integer `generation`) get no cache: every lookup queries.
    """

    def __init__(self, owner: object) -> None:
        generation = getattr(owner, "generation", None)
        self.generation = generation if isinstance(generation, int) else None
        self.cache = _cache_for(owner) if self.generation is not None else None

    def many(self, kind: str, keys: Iterable[K], fetch: Callable[[list[K]], dict[K, V]]) -> dict[K, V | None]:
        """Value of each key: cached, else from one `fetch(missing keys)` call; a key `fetch` leaves out maps to None
        (and is remembered as absent). Cached values are shared: callers must not change them."""
        keys = list(dict.fromkeys(keys))
        if self.cache is None:
            fetched = fetch(keys) if keys else {}
            return {k: fetched.get(k) for k in keys}
        found, missing = self.cache.get_many(self.generation, ((kind, k) for k in keys))
        out = {key[1]: value for key, value in found.items()}
        if missing:
            wanted = [key[1] for key in missing]
            fetched = fetch(wanted)
            new = {k: fetched.get(k) for k in wanted}
            self.cache.put_many(self.generation, {(kind, k): v for k, v in new.items()})
            out.update(new)
        return out


def forget(owner: object) -> None:
    """Drop everything remembered for a store, as its next write would (benchmarks time the unremembered path)."""
    with _create:
        _STORES.pop(owner, None)


def _cache_for(owner: object) -> GenerationCache:
    with _create:
        cache = _STORES.get(owner)
        if cache is None:
            cache = _STORES[owner] = GenerationCache()
        return cache
