"""Attest: documents to a verified RDF knowledge graph with grounded answers."""

__version__ = "0.1.0"
