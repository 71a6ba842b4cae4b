"""The endpoint's executor over a remote store: /sparql proxies to the server under Attest's deadline and limits.

The query goes to the server with the request's dataset and the remaining deadline (client-side timeout that
closes the connection, plus the server's timeout parameter when configured). The answer comes back line per row
(TSV / N-Triples) where the server offers it, is cut at the row and byte limits as it streams in, and is then
written in the format the client negotiated by pyoxigraph's own parser and serializer.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from pyoxigraph import NamedNode, QueryResultsFormat, RdfFormat

from attest.sparql.formats import FORMATS_BY_NAME, formats_for, negotiate, result_kind, serialized
from attest.sparql.lexer import add_using_clauses, has_dataset_clause, has_relative_iri
from attest.sparql.outbound import fetches, without_remote_body
from attest.sparql.protocol import Dataset
from attest.sparql.streaming import Streamed
from attest.sparql.worker import BoundedLines, LimitReached, convert_results
from attest.store.remote import RDF_MEDIA, RESULT_MEDIA, media_type_of, parse_results

if TYPE_CHECKING:
    from attest.settings import Settings
    from attest.store.remote import RemoteStore

WIRE_ACCEPT = "text/tab-separated-values, application/sparql-results+json;q=0.8, application/n-triples, text/turtle;q=0.5"


class RemoteExecutor:
    """SparqlExecutor over a RemoteStore (see the module docstring)."""

    def __init__(self, store: RemoteStore, settings: Settings, *, after_update: str | None = None,
                 threads: int = 16) -> None:
        self.store = store
        self.settings = settings
        self.union_default_graph = settings.default_graph_as_union
        self.after_update = after_update
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="sparql-remote")

    async def execute(self, query: str, dataset: Dataset, accept: str | None, timeout: float, *,
                      base_iri: str | None = None) -> Streamed:
        formats_for(accept)  # 406 before the store is asked
        if base_iri and has_relative_iri(query):
            query = f"BASE {NamedNode(base_iri)} {query}"
        union = self.union_default_graph and not dataset.explicit and not has_dataset_clause(query)
        loop = asyncio.get_running_loop()
        media_type, body, truncated = await loop.run_in_executor(
            self._pool, self._fetch, query, dataset, union, accept, timeout)
        return Streamed(media_type, body, None, truncated=truncated)

    def _fetch(self, query: str, dataset: Dataset, union: bool, accept: str | None,
               timeout: float) -> tuple[str, bytes, str | None]:
        settings = self.settings
        response = self.store.post_query(
            query, default_graph=list(dataset.default_graphs) or None,
            named_graphs=list(dataset.named_graphs) or None, union_default_graph=union,
            accept=settings.store_accept or WIRE_ACCEPT, timeout=timeout)
        try:
            wire = media_type_of(response)
            line_per_row = wire in (QueryResultsFormat.TSV.media_type.split(";")[0],
                                    RdfFormat.N_TRIPLES.media_type.split(";")[0])
            chunks: Iterable[bytes] = response.iter_bytes()
            if not line_per_row or self.store.encoded:
                # boolean answers, a server without TSV / N-Triples, or triple terms to decode: parsed whole,
                # then cut line per row like a streamed answer
                result = parse_results(self.store.decoded(response.read(), wire), wire)
                kind = result_kind(result)
                if kind == "boolean":
                    fmt = negotiate(accept, kind)
                    return fmt.content_type, serialized(result, fmt) or b"", None
                line_format = FORMATS_BY_NAME["tsv" if kind == "solutions" else "ntriples"]
                wire, chunks = line_format.media_type, [serialized(result, line_format) or b""]
            solutions = wire in RESULT_MEDIA
            out = BoundedLines(settings.max_result_rows + (1 if solutions else 0), settings.max_result_bytes)
            try:
                for chunk in chunks:
                    out.write(chunk)
            except LimitReached:
                pass  # closing the response below drops the connection: the server stops sending
        finally:
            response.close()
        fmt = negotiate(accept, "solutions" if solutions else "graph")
        payload = out.value()
        if b" with payload:" in payload and fetches(query):
            # a server (Oxigraph's) that answered 200 and then met a failing SERVICE writes the error, and the
            # endpoint's page, into the stream: told by status and host, never passed on
            failed = without_remote_body(payload.decode("utf-8", "replace"))
            if failed is not None:
                raise failed
        native = RESULT_MEDIA[wire] if solutions else RDF_MEDIA[wire]
        if fmt.native != native:
            payload = convert_results(payload, fmt.native, solutions)
        return fmt.content_type, payload, out.cut

    async def update(self, update: str, dataset: Dataset, *, base_iri: str | None = None) -> None:
        text = add_using_clauses(update, dataset.default_graphs, dataset.named_graphs)
        if base_iri and has_relative_iri(text):
            text = f"BASE {NamedNode(base_iri)}\n{text}"
        if self.after_update:  # in the same request: the server applies both or neither
            text = f"{text.rstrip().removesuffix(';')}\n;\n{self.after_update}"
        await asyncio.get_running_loop().run_in_executor(self._pool, self.store.update, text)

    @property
    def pool(self) -> ThreadPoolExecutor:
        return self._pool

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
