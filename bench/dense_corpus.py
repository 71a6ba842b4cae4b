"""A second generated corpus, denser than bench/ingest.py's: many more names, several in every sentence, drawn unevenly.

    from dense_corpus import make_document, question   # used by bench/scale.py --corpus dense

bench/ingest.py's generator draws every sentence from six templates over 46 fixed names, so each name ends up in a
large share of the chunks. Real collections look different, and issue 25 asks for the targets on a corpus the
product was not written for. Here:
- names are built from parts: 900 people, 200 organizations, 150 systems, 40 real cities, so the number of
  distinct entities grows with the corpus, as in a real one;
- a name is drawn with a Zipf-like weight (the k-th most common about k^-0.8 as often), so a few are hubs named in
  thousands of chunks and most are rare;
- every sentence names three to five of them (people, organizations, systems and cities together), in sixteen
  sentence shapes written for this corpus (employment, authorship, location, acquisition, use, leadership);
- a document has six paragraphs of four sentences and a title naming its main system.
Questions are drawn from the same pools, in shapes a user of such a corpus would ask.
"""

from __future__ import annotations

import random
from itertools import accumulate, product

FIRST = ["Amara", "Bruno", "Chiara", "Dmitri", "Elena", "Farid", "Greta", "Hiroshi", "Ines", "Jonas", "Kavya", "Lars",
         "Mei", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Stefan", "Tariq", "Ursula", "Viktor", "Wanjiru", "Xavier",
         "Yara", "Zoltan", "Aditi", "Bjorn", "Camille", "Dario"]
LAST = ["Okafor", "Lindqvist", "Moreau", "Tanaka", "Kowalski", "Haddad", "Ferreira", "Novak", "Castellanos", "Iyer",
        "Brennan", "Schultz", "Achebe", "Rossi", "Yilmaz", "Petrov", "Nakamura", "Dubois", "Sandoval", "Eriksen",
        "Mbeki", "Horvath", "Quispe", "Larsen", "Bianchi", "Osei", "Varga", "Kim", "Alvarez", "Jansen"]
ORG_HEADS = ["Northwind", "Bluefin", "Cobalt", "Silverline", "Redwood", "Larkspur", "Meridian", "Ironbark", "Halcyon",
             "Quillon", "Tessellate", "Brightwater", "Kestrel", "Orchid", "Granite", "Lumen", "Sable", "Vantage",
             "Juniper", "Polaris", "Cascade", "Ember", "Fathom", "Harbor", "Zephyr"]
ORG_TAILS = ["Systems", "Analytics", "Labs", "Institute", "Networks", "Software", "Foundation", "Group"]
SYSTEM_HEADS = ["Quark", "Helix", "Nimbus", "Vertex", "Prism", "Atlas", "Tundra", "Mosaic", "Pulsar", "Rivet",
                "Sextant", "Trellis", "Umbra", "Vireo", "Wicket", "Yarrow", "Zenith", "Arbor", "Beacon", "Cinder",
                "Delta", "Eddy", "Flint", "Gale", "Hearth", "Inlet", "Jetty", "Keel", "Lattice", "Marlin"]
SYSTEM_TAILS = ["DB", "Graph", "Stream", "Index", "Engine"]
CITIES = ["Lisbon", "Nairobi", "Osaka", "Montreal", "Krakow", "Santiago", "Bangalore", "Rotterdam", "Tallinn", "Lagos",
          "Melbourne", "Seville", "Dresden", "Hanoi", "Bergen", "Cordoba", "Porto", "Leipzig", "Accra", "Busan",
          "Valencia", "Gdansk", "Quito", "Tbilisi", "Aarhus", "Kyoto", "Bologna", "Antwerp", "Edinburgh", "Lyon",
          "Zagreb", "Ljubljana", "Bremen", "Vilnius", "Riga", "Turin", "Geneva", "Utrecht", "Graz", "Brno"]

PEOPLE = [f"{f} {last}" for f, last in product(FIRST, LAST)]
ORGS = [f"{h} {t}" for h, t in product(ORG_HEADS, ORG_TAILS)]
SYSTEMS = [f"{h}{t}" for h, t in product(SYSTEM_HEADS, SYSTEM_TAILS)]

SENTENCES = [
    "{p1} and {p2} built {s1} at {o1} in {c1}.",
    "{s1}, which {o1} released in {year}, replaced {s2} at the {c1} office of {o2}.",
    "{p1}, a researcher at {o1}, moved to {c1} after {o2} acquired {o3}.",
    "{o1} uses {s1} and {s2} for its work in {c1} and {c2}.",
    "{p1} leads the {s1} team at {o1}, and {p2} reports to {p1}.",
    "According to {p1} of {o1}, {s1} runs on {s2} in the {c1} data centre.",
    "{o1} opened a laboratory in {c1} headed by {p1}, who previously worked for {o2}.",
    "{p1} wrote a paper on {s1} with {p2} and {p3} of {o1}.",
    "{o1} is based in {c1} and was founded by {p1} in {year}.",
    "{s1} stores its data in {s2}; {p1} maintains both for {o1}.",
    "At a meeting in {c1}, {p1} of {o1} and {p2} of {o2} agreed to merge {s1} into {s2}.",
    "{o1} funds {o2}, whose director {p1} lives in {c1}.",
    "{p1} studied in {c1} before joining {o1}, where {p1} designed {s1}.",
    "{s1} was ported to {s2} by {p1} and {p2} while both worked for {o1}.",
    "{o1} and {o2} share an office in {c1} that runs {s1}.",
    "{p1} supervised {p2} at {o1} in {c1} during the {s1} project.",
]
QUESTIONS = [
    "Who built {s}?", "Where is {o} based?", "Who leads the {s} team?", "Which organization acquired {o}?",
    "Where does {p} work?", "What does {o} use?", "Who founded {o}?", "Who worked with {p}?",
    "What does {s} run on?", "Who maintains {s}?", "Which systems did {p} design?", "Who directs {o}?",
]


def _pool(names: list[str]) -> tuple[list[str], list[float]]:
    """The names in a fixed shuffled order with cumulative Zipf-like weights: the k-th about k^-0.8 as often as the
    first."""
    shuffled = list(names)
    random.Random(7).shuffle(shuffled)
    return shuffled, list(accumulate(1 / (k + 1) ** 0.8 for k in range(len(shuffled))))


POOLS = {"p": _pool(PEOPLE), "o": _pool(ORGS), "s": _pool(SYSTEMS), "c": _pool(CITIES)}


def _some(rng: random.Random, key: str, k: int) -> list[str]:
    """k distinct names of a pool, drawn by its weights."""
    names, weights = POOLS[key]
    out: list[str] = []
    while len(out) < k:
        name = rng.choices(names, cum_weights=weights)[0]
        if name not in out:
            out.append(name)
    return out


def make_document(rng: random.Random, n: int, paragraphs: int = 6) -> str:
    title = _some(rng, "s", 1)[0]
    parts = [f"# {title} field report {n}\n"]
    for _ in range(paragraphs):
        sentences = []
        for _ in range(4):
            p1, p2, p3 = _some(rng, "p", 3)
            o1, o2, o3 = _some(rng, "o", 3)
            s1, s2 = _some(rng, "s", 2)
            c1, c2 = _some(rng, "c", 2)
            sentences.append(rng.choice(SENTENCES).format(p1=p1, p2=p2, p3=p3, o1=o1, o2=o2, o3=o3, s1=s1, s2=s2,
                                                          c1=c1, c2=c2, year=rng.randint(1995, 2024)))
        parts.append(" ".join(sentences))
    return "\n\n".join(parts)


def question(rng: random.Random) -> str:
    return rng.choice(QUESTIONS).format(p=_some(rng, "p", 1)[0], o=_some(rng, "o", 1)[0], s=_some(rng, "s", 1)[0])
