"""Lower-case technical names for the rule extractor: cue words around a lower-case token ("uses etcd", "redis, a store").

Interface (used by attest.extract.rules only):
    candidates(doc, taken, words, space) -> [(start, end)] lower-case tokens that could be names ("etcd", "node.js",
                                           "scikit-learn"), never stop words, URLs, paths or tokens in `taken`
    cue_before(doc, start, floor)       -> (ontology label, confidence) named by the words before, or None:
                                           uses / written in / stored in / built on / install / import X
    modifies_next(doc, end)             -> True when a lower-case content word follows ("uses quorum reads"): X is
                                           then a modifier, not the thing the cue names
    LowercaseNames                      -> the RuleExtractor's lower-case pass (a mixin: it reads the extractor's
                                           known labels, heads and cue methods)
    HEADS                               -> head nouns beyond the ontology's class labels that say what a name is
                                           ("X, a key-value store", "X is a command-line utility", "the X module")
Whether a token is a common English word, and so needs to be a known label as well as beside a cue, is
rules_lexicon.word_like (spaCy's stop words, attest/extract/data/common_words.txt, plurals and inflections).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from spacy.lang.en.stop_words import STOP_WORDS
from spacy.tokens import Doc

from attest.extract import rules_lexicon as lex
from attest.extract.token_table import tokens

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
Found = tuple[int, int, str, "str | None", float, bool]  # start, end (tokens), text, type, confidence, known label
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
    table = tokens(doc)
    words = table.lower[max(floor, start - 6):start]
    if not words:
        return None
    last, prior = words[-1], words[:-1]
    if last in USE:
        return "technology", 0.7
    if last in INSTALL:
        return "software", 0.75
    if last == "import" or (last == "from" and start + 1 < table.n and table.lower[start + 1] == "import"):
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
    table = tokens(doc)
    if end >= table.n:
        return False
    return table.space[end - 1] and table.alpha[end] and table.words[end][0].islower() and not table.stop[end]


class LowercaseNames:
    """Lower-case mentions for RuleExtractor (mixed into it; uses its known labels, _heads, _type, _cue_after and
    _prose_type)."""

    # what the host class provides (declared only: no value or method is set here)
    known: dict[str, str]  # known label -> ontology type
    _known_folded: dict[str, str]  # casefolded known label -> known label
    _heads: dict[str, str]  # head noun -> ontology type
    _type: Callable[[str], str | None]  # an ontology label -> its class's local name
    _cue_after: Callable[[Doc, int, int], str | None]  # type named right after tokens start:end
    _prose_type: Callable[[str], bool]  # a class of encyclopedic prose's names (person, organization, place, ...)

    def _lowercase(self, doc: Doc, taken: set[int]) -> list[Found]:
        """Lower-case names: a known label that is a common word ("rust") beside a cue, or a word that is not common
        English beside one ("uses etcd", "stored in redis", "mongodb, a document database"); then the other mentions
        of the latter in the text ("etcd" again, without a cue), and names listed after one ("uses etcd, consul and zk")."""
        found: list[Found] = []
        accepted: dict[str, tuple[str | None, float]] = {}
        waiting: list[tuple[int, int, str]] = []
        previous: tuple[int, tuple[str | None, float]] | None = None  # end and cue of the last cued token
        table = tokens(doc)
        words, space = table.words, table.space
        spans = candidates(doc, taken, words, space)
        folded = ["".join(words[start:end]).casefold() for start, end in spans]  # compounds hold no spaces

        def listed(end: int, start: int) -> bool:
            return end <= start and " ".join(words[end:start]).lower() in lex.COORDINATION

        # cues are read only in lists ("uses memory, disk and etcd") that hold a known label or an unlisted word
        linked = [k > 0 and listed(spans[k - 1][1], spans[k][0]) for k in range(len(spans))]
        wanted = [False] * len(spans)
        chain: list[int] = []
        for k in range(len(spans) + 1):
            if k == len(spans) or not linked[k]:
                if any(f in self._known_folded or not lex.word_like(f) for f in (folded[i] for i in chain)):
                    for i in chain:
                        wanted[i] = True
                chain = []
            if k < len(spans):
                chain.append(k)
        cues = [self._lower_cue(doc, start, end) if want else None for (start, end), want in zip(spans, wanted)]
        for k in range(len(spans) - 2, -1, -1):  # "numpy and scipy are libraries": the cue of a list's last name
            if cues[k] is None and cues[k + 1] is not None and linked[k + 1]:
                cues[k] = cues[k + 1]
        for (start, end), cue, fold in zip(spans, cues, folded):
            text = "".join(words[start:end])
            known = self._known_folded.get(fold)
            mention: Found
            if cue is None and previous is not None and listed(previous[0], start):
                cue = previous[1]  # "uses etcd, consul and zookeeper"; "such as express and lodash"
            if cue is not None:
                previous = (end, cue)
            if known is not None and cue is not None:
                mention = (start, end, text, self.known[known], 0.9, True)
            elif cue is not None and cue[0] and not lex.word_like(fold):
                mention = (start, end, text, *cue, False)
                accepted.setdefault(fold, cue)
            else:
                waiting.append((start, end, fold))
                continue
            found.append(mention)
        found.extend((s, e, "".join(words[s:e]), *accepted[f], False) for s, e, f in waiting if f in accepted)
        return found

    def _lower_cue(self, doc: Doc, start: int, end: int) -> tuple[str | None, float] | None:
        """Type and confidence a cue gives a lower-case token: the apposition or copula if any, else the words before.
        A cue of the kinds of encyclopedic prose names none: people, organizations, places, works and events are
        written with capitals ("the skiing club", "the high school" name no "skiing" or "high")."""
        if type_name := self._cue_after(doc, start, end):
            return None if self._prose_type(type_name) else (type_name, 0.85)
        table = tokens(doc)
        if (cue := cue_before(doc, start, table.sentence_of[start])) and not modifies_next(doc, end):
            return self._type(cue[0]), cue[1]
        lower = table.lower
        if start >= 3 and table.text_of(start - 2, start).lower() == "such as" and (t := self._plural_head(lower[start - 3])):
            return t, 0.8  # "packages such as lodash"
        if end < table.n and lower[end] in {"are", "were"}:
            for k in range(end + 1, min(end + 5, table.n)):  # "scipy are (popular) libraries"
                if (t := self._plural_head(lower[k])) and lower[k].endswith("s"):
                    return t, 0.8
                if not (table.alpha[k] or table.words[k] == "-"):
                    break
        return None

    def _plural_head(self, word: str) -> str | None:
        for stem in (word, word[:-1], word[:-2], word[:-3] + "y"):
            if stem in self._heads and (stem == word or word.endswith(("s", "es", "ies"))):
                return self._heads[stem]
        return None
