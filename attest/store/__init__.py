"""Storage: the GraphStore interface, the embedded Oxigraph store, and the remote SPARQL 1.1 store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from attest.store.base import GraphStore, QueryResult, Term, TripleList
from attest.store.embedded import EmbeddedStore

if TYPE_CHECKING:
    from attest.settings import Settings

__all__ = ["GraphStore", "EmbeddedStore", "QueryResult", "Term", "TripleList", "open_store"]


def open_store(settings: Settings, *, read_only: bool = False, check: bool = True) -> GraphStore:
    """The store the settings point at: embedded Oxigraph under data_dir, or a SPARQL server (store = sparql;
    `check`: fail now when it does not answer, and roll back loads a crash left)."""
    from attest.vocab import Iris

    if settings.store == "sparql":
        from attest.store.remote import RemoteStore

        return RemoteStore(settings, Iris(settings.base_iri), read_only=read_only, check=check)
    return EmbeddedStore(settings.store_path, Iris(settings.base_iri), read_only=read_only)
