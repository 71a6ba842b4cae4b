"""One exception hierarchy; each subclass carries its data and its HTTP status."""

from __future__ import annotations


class AttestError(Exception):
    """Base of every error Attest reports to a user."""

    status_code = 500

    def __init__(self, message: str, **detail: object) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail

    def to_dict(self) -> dict[str, object]:
        return {"error": type(self).__name__, "message": self.message, **self.detail}


class ConfigError(AttestError):
    """Settings or config file are invalid."""


class BadRequest(AttestError):
    """The request is malformed in a way not covered by a narrower class."""

    status_code = 400


class RdfSyntaxError(BadRequest):
    """RDF text does not parse; carries line and column when the parser gives them."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message, source=source, line=line, column=column)
        self.source, self.line, self.column = source, line, column

    def location(self) -> str:
        parts = [str(p) for p in (self.source, self.line, self.column) if p is not None]
        return ":".join(parts)


class SparqlSyntaxError(BadRequest):
    """A SPARQL query or update does not parse."""


class DocumentRejected(BadRequest):
    """A document cannot be ingested (empty, binary, undecodable, unreadable); carries the reason."""

    status_code = 422


class UnsupportedFormat(AttestError):
    """No parser or serializer for the requested media type or file extension."""

    status_code = 415


class NotAcceptable(AttestError):
    """The Accept header names nothing the endpoint can produce."""

    status_code = 406


class NotFound(AttestError):
    """A graph, named query, document or entity does not exist."""

    status_code = 404


class PayloadTooLarge(AttestError):
    """A body, file or query text is over its configured limit."""

    status_code = 413


class Unauthorized(AttestError):
    """A write without a valid bearer token."""

    status_code = 401


class Forbidden(AttestError):
    """A write from a client that may not write (non-local with no token configured)."""

    status_code = 403


class CrossSiteRefused(Forbidden):
    """A request that changes state or spends money, sent by a page of another site (Origin, Sec-Fetch-Site), or
    a token-less write in a form's content type without the X-Requested-With header a form cannot send."""


class MisdirectedRequest(AttestError):
    """The Host header names a host the service does not answer to (DNS rebinding)."""

    status_code = 421


class OutboundRefused(BadRequest):
    """A SPARQL query or update would make Attest send a request (SERVICE, LOAD) to a target not on
    federation_allowlist; nothing was sent."""


class RemoteEndpointError(AttestError):
    """A SERVICE or LOAD target on federation_allowlist failed; told by host and status, never by its body."""

    status_code = 502


class QueryTimeout(AttestError):
    """A query ran past its deadline and was stopped."""

    status_code = 503


class QueryResourcesExceeded(AttestError):
    """A query needed more memory than a query worker may use, and its worker died of it."""

    status_code = 503


class Overloaded(AttestError):
    """Too many heavy requests at once; the client should retry later."""

    status_code = 429


class OntologyError(AttestError):
    """The ontology files do not load; the live ontology is kept."""

    status_code = 422


class StoreError(AttestError):
    """The store refused an operation (I/O, corruption, lock held by another process)."""


class StoreUnavailable(StoreError):
    """A remote store cannot be reached or is down; nothing was written, and retrying later may succeed."""

    status_code = 503


class ExtractionError(AttestError):
    """An extractor failed on a chunk (LLM unreachable, malformed output after retries, ...)."""

    status_code = 502


class LlmUnavailable(ExtractionError):
    """No OpenAI-compatible server answered; callers fall back to offline mode."""

    status_code = 503


class UpstreamError(AttestError):
    """The chat proxy's upstream LLM server failed or could not be reached after its retries."""

    status_code = 502


class UpstreamTimeout(UpstreamError):
    """The chat proxy's upstream did not answer within its timeout on any attempt."""

    status_code = 504


class CircuitOpen(UpstreamError):
    """The chat proxy's circuit breaker is open after repeated upstream failures; retry after its cool-off."""

    status_code = 503
