"""General lexical knowledge for relation words: WordNet's synonyms, derivations, hypernyms and antonyms, read in
place from the installed database (Debian's `wordnet-base`); without it, no related words and one log line."""

from __future__ import annotations

import functools
import logging
import mmap
import os
import threading
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)

WORDNET_DIRS = ("/usr/share/wordnet", "/usr/local/share/wordnet", "/opt/homebrew/share/wordnet")
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "s": "adj", "r": "adv"}
SENSES = 3  # a word's most frequent senses (WordNet lists them by frequency): rarer ones relate it to too much
SYNONYM = 0.85  # a word of the same synset ("spouse" ~ "mate")
DERIVED = 0.85  # a derivationally related form ("writer" ~ "write", "actor" ~ "act")
HYPERNYMS = (0.8, 0.7)  # a more general word, one and two levels up ("father" -> "parent", "screenwriter" ->
# "scriptwriter" -> "writer")
COLLOCATION_HEAD = 0.5  # the last word of a related collocation ("half" ~ "better half")
MAX_WORD = 40  # longer "words" are not looked up
# WordNet's own detachment rules (morph(7WN)): inflected ending -> lemma ending, per part of speech
DETACH = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}


def wordnet_dir() -> Path | None:
    """The folder holding WordNet's index.* and data.* files: ATTEST_WORDNET_DIR, else the usual install places."""
    configured = os.environ.get("ATTEST_WORDNET_DIR")
    for folder in ([configured] if configured else WORDNET_DIRS):
        if folder and (Path(folder) / "index.noun").is_file() and (Path(folder) / "data.noun").is_file():
            return Path(folder)
    return None


class WordNet:
    """Lemmas, their senses and the synsets' words and pointers, from the database files in `folder`."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.exceptions: dict[tuple[str, str], list[str]] = {}  # (inflected form, pos) -> lemmas
        self._index = {}  # pos -> the index file, memory-mapped: searched in place (it is sorted), not loaded
        for pos in ("n", "v", "a", "r"):
            with open(folder / f"index.{POS_FILES[pos]}", "rb") as f:
                self._index[pos] = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
            exc = folder / f"{POS_FILES[pos]}.exc"
            if exc.is_file():
                for line in open(exc, encoding="utf-8", errors="replace"):
                    parts = line.split()
                    if len(parts) >= 2:
                        self.exceptions.setdefault((parts[0], pos), []).extend(parts[1:])
        self._data = {pos: open(folder / f"data.{name}", "rb") for pos, name in POS_FILES.items() if pos != "s"}
        self._lock = threading.Lock()

    @functools.lru_cache(maxsize=50_000)
    def entry(self, lemma: str, pos: str) -> tuple[tuple[int, ...], int] | None:
        """(synset offsets, most frequent first; senses seen in the tagged corpus) of a lemma, or None: a binary
        search of the sorted index file, as WordNet's own library does."""
        target = lemma.encode("utf-8", errors="replace")
        index = self._index[pos]
        lo, hi = 0, len(index)
        while lo < hi:
            mid = (lo + hi) // 2
            start = index.rfind(b"\n", 0, mid) + 1
            end = index.find(b"\n", start)
            end = len(index) if end < 0 else end
            line = index[start:end]
            key = line.split(b" ", 1)[0] if not line.startswith(b" ") else b""  # the licence lines come first
            if key < target:
                lo = end + 1
            elif key > target:
                hi = start
            else:
                parts = line.decode("utf-8", errors="replace").split()
                pointers, senses = int(parts[3]), int(parts[2])
                return tuple(int(o) for o in parts[6 + pointers:6 + pointers + senses]), int(parts[5 + pointers])
        return None

    def senses(self, lemma: str, pos: str) -> tuple[int, ...]:
        found = self.entry(lemma, pos)
        return found[0] if found else ()

    def tagged(self, lemma: str, pos: str) -> int:
        found = self.entry(lemma, pos)
        return found[1] if found else 0

    def lemmas(self, word: str) -> list[tuple[str, str]]:
        """(lemma, pos) of every base form of `word` WordNet knows ("wrote" -> write/v; "parents" -> parent/n)."""
        out = []
        for pos in ("n", "v", "a", "r"):
            candidates = [word, *self.exceptions.get((word, pos), ())]
            candidates += [word[: len(word) - len(end)] + base for end, base in DETACH[pos] if word.endswith(end)]
            for lemma in dict.fromkeys(candidates):
                if (lemma, pos) not in out and self.entry(lemma, pos) is not None:
                    out.append((lemma, pos))
        return out

    @functools.lru_cache(maxsize=50_000)
    def synset(self, pos: str, offset: int) -> tuple[tuple[str, ...], tuple[tuple[str, str, int, int, int], ...]]:
        """(words, pointers) of a synset; a pointer is (symbol, pos, offset, source word, target word), the word
        numbers 0 for a pointer between whole synsets."""
        with self._lock:
            f = self._data["a" if pos == "s" else pos]
            f.seek(offset)
            parts = f.readline().decode("utf-8", errors="replace").split(" | ")[0].split()
        count = int(parts[3], 16)
        words = tuple(parts[4 + 2 * i].lower().split("(")[0] for i in range(count))
        at = 4 + 2 * count
        pointers = []
        for i in range(int(parts[at])):
            symbol, target, target_pos, numbers = parts[at + 1 + 4 * i: at + 5 + 4 * i]
            pointers.append((symbol, target_pos, int(target), int(numbers[:2], 16), int(numbers[2:], 16)))
        return words, tuple(pointers)


_WORDNET: list[WordNet | None] = []  # [WordNet or None], loaded once
_LOADING = threading.Lock()


def wordnet() -> WordNet | None:
    """The installed WordNet, loaded on first use; None (logged once) when it is not installed."""
    if not _WORDNET:
        with _LOADING:
            if not _WORDNET:
                folder = wordnet_dir()
                if folder is None:
                    log.warning("WordNet not found (install Debian's wordnet-base or set ATTEST_WORDNET_DIR): "
                                "relation words match predicates by spelling only")
                    _WORDNET.append(None)
                else:
                    try:
                        _WORDNET.append(WordNet(folder))
                    except (OSError, ValueError, IndexError) as error:
                        log.warning("WordNet at %s unreadable (%s): relation words match predicates by spelling only",
                                    folder, error)
                        _WORDNET.append(None)
    return _WORDNET[0]


def reset() -> None:
    """Forget the loaded WordNet (tests point ATTEST_WORDNET_DIR elsewhere)."""
    with _LOADING:
        _WORDNET.clear()
        related.cache_clear()
        noun_opposites.cache_clear()
        mostly_verb.cache_clear()
        is_kind_of.cache_clear()


@functools.lru_cache(maxsize=20_000)
def related(word: str, general: bool = False) -> dict[str, float]:
    """Lemma -> weight of the words `word` relates to: its own lemmas (1.0), the other words of its most frequent
    senses, their derivationally related forms and, with `general`, their hypernyms (the question's "father"
    reaches a predicate's "parent"; not the other way round). Collocations keep WordNet's underscores."""
    wn = wordnet() if 0 < len(word) <= MAX_WORD else None
    if wn is None:
        return {}
    out: dict[str, float] = {}

    def add(lemma: str, weight: float) -> None:
        if weight > out.get(lemma, 0.0):
            out[lemma] = weight

    for lemma, pos in wn.lemmas(word):
        add(lemma, 1.0)
        for offset in wn.senses(lemma, pos)[:SENSES]:
            words, pointers = wn.synset(pos, offset)
            own = words.index(lemma) + 1 if lemma in words else 0
            for w in words:
                add(w, SYNONYM)
            for symbol, target_pos, target, source, target_word in pointers:
                if symbol == "+" and source in (0, own):  # derived from this word (or the whole synset)
                    forms, further = wn.synset(target_pos, target)
                    for w in (forms[target_word - 1:target_word] if target_word else forms):
                        add(w, DERIVED)
                    if target_pos in ("a", "s"):  # "nationality" -> "national", which pertains to "nation"
                        for symbol2, pos2, target2, _, word2 in further:
                            if symbol2 == "\\":
                                nouns, _ = wn.synset(pos2, target2)
                                for w in (nouns[word2 - 1:word2] if word2 else nouns):
                                    add(w, DERIVED * DERIVED)
                elif general and symbol in ("@", "@i") and pos in ("n", "v"):
                    _hypernyms(wn, target_pos, target, 0, add)
    return out


def _hypernyms(wn: WordNet, pos: str, offset: int, level: int, add: Callable[[str, float], None]) -> None:
    words, pointers = wn.synset(pos, offset)
    for w in words:
        add(w, HYPERNYMS[level])
    if level + 1 < len(HYPERNYMS):
        for symbol, target_pos, target, _, _ in pointers:
            if symbol in ("@", "@i"):
                _hypernyms(wn, target_pos, target, level + 1, add)


@functools.lru_cache(maxsize=20_000)
def noun_opposites(word: str) -> frozenset[str]:
    """Lemmas WordNet gives as antonyms of `word`'s most frequent noun senses ("parent" -> "child"): the nouns a
    relation read backwards is named by (an adjective's antonym, "written" -> "spoken", is no inverse)."""
    wn = wordnet() if 0 < len(word) <= MAX_WORD else None
    if wn is None:
        return frozenset()
    out: set[str] = set()
    for lemma, pos in wn.lemmas(word):
        if pos != "n":
            continue
        for offset in wn.senses(lemma, pos)[:SENSES]:
            words, pointers = wn.synset(pos, offset)
            own = words.index(lemma) + 1 if lemma in words else 0
            for symbol, target_pos, target, source, target_word in pointers:
                if symbol == "!" and source in (0, own):
                    forms, _ = wn.synset(target_pos, target)
                    out.update(forms[target_word - 1:target_word] if target_word else forms)
    return frozenset(out)


@functools.lru_cache(maxsize=20_000)
def mostly_verb(word: str) -> bool:
    """Whether a word WordNet reads both ways ("uses", "parents") is more often a verb than a noun in its tagged corpus."""
    wn = wordnet() if 0 < len(word) <= MAX_WORD else None
    if wn is None:
        return False
    verbs = [wn.tagged(lemma, "v") for lemma, pos in wn.lemmas(word) if pos == "v"]
    nouns = [wn.tagged(lemma, "n") for lemma, pos in wn.lemmas(word) if pos == "n"]
    return bool(verbs) and max(verbs) > max(nouns, default=0)


@functools.lru_cache(maxsize=20_000)
def is_kind_of(word: str, kind: str, depth: int = 8) -> bool:
    """Whether one of `word`'s most frequent noun senses has `kind` among its hypernyms, `depth` levels up
    ("director" -> administrator -> head -> leader -> person)."""
    wn = wordnet() if 0 < len(word) <= MAX_WORD else None
    if wn is None:
        return False
    frontier = [(pos, o) for lemma, pos in wn.lemmas(word) if pos == "n" for o in wn.senses(lemma, pos)[:SENSES]]
    # an instance (a proper name: "Carry Nation" is a person) says nothing of the common word
    frontier = [(pos, o) for pos, o in frontier if not any(p[0] == "@i" for p in wn.synset(pos, o)[1])]
    seen = set(frontier)
    for _ in range(depth):
        following = []
        for pos, offset in frontier:
            words, pointers = wn.synset(pos, offset)
            if kind in words:
                return True
            following += [(p, o) for symbol, p, o, _, _ in pointers if symbol == "@" and (p, o) not in seen]
        seen.update(following)
        frontier = following
    return False


def similarity(question: dict[str, float], predicate: dict[str, float]) -> float:
    """0-1: how closely a question word's related words (`related(w, general=True)`) meet a predicate word's
    (`related(w)`): the best product of weights over the lemmas they share, or a question word that is the last word
    of a predicate word's collocation ("other half" ~ "better half")."""
    best = 0.0
    small, large = (question, predicate) if len(question) <= len(predicate) else (predicate, question)
    for lemma, weight in small.items():
        other = large.get(lemma)
        if other is not None:
            best = max(best, weight * other)
    if best < COLLOCATION_HEAD:
        heads = {lemma for lemma, w in question.items() if w == 1.0}
        for lemma, weight in predicate.items():
            if "_" in lemma and lemma.rsplit("_", 1)[1] in heads:
                best = max(best, COLLOCATION_HEAD * weight)
    return best
