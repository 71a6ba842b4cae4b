"""Where bench/extract.py's entity errors are: false positives and negatives by kind, and the type confusion of hits.

    python bench/extract.py --docs 100 --errors 15     # counts by kind, then up to 15 examples of each

A false positive is a predicted name that is no gold mention of a named entity; a false negative a named gold entity
none of whose mention names was predicted. Each is put in the first kind that fits (the order below).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from docred import GoldDoc

# predicted ontology class -> the gold type it stands for (anything else: MISC)
KIND = (("Person", "PER"), ("Location", "LOC"), ("Agent", "ORG"))
YEAR = re.compile(r"^(\d{1,4}s?|\d{1,2}(st|nd|rd|th))$")


def gold_kind(type_name: str, terms) -> str:
    for cls, kind in KIND:
        if cls in terms.types and terms.is_subtype(type_name, cls):
            return kind
    return "MISC"


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


class ErrorTally:
    def __init__(self, terms) -> None:
        self.terms = terms
        self.fp: dict[str, list[str]] = defaultdict(list)
        self.fn: dict[str, list[str]] = defaultdict(list)
        self.confusion: Counter = Counter()
        self.predicted_types: Counter = Counter()
        self.fp_types: Counter = Counter()
        self.mistyped: dict[tuple[str, str], list[str]] = defaultdict(list)

    def add_doc(self, doc: GoldDoc, entities) -> None:
        named_names = {n for e in doc.entities if e.named for n in e.names}
        literal_names = {n for e in doc.entities if not e.named for n in e.names}
        gold_type = {n: e.type for e in doc.entities if e.named for n in e.names}
        predicted = {e.name: e.type for e in entities}
        for name, type_name in predicted.items():
            self.predicted_types[type_name] += 1
            if name in named_names:
                kind = gold_kind(type_name, self.terms)
                self.confusion[(gold_type[name], kind)] += 1
                if kind != gold_type[name]:
                    self.mistyped[(gold_type[name], kind)].append(f"{name} [{type_name}]")
                continue
            self.fp_types[type_name] += 1
            kind, near = self._fp_kind(doc, name, named_names, literal_names)
            self.fp[kind].append(f"{name} [{type_name}]" + (f"  ~ {near}" if near else ""))
        for e in doc.entities:
            if e.named and not e.names & predicted.keys():
                self.fn[self._fn_kind(e, predicted)].append(f"{' | '.join(sorted(e.names))} ({e.type})")

    @staticmethod
    def _fp_kind(doc: GoldDoc, name: str, named: set[str], literal: set[str]) -> tuple[str, str | None]:
        """The kind of a false positive, and the gold name it is closest to."""
        if name in literal or YEAR.match(name):
            return "a date or number", None
        if near := next((g for g in named if name in g), None):
            return "part of a gold name (cut short or split)", near
        if near := next((g for g in named if g in name), None):
            return "a gold name and more (too long)", near
        words = _words(name)
        if near := next((g for g in named if words & _words(g)), None):
            return "overlaps a gold name", near
        if " " not in name and name.lower() in doc.text:
            return "one word also written in lower case", None
        if " " not in name:
            return "one word never lower case", None
        return "several words, no gold name", None

    @staticmethod
    def _fn_kind(entity, predicted: dict[str, str]) -> str:
        names = entity.names
        if any(p in g for g in names for p in predicted):
            return "a shorter name predicted (cut or split)"
        if any(g in p for g in names for p in predicted):
            return "a longer name predicted"
        if all(n[:1].islower() for n in names):
            return "lower case"
        if any(_words(n) & _words(p) for n in names for p in predicted):
            return "overlapping name predicted"
        if all(" " not in n for n in names):
            return "one word, not found"
        return "several words, not found"

    def report(self, examples: int) -> str:
        lines = ["", "False positives by kind:"]
        for kind, items in sorted(self.fp.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  {len(items):5d}  {kind}")
            lines += [f"           {x}" for x in items[:examples]]
        lines += ["", "False negatives by kind:"]
        for kind, items in sorted(self.fn.items(), key=lambda kv: -len(kv[1])):
            lines.append(f"  {len(items):5d}  {kind}")
            lines += [f"           {x}" for x in items[:examples]]
        lines += ["", "Predicted classes (all / false positives): " + ", ".join(
            f"{t} {n}/{self.fp_types[t]}" for t, n in self.predicted_types.most_common())]
        kinds = ["PER", "ORG", "LOC", "MISC"]
        lines += ["", "Type of the hits (rows: gold, columns: predicted class's kind):",
                  "  gold  " + " ".join(f"{k:>6}" for k in kinds) + "  right"]
        for g in kinds:
            row = [self.confusion[(g, k)] for k in kinds]
            total = sum(row)
            lines.append(f"  {g:5} " + " ".join(f"{n:6d}" for n in row) + f"  {row[kinds.index(g)] / total if total else 0:.2f}")
        right = sum(self.confusion[(k, k)] for k in kinds)
        total = sum(self.confusion.values())
        lines.append(f"  typed right: {right}/{total} = {right / total if total else 0:.3f}")
        for (g, k), items in sorted(self.mistyped.items(), key=lambda kv: -len(kv[1])):
            if examples:
                lines.append(f"  gold {g}, typed {k} ({len(items)}): " + "; ".join(items[:examples]))
        return "\n".join(lines)
