"""Entity linking: the longest non-overlapping label spans of a question (exact after folding, rapidfuzz for near misses)."""

from __future__ import annotations

from dataclasses import dataclass, field

from rapidfuzz import fuzz, process
from spacy.lang.en.stop_words import STOP_WORDS

from attest.answer import lexicon
from attest.answer.lookup import LabelIndex
from attest.answer.near_miss import best_labels, by_length
from attest.answer.words import FOLD, WORD, normalize

LABEL_CUTOFF = 80.0  # token_sort_ratio at or above which a written label counts as naming an entity
LINK_CUTOFF = 88.0  # stricter for question n-grams: many n-grams, each a chance for a spurious match
SHORT_LABEL = 4  # labels this short (RDF, OWL) must match exactly
MAX_NGRAM = 6  # longest question span tried against labels by rapidfuzz
MAX_LINK_WORDS = 300  # a 10 KB question is linked on its first 300 words
MIN_MENTION = 3  # labels shorter than this are not looked for in source text
MIN_LABEL = 2  # ... nor in a question unless written exactly as the label ("CQ", "Up")
CASE_MISMATCH = 0.85  # a span written in other case than the label ("redis" for "Redis") is weaker evidence
COMMON_WORD = 0.5  # a single lower-case word in the question ("films") is more often a word than a name
VOCABULARY_WORD = 0.1  # a lower-case span made of the words classes and properties are named by ("director", "actors")
RELATED_WORD = 0.5  # WordNet's relatedness from which a question word counts as a vocabulary word
Token = tuple[str, int, int]  # a folded word of the question, with its match's offsets
Span = tuple[int, int, list[str], float]  # (first word, past last word, IRIs, similarity)


@dataclass
class Link:
    """A question span that names one or more entities (several when they share the label)."""

    text: str
    start: int
    end: int
    iris: list[str]
    score: float  # 0-1
    match: float  # similarity 0-100
    candidates: list[str] = field(default_factory=list)


class LabelMatcher:
    """Matches written names against every entity label and alternative label."""

    def __init__(self, index: LabelIndex) -> None:
        self.index = index
        if index.normalized is None:  # a tuple, as the tables below: see there
            index.normalized = tuple(normalize(label) for label in index.labels)
        self.normalized = index.normalized
        if index.phrases is None:
            table: dict[tuple[str, ...], list[str]] = {}  # a label's folded words -> IRIs, in index order
            longest: dict[str, int] = {}  # first word -> most words of a label starting with it
            for label, iri in zip(self.normalized, index.iris):
                if len(label) >= MIN_LABEL or label.isdigit():
                    words = tuple(label.split(" "))
                    iris = table.setdefault(words, [])
                    if iri not in iris:
                        iris.append(iri)
                    longest[words[0]] = max(longest.get(words[0], 0), len(words))
            vocabulary = {w for name in index.vocabulary for w in normalize(name).split(" ") if w}
            related: dict[str, float] = {}  # what WordNet relates the vocabulary's words to ("directed" -> "director")
            for word in vocabulary:
                if len(word) >= 3 and word not in STOP_WORDS:
                    for lemma, weight in lexicon.related(word).items():
                        related[lemma] = max(related.get(lemma, 0.0), weight)
            # tuples, not lists: the garbage collector stops tracking a tuple of strings (and a dict of them), and
            # these tens of thousands of lists, built after the label index was put out of its reach (lookup._settle),
            # were walked by every full collection that followed (15-22 ms CPU each, 3 in 100 requests at 2Wiki's
            # 6,119 paragraphs)
            index.phrases = {"table": {words: tuple(iris) for words, iris in table.items()}, "longest": longest,
                             "vocabulary": vocabulary, "related": related}
        self.table = index.phrases["table"]
        self.longest = index.phrases["longest"]
        self.vocabulary = index.phrases["vocabulary"]
        self.related = index.phrases["related"]
        if index.by_length is None:
            index.by_length = by_length(self.normalized)
        self.by_length = index.by_length

    def best(self, written: str) -> tuple[str, float] | None:
        """(IRI, similarity 0-100) of the label closest to `written`, or None under the cutoff."""
        text = normalize(written)
        if not text or not self.normalized:
            return None
        if exact := self.table.get(tuple(text.split(" "))):
            return exact[0], 100.0
        hit = process.extractOne(text, self.normalized, scorer=fuzz.token_sort_ratio, score_cutoff=LABEL_CUTOFF)
        if hit is None:
            return None
        _, score, i = hit
        if len(self.normalized[i]) <= SHORT_LABEL and score < 100:
            return None
        return self.index.iris[i], float(score)

    def mentions(self, text: str) -> set[str]:
        """Entities whose label occurs in `text` as whole words (exact after folding): cheap, for source snippets."""
        words = normalize(" ".join(WORD.findall(text))).split(" ")
        found: set[str] = set()
        for i, word in enumerate(words):
            for n in range(1, self.longest.get(word, 0) + 1):
                key = tuple(words[i:i + n])
                if key in self.table and sum(map(len, key)) + n - 1 >= MIN_MENTION:
                    found.update(self.table[key])
        return found

    def link(self, question: str) -> list[Link]:
        """The entities a question names: every span that equals a label after folding, longest first, a span
        nested in or overlapping a longer one dropped; then near misses (rapidfuzz) among the words left over."""
        # one token per folded word ("Rosemary's" gives "rosemary" and "s"), each with its match's offsets
        tokens = [(word, m.start(), m.end()) for m in WORD.finditer(question)
                  for word in normalize(m.group(0)).split(" ") if word][:MAX_LINK_WORDS]
        words = [t[0] for t in tokens]
        spans: list[Span] = []
        for i, word in enumerate(words):
            for n in range(1, min(self.longest.get(word, 0), len(words) - i) + 1):
                if exact := self.table.get(tuple(words[i:i + n])):
                    spans.append((i, i + n, list(exact), 100.0))
        chosen = _longest_first(spans, [], tokens)
        if len(self.normalized):
            chosen = _longest_first(self._near_misses(question, tokens, words, chosen), chosen, tokens)
        links = []
        for i, j, iris, similarity in sorted(chosen):
            text = question[tokens[i][1]:tokens[j - 1][2]]
            labels = {self.index.preferred.get(iri, "") for iri in iris}
            as_written = any(" ".join(FOLD.split(label)).strip() == " ".join(FOLD.split(text)).strip() for label in labels)
            if not as_written and (all(w in STOP_WORDS for w in words[i:j]) or len(text) < MIN_MENTION):
                continue  # "the", "who", "up": words, unless written as a title is ("Who Am I?", "Up")
            score = similarity / 100.0 if as_written else similarity / 100.0 * CASE_MISMATCH
            if all(w in STOP_WORDS for w in words[i:j]) or len(text) < MIN_MENTION:
                score *= COMMON_WORD
            elif text.islower() and all(w in STOP_WORDS or self._names_vocabulary(w) for w in words[i:j]):
                score *= VOCABULARY_WORD
            elif j - i == 1 and text.islower() and not any(c.isdigit() for c in text):
                score *= COMMON_WORD
            links.append(Link(text, tokens[i][1], tokens[j - 1][2], list(iris), round(score, 4), similarity,
                              list(iris) if len(iris) > 1 else []))
        return links

    def _names_vocabulary(self, word: str) -> bool:
        """Whether a word is one that classes and properties are named by, as written or in other words
        ("director" for a property named "directed by")."""
        return word in self.vocabulary or lexicon.similarity(lexicon.related(word, general=True), self.related) >= RELATED_WORD

    def _near_misses(self, question: str, tokens: list[Token], words: list[str], taken: list[Span]) -> list[Span]:
        """Spans of the words no exact match took that look like names (a capital past the first word, a digit)
        and come within LINK_CUTOFF of a label."""
        used = {k for i, j, _, _ in taken for k in range(i, j)}
        grams: list[tuple[int, int, str]] = []
        for i in range(len(words)):
            for n in range(1, MAX_NGRAM + 1):
                if i + n > len(words) or any(k in used for k in range(i, i + n)):
                    break
                original = [question[tokens[k][1]:tokens[k][2]] for k in range(i, i + n)]
                if not any((w[0].isupper() and k + i > 0) or any(c.isdigit() for c in w) for k, w in enumerate(original)):
                    continue
                gram = " ".join(words[i:i + n])
                if len(gram) > SHORT_LABEL:
                    grams.append((i, n, gram))
        out: list[Span] = []
        for (i, n, _), hit in zip(grams, best_labels([g for _, _, g in grams], self.by_length, LINK_CUTOFF)):
            if hit is not None:
                best, indices = hit
                out.append((i, i + n, list(dict.fromkeys(self.index.iris[k] for k in indices)), best))
        return out


def _longest_first(spans: list[Span], chosen: list[Span], tokens: list[Token]) -> list[Span]:
    """Add spans to `chosen`, longest (in characters) first, skipping any that overlaps one already chosen."""
    chosen = list(chosen)
    taken = {k for i, j, _, _ in chosen for k in range(i, j)}
    for span in sorted(spans, key=lambda s: (-(tokens[s[1] - 1][2] - tokens[s[0]][1]), -s[3], s[0])):
        i, j = span[0], span[1]
        if not any(k in taken for k in range(i, j)):
            chosen.append(span)
            taken.update(range(i, j))
    return chosen


def label_confidence(score: float) -> float:
    """DESIGN.md: a label match is worth 0.5-0.9, scaled by similarity from the cutoff (0.5) to identical (0.9)."""
    span = 100.0 - LABEL_CUTOFF
    return round(0.5 + 0.4 * max(0.0, min(1.0, (score - LABEL_CUTOFF) / span)), 4)
