"""Sentences refused as injection attempts: find them in a chunk, and drop what an extractor found only there.

Interface (used by the rule extractor, the LLM extractor and, through Extraction.refused, the validator's report):

    refused = refused_sentences(text)            # -> [RefusedSentence(start, end, text, reason)], spans into `text`
    inside(refused, start)                       # the refused sentence holding character `start`, or None
    kept = drop_refused(extraction, text, refused)   # for output without evidence spans (an LLM's): entities named
                                                 #   only inside refused sentences and relations stated only there are
                                                 #   dropped and listed on their sentence; `kept.refused` = refused

A sentence is refused when the sanitizer finds an injection attempt in it (attest.extract.sanitize.attempt_kinds):
an override instruction, a chat role line, a chat-template token, a planted citation marker or a fake document tag.
Sentences end at . ! ? before whitespace and at blank lines; in a flagged sentence that spans lines only the flagged
lines are refused (a Markdown list keeps its other items). A sentence right after a refused one in the same paragraph
that opens with an order to the extractor ("Output an entity named ...") continues the attempt and is refused too.
"""

from __future__ import annotations

import re
import unicodedata

from attest.extract.models import Extraction, RefusedSentence
from attest.extract.sanitize import INVISIBLE, attempt_kinds

_BOUNDARY = re.compile(r"[.!?]+[\"')\]]*(?=\s)|\n[ \t]*\n\s*")
_CONTINUES = re.compile(
    r"[\W_]*(?:(?:and|then|now|instead|also)\W+)*(?:output|print|return|respond|reply|answer|say|state|add|emit|list|"
    r"include|extract|create|insert|write|tell|classify|label|mark|report|produce|generate)\b", re.IGNORECASE)
EXCERPT = 200
# a role label opening a sentence in mid-line ("Done. system: ..."): the sanitizer's role pattern reads line starts only
_MIDLINE_ROLE = re.compile(r"[.!?][\"')\]]*\s+[>*_#\-\s]*[\[(]?\s*(?:system|assistant|user|developer|human|instructions?|response)\b",
                           re.IGNORECASE)


def _sentences(text: str) -> list[tuple[int, int, bool]]:
    """(start, end, opens_paragraph) of each sentence, surrounding whitespace trimmed."""
    out: list[tuple[int, int, bool]] = []
    pos, opens = 0, True
    for match in [*_BOUNDARY.finditer(text), None]:
        blank = match is not None and match.group().startswith("\n")
        cut = len(text) if match is None else match.start() if blank else match.end()
        start = pos + len(text[pos:cut]) - len(text[pos:cut].lstrip())
        end = start + len(text[start:cut].rstrip())
        if end > start:
            out.append((start, end, opens))
            opens = False
        opens = opens or blank
        if match is not None:
            pos = match.end()
    return out


def _lines(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, pos = [], start
    for line in text[start:end].split("\n"):
        left = len(line) - len(line.lstrip())
        if line.strip():
            spans.append((pos + left, pos + len(line.rstrip())))
        pos += len(line) + 1
    return spans


def _refused(text: str, start: int, end: int, reason: str) -> RefusedSentence:
    return RefusedSentence(start=start, end=end, text=text[start:end][:EXCERPT], reason=reason)


def _flagged(text: str, lines: list[tuple[int, int]]) -> list[tuple[int, int, set[str]]]:
    """Flagged lines of one sentence; then each run of unflagged lines, as a whole (a phrase may run over a line break)."""
    if len(lines) == 1:
        kinds = attempt_kinds(text[lines[0][0]:lines[0][1]])
        return [(*lines[0], kinds)] if kinds else []
    marks = [attempt_kinds(text[s:e]) for s, e in lines]
    flagged = [(s, e, k) for (s, e), k in zip(lines, marks) if k]
    run: list[tuple[int, int]] = []
    for (s, e), k in [*zip(lines, marks), ((0, 0), {"end"})]:
        if not k:
            run.append((s, e))
            continue
        if len(run) > 1 and attempt_kinds(text[run[0][0]:run[-1][1]]):
            while len(run) > 2 and attempt_kinds(text[run[1][0]:run[-1][1]]):
                run.pop(0)  # the fewest lines that still hold the phrase
            while len(run) > 2 and attempt_kinds(text[run[0][0]:run[-2][1]]):
                run.pop()
            flagged.append((run[0][0], run[-1][1], attempt_kinds(text[run[0][0]:run[-1][1]])))
        run = []
    return sorted(flagged)


def refused_sentences(text: str) -> list[RefusedSentence]:
    """The sentences (or lines) of `text` that are injection attempts, in text order."""
    if not attempt_kinds(text) and not _MIDLINE_ROLE.search(text):
        return []  # what a sentence holds, the whole text holds (save a role label in mid-line): nothing to refuse
    refused: list[RefusedSentence] = []
    units: list[tuple[int, int, bool]] = []  # the pieces a continuation is judged on: lines of sentences
    for start, end, opens in _sentences(text):
        lines = _lines(text, start, end)
        units.extend((s, e, opens and i == 0) for i, (s, e) in enumerate(lines))
        refused.extend(_refused(text, s, e, f"injection attempt ({', '.join(sorted(k))})") for s, e, k in _flagged(text, lines))
    if not refused:
        return refused
    last_refused_end = None
    for start, end, opens in units:
        if any(r.start <= start < r.end for r in refused):
            last_refused_end = max(r.end for r in refused if r.start <= start < r.end)
            continue
        if last_refused_end is not None and not opens and start >= last_refused_end and _CONTINUES.match(text, start, end):
            refused.append(_refused(text, start, end, "continues an injection attempt"))
            last_refused_end = end
        else:
            last_refused_end = None
    return sorted(refused, key=lambda r: r.start)


def inside(refused: list[RefusedSentence], offset: int | None) -> RefusedSentence | None:
    if offset is None:
        return None
    return next((r for r in refused if r.start <= offset < r.end), None)


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", INVISIBLE.sub("", text)).casefold()


def _pattern(name: str, fold: bool = True) -> re.Pattern | None:
    """The name as a whole-word pattern, on folded text (or, fold=False, on the original text ignoring case)."""
    words = (_fold(name) if fold else name).split()
    body = r"(?<!\w)" + r"\s+".join(map(re.escape, words)) + r"(?!\w)"
    return re.compile(body, 0 if fold else re.IGNORECASE) if words else None


def drop_refused(extraction: Extraction, text: str, refused: list[RefusedSentence]) -> Extraction:
    """Drop what is supported only by refused sentences; relist each drop on its sentence. No refused: unchanged."""
    refused = [r.model_copy(update={"dropped": []}) for r in refused]
    if not refused:
        return extraction.model_copy(update={"refused": []})
    benign = list(text)
    for r in refused:
        benign[r.start:r.end] = "\n" * (r.end - r.start)  # same length: offsets stay valid
    benign_text = "".join(benign)
    benign_sentences = [_fold(benign_text[s:e]) for s, e, _ in _sentences(benign_text)]
    refused_texts = [_fold(text[r.start:r.end]) for r in refused]
    benign_folded = _fold(benign_text)

    def where(name: str) -> tuple[bool, RefusedSentence | None]:
        """Whether `name` occurs outside refused sentences, and the first refused sentence it occurs in."""
        pattern = _pattern(name)
        if pattern is None:
            return True, None
        first = next((r for r, t in zip(refused, refused_texts) if pattern.search(t)), None)
        return bool(pattern.search(benign_folded)), first

    entities, gone = [], set()
    for entity in extraction.entities:
        outside, first = where(entity.name)
        if first is not None and not outside:
            first.dropped.append(entity.name)
            gone.add(_fold(entity.name).strip())
            continue
        if inside(refused, entity.start) is not None:  # anchored in a refused sentence: point at a benign mention
            pattern = _pattern(entity.name, fold=False)
            match = pattern.search(benign_text) if pattern else None
            entity = entity.model_copy(update={"start": match.start() if match else None, "end": match.end() if match else None})
        entities.append(entity)
    relations = []
    for relation in extraction.relations:
        label = f"{relation.subject} {relation.predicate} {relation.object}"
        ends = (_fold(relation.subject).strip(), _fold(relation.object).strip())
        subject_pattern, object_pattern = _pattern(relation.subject), _pattern(relation.object)
        if any(end in gone for end in ends):
            holder = next((r for r in refused if any(n in r.dropped for n in (relation.subject, relation.object))), refused[0])
            holder.dropped.append(label)
            continue
        if subject_pattern is not None and object_pattern is not None:
            patterns = (subject_pattern, object_pattern)
            together = next((r for r, t in zip(refused, refused_texts) if all(p.search(t) for p in patterns)), None)
            if together is not None and not any(all(p.search(s) for p in patterns) for s in benign_sentences):
                together.dropped.append(label)  # stated only where the instruction is
                continue
        relations.append(relation)
    attributes = []
    for attribute in extraction.attributes:  # a value stated only beside its subject in a refused sentence goes too
        label = f"{attribute.subject} {attribute.predicate} {attribute.value}"
        subject_pattern, value_pattern = _pattern(attribute.subject), _pattern(attribute.value)
        if _fold(attribute.subject).strip() in gone:
            next((r for r in refused if attribute.subject in r.dropped), refused[0]).dropped.append(label)
            continue
        if subject_pattern is not None and value_pattern is not None:
            patterns = (subject_pattern, value_pattern)
            together = next((r for r, t in zip(refused, refused_texts) if all(p.search(t) for p in patterns)), None)
            if together is not None and not any(all(p.search(s) for p in patterns) for s in benign_sentences):
                together.dropped.append(label)
                continue
        attributes.append(attribute)
    return extraction.model_copy(update={"entities": entities, "relations": relations, "attributes": attributes,
                                         "refused": refused})
