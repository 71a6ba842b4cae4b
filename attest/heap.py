"""What a long-running process keeps for its lifetime, put out of the cyclic garbage collector's reach."""

from __future__ import annotations

import gc


def settle() -> None:
    """Moves what is alive now (modules, models, the ontology, a label index just read) out of the collector's reach:
    a full collection walks every tracked object, and with the ~250,000 a served store holds after start-up each one
    took 40-225 ms of a random request (4-5 in 100 requests: the p95). They are still freed when no longer
    referenced; only a reference cycle among them would be kept, so what is garbage now is collected first."""
    gc.collect()
    gc.freeze()


def release() -> None:
    """Gives what `settle` put aside back to the collector, when what start-up opened is closed (a process that opens
    and closes apps, as the tests do, would otherwise keep every closed app's reference cycles)."""
    gc.unfreeze()
