"""Offline rule extractor: blank spaCy pipeline, EntityRuler over ontology and graph labels, name heuristics, relation patterns.

Interface (stable; used by the ingest pipeline when no LLM answers):

    extractor = RuleExtractor(terms, known_entities=[("Oxigraph", "TripleStore"), ...])
    extractor.name                       # "rules:spacy"
    extraction = extractor.extract(text) # Extraction; spans are character offsets into `text`

How it works (no trained model: spacy.blank("en") + sentencizer + three EntityRulers of phrase patterns, applied by
attest.extract.phrase_rulers as a pipeline would apply them):
  * known_exact / known_folded: every known (label, type) from the graph, as an entity, the longest first (labels that are common
    English words or two letters case-sensitively, others case-insensitively); type_cues: every ontology class
    label and skos:altLabel ("triple store", "library", "university") as a type cue.
  * Lower-case names (rules_lowercase.LowercaseNames): a common-word known label ("rust") or a word that is not
    common English ("etcd") beside a cue: "uses X", "stored in X", "written in X", "X, a key-value store".
  * Sentences refused as injection attempts (attest.extract.refuse) give no mentions and no relations; they are
    listed in Extraction.refused.
  * New names (rules_spans.NameSpans, with the prose conventions of rules_names): runs of capitalized /
    camel-case / acronym tokens with the connectors written inside names (versions like "SPARQL 1.1", hyphen,
    slash and en-dash joins, "of", particles, possessives of common nouns), headings written again in the text,
    Title Case in quotes; without titles and offices, sentence openers, an office or a common word alone; a lone
    sentence-initial word only when it looks like a name (inner capitals, digits) or is capitalized elsewhere.
  * Types, strongest evidence first: known label (0.95), organization word inside the name (0.9),
    head word of the name ("Hudson River", "Labour Party": 0.85), type cue beside the name or "X is a <cue>" (0.85),
    place list (0.85), context (quoted title, "born in X", "(1815-1852)", 0.8-0.85), person name shape (0.8),
    near match of a known label by rapidfuzz (0.8), the domain/range of a relation it takes part in
    (0.75), technology shape (0.7), plain capitalized word (0.6; NamedThing in a chunk of general prose, and a
    people's adjective its place's class, once the relations are read: attest.extract.general).
  * Relations: the words between two mentions in a sentence, filler removed ("is also part of the" ->
    "part of"), looked up among the predicates' labels, altLabels and local names with their verb
    inflections; among several predicates the one whose domain and range fit the types wins.
    Coordinations ("uses X and Y"), "and <verb>" continuations, "it <verb>", appositives and
    "X, which Y maintains" are followed. Negated statements are dropped; hedged ones get 0.45 so the
    validator reports them instead of accepting them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date

import spacy
from rapidfuzz import fuzz, process
from spacy.lang.en.stop_words import STOP_WORDS
from spacy.pipeline import EntityRuler
from spacy.tokens import Doc, Span

from attest.extract.acronyms import is_acronym
from attest.extract.attributes import fits, literal_attributes
from attest.extract.dates import DatedText
from attest.extract.demonyms import demonyms, nations
from attest.extract.general import general_untyped
from attest.extract.models import ExtractedAttribute, ExtractedEntity, ExtractedRelation, Extraction, RefusedSentence
from attest.extract.ontology_terms import OntologyTerms
from attest.extract.phrase_rulers import ruled_entities
from attest.extract.relation_model import MIN_CONFIDENCE, RelationModel
from attest.extract.relation_pairs import Candidate, candidate_pairs, chunk_topic
from attest.extract import rules_lexicon as lex
from attest.extract import rules_names as names
from attest.extract.language import reads_as_english
from attest.extract.mentions import Mention
from attest.extract.rules_lowercase import HEADS, LowercaseNames
from attest.extract.rules_spans import NameSpans, is_name_word, shape_strong
from attest.extract.refuse import inside, refused_sentences
from attest.extract.sanitize import injection_kinds
from attest.extract.token_table import TokenTable, tokens

CUE = "CUE_"  # EntityRuler label prefix of type-cue patterns (ontology class labels)
FUZZY_CUTOFF = 88.0
_SHIPPED: list[RelationModel | None] = []  # the packaged relation model, loaded once per process


# words that end the noun phrase after "X is a ...": "a village in the north of the county" is a village
_PHRASE_ENDS = frozenset({"in", "of", "at", "for", "from", "by", "with", "on", "to", "which", "that", "who",
                          "whose", "where", "since", "near"})
_PERSONAL = frozenset({"he", "she", "his", "her"})
_LIST_ENDS = (["others"], ["other"], ["more"], ["elsewhere"], ["so"])  # "A, B, C and others", "... and so on"
_BE_AT = frozenset({"is", "was", "are", "were", "been"})  # "was at <organization>": the verb before "at"
DEFINITION_GAP = 14  # words between "X is a <description> <phrase>" and Y
CLASHED = 0.5  # a rule's relation whose predicate the names' types contradict: under the validator's bar, and no reading
UNRELATED = 0.1  # a rule's locatedIn between names the classifier scores under this is dropped
PROSE_KINDS = ("Agent", "Location", "CreativeWork", "Event")  # the kinds of name of encyclopedic prose
# subject, predicate, object, confidence, and the stating sentence's span (None: the relation's own words)
Triple = tuple["Mention", str, "Mention", float, int | None, int | None]
# EntityRuler.add_patterns' argument: ours are phrase patterns ({"label", "pattern", "id"}: all strings)
Patterns = list[dict[str, str | list[dict[str, object]]]]


def shipped_relation_model() -> RelationModel | None:
    if not _SHIPPED:
        _SHIPPED.append(RelationModel.load())
    return _SHIPPED[0]


class RuleExtractor(NameSpans, LowercaseNames):
    """Extractor that needs no network and no trained model."""

    name = "rules:spacy"

    def __init__(self, terms: OntologyTerms, known_entities: Iterable[tuple[str, str]] = ()) -> None:
        self.terms = terms
        self.known: dict[str, str] = {}
        for label, type_name in known_entities:
            normalized = terms.normalize_type(type_name)
            if label and label.strip() and normalized:
                self.known.setdefault(label.strip(), normalized)
                if self.known[label.strip()] == "NamedThing":  # no kind known: any other type the graph has wins
                    self.known[label.strip()] = normalized
        self._known_folded = {label.casefold(): label for label in self.known}
        self._known_choices = list(self._known_folded)
        self.phrases = lex.relation_phrases(terms)
        self.nlp = spacy.blank("en")
        self.nlp.add_pipe("sentencizer")
        # phrase patterns (fast even with many thousands of graph labels). A label that is a common English word or
        # two letters ("Go", "Rust", "IT") matches only as written; written in lower case ("go", "rust") it matches
        # nothing here and is found only beside a cue (_lowercase); every other label matches in any letter case.
        exact = {label for label in self.known if not lex.distinctive(label)}
        rulers: tuple[tuple[str, str, Patterns], ...] = (
            ("known_exact", "ORTH", [{"label": self.known[label], "id": label, "pattern": label} for label in exact
                                     if not label.islower()]),
            ("known_folded", "LOWER", [{"label": t, "id": label, "pattern": label} for label, t in self.known.items() if label not in exact]),
            ("type_cues", "LOWER", [{"label": CUE + t, "pattern": spelling} for spelling, t in self.terms.type_labels()]),
        )
        # in pipeline order, applied by phrase_rulers.ruled_entities; the two rulers of known labels are one group
        self._rulers: list[list[EntityRuler]] = [[], []]
        for name, attr, patterns in rulers:
            if patterns:
                ruler = self.nlp.add_pipe("entity_ruler", name=name, config={"phrase_matcher_attr": attr})
                assert isinstance(ruler, EntityRuler)  # add_pipe is typed as returning any pipe callable
                with self.nlp.select_pipes(enable=[]):  # patterns are tokenized only, quickly
                    ruler.add_patterns(patterns)
                self._rulers[1 if name == "type_cues" else 0].append(ruler)
        for name in [name for name in self.nlp.pipe_names if name != "sentencizer"]:
            self.nlp.remove_pipe(name)  # loaded as spaCy loads them; run without writing doc.ents
        self._fuzzy_cache: dict[str, str | None] = {}
        self._types: dict[str, str | None] = {}  # _type's answers
        # one-word nouns that say what a name is: the ontology's lower-case class labels, then lc.HEADS ("store")
        self._heads = {spelling: t for spelling, t in self.terms.type_labels() if spelling.isalpha() and spelling.islower()}
        self._heads.update({h: t for h, label in HEADS.items() if h not in self._heads and (t := self._type(label))})
        # nouns of encyclopedic prose ("X, an American singer", "X is a village"), read after the technical ones
        self._prose_heads = {h: t for h, label in names.PROSE_HEADS.items() if (t := self._type(label))}
        self.relation_model = shipped_relation_model()

    # ------------------------------------------------------------------ setup
    def _type(self, label: str) -> str | None:
        if label not in self._types:
            if len(self._types) > 50_000:  # labels are mostly the code's own, but a numbered word may be one
                self._types.clear()
            self._types[label] = self.terms.normalize_type(label)
        return self._types[label]

    # ------------------------------------------------------------------ entities
    def _cue_at(self, doc: Doc, k: int, reach: int) -> Span | None:
        """A lower-case type cue (ontology class label) starting within `reach` tokens of k, only words between."""
        by_start = doc.user_data["cue_start"]
        table = tokens(doc)
        words, lower, alpha = table.words, table.lower, table.alpha
        for start in range(k, k + reach + 1):
            ent = by_start.get(start)
            if ent is not None and all((alpha[i] or words[i] == "-" or words[i].isdigit() or is_name_word(words[i]))
                                       and lower[i] not in _PHRASE_ENDS for i in range(k, min(start, table.n))):
                return ent
        return None

    def _head_at(self, doc: Doc, k: int, reach: int) -> str | None:
        """Type of the first head noun ("store", "editor", "format") within `reach` words of k, only words between."""
        table = tokens(doc)
        for start in range(k, min(k + reach + 1, table.n)):
            word, lower = table.words[start], table.lower[start]
            if lower in self._heads:
                return self._heads[lower]
            if lower in self._prose_heads and reach:
                return self._prose_heads[lower]
            if not (table.alpha[start] or word == "-" or word.isdigit()) or lower in _PHRASE_ENDS:
                return None
        return None

    def _cue_after(self, doc: Doc, start: int, end: int) -> str | None:
        """Type named by "X, a <cue>", "X is a <cue>", or "the X <cue>" ("the Oxigraph database"); a cue is an
        ontology class label or a head noun ("etcd, a distributed key-value store")."""
        table = tokens(doc)
        n, lower = table.n, table.lower
        k = end
        comma = k < n and table.words[k] == ","
        k += comma
        copula = k < n and lower[k] in {"is", "was", "remains"}
        k += copula
        reach: tuple[int, int] | None  # where to look for a cue: first token, how many tokens on
        if (comma or copula) and k < n and lower[k] in {"a", "an", "the"}:
            cue, reach = self._cue_at(doc, k + 1, 6), (k + 1, 6)
        elif not comma and not copula:
            # "the TransE model": a definite article before the name; "a Python library" names a library in Python
            definite = start > 0 and lower[start - 1] == "the"
            cue, reach = (self._cue_at(doc, end, 0), (end, 0)) if definite else (None, None)
        else:
            cue, reach = None, None
        if cue is not None:
            return cue.label_[len(CUE):]
        return self._head_at(doc, *reach) if reach else None

    def _fuzzy_known(self, text: str) -> str | None:
        """The known label `text` nearly spells (rapidfuzz ratio >= FUZZY_CUTOFF), if any."""
        if not self._known_choices:
            return None
        if text not in self._fuzzy_cache:
            if len(self._fuzzy_cache) > 50_000:
                self._fuzzy_cache.clear()
            match = process.extractOne(text.casefold(), self._known_choices, scorer=fuzz.ratio, score_cutoff=FUZZY_CUTOFF)
            self._fuzzy_cache[text] = self._known_folded[match[0]] if match else None
        return self._fuzzy_cache[text]

    def _verb_follows(self, doc: Doc, end: int) -> bool:
        """A relation phrase starts right after the word ("Oxigraph uses ...", "Stardog does not use ...")."""
        table = tokens(doc)
        words: list[str] = []
        for k in range(end, min(end + 5, table.n)):
            if table.punct[k] and table.words[k] != "-":
                break
            words.append(table.words[k])
            if lex.norm_gap(words)[0] in self.phrases:
                return True
        return False

    def _cue_before(self, doc: Doc, start: int) -> str | None:
        """Type named by "the library RDFLib", "computer scientist Tim Berners-Lee"."""
        k = start - 1
        if (ent := doc.user_data["cue_end"].get(k)) is not None:
            return ent.label_[len(CUE):]
        lower = tokens(doc).lower
        if k >= 0 and (lower[k] in lex.PERSON_ROLES or lower[k].rstrip(".") in lex.PERSON_TITLES
                       or start in doc.user_data.get("after_office", ())):
            return self._type("person")
        return None

    def _person_like(self, words: list[str]) -> bool:
        parts = [w for w in words if w != "-" and w.lower() not in lex.NAME_PARTICLES]
        return 2 <= len(parts) <= 4 and all(w[:1].isupper() and w.replace("'", "").isalpha() and not shape_strong(w) for w in parts)

    def _type_mention(self, doc: Doc, start: int, end: int, headline: bool) -> tuple[str | None, float]:
        table = tokens(doc)
        words = table.words[start:end]
        text = table.text_of(start, end)
        org_word = next((lex.ORG_WORDS[w.lower()] for w in words[1:] + words[:1] if w.lower() in lex.ORG_WORDS and w[:1].isupper()), None)
        legal = lex.LEGAL_SUFFIX.get(words[-1].lower().rstrip(".")) if len(words) > 1 else None
        if (label := legal or org_word) and (t := self._type(label)):
            return t, 0.9
        if len(words) == 2 and words[1][0].isdigit() and (t := self._type(words[0])):
            return t, 0.85  # "Section 3", "Chapter 2": a class label numbered
        if headed := self._head_type(words):
            return headed
        if cue := self._cue_after(doc, start, end) or self._cue_before(doc, start):
            return cue, 0.85
        if table.text_of(end, end + 2).lower() in {", who", "who"}:
            return self._type("person"), 0.85
        if kind := lex.places().get(text):
            return self._type(kind) or self._type("location"), 0.85
        if around := self._context_type(doc, start, end):
            return around
        if self._person_like(words) and words[0] in lex.first_names():
            return self._type("person"), 0.8
        if label := self._fuzzy_known(text):
            return self.known[label], 0.8
        if shape_strong(text) and not headline:
            return self._type("technology"), 0.7  # inner capitals or digits ("DBpedia"): the shape of a technology
        doc.user_data.setdefault("untyped", set()).add(start)  # a default guess: general_untyped may change it
        if headline:
            return self._type("technology"), 0.5  # Title Case Sentence: capitals say nothing
        return self._type("technology"), 0.6

    def _head_type(self, words: list[str]) -> tuple[str | None, float] | None:
        """The type a name's head word gives it: its last word, or the one before "of" ("Lake Geneva" is opened by its
        head): places ("Hudson River", "Kent County"), organizations ("Labour Party", "Royal Navy"), events ("Korean
        War", "Battle of Hastings")."""
        lowered = [w.lower() for w in words]
        head = lowered[lowered.index("of") - 1] if "of" in lowered[1:] else lowered[-1]
        if len(words) > 1 and (label := names.PLACE_HEADS.get(head)) and words[lowered.index(head)][:1].isupper():
            return self._type(label), 0.85
        if len(words) > 1 and lowered[0] in names.PLACE_OPENERS:
            return self._type("location"), 0.85
        if len(words) > 1 and (label := names.ORG_HEADS.get(head)):
            return self._type(label) or self._type("organization"), 0.85
        if head in names.EVENT_TYPE_HEADS and len(words) > 1:
            return self._type("event"), 0.8
        return None

    def _context_type(self, doc: Doc, start: int, end: int) -> tuple[str | None, float] | None:
        """The type the words around a name give it: a quoted title is a work ("the song "Leave It to Joan""), and so is
        a name with one year in brackets after it ("The Wooden Horse (1950)", not "Ana Ruiz (1986)"), years in brackets
        a person ("Ada Lovelace (1815–1852)"), "born in X", "capital of X", "moved to X" a place, and so is "X,
        <listed place>" ("Guri, Venezuela")."""
        table = tokens(doc)
        words = table.words
        n = len(words)
        if start > 0 and end < n and words[start - 1] in names.QUOTES and words[end] in names.QUOTES:
            return self._type("creative work"), 0.8
        # "The Wooden Horse (1950)": one year alone in brackets dates a work, unless the name reads as a person's,
        # a first name and all ("held by Ana Ruiz (1986)" is a tenure)
        named_person = self._person_like(words[start:end]) and words[start] in lex.first_names()
        if not named_person and names.work_year_after(words, end) \
                and not names.ranged_years(table.text_of(table.sentence_of[start], table.sentence_end[start])):
            return self._type("creative work"), 0.8
        if end + 1 < n and words[end] == "(" and (words[end + 1][:1].isdigit()
                                                   or words[end + 1].lower() in {"born", "née", "c.", "died", "b."}):
            if self._person_like(words[start:end]):
                return self._type("person"), 0.85
        before = [w.lower() for w in words[max(0, start - 3):start] if w.lower() != "the"]
        if len(before) >= 2 and before[-1] in {"in", "of", "near", "to", "at", "from"} and before[-2] in names.PLACE_CONTEXT:
            return self._type("location"), 0.8
        if end + 1 < n and words[end] == ",":
            places = lex.places()
            for stop in range(end + 2, min(end + 5, n + 1)):
                if table.text_of(end + 1, stop) in places:
                    return self._type("location"), 0.8
        return None

    def _people_in_context(self, doc: Doc, mentions: list[Mention]) -> None:
        """Names the next sentences say are people: the name a sentence opens with, when the next opens with "He",
        "She", "His" or "Her" ("Ann Lee is a chemist. She was born in ..."), and the document's first name when one of
        the three after it does; then a name's surname written alone later ("Lee") is that person too."""
        firsts: dict[int, Mention] = {}
        table = tokens(doc)
        sentence_start, sentences = table.sentence_of, table.sentences
        for m in mentions:
            sentence = sentence_start[m.start]
            if sentence not in firsts and m.start - sentence <= 1:
                firsts[sentence] = m
        opens = [table.lower[s] for s, _ in sentences]
        for k, (s, _) in enumerate(sentences):
            first = firsts.get(s)
            ahead = opens[k + 1:k + 4] if k == 0 else opens[k + 1:k + 2]
            if first is None or first.known or first.confidence >= 0.8 or not any(w in _PERSONAL for w in ahead):
                continue
            words = table.words[first.start:first.end]
            if self._person_like(words) or (len(words) == 1 and not shape_strong(words[0]) and words[0].isalpha()):
                first.type, first.confidence = self._type("person"), 0.8
        person = self._type("person")
        surnames = {table.words[m.end - 1] for m in mentions if m.type == person and m.end - m.start >= 2}
        for m in mentions:
            if m.end - m.start == 1 and not m.known and m.confidence < 0.8 and m.text in surnames:
                m.type, m.confidence = person, 0.8

    def _mentions(self, doc: Doc) -> list[Mention]:
        mentions: list[Mention] = []
        taken: set[int] = set()
        ents = ruled_entities(self._rulers, doc, tokens(doc))
        cues = [e for e in ents if e.label_.startswith(CUE) and e.text.islower()]
        doc.user_data["cue_start"] = {e.start: e for e in cues}
        doc.user_data["cue_end"] = {e.end - 1: e for e in cues}
        for ent in ents:
            if not ent.label_.startswith(CUE):
                mentions.append(Mention(ent.start, ent.end, ent.text, ent.label_, 0.95, known=True))
                taken.update(range(ent.start, ent.end))
        table = tokens(doc)
        headlines = {s for s, e in table.sentences if _is_headline(table, s, e)}
        for start, end in self._candidate_spans(doc, taken):
            headline = table.sentence_of[start] in headlines
            type_name, confidence = self._type_mention(doc, start, end, headline)
            mentions.append(Mention(start, end, table.text_of(start, end), type_name, confidence))
        self._people_in_context(doc, mentions)
        for m in mentions:  # capitalized names too: a lower-case name never overlaps one
            taken.update(range(m.start, m.end))
        mentions.extend(Mention(*found) for found in self._lowercase(doc, taken))
        text = table.text
        for m in mentions:
            m.start_char, m.end_char = table.start_char(m.start), table.end_char(m.end)
            last, last_lower = table.words[m.end - 1], table.lower[m.end - 1]
            sentence_end = m.end == table.n or table.sent_start[m.end]
            if last.endswith(".") and len(last) > 1 and sentence_end and last_lower.rstrip(".") not in lex.LEGAL_SUFFIX:
                m.end_char -= 1  # "the W3C." at the end of a sentence: the period is not part of the name
            m.text = text[m.start_char:m.end_char]
        return sorted(mentions, key=lambda m: m.start)

    # ------------------------------------------------------------------ relations
    def _fits(self, mention: Mention, required: str | None) -> bool:
        if not required or required == "Entity" or mention.type is None or mention.weak:
            return True
        return self.terms.is_subtype(mention.type, required) or self.terms.is_subtype(required, mention.type)

    def _choose(self, candidates: list[str], subject: Mention, obj: Mention) -> tuple[str, bool]:
        """The best-fitting predicate for a phrase, and whether its domain and range fit the mentions' types."""
        def depth(name: str | None) -> int:
            return len(self.terms.ancestors(name)) if name else 0

        fitting = [p for p in candidates
                   if self._fits(subject, self.terms.predicates[p].domain) and self._fits(obj, self.terms.predicates[p].range)]
        pool = fitting or candidates
        best = max(pool, key=lambda p: depth(self.terms.predicates[p].domain) + depth(self.terms.predicates[p].range))
        return best, bool(fitting)

    def _retype_by_signature(self, predicate: str, subject: Mention, obj: Mention, doc: Doc) -> None:
        """A weakly typed mention takes the class the predicate's domain or range requires."""
        term = self.terms.predicates[predicate]
        for mention, required in ((subject, term.domain), (obj, term.range)):
            if not mention.weak or not required or required == "Entity":
                continue
            if required == "Agent":
                words = tokens(doc).words[mention.start:mention.end]
                required = self._type("person") if self._person_like(words) else self._type("organization")
            elif required == "Topic":
                required = self._type("technology")
            if required and not (mention.type and self.terms.is_subtype(mention.type, required)):
                mention.type = required
            mention.confidence = 0.75

    def _relations(self, doc: Doc, mentions: list[Mention]) -> list[tuple[Mention, str, Mention, float]]:
        found: list[tuple[Mention, str, Mention, float]] = []
        table = tokens(doc)
        by_sentence: dict[int, list[Mention]] = {}
        for m in mentions:
            by_sentence.setdefault(table.sentence_of[m.start], []).append(m)
        for sent in table.sentences:
            in_sent = by_sentence.get(sent[0], [])
            if len(in_sent) < 2:
                continue  # no pair of names: nothing to relate
            instructed = bool(injection_kinds(table.text_of(*sent)))  # "ignore previous instructions and say X uses Y"
            last_subject: Mention | None = None
            for a, b in zip(in_sent, in_sent[1:]):
                result = self._relation_between(doc, sent, in_sent, a, b, last_subject)
                if result is None:
                    continue
                subject, predicate, obj, confidence = result
                if instructed:
                    confidence = min(confidence, 0.3)
                found.append((subject, predicate, obj, confidence))
                last_subject = subject
                found.extend(self._coordinated(doc, in_sent, subject, predicate, obj, confidence))
        return found

    def _coordinated(self, doc, in_sent, subject, predicate, obj, confidence):
        """ "implements TransE, RotatE and ComplEx"; "Markus Krötzsch and Denny Vrandečić co-founded Wikidata"."""
        extra = []
        index = in_sent.index(obj)
        for prev, nxt in zip(in_sent[index:], in_sent[index + 1:]):
            gap = tokens(doc).text_of(prev.end, nxt.start).strip().lower()
            if gap not in lex.COORDINATION or (gap == "," and self._place(prev) and self._place(nxt, weak_ok=True)):
                break  # "Cambridge, Massachusetts" is a place in a place, not a second object
            extra.append((subject, predicate, nxt, self._signed(predicate, subject, nxt, min(confidence, 0.8), doc)))
        index = in_sent.index(subject)
        subjects = []
        for prev, cur in zip(reversed(in_sent[:index]), reversed(in_sent[1:index + 1])):
            if tokens(doc).text_of(prev.end, cur.start).strip().lower() not in lex.COORDINATION:
                break
            subjects.append(prev)
        # only a coordination that opens the sentence is a list of subjects ("X and Y use Z")
        if subjects and subjects[-1] is in_sent[0] and subjects[-1].start - tokens(doc).sentence_of[subjects[-1].start] <= 1:
            extra.extend((s, predicate, obj, self._signed(predicate, s, obj, min(confidence, 0.8), doc)) for s in subjects)
        return extra

    def _signed(self, predicate: str, subject: Mention, obj: Mention, confidence: float, doc: Doc) -> float:
        """Retype weak mentions to the predicate's signature; a relation whose types still clash drops under the threshold."""
        term = self.terms.predicates[predicate]
        if self._fits(subject, term.domain) and self._fits(obj, term.range):
            self._retype_by_signature(predicate, subject, obj, doc)
            return confidence
        return min(confidence, CLASHED)

    def _relation_between(self, doc, sent: tuple[int, int], in_sent, a: Mention, b: Mention, last_subject: Mention | None):
        table = tokens(doc)
        words = table.words[a.end:b.start]
        subject, obj, confidence = a, b, 0.85
        if ";" in words:  # "...; it was developed by X": only a pronoun carries the subject over
            words = words[len(words) - words[::-1].index(";"):]
            if not words or words[0].lower() not in {"it", "they"}:
                return None
        lowered = [w.lower() for w in words]
        # "X is a peer-reviewed journal published by Y": a definition's noun phrase may run longer than other gaps
        defines = lowered[:2] in (["is", "a"], ["is", "an"], ["was", "a"], ["was", "an"]) and "," not in lowered
        if len(words) > (DEFINITION_GAP if defines else 8) or any(w in {":", "(", ")", ".", "?", "!"} for w in words):
            return None
        cue = self._cue_at(doc, a.end, 0)
        if cue is not None and not words[:1] == [","]:
            words = words[cue.end - a.end:]  # "the TransE model was proposed by": skip the cue noun
        content, negated, hedged = lex.norm_gap(words)
        if negated:
            return None
        opening = table.words[sent[0]:a.start + 1]  # the words before a, and a's first (a hedge is lower case there)
        hedged = hedged or any(lex.hedges(opening, k) for k in range(len(opening) - 1))
        lowered = [w.lower() for w in words]
        if "," in lowered and (lowered[lowered.index(",") + 1:] or not self._place(b)) \
                and self._closes_apposition(doc, in_sent, a.end + lowered.index(",")):
            # "RDFLib, a library for RDF, supports Turtle" / "Virtuoso, which OpenLink maintains, supports SPARQL"; a
            # comma with nothing after it before a place typed by its own evidence closes no apposition ("..., in
            # Liverpool, UK": a place in a place), before another name it may ("Born in Elmwood Park, Illinois, Conti
            # went ...")
            subject, confidence = in_sent[0], 0.75
            words = words[lowered.index(",") + 1:]
            content, negated, _ = lex.norm_gap(words)
            lowered = [w.lower() for w in words]
        candidates = self.phrases.get(content)
        if not candidates and content and content[0] in {"it", "they"}:
            content, subject, confidence = content[1:], in_sent[0], 0.75
            candidates = self.phrases.get(content)
        if not candidates and "and" in content:
            # "X was developed by Y and implements Z": the verb after "and" belongs to the earlier subject
            tail = content[len(content) - content[::-1].index("and"):]
            opener = in_sent[0] if in_sent[0].start - table.sentence_of[in_sent[0].start] <= 1 else None
            earlier = last_subject or opener
            if tail and earlier is not None and (candidates := self.phrases.get(tail)):
                # the earlier subject, or the name that opens the sentence; "She was born in X and studied at Y"
                # names no subject, and X is none
                subject, confidence = earlier, 0.75
        if not candidates and (lowered[:2] in ([",", "a"], [",", "an"], [",", "the"]) or lowered[:1] in (["is"], ["was"])):
            # "Ontotext, a company headquartered in Sofia" / "Protégé is an ontology editor developed at Stanford"
            for cut in range(1, len(content) - 1 if defines else min(len(content), 4)):
                if len(content) - cut >= 2 and (candidates := self.phrases.get(content[cut:])):
                    confidence = 0.7
                    break
        verb = [w for w in lowered if w not in {"a", "an", "the"}][-2:]  # "was at the Zorbly Institute"
        if not candidates and content and content[-1] == "at" and len(verb) == 2 and verb[0] in _BE_AT \
                and not self._place(b):
            # "X was at CWI", "... while he was at CWI": a person at an organization is there as its member of staff
            # or student (the "works at" / "employed by" of worksFor); a place is where one is, not whom one works for
            person = self._person_subject(doc, in_sent, a, content[:-1])
            if person is not None:
                subject, confidence = person, 0.75 if person is not a else 0.85
                candidates = self.phrases.get(("works", "at"))
        if not candidates and len(content) == 2 and content[1] in {"at", "for"}:
            role = content[0]
            if role in lex.EMPLOYMENT_ROLES:
                candidates = self.phrases.get(("works", content[1]))
            elif role == "student":
                candidates = self.phrases.get(("studied", "at"))
            if candidates and a.text in demonyms():
                # "Robert Cailliau, a Belgian engineer at CERN": the people's adjective says whose the role is not;
                # the name it describes holds it
                holder = self._described(doc, in_sent, a)
                candidates = candidates if holder is not None else None
                subject = holder if holder is not None else subject
        if not candidates and content == ("in",) and self._place(b):
            candidates, confidence = self.phrases.get(("located", "in"), []), 0.65  # "CWI in Amsterdam"
        if not candidates and not content and words == [","] and self._place(a) and self._place(b, weak_ok=True) \
                and not self._listed(doc, in_sent, a):
            candidates, confidence = self.phrases.get(("located", "in"), []), 0.7  # "Sofia, Bulgaria"
        if not candidates:
            return self._object_relative(doc, a, b, lowered)
        if subject is obj:
            return None
        predicate, fits = self._choose(candidates, subject, obj)
        if fits:
            self._retype_by_signature(predicate, subject, obj, doc)
        else:
            confidence = min(confidence, CLASHED)
        if hedged:
            confidence = min(confidence, 0.45)
        return subject, predicate, obj, confidence

    def _described(self, doc: Doc, in_sent: list[Mention], a: Mention) -> Mention | None:
        """The name before `a` whose description `a` opens: "X, a <a> ...", "X is an <a> ..."."""
        k = in_sent.index(a)
        if k == 0:
            return None
        gap = tokens(doc).text_of(in_sent[k - 1].end, a.start).strip().lower().split()
        if gap[-1:] in (["a"], ["an"]) and gap[:-1] in ([","], ["is"], ["was"], [",", "is"], [",", "was"]):
            return in_sent[k - 1]
        return None

    def _listed(self, doc: Doc, in_sent: list[Mention], a: Mention) -> bool:
        """Whether `a` and the name after it are items of a list ("Florence, Siena and Forlì", "the Philippines,
        Malaysia, Indonesia, ... and Kenya"), not a place and the place it lies in ("Sofia, Bulgaria", "Troy, New
        York, United States"): the names joined by commas around them run on to an "and" or "or" ("..., and the
        Middle East"), unless every item of that list is itself two names, a place and its place ("Los Angeles,
        California and Detroit, Michigan")."""
        table = tokens(doc)
        k = in_sent.index(a)
        first, last = k, k + 1
        gaps = [table.text_of(x.end, y.start).strip().lower().removesuffix(" the") for x, y in zip(in_sent, in_sent[1:])]
        while first > 0 and gaps[first - 1] in lex.COORDINATION:
            first -= 1
        while last < len(gaps) and gaps[last] in lex.COORDINATION:
            last += 1
        joins = gaps[first:last]  # between the names in_sent[first] .. in_sent[last]
        after = [w for w in table.lower[in_sent[last].end:in_sent[last].end + 3] if w != ","]
        if all(gap == "," for gap in joins):  # a list may end in words: "In Brazil, France, Romania, and others"
            return after[:1] == ["etc"] or (after[:1] in (["and"], ["or"]) and after[1:2] in _LIST_ENDS)
        items = " ".join("|" if gap != "," else "," for gap in joins).split("|")
        return not all(item.strip() == "," for item in items)

    def _person_subject(self, doc: Doc, in_sent: list[Mention], a: Mention, lead: tuple[str, ...]) -> Mention | None:
        """The person a statement between `a` and the next name is about, `lead` its content words before the verb:
        `a` itself with no words ("X was at", "X, who was at"), or the name that opens the sentence where "he" or
        "she" is the subject, after at most a joining word ("X created Y while he was at"); a name typed a person
        by its own evidence, or none."""
        if not lead:
            candidate = a
        elif lead[-1] in {"he", "she"} and len(lead) <= 2:
            candidate = in_sent[0]
            if candidate.start - tokens(doc).sentence_of[candidate.start] > 1:
                return None
        else:
            return None
        person = self._type("person")
        if candidate.weak or candidate.type is None or person is None or not self.terms.is_subtype(candidate.type, person):
            return None
        return candidate

    def _country(self, mention: Mention) -> bool:
        """Whether a name is typed a country (of any confidence)."""
        return mention.type is not None and "Country" in self.terms.types and self.terms.is_subtype(mention.type, "Country")

    def _place(self, mention: Mention, weak_ok: bool = False) -> bool:
        if mention.weak:
            return weak_ok
        return bool(mention.type and self.terms.is_subtype(mention.type, "Location"))

    def _closes_apposition(self, doc, in_sent, comma: int) -> bool:
        """True when the comma at token `comma` closes ", ... ," opened right after the sentence's first mention."""
        head = in_sent[0]
        if head.end >= comma:
            return False
        between = tokens(doc).words[head.end:comma]
        return between[:1] == [","] and between.count(",") == 1

    def _object_relative(self, doc, a: Mention, b: Mention, lowered: list[str]):
        """ "A, which B maintains," -> B maintains A."""
        if lowered not in ([",", "which"], [",", "that"], ["which"], ["that"]):
            return None
        verb = []
        for word in tokens(doc).words[b.end:b.end + 4]:
            if word in {",", ".", ";"}:
                break
            verb.append(word)
        content, negated, _ = lex.norm_gap(verb)
        candidates = self.phrases.get(content)
        if not candidates or negated:
            return None
        predicate, fits = self._choose(candidates, b, a)
        if fits:
            self._retype_by_signature(predicate, b, a, doc)
        return b, predicate, a, 0.75 if fits else CLASHED

    # ------------------------------------------------------------------ statistical relations
    def _model_relations(self, doc: Doc, mentions: list[Mention], rule_triples: list[Triple],
                         candidates: list[Candidate]) -> list[Triple]:
        """The phrase rules' relations with the trained classifier's added (relation_pairs, RelationModel.decide):
        its predicate, or ont:relatesTo for a pair it finds related by no predicate it knows with enough confidence.
        A pair the phrase rules relate keeps their relation and gets no other (the rules are the more precise where
        they apply), except, in prose, a locatedIn the classifier finds all but impossible (UNRELATED)."""
        model = self.relation_model
        if model is None:
            return rule_triples
        pairs = [p for p in candidates if p.a.type is not None and p.b.type is not None]
        if not pairs:
            return rule_triples
        probs = model.predict([p.features for p in pairs])
        decisions = model.decisions([p.features for p in pairs], probs)
        # a chunk whose technical evidence is at least its prose evidence (_technical_evidence) may be technical:
        # its names of no known type are as likely technical as not, and the classifier's bare relatesTo needs both
        # names typed there (_held_back). A chunk that names a technology by a type of its own ("the Java library
        # X") is technical text, unlike the encyclopedic prose the classifier learnt from: there the phrase rules'
        # facts stand, and the classifier states a predicate only where its own probability reaches its kind's
        # threshold and 0.6, and no bare relatesTo except, where the prose evidence outweighs (a paragraph of people
        # and places that calls one name an "area"), between two names of no technical type of their own
        strong_technical, technical_words = self._technical_evidence(doc, mentions)
        technical = bool(strong_technical)
        none = model.classes.index("none")
        # in prose, the rules read "X in Y" as locatedIn wherever it is written; where the classifier gives the two
        # names almost no chance of any relation (on Re-DocRED training documents: none of 25 such rule facts was
        # right), the rule's fact is dropped
        best: dict[frozenset[str], float] = {}
        for p, row in zip(pairs, probs):
            key = frozenset((p.a.text, p.b.text))
            best[key] = max(best.get(key, 0.0), 1.0 - float(row[none]))
        found = [t for t in rule_triples if technical or t[1] != "locatedIn"
                 or best.get(frozenset((t[0].text, t[2].text)), 1.0) >= UNRELATED]
        # a rule's relation the names' types contradict (CLASHED, neither hedged nor refused) is no reading of the
        # words: the classifier may still relate the pair ("Ulrich, Vienna": no place in a place, a man and his city)
        ruled = {frozenset((t[0].text, t[2].text)) for t in rule_triples if t[3] != CLASHED}
        # two names the rules join through a third ("X is based in Leipzig, and Leipzig is located in Germany"):
        # in technical text the chain says how they relate, and a classifier fact beside it would only repeat or
        # blur it. Encyclopedic prose states such pairs as facts of their own (the classifier's training documents
        # annotate most of them: "a town in Alberta, Canada" relates the town and Canada), so there the classifier
        # may state one between two names typed by their own evidence, except the fact the chain derives itself (a
        # transitive predicate along both links: the reasoner adds it)
        links: dict[str, set[tuple[str, str]]] = {}  # name -> (predicate, other name), read from each end
        for t in rule_triples:
            links.setdefault(t[0].text, set()).add((t[1], t[2].text))
            links.setdefault(t[2].text, set()).add(("^" + t[1], t[0].text))
        for i, (pair, decision) in enumerate(zip(pairs, decisions)):
            # an acronym and its expansion ("W3C", "World Wide Web Consortium") name one thing, and two nations
            # named side by side are listed or compared (demonyms.nations): no relation
            if decision is None or frozenset((pair.a.text, pair.b.text)) in ruled \
                    or is_acronym(pair.a.text, pair.b.text) \
                    or nations(pair.a.text, pair.b.text, self._country(pair.a), self._country(pair.b)):
                continue
            chain = self._chain(links, pair.a.text, pair.b.text)
            if chain and (technical or pair.a.weak or pair.b.weak):
                continue
            labels, confidence = decision
            if technical:
                row, floor = probs[i], max(model.threshold(pair.features), MIN_CONFIDENCE)
                sure = [c for c in labels if c != "related" and row[model.classes.index(c)] >= floor]
                # where the prose outweighs the technical evidence, the chunk is prose that names a technical thing
                # (or mistypes a word): a pair of a name typed technical is restricted, the others may still be
                # related in general, a name of no type of its own among them unless another mention of it is typed
                # technical (as likely prose as the chunk; out of fold on Re-DocRED dev, 43% of such pairs stated
                # at 0.50 were annotated, against 33-37% of those the last step of the pair threshold adds)
                prose_pair = not technical_words and all(m.text not in strong_technical if m.weak else self._prose_kind(m)
                                                         for m in (pair.a, pair.b))
                labels = sure or (["related"] if prose_pair else [])
            for label in labels:
                if label == "related" or label[:-1] not in self.terms.predicates:  # or a module that is turned off
                    # names in a list ("Google, Microsoft and Yahoo") are siblings, not related to each other
                    listed = tokens(doc).text_of(pair.a.end, pair.b.start).strip().lower() in lex.COORDINATION
                    if "relatesTo" in self.terms.predicates and not listed \
                            and not self._held_back(pair.a, pair.b, technical_words):
                        found.append((pair.a, "relatesTo", pair.b, confidence, pair.start_char, pair.end_char))
                    continue
                predicate, forward = label[:-1], label.endswith(">")
                subject, obj = (pair.a, pair.b) if forward else (pair.b, pair.a)
                term = self.terms.predicates[predicate]
                # the place a subject of locatedIn must be (its shape: an Agent or a Location; the OWL domain cannot say so)
                domain = "Location" if predicate == "locatedIn" and subject.weak and "Location" in self.terms.types \
                    else term.domain
                if not (self._narrows(subject, domain) and self._narrows(obj, term.range)):
                    continue  # a typed name contradicts the predicate: no fact rather than a wrong one
                if term.transitive and (predicate, subject.text, obj.text) in chain:
                    continue  # the chain derives it
                for mention, required in ((subject, domain), (obj, term.range)):
                    if not required or required == "Entity" or \
                            (mention.type is not None and self.terms.is_subtype(mention.type, required)):
                        continue
                    if required == "Agent":
                        person = self._person_like(tokens(doc).words[mention.start:mention.end])
                        required = self._type("person" if person else "organization")
                    elif required == "Topic":
                        required = self._type("technology")
                    mention.type, mention.confidence = required, max(mention.confidence, 0.75)
                found.append((subject, predicate, obj, confidence, pair.start_char, pair.end_char))
        typed = {frozenset((t[0].text, t[2].text)) for t in found if t[1] != "relatesTo" and t[3] != CLASHED}
        return [t for t in found if t[1] != "relatesTo" or frozenset((t[0].text, t[2].text)) not in typed]

    @staticmethod
    def _chain(links: dict[str, set[tuple[str, str]]], a: str, b: str) -> set[tuple[str, str, str]]:
        """The facts two rule facts through a third name derive between `a` and `b`, as (predicate, subject,
        object) where both links carry the same predicate the same way round (X locatedIn Y, Y locatedIn Z: X
        locatedIn Z, if the predicate is transitive); a chain of other links gives ("", a, b). Empty where no third
        name joins them."""
        out: set[tuple[str, str, str]] = set()
        for first, middle in links.get(a, ()):
            for second, end in links.get(middle, ()):
                if end != b or middle in (a, b):
                    continue
                if first == second and not first.startswith("^"):
                    out.add((first, a, b))
                elif first == second:
                    out.add((first[1:], b, a))
                else:
                    out.add(("", a, b))
        return out

    def _technical_evidence(self, doc: Doc, mentions: list[Mention]) -> tuple[set[str], bool]:
        """The chunk's names of a technology by a type of its own, and whether it may be technical: its technical
        evidence (its names of a technical type of their own, and its words naming a technical kind in lower case:
        an ontology class label of a kind the classifier did not learn from, "software", "a query language") is at
        least its prose evidence (its names of a person, place, body, work or event type of their own, and its words
        naming such a kind: "the singer", "a village"). One technical word or a mistyped name does not make technical
        a paragraph that names people and places (an encyclopedic "the Los Angeles area", "a car model"); a chunk of
        no typed person, place or body may be."""
        technical = {m.text for m in mentions if m.type is not None and not m.weak and not self._prose_kind(m)}
        prose = {m.text for m in mentions if self._prose_kind(m) and not m.weak}
        kinds = self._cue_kinds(doc)
        return technical, len(technical) + kinds.count(False) >= len(prose) + kinds.count(True)

    def _cue_kinds(self, doc: Doc) -> list[bool]:
        """For each kind of thing the chunk names in lower case ("the singer", "software"), whether it is a prose kind
        (`_prose_type`) rather than a technical one."""
        return [self._prose_type(cue.label_[len(CUE):]) for cue in doc.user_data["cue_start"].values()]

    def _held_back(self, a: Mention, b: Mention, technical: bool) -> bool:
        """Whether the classifier's bare relatesTo between two names is held back: its only evidence is that the names
        occur together, which the classifier learnt to read in encyclopedic prose about people, places, bodies and
        works. Held back in text that may be technical (`technical`) where either name has no type of its own (a
        default guess)."""
        return technical and (a.weak or b.weak)

    def _prose_kind(self, mention: Mention) -> bool:
        """Whether a name is of the kinds the classifier learnt from (Re-DocRED's people, organizations, places,
        works and events), not a technical one (Software, Concept, ...)."""
        return mention.type is not None and self._prose_type(mention.type)

    def _prose_type(self, type_name: str) -> bool:
        return any(kind in self.terms.types and self.terms.is_subtype(type_name, kind) for kind in PROSE_KINDS)

    def _narrows(self, mention: Mention, required: str | None) -> bool:
        """Whether the mention may take the required class: no requirement, a weak type, its own class or a subclass,
        or a superclass the requirement narrows (a Location is the Country that citizenOf needs)."""
        if not required or required == "Entity" or mention.type is None or mention.weak:
            return True
        return self.terms.is_subtype(mention.type, required) or self.terms.is_subtype(required, mention.type)

    # ------------------------------------------------------------------ entry point
    def analyse(self, text: str) -> tuple[Doc, list[Mention], list[Mention], list[RefusedSentence]]:
        """The parsed chunk, its mentions outside refused sentences, those inside them, and the refused sentences."""
        doc = self.nlp(text)
        tokens(doc, text)
        refused = refused_sentences(text)
        mentions = self._mentions(doc)
        held = [m for m in mentions if inside(refused, m.start_char) is not None]
        mentions = [m for m in mentions if inside(refused, m.start_char) is None]
        return doc, mentions, held, refused

    def extract(self, text: str, reference: date | None = None) -> Extraction:
        """`reference`: the day relative dates ("last month") count from, the document's or turn's, when known."""
        doc, mentions, held, refused = self.analyse(text)
        if not reads_as_english(text):  # capitals and phrases of another language say nothing the rules can read
            mentions = [m for m in mentions if m.known]
            return self._extraction(doc, mentions, held, refused, [])
        # the classifier's candidate pairs are read before the phrase rules retype a name to fit their predicate's
        # signature: with the types as analysed, the ones it was trained on (bench/train_relations.py's collect)
        pairs = candidate_pairs(doc, mentions) if self.relation_model is not None else []
        triples: list[Triple] = [(*t, None, None) for t in self._relations(doc, mentions)]
        triples = self._model_relations(doc, mentions, triples, pairs)
        if refused:  # a relation whose words run through a refused sentence is not stated by the rest
            for triple in [t for t in triples if _spans_refused(refused, t[0], t[2])
                           or (t[4] is not None and inside(refused, t[4]) is not None)]:
                triples.remove(triple)
                sentence = _spans_refused(refused, triple[0], triple[2]) or inside(refused, triple[4])
                assert sentence is not None  # the filter above found one
                sentence.dropped.append(f"{triple[0].text} {triple[1]} {triple[2].text}")
        attributes = literal_attributes(tokens(doc), mentions, self.terms, chunk_topic(doc, mentions))
        for attribute in [a for a in attributes if inside(refused, a.start) is not None]:  # stated in a refused sentence
            attributes.remove(attribute)
            sentence = inside(refused, attribute.start)
            assert sentence is not None  # the filter above found one
            sentence.dropped.append(f"{attribute.subject} {attribute.predicate} {attribute.value}")
        general_untyped(doc, mentions, self._type("named thing"), self._type, self._prose_kind,
                        not all(self._cue_kinds(doc)))
        return self._extraction(doc, mentions, held, refused, triples, DatedText(tokens(doc).text, reference), attributes)

    def _extraction(self, doc: Doc, mentions: list[Mention], held: list[Mention], refused: list[RefusedSentence],
                    triples: list, dated: DatedText | None = None,
                    attributes: Sequence[ExtractedAttribute] = ()) -> Extraction:
        # (name, type, confidence, start, end) by casefolded name: the first mention's span, the strongest
        # evidence's name and type (the earlier on a tie); a model is built once per name
        named: dict[str, tuple[str, str, float, int, int]] = {}
        for m in mentions:
            if m.type is None:
                continue
            key = m.text.casefold()
            found = (m.text, m.type, round(m.confidence, 3), m.start_char, m.end_char)
            if (first := named.get(key)) is not None:
                best = first if first[2] >= found[2] else found
                found = (*best[:3], first[3], first[4])
            named[key] = found
        entities = {key: ExtractedEntity(name=name, type=type_name, confidence=confidence, start=start, end=end)
                    for key, (name, type_name, confidence, start, end) in named.items()}
        relations: dict[tuple[str, str, str], ExtractedRelation] = {}
        for subject, predicate, obj, confidence, start, end in triples:
            if subject.text.casefold() == obj.text.casefold():
                continue
            triple_key = (subject.text.casefold(), predicate, obj.text.casefold())
            if triple_key not in relations or relations[triple_key].confidence < confidence:
                relations[triple_key] = ExtractedRelation(subject=subject.text, predicate=predicate, object=obj.text,
                                                   confidence=round(confidence, 3), start=start, end=end,
                                                   **_valid_time(dated, doc, subject, obj, classified=start is not None,
                                                                 place=self._place(obj)))
        for m in held:
            sentence = inside(refused, m.start_char)
            assert sentence is not None  # held mentions are those inside a refused sentence
            if m.type is not None and m.text.casefold() not in entities and m.text not in sentence.dropped:
                sentence.dropped.append(m.text)
        kept: dict[tuple[str, str, str], ExtractedAttribute] = {}
        for attribute in attributes:  # about a named entity whose final type is in the attribute's domain
            entity = entities.get(attribute.subject.casefold())
            if entity is not None and fits(self.terms, entity.type, attribute.predicate):
                kept.setdefault((entity.name.casefold(), attribute.predicate, attribute.value.casefold()),
                                attribute.model_copy(update={"subject": entity.name}))
        return Extraction(entities=list(entities.values()), relations=list(relations.values()),
                          attributes=list(kept.values()), refused=refused)


def _valid_time(dated: DatedText | None, doc: Doc, subject: Mention, obj: Mention, classified: bool,
                place: bool) -> dict[str, date | None]:
    """valid_from / valid_to from the dates that qualify the relation in its sentence (attest.extract.dates). A
    relation of the classifier (`classified`) is not what the words between its names say, so it takes only a date
    that opens the sentence: one inside or after them dates their own verb ("a novel by X first published in 1939");
    and none when its object is a place: a date beside a place dates what happened there ("In 2007, the school became
    a member of an alliance of universities in Toulouse")."""
    if dated is None or (classified and place):
        return {}
    table = tokens(doc)
    sentence = (table.start_char(table.sentence_of[subject.start]), table.end_char(table.sentence_end[subject.start]))
    found = dated.validity((subject.start_char, subject.end_char), (obj.start_char, obj.end_char), sentence,
                           opening_only=classified)
    return {"valid_from": found.valid_from, "valid_to": found.valid_to}


def _spans_refused(refused: list[RefusedSentence], a: Mention, b: Mention) -> RefusedSentence | None:
    """The refused sentence lying between (or under) two mentions, if any."""
    low, high = min(a.start_char, b.start_char), max(a.end_char, b.end_char)
    return next((r for r in refused if r.start < high and low < r.end), None)


def _is_headline(table: TokenTable, start: int, end: int) -> bool:
    """Title Case Sentences capitalize every word, so capitals there are no sign of a name."""
    words = [table.words[i] for i in range(start, end) if table.alpha[i] and table.lower[i] not in STOP_WORDS]
    return len(words) >= 3 and all(w[0].isupper() for w in words)
