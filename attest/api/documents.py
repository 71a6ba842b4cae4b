"""POST/GET/DELETE /documents: ingest a document (upload or JSON text), list them, read one's status and report."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field, ValidationError

from attest.api.deps import IrisDep, ResourcesDep, StoreDep, Writer
from attest.api.heavy import Heavy
from attest.errors import BadRequest, ExtractionError, NotFound, UnsupportedFormat
from attest.ingest.background import IngestThread
from attest.ingest.pipeline import IngestPipeline
from attest.ingest.session import open_session
from attest.ingest.status import StatusRegistry
from attest.ingest.worker import offload
from attest.operations.paging import DEFAULT_LIMIT, MAX_LIMIT, next_cursor, page
from attest.operations.reasoning import reasoner_of
from attest.vocab import is_valid_id

router = APIRouter(tags=["documents"])
_create_lock = threading.Lock()


class TextDocument(BaseModel):
    """A document posted as JSON."""

    text: str = Field(min_length=1, description="The document's text")
    name: str | None = Field(None, min_length=1, max_length=300, description="Name it is known by (e.g. notes.md); "
                             "the same name later replaces it. Default: derived from the content")
    media_type: str = Field("text/plain", description="text/plain, text/markdown or text/html")


def get_pipeline(resources: ResourcesDep) -> IngestPipeline:
    """One pipeline per app, made on first use (the LLM probe runs then, not at startup)."""
    with _create_lock:
        if resources.ingest_pipeline is None:
            session = open_session(resources.store, resources.settings, reason=False)
            if resources.settings.reason_after_ingest:  # the app's one reasoner, so its closure stays incremental
                session.pipeline.reasoner = reasoner_of(resources)
            resources.ingest_pipeline, resources.ingest_mode = session.pipeline, session.mode
            worker = offload(session.pipeline) if resources.settings.ingest_worker else None
            resources.ingest_thread = IngestThread(resources.settings.ingest_nice, worker)
        return resources.ingest_pipeline


PipelineDep = Annotated[IngestPipeline, Depends(get_pipeline)]


@router.post("/documents", dependencies=[Writer, Heavy], status_code=201)
async def post_document(request: Request, pipeline: PipelineDep, resources: ResourcesDep) -> JSONResponse:
    """Ingest one document: multipart upload (field `file`) or JSON {text, name?, media_type?}."""
    content_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type == "multipart/form-data":
        form = await request.form()
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            raise BadRequest("multipart upload needs a file in the field 'file'")
        data, source, media_type = await upload.read(), upload.filename or "upload.txt", None
        if upload.content_type and upload.content_type not in ("application/octet-stream", ""):
            media_type = upload.content_type
    elif content_type == "application/json":
        try:
            body = TextDocument.model_validate(json.loads(await request.body()))
        except (ValueError, ValidationError) as exc:
            raise BadRequest(f"invalid JSON document: {exc}") from exc
        data, media_type = body.text.encode("utf-8"), body.media_type
        source = body.name or f"text-{hashlib.sha256(data).hexdigest()[:12]}"
    else:
        raise UnsupportedFormat("POST /documents takes multipart/form-data (field 'file') or application/json",
                                media_type=content_type)
    assert resources.ingest_thread is not None  # made with the pipeline (get_pipeline)
    report = await resources.ingest_thread.run(pipeline.ingest_bytes, data, source=source, media_type=media_type)
    if report.status == "failed":
        raise ExtractionError(report.message, id=report.doc_id, report=report.to_dict())
    return JSONResponse({"id": report.doc_id, "report": report.to_dict(), "mode": resources.ingest_mode},
                        status_code=200 if report.outcome == "unchanged" else 201)


@router.get("/documents")
def list_documents(store: StoreDep, iris: IrisDep,
                   limit: Annotated[int | None, Query(description=f"Documents per page (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})")] = None,
                   cursor: Annotated[str | None, Query(description="Continue from this cursor (`next`)")] = None) -> dict[str, object]:
    """A page of the documents, sorted by source, with how many there are in each status."""
    generation = store.generation
    at = page(limit, cursor, list_name="documents", subject="", generation=generation)
    registry = StatusRegistry(store, iris)
    docs = registry.list(at.limit + 1, at.offset)
    by_status = registry.counts()
    return {"documents": docs[:at.limit], "count": sum(by_status.values()), "by_status": by_status,
            "next": next_cursor(at, min(len(docs), at.limit), len(docs) > at.limit, list_name="documents", subject="",
                                generation=generation),
            "limit": at.limit, "limit_capped": at.capped}


@router.get("/documents/{doc_id}")
def get_document(doc_id: str, store: StoreDep, iris: IrisDep) -> dict[str, object]:
    status = StatusRegistry(store, iris).get(doc_id) if is_valid_id(doc_id) else None
    if status is None:
        raise NotFound(f"no document with id '{doc_id}'", id=doc_id)
    return {**status.detail(), "graph": iris.document_graph(doc_id)}


@router.delete("/documents/{doc_id}", dependencies=[Writer], status_code=204)
def delete_document(doc_id: str, pipeline: PipelineDep) -> Response:
    if not pipeline.delete(doc_id):
        raise NotFound(f"no document with id '{doc_id}'", id=doc_id)
    return Response(status_code=204)
