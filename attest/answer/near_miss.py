"""Near-miss label search: fuzz.ratio of many question spans against the labels whose length can reach the cutoff."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from rapidfuzz import fuzz, process

BATCH = 64  # spans scored in one cdist call: its matrix is BATCH x (labels in the length window) doubles
MAX_TIES = 5  # labels of the best score kept per span, the first by index (what process.extract(limit=5) returned)


@dataclass(frozen=True)
class ByLength:
    """Labels sorted by length (ties in index order), with their lengths and their indices in the label list (tuples:
    the garbage collector does not walk a tuple of strings or numbers; these live as long as the label index)."""

    labels: tuple[str, ...]
    lengths: tuple[int, ...]
    index: np.ndarray


def by_length(labels: Sequence[str]) -> ByLength:
    order = sorted(range(len(labels)), key=lambda i: (len(labels[i]), i))
    return ByLength(tuple(labels[i] for i in order), tuple(len(labels[i]) for i in order), np.array(order, dtype=np.int64))


def length_window(length: int, cutoff: float) -> tuple[int, int]:
    """The label lengths (lowest, highest) that can score `cutoff` against a span of `length` characters:
    fuzz.ratio is 100 x (1 - indel distance / (l1 + l2)) and the distance is at least |l1 - l2|."""
    share = 1 - cutoff / 100  # |l1 - l2| <= share x (l1 + l2)
    low = int(np.ceil(length * (1 - share) / (1 + share) - 1e-9))
    high = int(np.floor(length * (1 + share) / (1 - share) + 1e-9)) if share < 1 else 1 << 30
    return low, high


def best_labels(spans: list[str], table: ByLength, cutoff: float) -> list[tuple[float, list[int]] | None]:
    """For each span: (best fuzz.ratio at or above `cutoff`, the indices of the labels scoring it, at most MAX_TIES,
    lowest first), or None when no label reaches the cutoff. The same as process.extract(span, labels,
    scorer=fuzz.ratio, score_cutoff=cutoff, limit=MAX_TIES) keeping its best-scored hits, for a fraction of the cost:
    only the labels whose length can reach the cutoff are scored, and many spans share one call."""
    out: list[tuple[float, list[int]] | None] = [None] * len(spans)
    order = sorted(range(len(spans)), key=lambda i: len(spans[i]))
    for start in range(0, len(order), BATCH):
        batch = order[start:start + BATCH]
        low = length_window(len(spans[batch[0]]), cutoff)[0]
        high = length_window(len(spans[batch[-1]]), cutoff)[1]
        lo, hi = bisect.bisect_left(table.lengths, low), bisect.bisect_right(table.lengths, high)
        if lo >= hi:
            continue
        scores = process.cdist([spans[i] for i in batch], table.labels[lo:hi], scorer=fuzz.ratio, score_cutoff=cutoff,
                               dtype=np.float64)
        for row, i in zip(scores, batch):
            best = row.max()
            if best < cutoff or best <= 0:
                continue
            tied = np.sort(table.index[lo + np.flatnonzero(row == best)])[:MAX_TIES]
            out[i] = (float(best), [int(k) for k in tied])
    return out
