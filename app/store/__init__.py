"""Storage: the GraphStore interface and its embedded Oxigraph implementation."""

from app.store.base import GraphStore, QueryResult, Term
from app.store.embedded import EmbeddedStore

__all__ = ["GraphStore", "EmbeddedStore", "QueryResult", "Term", "open_store"]


def open_store(settings, *, read_only: bool = False) -> EmbeddedStore:
    """The store the settings point at (embedded Oxigraph under data_dir)."""
    from app.vocab import Iris

    return EmbeddedStore(settings.store_path, Iris(settings.base_iri), read_only=read_only)
