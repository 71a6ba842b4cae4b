"""Near-miss label search: fuzz.ratio of many question spans against the labels whose length can reach the cutoff."""

from __future__ import annotations

import bisect
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from rapidfuzz import fuzz, process

BATCH = 64  # spans scored in one cdist call: its matrix is BATCH x (labels in the length window) doubles
MAX_TIES = 5  # labels of the best score kept per span, the first by index (what process.extract(limit=5) returned)
FILTER_FROM = 3000  # labels in a span's length window from which the bigram filter is cheaper than scoring them all
KEY_BITS = 63  # a bigram key and a label's position are packed into one int64 to sort them
EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True)
class Bigrams:
    """An inverted index of the labels' character bigrams, each numbered by its occurrence in its label ("anna" has
    ("an", 1), ("nn", 1), ("na", 1); "banana" ("an", 1) and ("an", 2)), so that the keys two strings share count their
    common bigrams with repeats. A key packs (first character, second character, occurrence) into one integer, each
    character as its rank in `alphabet` (the code points the labels use, ascending) plus one (0: not in it).
    `postings[starts[k]:starts[k + 1]]` are the positions (in ByLength's order, ascending) of the labels holding
    `keys[k]`."""

    alphabet: np.ndarray
    char_bits: int
    occurrence_bits: int
    keys: np.ndarray
    starts: np.ndarray
    postings: np.ndarray

    def keys_of(self, text: str) -> list[int]:
        """`text`'s numbered bigrams as keys (a bigram with a character no label has gets a key no label has)."""
        codes = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        found = np.searchsorted(self.alphabet, codes)
        ranks = [k + 1 if k < len(self.alphabet) and self.alphabet[k] == c else 0
                 for k, c in zip(found.tolist(), codes.tolist())]
        seen: Counter[tuple[int, int]] = Counter()
        keys = []
        for a, b in zip(ranks, ranks[1:]):
            seen[a, b] += 1
            keys.append((((a << self.char_bits) | b) << self.occurrence_bits) | min(seen[a, b], (1 << self.occurrence_bits) - 1))
        return keys


@dataclass(frozen=True)
class ByLength:
    """Labels sorted by length (ties in index order), with their lengths and their indices in the label list (tuples:
    the garbage collector does not walk a tuple of strings or numbers; these live as long as the label index), and
    the index of their bigrams."""

    labels: tuple[str, ...]
    lengths: tuple[int, ...]
    index: np.ndarray
    bigrams: Bigrams | None  # None where the keys do not fit KEY_BITS: every label in the length window is scored


def by_length(labels: Sequence[str]) -> ByLength:
    order = sorted(range(len(labels)), key=lambda i: (len(labels[i]), i))
    ordered = tuple(labels[i] for i in order)
    return ByLength(ordered, tuple(len(label) for label in ordered), np.array(order, dtype=np.int64), bigrams(ordered))


def bigrams(labels: Sequence[str]) -> Bigrams | None:
    """The bigram index of `labels`, built with numpy sorts of packed integers (about 20 ms for 2Wiki's 36,000
    labels, where a loop over each label's bigrams in Python took 380 ms: the index is rebuilt with the labels after
    every write)."""
    lengths = np.fromiter((len(label) for label in labels), dtype=np.int64, count=len(labels))
    codes = np.frombuffer("".join(labels).encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    present = np.zeros(int(codes.max()) + 1 if len(codes) else 0, dtype=bool)
    present[codes] = True
    alphabet = np.flatnonzero(present).astype(np.uint32)
    chars = np.cumsum(present, dtype=np.int64)[codes]  # each character's rank in the alphabet, from 1
    owner = np.repeat(np.arange(len(labels), dtype=np.int64), lengths)  # the label of each character
    follows = owner[:-1] == owner[1:]  # a bigram starts at each character followed by one of the same label
    char_bits = len(alphabet).bit_length()
    label_bits = max(1, len(labels).bit_length())
    occurrence_bits = max(1, int(lengths.max(initial=1)).bit_length())
    if 2 * char_bits + occurrence_bits + label_bits > KEY_BITS:  # an alphabet, label count and length to match
        return None
    pairs = ((chars[:-1] << char_bits) | chars[1:])[follows]
    # sorted by (bigram, label), a run of equal pairs counts a label's repeats of a bigram up from 1
    pairs = np.sort((pairs << label_bits) | owner[:-1][follows])
    new_run = np.diff(pairs, prepend=-1) != 0
    run_start = np.maximum.accumulate(np.where(new_run, np.arange(len(pairs)), 0))
    occurrence = np.arange(len(pairs)) - run_start + 1
    holders = pairs & ((1 << label_bits) - 1)
    keyed = np.sort((((((pairs >> label_bits) << occurrence_bits) | occurrence)) << label_bits) | holders)
    keys = keyed >> label_bits
    starts = np.flatnonzero(np.diff(keys, prepend=-1))
    return Bigrams(alphabet, char_bits, occurrence_bits, keys[starts], np.append(starts, len(keys)),
                   keyed & ((1 << label_bits) - 1))


def length_window(length: int, cutoff: float) -> tuple[int, int]:
    """The label lengths (lowest, highest) that can score `cutoff` against a span of `length` characters:
    fuzz.ratio is 100 x (1 - indel distance / (l1 + l2)) and the distance is at least |l1 - l2|."""
    share = 1 - cutoff / 100  # |l1 - l2| <= share x (l1 + l2)
    low = int(np.ceil(length * (1 - share) / (1 + share) - 1e-9))
    high = int(np.floor(length * (1 + share) / (1 - share) + 1e-9)) if share < 1 else 1 << 30
    return low, high


def shared_bigrams(length: int, cutoff: float) -> int:
    """The fewest bigrams (with repeats) that a span of `length` characters shares with any label that scores `cutoff`
    against it. A label within the cutoff is at most d = share x (l1 + l2) insertions and deletions away, so at most d
    edits (Levenshtein), and strings k edits apart share at least max(l1, l2) - 1 - 2k bigrams (the q-gram lemma,
    Ukkonen 1992, q = 2). Zero or less: the bigrams rule nothing out."""
    share = 1 - cutoff / 100
    longest = length_window(length, cutoff)[1]
    if share >= 1 or longest >= 1 << 30:
        return 0
    return length - 1 - 2 * int(share * (length + longest) + 1e-9)


def best_labels(spans: list[str], table: ByLength, cutoff: float, filter_from: int = FILTER_FROM
                ) -> list[tuple[float, list[int]] | None]:
    """For each span: (best fuzz.ratio at or above `cutoff`, the indices of the labels scoring it, at most MAX_TIES,
    lowest first), or None when no label reaches the cutoff. The same as process.extract(span, labels,
    scorer=fuzz.ratio, score_cutoff=cutoff, limit=MAX_TIES) keeping its best-scored hits, for a fraction of the cost:
    only the labels whose length can reach the cutoff are scored, and of those, where the span is long enough for
    the bound to say anything and its window holds at least `filter_from` labels, only the ones sharing enough bigrams
    with it; the spans left share cdist calls. (Over 2Wiki's 36,000 labels most windows hold more than FILTER_FROM,
    over HotpotQA's 7,500 fewer: there the per-span numpy work of the filter cost more than scoring every label in
    one batched cdist, 0.4 -> 0.6-0.9 ms a question.)"""
    out: list[tuple[float, list[int]] | None] = [None] * len(spans)
    unfiltered = []
    for i, span in enumerate(spans):
        need = shared_bigrams(len(span), cutoff)
        low, high = length_window(len(span), cutoff)
        lo, hi = bisect.bisect_left(table.lengths, low), bisect.bisect_right(table.lengths, high)
        if need <= 0 or table.bigrams is None or hi - lo < filter_from:
            unfiltered.append(i)
            continue
        candidates = _sharing(span, table.bigrams, lo, hi, need)
        if len(candidates):
            scores = process.cdist([span], [table.labels[k] for k in candidates], scorer=fuzz.ratio,
                                   score_cutoff=cutoff, dtype=np.float64)[0]
            out[i] = _best(scores, table.index[candidates], cutoff)
    order = sorted(unfiltered, key=lambda i: len(spans[i]))
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
            out[i] = _best(row, table.index[lo:hi], cutoff)
    return out


def _sharing(span: str, index: Bigrams, lo: int, hi: int, need: int) -> np.ndarray:
    """Positions in [lo, hi) of the labels that share at least `need` numbered bigrams with `span`."""
    if lo >= hi:
        return EMPTY
    keys = np.array(index.keys_of(span), dtype=np.int64)
    found = np.searchsorted(index.keys, keys)
    parts = []
    for key, k in zip(keys.tolist(), found.tolist()):
        if k < len(index.keys) and index.keys[k] == key:
            holders = index.postings[index.starts[k]:index.starts[k + 1]]
            parts.append(holders[np.searchsorted(holders, lo):np.searchsorted(holders, hi)])
    if not parts:
        return EMPTY
    counts = np.bincount(np.concatenate(parts) - lo, minlength=hi - lo)
    return np.flatnonzero(counts >= need) + lo


def _best(scores: np.ndarray, indices: np.ndarray, cutoff: float) -> tuple[float, list[int]] | None:
    """The best score at or above `cutoff` and the lowest MAX_TIES label indices that have it."""
    best = scores.max()
    if best < cutoff or best <= 0:
        return None
    tied = np.sort(indices[np.flatnonzero(scores == best)])[:MAX_TIES]
    return float(best), [int(k) for k in tied]
