"""POST /context, /answer and /verify: grounded retrieval, answers and citation checks (thin routes over attest.answer)."""

from __future__ import annotations

from datetime import date
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field, field_validator

from attest.answer.limits import MAX_VERIFY_CHARS
from attest.answer.models import ContextResponse, VerifyReport
from attest.answer.retrieve import ContextQuery
from attest.answer.service import AnswerService
from attest.api.deps import ResourcesDep
from attest.api.heavy import Heavy
from attest.operations.answers import AnswerRequest, KagQuery, answer_service, as_of_date
from attest.vocab import is_valid_id


router = APIRouter(tags=["answers"])


class ContextRequest(KagQuery):
    """What /context takes: the kag_query shape, optionally narrowed to one document."""

    document: str | None = Field(None, description="Only this document's facts and sources (a document id)")

    @field_validator("document")
    @classmethod
    def _document_id(cls, value: str | None) -> str | None:
        if value is not None and not is_valid_id(value):
            raise ValueError("document must be a document id ([A-Za-z0-9._~-], at most 200 characters)")
        return value


class VerifyRequest(BaseModel):
    """What /verify takes: any text with citation markers."""

    text: str = Field(max_length=MAX_VERIFY_CHARS, description="Text with <<entity:ID>> / <<relation:…>> markers, at most 200,000 characters")
    as_of: date | None = Field(None, description="The day the text speaks of (YYYY-MM-DD, default today): a cited fact replaced before it is reported superseded")

    _as_of = field_validator("as_of", mode="before")(as_of_date)


def get_service(resources: ResourcesDep) -> AnswerService:
    return answer_service(resources)


Service = Annotated[AnswerService, Depends(get_service)]


@router.post("/context", response_model=ContextResponse)
def context(body: ContextRequest, service: Service) -> ContextResponse:
    response: ContextResponse = service.context(ContextQuery(**body.model_dump()))  # AnswerService.context is untyped
    return response


@router.post("/answer", response_model=VerifyReport, dependencies=[Heavy])
def answer(body: AnswerRequest, service: Service) -> VerifyReport:
    return service.answer(body.question, mode=body.mode, max_hops=body.max_hops, limit=body.limit, as_of=body.as_of)


@router.post("/verify", response_model=VerifyReport)
def verify(body: VerifyRequest, service: Service) -> VerifyReport:
    return service.verify(body.text, as_of=body.as_of)
