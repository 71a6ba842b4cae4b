"""The remote store: GraphStore over a SPARQL 1.1 server (Query, Update, Graph Store Protocol), results parsed by
pyoxigraph. By job: transport.py (HTTP requests, refusals), answers.py (parsing the server's answers), updates.py
(update text), leases.py (all-or-nothing chunked loads), changes.py (other processes' writes), view.py (a
request's deadline), store.py (the GraphStore methods)."""

from attest.store.remote.answers import RDF_MEDIA, RESULT_MEDIA, media_type_of, parse_results
from attest.store.remote.leases import LOADING_INTO
from attest.store.remote.store import RemoteStore
from attest.store.remote.transport import parser_message
from attest.store.remote.updates import chunks
from attest.store.remote.view import RemoteDeadlineView

__all__ = ["LOADING_INTO", "RDF_MEDIA", "RESULT_MEDIA", "RemoteDeadlineView", "RemoteStore", "chunks",
           "media_type_of", "parse_results", "parser_message"]
