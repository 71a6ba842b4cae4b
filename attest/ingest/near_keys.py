"""The keys a name could reach at a fuzz.ratio cutoff, found without scoring every key: a character-count bound."""

from __future__ import annotations

import numpy as np

# fuzz.ratio(a, b) = 200 * LCS(a, b) / (len(a) + len(b)), and the longest common subsequence cannot hold more of a
# character than both strings have. Counting characters in buckets (a-z, 0-9, four for the rest) keeps that an
# upper bound: the bucket minima sum to at least the characters' minima.
BUCKETS = 40
_MAX_COUNT = 255  # counts are kept in one byte; a key with more of one bucket is compared whatever its counts


def _bucket(ch: str) -> int:
    code = ord(ch)
    if 97 <= code <= 122:
        return code - 97
    if 48 <= code <= 57:
        return code - 22
    return 36 + code % 4


def char_counts(key: str) -> np.ndarray:
    counts = np.zeros(BUCKETS, dtype=np.int64)
    for ch in key:
        counts[_bucket(ch)] += 1
    return counts


class NearKeys:
    """Keys in the order they were added, with their lengths and bucket counts; `candidates` returns, in that
    order, every key whose ratio to a name can reach a cutoff (and a few that cannot), so that a scorer run on
    them alone finds the same matches, in the same order, as one run on all the keys."""

    def __init__(self) -> None:
        self.keys: list[str] = []
        self._lengths = np.zeros(1024, dtype=np.int64)
        self._counts = np.zeros((BUCKETS, 1024), dtype=np.uint8)  # by bucket: a name's buckets are read as rows

    def __len__(self) -> int:
        return len(self.keys)

    def add(self, key: str) -> None:
        n = len(self.keys)
        if n == len(self._lengths):
            self._lengths = np.concatenate([self._lengths, np.zeros(n, dtype=np.int64)])
            self._counts = np.concatenate([self._counts, np.zeros((BUCKETS, n), dtype=np.uint8)], axis=1)
        counts = char_counts(key)
        # a bucket over one byte: every count at the top, so no name's bound is lowered by it
        self._counts[:, n] = _MAX_COUNT if counts.max() > _MAX_COUNT else counts
        self._lengths[n] = len(key)
        self.keys.append(key)

    def candidates(self, key: str, cutoff: float) -> list[str]:
        """The keys whose fuzz.ratio to `key` may be at least `cutoff` (0-100), in the order they were added."""
        n = len(self.keys)
        counts = char_counts(key)
        if n == 0 or counts.max() > _MAX_COUNT:
            return list(self.keys)
        # at most BUCKETS * 255 in all: two bytes hold it
        common, part = np.zeros(n, dtype=np.uint16), np.empty(n, dtype=np.uint8)
        for bucket in np.flatnonzero(counts).tolist():  # a bucket the name lacks adds nothing
            np.minimum(self._counts[bucket, :n], np.uint8(counts[bucket]), out=part)
            np.add(common, part, out=common)
        # ratio <= 200 * common / (la + lb); kept when that bound reaches the cutoff (a hair under it is kept too:
        # a key kept wrongly is only scored, one dropped wrongly would be a lost match)
        total = self._lengths[:n] + len(key)
        keep = np.flatnonzero(200.0 * common >= (cutoff - 1e-6) * total)
        keys = self.keys
        return [keys[i] for i in keep.tolist()]
