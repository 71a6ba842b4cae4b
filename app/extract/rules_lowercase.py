"""Lower-case technical names for the rule extractor: cue words around a lower-case token ("uses etcd", "redis, a store").

Interface (used by app.extract.rules only):
    candidates(doc, taken, words, space) -> [(start, end)] lower-case tokens that could be names ("etcd", "node.js",
                                           "scikit-learn"), never stop words, URLs, paths or tokens in `taken`
    cue_before(doc, start, floor)       -> (ontology label, confidence) named by the words before, or None:
                                           uses / written in / stored in / built on / install / import X
    modifies_next(doc, end)             -> True when a lower-case content word follows ("uses quorum reads"): X is
                                           then a modifier, not the thing the cue names
    HEADS                               -> head nouns beyond the ontology's class labels that say what a name is
                                           ("X, a key-value store", "X is a command-line utility", "the X module")
Whether the token is a common English word (and so needs more than a cue) is decided by the caller with
rules_lexicon.word_like / is_common.
"""

from __future__ import annotations

import re

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

# ontology labels (normalized by the caller) for nouns that head a description of a technical name
HEADS = {
    "store": "database", "cache": "database", "datastore": "database",
    "engine": "software", "server": "software", "editor": "software", "client": "software", "compiler": "software",
    "interpreter": "software", "runtime": "software", "shell": "software", "debugger": "software", "linter": "software",
    "formatter": "software", "bundler": "software", "scheduler": "software", "orchestrator": "software",
    "broker": "software", "proxy": "software", "daemon": "software", "utility": "software", "application": "software",
    "app": "software", "cli": "software", "command": "software", "module": "library", "toolkit": "library",
    "sdk": "library", "format": "data format", "protocol": "standard",
}
USE = frozenset({"uses", "use", "using"})
WRITTEN = frozenset({"written", "implemented", "coded", "programmed", "scripted"})
STORED = frozenset({"store", "stores", "stored", "storing", "keep", "keeps", "kept", "keeping", "persist", "persists",
                    "persisted", "save", "saves", "saved", "cache", "caches", "cached", "load", "loads", "loaded"})
BUILT = frozenset({"built", "based", "runs", "run", "running", "relies", "rely", "depends", "depend"})
INSTALL = frozenset({"install", "installs", "installed", "installing", "reinstall", "uninstall"})
NAME = re.compile(r"[a-z][a-z0-9]*(?:[._+#][a-z0-9]+)*\+*#?")
GLUE = frozenset({"/", ".", "@", "~", "$", "-", "--", "\\", ":", "_"})


def _name_token(doc: Doc, words: list[str], space: list[bool], i: int) -> bool:
    word = words[i]
    if not NAME.fullmatch(word) or word in STOP_WORDS or ("." in word and (doc[i].like_url or doc[i].like_email)):
        return False
    glued_before = i > 0 and not space[i - 1] and words[i - 1] in GLUE  # /usr/bin, .py, @user
    glued_after = i + 1 < len(words) and not space[i] and words[i + 1] in {"/", "\\", "(", "@", "="}
    return not glued_before and not glued_after


def candidates(doc: Doc, taken: set[int], words: list[str], space: list[bool]) -> list[tuple[int, int]]:
    """`words` and `space`: each token's text and whether whitespace follows it (plain lists: a Doc index is slow)."""
    spans: list[tuple[int, int]] = []
    n, i = len(words), 0
    while i < n:
        if i in taken or not _name_token(doc, words, space, i):
            i += 1
            continue
        j = i + 1
        while j + 1 < n and words[j] == "-" and not space[j - 1] and not space[j] \
                and j + 1 not in taken and NAME.fullmatch(words[j + 1]):
            j += 2  # scikit-learn, key-value
        spans.append((i, j))
        i = j
    return spans


def cue_before(doc: Doc, start: int, floor: int) -> tuple[str, float] | None:
    """What the words right before a lower-case token, within its sentence, say it is."""
    words = [t.lower_ for t in doc[max(floor, start - 6):start]]
    if not words:
        return None
    last, prior = words[-1], words[:-1]
    if last in USE:
        return "technology", 0.7
    if last in INSTALL:
        return "software", 0.75
    if last == "import" or (last == "from" and start + 1 < len(doc) and doc[start + 1].lower_ == "import"):
        return "library", 0.8
    if last in {"in", "into"} and prior:
        if prior[-1] in WRITTEN or (len(prior) > 1 and prior[-1].endswith("ly") and prior[-2] in WRITTEN):
            return "language", 0.8  # written in ocaml, implemented entirely in zig
        if any(w in STORED for w in prior[-5:]):
            return "database", 0.75  # stores its state in redis
    if (last in {"on", "with"} and prior and prior[-1] in BUILT) or words[-4:] == ["built", "on", "top", "of"]:
        return "technology", 0.7
    return None


def modifies_next(doc: Doc, end: int) -> bool:
    if end >= len(doc):
        return False
    nxt = doc[end]
    return bool(doc[end - 1].whitespace_) and nxt.is_alpha and nxt.text[0].islower() and not nxt.is_stop
