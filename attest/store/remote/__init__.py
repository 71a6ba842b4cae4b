"""The remote store: GraphStore over a SPARQL 1.1 server, a module per job (transport, answers, updates, leases, changes, the store and its deadline view)."""

from attest.store.remote.answers import RDF_MEDIA, RESULT_MEDIA, media_type_of, parse_results
from attest.store.remote.leases import LOADING_INTO
from attest.store.remote.store import RemoteDeadlineView, RemoteStore
from attest.store.remote.transport import parser_message
from attest.store.remote.updates import chunks

__all__ = ["LOADING_INTO", "RDF_MEDIA", "RESULT_MEDIA", "RemoteDeadlineView", "RemoteStore", "chunks",
           "media_type_of", "parse_results", "parser_message"]
