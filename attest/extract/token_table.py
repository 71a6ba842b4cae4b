"""A parsed chunk's tokens as plain lists, read once from spaCy's arrays (each Doc index or iteration builds a Token).

Interface (used by the rule extractor's passes and by relation_pairs):
    table = tokens(doc)        # built on first use, kept in doc.user_data["tokens"]
    table = tokens(doc, text)  # the same, given the text the doc was made from (spaCy's doc.text joins every token)
    table.words[i], table.lower[i], table.space[i] (whitespace follows), table.idx[i] (character offset),
    table.alpha[i], table.punct[i], table.blank[i] (a whitespace token), table.stop[i], table.sent_start[i]:
        Token.text, .lower_, bool(.whitespace_), .idx, .is_alpha, .is_punct, .is_space, .is_stop, .is_sent_start
    table.sentences            # [(start, end)] tokens of doc.sents
    table.sentence_of[i], table.sentence_end[i]  # first token of token i's sentence (doc[i].sent), and its end
    table.text_of(start, end)  # doc[start:end].text (the same clamping of the slice)
    table.start_char(start), table.end_char(end)  # Span.start_char / Span.end_char of doc[start:end]
"""

from __future__ import annotations

from spacy.tokens import Doc

_ATTRS: list[int | str] = ["IDX", "LENGTH", "SPACY", "SENT_START", "IS_ALPHA", "IS_PUNCT", "IS_SPACE", "IS_STOP"]  # Doc.to_array's names


class TokenTable:
    __slots__ = ("text", "n", "words", "lower", "space", "idx", "ends", "alpha", "punct", "blank", "stop",
                 "sent_start", "sentences", "sentence_of", "sentence_end")

    def __init__(self, doc: Doc, text: str | None = None) -> None:
        # spaCy's tokenizer loses no character: the doc's text is the text it was made from
        self.text = text = doc.text if text is None else text
        self.n = n = len(doc)
        columns = doc.to_array(_ATTRS).T.tolist() if n else [[] for _ in _ATTRS]
        idx, length, space, sent, alpha, punct, blank, stop = columns
        self.idx: list[int] = idx
        self.ends: list[int] = [i + k for i, k in zip(idx, length)]
        self.words: list[str] = [text[i:e] for i, e in zip(idx, self.ends)]
        self.lower: list[str] = [w.lower() for w in self.words]
        self.space: list[bool] = [bool(s) for s in space]
        self.alpha: list[bool] = [bool(a) for a in alpha]
        self.punct: list[bool] = [bool(p) for p in punct]
        self.blank: list[bool] = [bool(b) for b in blank]
        self.stop: list[bool] = [bool(s) for s in stop]
        self.sent_start: list[bool] = [s == 1 for s in sent]  # the array holds -1 as a large unsigned number
        # doc.sents: a sentence starts at token 0 and at every later token whose sent_start is 1
        starts = [0, *(i for i in range(1, n) if self.sent_start[i])] if n else []
        self.sentences: list[tuple[int, int]] = list(zip(starts, starts[1:] + [n]))
        self.sentence_of: list[int] = [s for s, e in self.sentences for _ in range(s, e)]
        self.sentence_end: list[int] = [e for s, e in self.sentences for _ in range(s, e)]

    def text_of(self, start: int, end: int) -> str:
        """doc[start:end].text: from the first token's start to the last token's end; empty for an empty slice."""
        n = self.n
        start, end = (start + n if start < 0 else start), (end + n if end < 0 else end)  # spaCy's normalize_slice
        start, end = min(n, max(0, start)), min(n, max(0, end))
        return self.text[self.idx[start]:self.ends[end - 1]] if end > start else ""

    def start_char(self, start: int) -> int:
        return self.idx[start]

    def end_char(self, end: int) -> int:
        return self.ends[end - 1]


def tokens(doc: Doc, text: str | None = None) -> TokenTable:
    """The doc's token table, built once; `text`: the text nlp() made the doc from."""
    table = doc.user_data.get("tokens")
    if table is None:
        table = doc.user_data["tokens"] = TokenTable(doc, text)
    return table
