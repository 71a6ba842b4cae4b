"""Entity- and triple-keyed lookups remembered per store write generation: a write that may change them drops them."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from typing import Callable, Hashable, Iterable, TypeVar, cast

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
Changes = Callable[[int, int], "set[str] | None"]  # (since, until) -> IRIs the writes in between changed facts about
MAX_ENTRIES = 50_000  # per store; least recently used entries go first
_STORES: "weakref.WeakKeyDictionary[object, dict[str, GenerationCache]]" = weakref.WeakKeyDictionary()
_create = threading.Lock()


class GenerationCache:
    """Values valid for the newest write generation of one store seen so far; a newer one empties it, or with
    `changes` (the IRIs the writes in between changed facts about, None: unknown) drops only the values whose
    key names one of them. Values read under an older generation are kept by the same rule: under a stream of
    writes most requests end after the next write, and what they read about other entities still holds."""

    def __init__(self, max_entries: int = MAX_ENTRIES, changes: Changes | None = None) -> None:
        self.generation: int | None = None
        self.entries: OrderedDict[Hashable, object] = OrderedDict()
        self.max_entries = max_entries
        self.changes = changes
        self.lock = threading.Lock()

    def get_many(self, generation: int, keys: Iterable[Hashable]) -> tuple[dict[Hashable, object], list[Hashable]]:
        """(cached key -> value, keys not cached)."""
        found: dict[Hashable, object] = {}
        missing: list[Hashable] = []
        with self.lock:
            self._advance(generation)
            for key in keys:  # an entry of a newer generation than the request's is newer still: never stale
                if key in self.entries:
                    self.entries.move_to_end(key)
                    found[key] = self.entries[key]
                else:
                    missing.append(key)
        return found, missing

    def put_many(self, generation: int, values: dict[Hashable, object]) -> None:
        with self.lock:
            self._advance(generation)
            # values read before writes that a newer request has already seen (_advance set self.generation):
            if self.generation is not None and generation != self.generation:
                touched = self.changes(generation, self.generation) if self.changes else None
                if touched is None:
                    return
                values = {k: v for k, v in values.items() if not _names_any(k, touched)}  # the rest still hold
            self.entries.update(values)
            while len(self.entries) > self.max_entries:
                self.entries.popitem(last=False)

    def _advance(self, generation: int) -> None:
        if self.generation is not None and generation > self.generation:
            touched = self.changes(self.generation, generation) if self.changes else None
            if touched is None:
                self.entries.clear()
            else:
                for key in [k for k in self.entries if _names_any(k, touched)]:
                    del self.entries[key]
        if self.generation is None or generation > self.generation:
            self.generation = generation


def _names_any(key: Hashable, iris: set[str]) -> bool:
    """Whether a (kind, IRI) or (kind, triple) key names one of the IRIs."""
    value = key[1] if isinstance(key, tuple) and len(key) == 2 else key
    if isinstance(value, str):
        return value in iris
    return isinstance(value, tuple) and any(part in iris for part in value if isinstance(part, str))


class Memo:
    """One request's view of its store's caches: the generations are read once, when the request starts.

    A value cached under generation G came from a query that saw at least every write counted in G (the
    deadline executor's snapshots guarantee it), so it is never older than what a fresh query would return.
    Most kinds read only the fact summary, the inferred graph and the schema, and are kept across writes that
    leave those unchanged (the store's `facts_generation`: an ingest that states known facts again); the
    documents stating a triple are kept across writes that change the support of other triples only; the kinds
    in PER_WRITE read document graphs, and any write drops them.
    Stores that do not count their writes (no integer `generation`) get no cache: every lookup queries.
    """

    PER_WRITE = frozenset({"graph", "span", "trace"})
    PER_SUPPORT_CHANGE = frozenset({"documents"})

    def __init__(self, owner: object) -> None:
        generation = getattr(owner, "generation", None)
        self.generation = generation if isinstance(generation, int) else None
        facts = getattr(owner, "facts_generation", generation)
        self.facts_generation = facts if isinstance(facts, int) else self.generation
        self.cache: GenerationCache | None = None
        self.facts_cache: GenerationCache | None = None
        self.support_cache: GenerationCache | None = None
        if self.generation is not None:
            self.cache = _cache_for(owner, "per write")
            self.facts_cache = _cache_for(owner, "per fact change", getattr(owner, "facts_changed_about", None))
            self.support_cache = _cache_for(owner, "per support change", getattr(owner, "support_changed_about", None))

    def many(self, kind: str, keys: Iterable[K], fetch: Callable[[list[K]], dict[K, V]]) -> dict[K, V | None]:
        """Value of each key: cached, else from one `fetch(missing keys)` call; a key `fetch` leaves out maps to None
        (and is remembered as absent). Cached values are shared: callers must not change them."""
        keys = list(dict.fromkeys(keys))
        if self.cache is None:
            fetched = fetch(keys) if keys else {}
            return {k: fetched.get(k) for k in keys}
        family = kind.split()[0]
        cache, generation = ((self.cache, self.generation) if family in self.PER_WRITE
                             else (self.support_cache, self.generation) if family in self.PER_SUPPORT_CHANGE
                             else (self.facts_cache, self.facts_generation))
        assert cache is not None and generation is not None  # set together with self.cache and self.generation
        found, missing = cache.get_many(generation, ((kind, k) for k in keys))
        # the cache holds, under (kind, key), what this kind's fetch returned for the key
        out = {key[1]: cast("V | None", value) for key, value in cast(dict[tuple[str, K], object], found).items()}
        if missing:
            wanted = [key[1] for key in cast(list[tuple[str, K]], missing)]
            fetched = fetch(wanted)
            new = {k: fetched.get(k) for k in wanted}
            cache.put_many(generation, {(kind, k): v for k, v in new.items()})
            out.update(new)
        return out


def forget(owner: object) -> None:
    """Drop everything remembered for a store, as its next write would (benchmarks time the unremembered path)."""
    with _create:
        _STORES.pop(owner, None)


def _cache_for(owner: object, kind: str, changes: Changes | None = None) -> GenerationCache:
    with _create:
        caches = _STORES.get(owner)
        if caches is None:
            caches = _STORES[owner] = {}
        if kind not in caches:
            caches[kind] = GenerationCache(changes=changes)
        return caches[kind]
