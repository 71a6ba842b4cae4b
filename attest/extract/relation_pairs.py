"""Candidate entity pairs of a chunk and the features the relation model reads: same-sentence, topic and country pairs.

Interface (used by RuleExtractor and by bench/train_relations.py, so that training and extraction see the same pairs):

    pairs = candidate_pairs(doc, mentions)   # [Candidate]: a (earlier) and b (later) mention, features, sentence span
    topic = chunk_topic(doc, mentions)       # the mention the chunk is about (also read by the date attributes)

Three kinds of candidate:
  * two mentions of one sentence, at most MAX_GAP tokens apart: the words between them, around them, their types;
  * the chunk's topic (the first name of its first prose sentence, "Wilfried Schneider (born ...) is a German
    skeleton racer") and each name of a later sentence: how that sentence opens ("He was born in", "The band"),
    the words before the name, the distance in sentences. Encyclopedic prose states most facts about its topic
    in sentences that name it only by a pronoun;
  * a country-like name ("Norway", "Norwegian") and each name of another sentence: one candidate per pair of
    names, at their nearest sentences (the country of the places and bodies a text names around it).
Topic and country pairs also read how much the chunk is about the other name (_Salience: how often it is named, in
which sentence first); same-sentence pairs the commas between the names and the type pair with a bracket; topic
pairs the type pair with the words after a pronoun.
A line that does not end a sentence (a heading, the document's title) is a segment of its own and takes part in
no pair: its names are labels, not statements.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from attest.extract import rules_lexicon as lex
from attest.extract.mentions import Mention
from attest.extract.token_table import tokens


MAX_GAP = 30  # tokens between two mentions of one sentence
MAX_GAP_WORDS = 20  # words of a long gap read as a bag
DEMONYM_ENDINGS = ("an", "ese", "ish", "ic", "i")
PRONOUNS = {"he", "she", "it", "they", "his", "her", "its", "their"}


@dataclass
class Candidate:
    a: Mention  # the earlier mention
    b: Mention
    features: list[str]
    start_char: int  # the sentence that states it (the later mention's sentence)
    end_char: int


def _bucket(n: int, edges: tuple[int, ...]) -> str:
    for edge in edges:
        if n <= edge:
            return str(edge)
    return f">{edges[-1]}"


def segments(doc) -> list[tuple[int, int, bool]]:
    """(start token, end token, is_prose) of each sentence, cut again at line breaks; a segment is prose when its
    last token ends a sentence (. ! ? or a closing quote or bracket after one)."""
    table = tokens(doc)
    out: list[tuple[int, int, bool]] = []
    for sent_start, sent_end in table.sentences:
        start = sent_start
        for i in range(sent_start, sent_end):
            if table.blank[i] and "\n" in table.words[i]:  # a blank line of its own token
                out.append((start, i, False))
                start = i + 1
            # a token's whitespace is one space or none (more is a token of its own): no line ends after it
        out.append((start, sent_end, True))
    return [(s, e, prose and _ends_sentence(table.words, s, e)) for s, e, prose in out if e > s]


def _ends_sentence(words: list[str], start: int, end: int) -> bool:
    for word in reversed(words[start:end]):
        if word in {'"', "'", ")", "”", "’"}:
            continue
        return word in {".", "!", "?"} or word.endswith(".")
    return False


def _mention_features(prefix: str, m, lower: list[str]) -> list[str]:
    """What a name is: its type, head word, length, the name itself (a learnt gazetteer), a listed place's kind,
    a demonym's ending ("German", "Canadian": nationality and country facts), a known first name."""
    head = lower[m.end - 1]
    f = [f"{prefix}t={m.type}", f"{prefix}h={head}", f"{prefix}n={min(m.end - m.start, 4)}", f"{prefix}x={m.text.lower()}"]
    if kind := lex.places().get(m.text):
        f.append(f"{prefix}p={kind}")
    if m.end - m.start == 1 and head.endswith(DEMONYM_ENDINGS):
        f.append(f"{prefix}dem={head[-3:]}")
    if m.text.split()[0] in lex.first_names():
        f.append(f"{prefix}fn")
    return f


class _NameFeatures:
    """_mention_features of each (prefix, mention) of one chunk, built once (a name takes part in many pairs)."""

    def __init__(self, lower: list[str]) -> None:
        self.lower = lower
        self.memo: dict[tuple[str, int], list[str]] = {}

    def __call__(self, prefix: str, m) -> list[str]:
        key = (prefix, id(m))
        found = self.memo.get(key)
        if found is None:
            found = self.memo[key] = _mention_features(prefix, m, self.lower)
        return found


def chunk_topic(doc, mentions: list) -> Mention | None:
    """The chunk's topic: the first name of its first prose sentence that shares a word with a title or heading line
    above it, else the name opening that sentence; None when neither is there."""
    segs = segments(doc)
    return _topic(tokens(doc), segs, _by_segment(segs, mentions))[0]


def _by_segment(segs: list[tuple[int, int, bool]], mentions: list) -> list[list]:
    """The mentions of each segment, in text order."""
    by_seg: list[list] = [[] for _ in segs]
    k = 0
    for m in sorted(mentions, key=lambda m: m.start):
        while k < len(segs) and segs[k][1] <= m.start:
            k += 1
        if k < len(segs) and segs[k][0] <= m.start:
            by_seg[k].append(m)
    return by_seg


def _topic(table, segs: list[tuple[int, int, bool]], by_seg: list[list]) -> tuple[Mention | None, int | None]:
    """The topic mention and its segment (see chunk_topic)."""
    lower = table.lower
    title_words: set[str] = set()
    for k, (s, e, prose) in enumerate(segs):
        if not prose:
            title_words.update(lower[i] for i in range(s, e) if table.alpha[i] and table.words[i][0].isupper())
            continue
        if by_seg[k]:
            # the first name of the first sentence that shares a word with the title, else one opening the sentence
            named = [m for m in by_seg[k] if title_words & set(lower[m.start:m.end])]
            first = named[0] if named else by_seg[k][0]
            if named or first.start - s <= 1:
                return first, k
        break
    return None, None


def candidate_pairs(doc, mentions: list) -> list[Candidate]:
    """Every candidate pair of the chunk, in text order of the later mention."""
    table = tokens(doc)
    lower = table.lower
    segs = segments(doc)
    features = _NameFeatures(lower)
    by_seg = _by_segment(segs, mentions)
    out: list[Candidate] = []
    topic, topic_seg = _topic(table, segs, by_seg)
    salience = _Salience(segs, by_seg)
    for k, (s, e, prose) in enumerate(segs):
        if not prose:
            continue
        span = (table.start_char(s), table.end_char(e))
        ms = by_seg[k]
        for i, a in enumerate(ms):
            for j in range(i + 1, len(ms)):
                b = ms[j]
                if b.start - a.end > MAX_GAP:
                    break
                if b.text == a.text or b.start < a.end:
                    continue
                out.append(Candidate(a, b, _same_sentence(a, b, ms[i + 1:j], lower, s, e, topic, k == topic_seg, features), *span))
        if topic is not None and topic_seg is not None and k > topic_seg:  # set together
            for b in ms:
                if b.text != topic.text:
                    f = _from_topic(topic, b, k - topic_seg, lower, s, features)
                    out.append(Candidate(topic, b, f + salience("X", b, "b", k), *span))
    out += _country_pairs(doc, by_seg, segs, lower, topic, {frozenset((c.a.text, c.b.text)) for c in out}, features,
                          salience)
    return out


class _Salience:
    """How much the chunk is about a name, as features of a candidate: how often the prose names it, in which
    prose sentence first, and (`k`: the candidate's segment) whether this is its first sentence. An often-named or
    early name is what the text's facts are about; a name first met late is most often a passing one."""

    def __init__(self, segs: list[tuple[int, int, bool]], by_seg: list[list]) -> None:
        self.count: Counter[str] = Counter()
        self.first: dict[str, int] = {}  # the prose sentence (counted from 0) that first names it
        self.first_seg: dict[str, int] = {}  # and its segment
        n = 0
        for k, ms in enumerate(by_seg):
            if not segs[k][2]:
                continue
            for m in ms:
                self.count[m.text] += 1
                self.first.setdefault(m.text, n)
                self.first_seg.setdefault(m.text, k)
            n += 1

    def __call__(self, kind: str, m: Mention, role: str, k: int | None = None) -> list[str]:
        count, first = self.count[m.text], self.first.get(m.text, 0)
        f = [f"{kind}{role}c={_bucket(count, (1, 2, 3, 5))}", f"{kind}{role}1={_bucket(first, (0, 1, 2, 4))}",
             f"{kind}{role}c|t={_bucket(count, (1, 2, 4))}|{m.type}"]
        if k is not None:
            f.append(f"{kind}{role}new" if self.first_seg.get(m.text, k) >= k else f"{kind}{role}old")
        return f


def _country_like(m: Mention) -> bool:
    """A country's name or its demonym ("Norway", "Norwegian"): the country of most places and bodies named nearby."""
    if m.type == "Country" or lex.places().get(m.text) == "country":
        return True
    return m.end - m.start == 1 and m.text[:1].isupper() and m.text.lower().endswith(DEMONYM_ENDINGS)


def _country_pairs(doc, by_seg: list[list], segs: list[tuple[int, int, bool]], lower: list[str], topic,
                   taken: set[frozenset[str]], features: _NameFeatures, salience: _Salience) -> list[Candidate]:
    """Each country-like name and each name of another sentence of the chunk not yet paired with it (one candidate
    per pair of names, at their nearest sentences): a country is stated once and holds for what the text names
    around it (Re-DocRED's P17 and P131 chains)."""
    prose = [(k, m) for k, ms in enumerate(by_seg) if segs[k][2] for m in ms if m.type is not None]
    countries = [(k, m) for k, m in prose if _country_like(m)]
    if not countries:
        return []
    names = Counter(m.text for _, m in countries)
    ranked = [name for name, _ in names.most_common()]
    first_prose = min(k for k, _ in prose)
    best: dict[frozenset[str], tuple[int, int, Mention, int, Mention]] = {}
    for kc, c in countries:
        for km, m in prose:
            key = frozenset((c.text, m.text))
            if km == kc or m.text == c.text or key in taken:
                continue
            distance = abs(km - kc)
            if key not in best or distance < best[key][0]:
                best[key] = (distance, kc, c, km, m)
    out = []
    country_segs: dict[int, set[str]] = {}
    for k, c in countries:
        country_segs.setdefault(k, set()).add(c.text)
    nearest_country: dict[int, str] = {}  # by sentence: the country named nearest (the earliest of a tie)
    for distance, kc, c, km, m in best.values():
        if km not in nearest_country:
            nearest_country[km] = min(countries, key=lambda kx: (abs(kx[0] - km), kx[1].start))[1].text
        later = max(kc, km)
        s, e, _ = segs[later]
        span = (tokens(doc).start_char(s), tokens(doc).end_char(e))
        nearest = nearest_country[km] == c.text
        own = country_segs.get(km, set()) - {c.text, m.text}  # another country named in m's own sentence
        sd = _bucket(distance, (1, 2, 3, 5))
        f = ["C", "Cd=" + sd, "Cn=" + _bucket(len(names), (1, 2, 3)), "Crank=" + str(min(ranked.index(c.text), 2)),
             "Cnear" if nearest else "Cfar", "Cown" if own else "Cnone", f"Cc={c.type}", f"Ct={m.type}",
             f"Ct|n={m.type}|{_bucket(len(names), (1, 2, 3))}", f"Ct|near={m.type}|{nearest}|{bool(own)}"]
        if kc == first_prose:
            f.append("Cfirst")
        if topic is not None and m.text == topic.text:
            f.append("Cm-topic")
        ms, me, _ = segs[km]
        before, after = lower[max(ms, m.start - 2):m.start], lower[m.end:min(me, m.end + 2)]
        f += ["Cml=" + " ".join(before[-1:]), "Cml2=" + " ".join(before), "Cmr=" + " ".join(after[:1]),
              "Cmr2=" + " ".join(after), "Cmo=" + lower[ms], f"Ct|ml={m.type}|{' '.join(before[-1:])}"]
        f += [f"Kt={c.type}", f"Kx={c.text.lower()}"] + features("M", m) + salience("C", m, "m") + salience("C", c, "k")
        if kc == first_prose:
            f.append(f"Cfirst|t={m.type}")
        if own:
            f.append(f"Cown|t={m.type}")
        f.append(f"Cd|t={sd}|{m.type}")
        a, b = (c, m) if c.start < m.start else (m, c)
        out.append(Candidate(a, b, f, *span))
    return out


def _same_sentence(a: Mention, b: Mention, between: list[Mention], lower: list[str], s: int, e: int,
                   topic: Mention | None, first: bool, features: _NameFeatures) -> list[str]:
    gap = lower[a.end:b.start]
    distance = _bucket(len(gap), (0, 1, 2, 3, 5, 8, 12, 20))
    f = ["S", "d=" + distance, "m=" + _bucket(len(between), (0, 1, 2))]
    f.append("g=" + (" ".join(gap) if len(gap) <= 5 else "LONG"))
    words = gap if len(gap) <= MAX_GAP_WORDS else gap[:MAX_GAP_WORDS // 2] + gap[-MAX_GAP_WORDS // 2:]
    f.extend({"w=" + w for w in words})
    if gap:
        f += ["f=" + gap[0], "l=" + gap[-1]]
        if len(gap) > 1:
            f += ["f2=" + " ".join(gap[:2]), "l2=" + " ".join(gap[-2:])]
    f.append("ab=" + (lower[a.start - 1] if a.start > s else "^"))
    f.append("aa=" + (lower[b.end] if b.end < e else "$"))
    f += features("A", a) + features("B", b)
    types = f"{a.type}|{b.type}"
    f += ["tt=" + types, f"tt|d={types}|{distance}", f"tt|m={types}|{min(len(between), 2)}"]
    f.extend({"mt=" + str(m.type) for m in between})  # the kinds of name lying between
    if len(gap) <= 3:
        f.append(f"tt|g={types}|{' '.join(gap)}")
    if gap:
        f += [f"tt|f={types}|{gap[0]}", f"tt|l={types}|{gap[-1]}"]
    if first:
        f.append("first")  # the first sentence of the chunk defines its topic
    if topic is not None and b.text == topic.text:
        f.append("b-topic")
    commas = _bucket(gap.count(","), (0, 1, 2))
    f += ["cm=" + commas, f"tt|cm={types}|{commas}"]
    if "(" in gap and ")" not in gap:
        f += ["paren", f"tt|paren={types}"]  # "X (born in Y": b inside a parenthesis after a
    if a.start - s <= 1:
        f.append("a-opens")
    if topic is not None and a.text == topic.text:
        f.append("a-topic")
    return f


def _from_topic(topic, b, distance: int, lower: list[str], s: int, features: _NameFeatures) -> list[str]:
    before = lower[s:b.start]
    opener = lower[s] if s < len(lower) else "$"
    f = ["X", "sd=" + _bucket(distance, (1, 2, 3, 5)), "o=" + opener]
    f.append("pre=" + (" ".join(before) if len(before) <= 6 else "LONG"))
    f.extend({"xw=" + w for w in before[-8:]})
    if before:
        f.append("xl=" + before[-1])
        if len(before) > 1:
            f.append("xl2=" + " ".join(before[-2:]))
    types = str(topic.type) + "|" + str(b.type)
    if opener in PRONOUNS:
        f.append("pron")
        f.append("pron|" + " ".join(before[1:4]))
        f.append(f"Xt|pron={types}|{' '.join(before[1:3])}")
    f += features("B", b)
    f += ["Xt=" + types, f"Xt|o={types}|{opener}", f"Xt|sd={types}|{_bucket(distance, (1, 2, 3, 5))}"]
    if before:
        f.append(f"Xt|xl={types}|{before[-1]}")
    return f
