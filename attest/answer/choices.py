"""Choice questions ("X or Y?", "Are X and Y both ...?"): answered only when the passages about both options give
comparable values (two dates, two numbers) or state the asked property of both; both sentences are cited."""

from __future__ import annotations

from attest.answer.asks import AUXILIARIES, FUNCTION, Asks
from attest.answer.citations import entity_marker
from attest.answer.compose import _clean
from attest.answer.evidence import COPULA, DATE, NUMBER, Sentence, candidates, content_words, fold, names, year_of
from attest.answer.lookup import GraphLookup
from attest.answer.models import AnswerItem, ContextResponse
from attest.store.fulltext import FullText

SCALES = {"hundred": 1e2, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
Statement = tuple[Sentence, str]  # a sentence about an option, and the entity to cite it by


def compose_choice(question: str, want: Asks, context: ContextResponse, index: FullText, lookup: GraphLookup,
                   skip: frozenset[str]) -> tuple[str, list[AnswerItem]]:
    """The option the passages single out (or yes / no for "both"), citing the sentence about each option; else
    that the passages do not give comparable statements of both."""
    _, sentences = candidates(index, context.sources, question, skip)
    a, b = want.options
    about = {o: _sentences_of(o, sentences) for o in (a, b)}
    option_words = content_words(f"{a} {b}", skip)
    skip = skip | FUNCTION | AUXILIARIES  # "both", "also": the question's grammar, not the property asked of
    wanted = content_words(question, skip) - option_words - ({want.noun[:6]} if want.noun else set())
    answer: str | None = None
    cited: list[Statement] = []
    if want.order in ("earliest", "latest", "most", "least") and about[a] and about[b]:
        read = {o: _value(about[o], wanted, want.order in ("earliest", "latest")) for o in (a, b)}
        va, vb = read[a], read[b]
        if va is not None and vb is not None and va[0] != vb[0]:
            low = a if va[0] < vb[0] else b
            answer = low if want.order in ("earliest", "least") else (b if low == a else a)
            cited = [va[1], vb[1]]
    elif want.order == "same" and want.noun and about[a] and about[b]:
        read_same = {o: _named_as(about[o], want.noun) for o in (a, b)}
        na, nb = read_same[a], read_same[b]
        if na is not None and nb is not None:
            answer = "yes" if fold(na[0]) == fold(nb[0]) else "no"
            cited = [na[1], nb[1]]
    elif want.order == "stated" and about[a] and about[b]:
        stated = {o: _stating(about[o], wanted) for o in (a, b)}
        if want.kind == "yesno":
            sa, sb = stated[a], stated[b]
            if sa is not None and sb is not None:
                answer, cited = "yes", [sa, sb]
            elif (stated[a] or stated[b]) and all(stated[o] or _says_what(about[o]) for o in (a, b)):
                answer = "no"  # one says it; the other's passage says what that one is instead ("X is a ...")
                cited = [stated[a] or _says_what(about[a]) or about[a][0], stated[b] or _says_what(about[b]) or about[b][0]]
        elif bool(stated[a]) != bool(stated[b]):
            answer = a if stated[a] else b
            cited = [stated[a] or about[a][0], stated[b] or about[b][0]]
    if answer is None:
        return (f"The retrieved passages do not give comparable statements of both {a} and {b}, so neither is "
                "named."), []
    markers = " ".join(dict.fromkeys(entity_marker(str(lookup.ids.of(e))) for _, e in cited))
    quotes = "; ".join(f"\"{_clean(s.text).replace(chr(34), chr(39))}\" ({s.document or 'document'}, characters "
                       f"{s.start}-{s.end})" for s, _ in cited)
    label = answer
    text = f"{label[0].upper() + label[1:]} {markers}: {quotes}."
    return text, [AnswerItem(label=label, value=label if answer in ("yes", "no") else None, score=1.0)]


def _sentences_of(option: str, sentences: list[Sentence]) -> list[Statement]:
    """The sentences about an option: its own passage's (the one whose heading names it), else those naming it;
    each with the entity to cite (the first its passage mentions). Sentences with no entity to cite are left out."""
    key = fold(option)
    first = {}
    for s in sentences:
        if s.entities and s.chunk not in first:
            first[s.chunk] = s.entities[0]
    # its own passage: the heading that is its name, else one that holds it ("Science News", not "Science News for
    # Students" when both are there)
    own = [s for s in sentences if fold(s.title.split(" (")[0]) == key] or \
        [s for s in sentences if key and f" {key} " in f" {fold(s.title)} "]
    chunk = own[0].chunk if own else None
    chosen = [s for s in sentences if s.chunk == chunk and s.text.strip() != s.title] if chunk else \
        [s for s in sentences if f" {key} " in f" {fold(s.text)} "]
    return [(s, first[s.chunk]) for s in chosen if s.chunk in first]


def _value(about: list[Statement], wanted: set[str], dates: bool) -> tuple[float, Statement] | None:
    """The date (as a year) or number the option's sentences state, from the sentence sharing most of the question's
    other words (the lead sentence among equals)."""
    best: tuple[int, int, float, Statement] | None = None
    for i, (s, e) in enumerate(about):
        value: float | None = None
        if dates:
            m = DATE.search(s.text)
            value = float(y) if m and (y := year_of(m.group(0))) is not None else None
        else:
            for n in NUMBER.finditer(s.text):
                if not any(d.start() <= n.start() < d.end() for d in DATE.finditer(s.text)):
                    value = _number(n.group("n"), n.group("scale") or "")
                    if value is not None:
                        break
        if value is None:
            continue
        shared = len(content_words(s.text, frozenset()) & wanted)
        if best is None or shared > best[0]:
            best = (shared, -i, value, (s, e))
    return (best[2], best[3]) if best else None


def _named_as(about: list[Statement], noun: str) -> tuple[str, Statement] | None:
    """The name the option's sentences give as its N: the name written right before the noun ("in Jiangsu province")
    or right after it ("the band Alphaville", "the province of Jiangxi"); the first sentence that gives one."""
    for s, e in about:
        for c in names(s, 0.0):
            before = s.text[:c.at].rstrip().rsplit(None, 2)[-2:]
            after = s.text[c.at + len(c.text):].split(None, 1)[:1]
            if [w.casefold().strip(",") for w in after] in ([noun], [noun + "s"]) or \
                    [w.casefold() for w in before][-1:] == [noun] or [w.casefold() for w in before] == [noun, "of"]:
                return c.text, (s, e)
    return None


def _says_what(about: list[Statement]) -> Statement | None:
    """The first sentence about the option that says what it is ("Y is a ...", "Y was an ..."), else None."""
    return next(((s, e) for s, e in about if COPULA.search(s.text)), None)


def _number(digits: str, scale: str) -> float | None:
    try:
        value = float(digits.replace(",", ""))
    except ValueError:
        return None
    return value * SCALES.get(scale.strip().casefold(), 1.0)


def _stating(about: list[Statement], wanted: set[str]) -> Statement | None:
    """The first sentence about the option holding every one of the property's words, else None."""
    if not wanted:
        return None
    for s, e in about:
        if wanted <= content_words(s.text, frozenset()):
            return (s, e)
    return None

