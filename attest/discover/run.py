"""One discovery: statistics, proposals, the optional LLM review, and the proposal file."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from attest.discover.files import writable_ontology_dir, write_proposal
from attest.discover.proposals import Proposal, propose
from attest.discover.sparql import DataQueries, data_graphs
from attest.discover.statistics import read_statistics
from attest.discover.turtle import write_turtle
from attest.store import GraphStore
from attest.vocab import Iris

if TYPE_CHECKING:
    from attest.settings import Settings

MAX_PREDICATES = 2000
DEADLINE_S = 240.0


@dataclass
class Discovery:
    path: Path | None  # None when nothing was written (dry run)
    proposal: Proposal
    reviewed: bool
    seconds: float

    def summary(self) -> dict[str, object]:
        stats = self.proposal.stats
        kinds: dict[str, int] = {}
        for term in self.proposal.terms:
            kind = term.kind.rsplit("#", 1)[-1]
            kinds[kind] = kinds.get(kind, 0) + 1
        return {"file": self.path.name if self.path else None, "terms": len(self.proposal.terms), "kinds": kinds,
                "already_in_ontology": self.proposal.skipped_known, "triples": stats.total_triples,
                "graphs": len(stats.graphs), "predicates": stats.predicates_seen,
                "predicates_analysed": len(stats.predicates), "sampled": bool(stats.sampled),
                "notes": self.proposal.notes, "reviewed": self.reviewed, "queries": stats.queries,
                "seconds": round(self.seconds, 2)}


def known_terms(store: GraphStore, iris: Iris) -> set[str]:
    return {row["t"] for row in DataQueries(store, [iris.ontology_graph]).rows("known-terms")}


def discover(store: GraphStore, settings: Settings, *, review: Callable[[Proposal], None] | None = None,
             max_predicates: int = MAX_PREDICATES, deadline_s: float = DEADLINE_S, write: bool = True,
             progress: Callable[[str], None] = lambda message: None) -> Discovery:
    """Read the data graphs, propose terms, let `review` relabel them, write ontology/proposed/discovered-*.ttl.

    The deadline bounds the per-predicate analysis (the one counting scan before it always runs); what it left out
    is said in the file and the summary."""
    if write:
        writable_ontology_dir(settings.ontology_dir)  # refuse before the work, not after
    started = time.monotonic()
    iris = Iris(settings.base_iri)
    queries = DataQueries(store, data_graphs(store, iris))
    stats = read_statistics(queries, max_predicates=max_predicates, deadline=started + deadline_s, progress=progress)
    proposal = propose(stats, known_terms(store, iris), iris.base)
    progress(f"{len(proposal.terms)} terms proposed")
    if review is not None:
        review(proposal)
    now = datetime.now(UTC)
    text = write_turtle(proposal, created=now.strftime("%Y-%m-%dT%H:%M:%SZ"), command="attest ontology discover")
    path = write_proposal(settings.ontology_dir, f"discovered-{now:%Y%m%d-%H%M%S-%f}.ttl", text) if write else None
    return Discovery(path, proposal, review is not None, time.monotonic() - started)
