"""POST /context, /answer and /verify: grounded retrieval, answers and citation checks (thin routes over attest.answer)."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from pydantic import BaseModel, Field, field_validator

from attest.answer.inference import reasoner_inference
from attest.answer.limits import MAX_HINTS, MAX_HOPS, MAX_LIMIT, MAX_PASSAGES, MAX_QUESTION_BYTES, MAX_VERIFY_CHARS
from attest.answer.models import ContextResponse, VerifyReport
from attest.answer.retrieve import ContextQuery
from attest.answer.service import AnswerService
from attest.api.heavy import Heavy
from attest.sparql.deadline import live_store
from attest.vocab import is_valid_id


router = APIRouter(tags=["answers"])


def _within_bytes(value: str, name: str) -> str:
    if len(value.encode("utf-8")) > MAX_QUESTION_BYTES:
        raise ValueError(f"{name} is over the limit of {MAX_QUESTION_BYTES} bytes (10 KB)")
    return value


def as_of_date(value: Any) -> Any:
    """as_of: a calendar date written YYYY-MM-DD, nothing else (not a number, not a time)."""
    if value is None or isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            if len(value) == 10:
                return date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"as_of must be a date written YYYY-MM-DD (e.g. 2026-10-01), not {str(value)[:40]!r}")


AS_OF_DESCRIPTION = "Answer as of this day (YYYY-MM-DD): facts that held then rank first, the others are marked past or future; default today"


class KagQuery(BaseModel):
    """The kag_query tool shape of DESIGN.md: what an agent asks the graph for."""

    query: str = Field(min_length=1, description="The question or search text, at most 10 KB")
    entities: list[Annotated[str, Field(min_length=1, max_length=200)]] = Field(
        default_factory=list, max_length=MAX_HINTS, description="Entity ids or names to start from, at most 50")
    include_relations: bool = Field(True, description="Include facts between the entities")
    max_hops: int = Field(2, ge=0, le=MAX_HOPS, description="Hops of expansion over asserted and inferred facts, 0-3")
    limit: int = Field(20, ge=1, le=MAX_LIMIT, description="Most entities and most facts returned, 1-100")
    k: int = Field(5, ge=1, le=MAX_PASSAGES, description="Source passages returned, 1-20")
    as_of: date | None = Field(None, description=AS_OF_DESCRIPTION)

    _as_of = field_validator("as_of", mode="before")(as_of_date)
    _query_size = field_validator("query")(lambda v: _within_bytes(v, "query"))


class ContextRequest(KagQuery):
    """What /context takes: the kag_query shape, optionally narrowed to one document."""

    document: str | None = Field(None, description="Only this document's facts and sources (a document id)")

    @field_validator("document")
    @classmethod
    def _document_id(cls, value: str | None) -> str | None:
        if value is not None and not is_valid_id(value):
            raise ValueError("document must be a document id ([A-Za-z0-9._~-], at most 200 characters)")
        return value


class AnswerRequest(BaseModel):
    """What /answer takes."""

    question: str = Field(min_length=1, description="The question, at most 10 KB")
    max_hops: int = Field(2, ge=0, le=MAX_HOPS, description="Hops of expansion, 0-3")
    limit: int = Field(20, ge=1, le=MAX_LIMIT, description="Most entities and facts in the context, 1-100")
    mode: Literal["auto", "llm", "extractive"] = Field(
        "auto", description="llm: the configured model must answer; extractive: compose from facts; auto: llm, else extractive")
    as_of: date | None = Field(None, description=AS_OF_DESCRIPTION)

    _as_of = field_validator("as_of", mode="before")(as_of_date)
    _question_size = field_validator("question")(lambda v: _within_bytes(v, "question"))


class VerifyRequest(BaseModel):
    """What /verify takes: any text with citation markers."""

    text: str = Field(max_length=MAX_VERIFY_CHARS, description="Text with <<entity:ID>> / <<relation:…>> markers, at most 200,000 characters")
    as_of: date | None = Field(None, description="The day the text speaks of (YYYY-MM-DD, default today): a cited fact replaced before it is reported superseded")

    _as_of = field_validator("as_of", mode="before")(as_of_date)


def answer_service(state) -> AnswerService:
    """The answer service over the app's store (`state`: the app's state, or `attest mcp`'s)."""
    # our own bounded lookups: on the live store, which a stream of ingests does not make wait for a checkpoint
    store = live_store(state, "answers")
    return AnswerService(store, state.iris, state.settings, reasoner_inference(store, state.iris, state.settings),
                         owner=state.store)


def get_service(request: Request) -> AnswerService:
    return answer_service(request.app.state)


Service = Annotated[AnswerService, Depends(get_service)]


@router.post("/context", response_model=ContextResponse)
def context(body: ContextRequest, service: Service) -> ContextResponse:
    return service.context(ContextQuery(**body.model_dump()))


@router.post("/answer", response_model=VerifyReport, dependencies=[Heavy])
def answer(body: AnswerRequest, service: Service) -> VerifyReport:
    return service.answer(body.question, mode=body.mode, max_hops=body.max_hops, limit=body.limit, as_of=body.as_of)


@router.post("/verify", response_model=VerifyReport)
def verify(body: VerifyRequest, service: Service) -> VerifyReport:
    return service.verify(body.text, as_of=body.as_of)
