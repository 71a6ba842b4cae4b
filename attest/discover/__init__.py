"""Ontology discovery: the schema a loaded graph implies, proposed as Turtle in ontology/proposed/ for people to accept.

    discovery = discover(store, settings, review=None)   # statistics -> proposals -> ontology/proposed/discovered-*.ttl
    accept_proposal(ontology_dir, name)                  # move it into ontology/ (then reload the ontology)
    reject_proposal(ontology_dir, name)                  # delete it; the ontology is untouched
    Reviewer(settings).review(proposal)                  # optional: an LLM writes labels, altLabels and comments
"""

from attest.discover.files import (
    accept_proposal,
    list_proposals,
    proposal_path,
    reject_proposal,
)
from attest.discover.run import Discovery, discover

__all__ = ["Discovery", "accept_proposal", "discover", "list_proposals", "proposal_path", "reject_proposal"]
