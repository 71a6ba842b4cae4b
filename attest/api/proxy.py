"""The OpenAI-compatible surface (/v1/chat/completions, /v1/models, /v1/embeddings) and the memory admin routes."""

from __future__ import annotations

import threading
from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request, Response

from attest.api.deps import ResourcesDep, Writer
from attest.errors import BadRequest, NotFound
from attest.operations.answers import answer_service
from attest.proxy.memory import EXPORT_FORMATS, valid_namespace
from attest.proxy.chat import ChatProxy
from attest.proxy.wire import invalid, parse_json_object

router = APIRouter(tags=["chat proxy"])
_create_lock = threading.Lock()


def get_proxy(resources: ResourcesDep) -> ChatProxy:
    """One proxy per app, made on first use (its memory folder and HTTP client then, not at startup)."""
    with _create_lock:
        if resources.proxy is None:
            resources.proxy = ChatProxy(resources.settings, resources.iris,
                                        documents=lambda: answer_service(resources, "proxy"))
        return resources.proxy


ProxyDep = Annotated[ChatProxy, Depends(get_proxy)]


@router.post("/v1/chat/completions", dependencies=[Writer])
async def chat_completions(request: Request, proxy: ProxyDep) -> Response:
    """OpenAI chat completions with graph context injected and the reply's citations verified (`kgproxy` block)."""
    call = proxy.call(parse_json_object(await request.body()), request.headers)
    return await proxy.chat(call)


@router.get("/v1/models", dependencies=[Writer])
async def models(request: Request, proxy: ProxyDep) -> Response:
    """The upstream's models."""
    target = proxy.upstream.target(request.headers.get("x-kgproxy-upstream-url"), request.headers.get("authorization"))
    return await proxy.passthrough(target, "GET", "models")


@router.post("/v1/embeddings", dependencies=[Writer])
async def embeddings(request: Request, proxy: ProxyDep) -> Response:
    """The upstream's embeddings, passed through."""
    body = parse_json_object(await request.body())
    if not isinstance(body.get("model"), str) or not body["model"]:
        raise invalid("you must provide a model parameter", "model", "missing_required_parameter")
    if "input" not in body:
        raise invalid("you must provide an input parameter", "input", "missing_required_parameter")
    target = proxy.upstream.target(request.headers.get("x-kgproxy-upstream-url"), request.headers.get("authorization"))
    return await proxy.passthrough(target, "POST", "embeddings", body)


# memory administration (bearer token) ---------------------------------------------------------


def _namespace(proxy: ChatProxy, name: str) -> str:
    if not valid_namespace(name):
        raise BadRequest("a namespace is 1-64 characters of [A-Za-z0-9_-]", namespace=name)
    if not proxy.memory.exists(name):
        raise NotFound(f"no memory namespace '{name}'", namespace=name)
    return name


@router.get("/admin/namespaces", dependencies=[Writer])
def list_namespaces(proxy: ProxyDep) -> dict[str, object]:
    """Every memory namespace with its turns, conversations and entities; `pending`: requests whose turns are not
    written yet."""
    return {"namespaces": [proxy.memory.namespace(name).counts() for name in proxy.memory.names()],
            "pending": proxy.memory.pending}


@router.get("/admin/namespaces/{name}/export", dependencies=[Writer])
def export_namespace(name: str, proxy: ProxyDep,
                     format: Annotated[str, Query(description="trig or nquads")] = "trig") -> Response:
    """One namespace's memory graphs (every graph of its store but the ontology) as TriG or N-Quads."""
    if format not in EXPORT_FORMATS:
        raise BadRequest(f"format must be one of {', '.join(EXPORT_FORMATS)}", format=format)
    proxy.memory.drain()
    data = proxy.memory.namespace(_namespace(proxy, name)).export(format)
    return Response(data, media_type=EXPORT_FORMATS[format][1])


@router.delete("/admin/namespaces/{name}", dependencies=[Writer], status_code=204)
def purge_namespace(name: str, proxy: ProxyDep) -> Response:
    """Remove a namespace's memory whole (its pending turns first); 404 when there is none."""
    if not proxy.memory.purge(_namespace(proxy, name)):
        raise NotFound(f"no memory namespace '{name}'", namespace=name)
    return Response(status_code=204)
