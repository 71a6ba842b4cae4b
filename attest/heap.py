"""What a long-running process keeps for its lifetime, put out of the cyclic garbage collector's reach."""

from __future__ import annotations

import gc

# Container allocations (net of frees) between two young collections in a settled process, instead of CPython's 700.
# Served at 50,000 documents, bench/scale.py's requests at 700 ran ~8 young collections each (a request's lists of rows,
# dicts and models outlive a few hundred allocations) and every ~17th request a full one of 6-17 ms over what the first
# requests remembered (the answer caches, not frozen): 1.7 ms of collector a request, and the full ones in the p95.
# At 10,000 the same 400 requests ran 17 collections and no full one. Cycles wait for more allocations before they are freed:
# a bound of memory, not of correctness.
SETTLED_YOUNG_THRESHOLD = 10_000

_before: tuple[int, int, int] | None = None  # the thresholds `settle` replaced


def settle() -> None:
    """Moves what is alive now (modules, models, the ontology, a label index just read) out of the collector's reach:
    a full collection walks every tracked object, and with the ~250,000 a served store holds after start-up each one
    took 40-225 ms of a random request (4-5 in 100 requests: the p95). They are still freed when no longer
    referenced; only a reference cycle among them would be kept, so what is garbage now is collected first.
    Then the young generation is collected less often (SETTLED_YOUNG_THRESHOLD): what requests allocate is mostly
    freed by reference counting, and each pass over it, and each full pass it leads to, is time of a request."""
    global _before
    gc.collect()
    gc.freeze()
    if _before is None:
        _before = gc.get_threshold()
        gc.set_threshold(max(_before[0], SETTLED_YOUNG_THRESHOLD), *_before[1:])


def release() -> None:
    """Gives what `settle` put aside back to the collector, when what start-up opened is closed (a process that opens
    and closes apps, as the tests do, would otherwise keep every closed app's reference cycles), and the thresholds
    it replaced."""
    global _before
    gc.unfreeze()
    if _before is not None:
        gc.set_threshold(*_before)
        _before = None
