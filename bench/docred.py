"""Re-DocRED documents as a user would send them: tokens joined back into prose, titled Markdown, gold by character span.

    docs = load_docs(DOCRED)                 # [GoldDoc], in file order
    doc.markdown                             # "# Title\n\n<prose>": what goes through the ingest pipeline
    doc.entities                             # [GoldEntity]: type (PER, ORG, LOC, TIME, NUM, MISC), mention names
    doc.relations                            # {(h, t): {"P17", ...}} head and tail index into doc.entities

Mention names are read from the rebuilt prose at the mention's character span (not the tokens joined by spaces), so
"Wilfried "Willi" Schneider" is the name a reader sees. Shared by bench/extract.py and bench/train_relations.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOCRED = REPO.parent / "shared" / "data" / "docred" / "dev_revised.json"
NAMED_TYPES = {"PER", "ORG", "LOC", "MISC"}  # the entity types scored as entities (TIME and NUM are literals)

_NO_SPACE_BEFORE = {",", ".", ";", ":", ")", "]", "}", "'s", "’s", "n't", "%", "?", "!", "'", "”", "’"}
_NO_SPACE_AFTER = {"(", "[", "{", "$", "“", "‘", "#"}
_JOINERS = {"-", "–", "/"}


@dataclass
class GoldEntity:
    type: str
    names: set[str]  # every mention's surface form
    spans: list[tuple[int, int, int]] = field(default_factory=list)  # (sentence index, char start, char end)

    @property
    def named(self) -> bool:
        return self.type in NAMED_TYPES


@dataclass
class GoldDoc:
    title: str
    text: str  # the prose (no title)
    sentence_spans: list[tuple[int, int]]
    entities: list[GoldEntity]
    relations: dict[tuple[int, int], set[str]]

    @property
    def markdown(self) -> str:
        return f"# {self.title}\n\n{self.text}\n"

    @property
    def body_offset(self) -> int:
        """Where the prose starts inside `markdown`."""
        return len(self.title) + 4


def detokenize(sents: list[list[str]]) -> tuple[str, list[tuple[int, int]], list[list[tuple[int, int]]]]:
    """Prose from token lists: text, each sentence's span, each token's (start, end)."""
    out: list[str] = []
    length = 0
    sentence_spans, token_spans = [], []
    quote_open = False
    glue = True  # no space before the next token
    for sent in sents:
        spans = []
        start = None
        for tok in sent:
            tok = tok.replace("\xa0", " ").strip()
            if not tok:
                spans.append((length, length))
                continue
            attach = glue or tok in _NO_SPACE_BEFORE or tok in _JOINERS or (tok == '"' and quote_open)
            if not attach:
                out.append(" ")
                length += 1
            if start is None:
                start = length
            spans.append((length, length + len(tok)))
            out.append(tok)
            length += len(tok)
            if tok == '"':
                glue = not quote_open
                quote_open = not quote_open
            else:
                glue = tok in _NO_SPACE_AFTER or tok in _JOINERS
        sentence_spans.append((start if start is not None else length, length))
        token_spans.append(spans)
        glue = False
    return "".join(out), sentence_spans, token_spans


def to_gold(raw: dict) -> GoldDoc:
    text, sentence_spans, token_spans = detokenize(raw["sents"])
    entities = []
    for vertex in raw["vertexSet"]:
        entity = GoldEntity(vertex[0]["type"], set())
        for m in vertex:
            spans = token_spans[m["sent_id"]]
            start, end = spans[m["pos"][0]][0], spans[m["pos"][1] - 1][1]
            entity.names.add(text[start:end])
            entity.spans.append((m["sent_id"], start, end))
        entities.append(entity)
    relations: dict[tuple[int, int], set[str]] = {}
    for label in raw.get("labels", []):
        relations.setdefault((label["h"], label["t"]), set()).add(label["r"])
    return GoldDoc(raw["title"], text, sentence_spans, entities, relations)


def load_docs(path: Path = DOCRED) -> list[GoldDoc]:
    if not path.exists():
        raise SystemExit(f"{path} is missing: the Re-DocRED set lives in ../shared/data/docred/ (see its README)")
    return [to_gold(raw) for raw in json.loads(path.read_text(encoding="utf-8"))]


def folds(n_docs: int, k: int) -> list[list[int]]:
    """Document indices of k folds: every k-th document (fixed, no shuffling: reproducible)."""
    return [list(range(i, n_docs, k)) for i in range(k)]
