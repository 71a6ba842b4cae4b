"""One proxied chat turn: retrieve and inject context, call the upstream, verify the reply's citations, remember the turn."""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, AsyncIterator, Callable, Iterator, Mapping

import httpx
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from attest.answer.citations import parse_citations
from attest.answer.inference import DerivationRecords
from attest.answer.models import CitationReport, VerifyReport
from attest.answer.service import AnswerService
from attest.answer.verify import assemble
from attest.errors import BadRequest, UpstreamError
from attest.proxy.errors import error_body
from attest.proxy.inject import Injection, Source, build_injection, message_text, retrieval_query, retrieve
from attest.proxy.memory import Memory, Turn, valid_conversation, valid_namespace
from attest.proxy.tokens import context_budget
from attest.proxy.upstream import Target, Upstream
from attest.proxy.wire import check_chat
from attest.settings import Settings
from attest.vocab import Iris

NAMESPACE_HEADER = "x-kgproxy-namespace"
CONVERSATION_HEADER = "x-kgproxy-conversation"
DEFAULT_NAMESPACE = "default"


@dataclass
class ChatCall:
    """A checked chat request and where it belongs."""

    body: dict[str, Any]
    namespace: str
    conversation: str
    target: Target
    received: datetime

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))


def namespace_of(header: str | None) -> str:
    name = DEFAULT_NAMESPACE if header is None else header.strip()
    if not valid_namespace(name):
        raise BadRequest("X-KGProxy-Namespace must be 1-64 characters of [A-Za-z0-9_-], starting with a letter or digit",
                         code="invalid_namespace", param="X-KGProxy-Namespace")
    return name


def conversation_of(header: str | None, user: str | None) -> str:
    """The X-KGProxy-Conversation header, else the request's `user` field, else a new id."""
    if header is not None:
        if not valid_conversation(header.strip()):
            raise BadRequest("X-KGProxy-Conversation must be 1-128 characters of [A-Za-z0-9._:-]",
                             code="invalid_conversation", param="X-KGProxy-Conversation")
        return header.strip()
    if user:
        return user if valid_conversation(user) else "user-" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:16]
    return f"conv-{uuid.uuid4().hex}"


class ChatProxy:
    """The app's proxy: its upstream client, the memory namespaces, and the app's store for the shared documents."""

    def __init__(self, settings: Settings, iris: Iris, documents: Callable[[], AnswerService]) -> None:
        """`documents`: a new answer service over the app's store (the shared documents), for one request."""
        self.settings, self.iris, self.documents = settings, iris, documents
        self.upstream = Upstream(self.settings)
        self.memory = Memory(self.settings, self.iris)
        self.budget = context_budget(self.settings.proxy_context_max_tokens, self.settings.proxy_context_share,
                                     self.settings.proxy_model_context_tokens)

    def call(self, body: dict[str, Any], headers: Mapping[str, str]) -> ChatCall:
        check_chat(body)
        namespace = namespace_of(headers.get(NAMESPACE_HEADER))
        conversation = conversation_of(headers.get(CONVERSATION_HEADER), body.get("user"))
        target = self.upstream.target(headers.get("x-kgproxy-upstream-url"), headers.get("authorization"))
        return ChatCall(body, namespace, conversation, target, datetime.now(timezone.utc))

    # sources ------------------------------------------------------------------------------

    @contextmanager
    def sources(self, namespace: str) -> Iterator[list[Source]]:
        """The stores this namespace reads, each behind a per-request answer service, held while in use."""
        with ExitStack() as stack:
            out = []
            if self.settings.proxy_shared_documents:
                out.append(Source("documents", self.documents()))
            names = self.memory.names() if self.settings.proxy_cross_namespace_reads else []
            for name in dict.fromkeys([namespace, *names]):
                ns = self.memory.namespace(name)
                store = stack.enter_context(ns.reading())
                if store is not None:
                    out.append(Source(f"memory:{name}", AnswerService(store, self.iris, ns.settings,
                                                                      DerivationRecords(store, self.iris), owner=store)))
            yield out

    def inject(self, call: ChatCall) -> Injection:
        query = retrieval_query(call.body["messages"], self.settings.proxy_query_turns)
        k = self.settings.proxy_retrieval_k
        with self.sources(call.namespace) as sources:
            found = retrieve(sources, query, k, self.settings.proxy_max_hops) if query else []
            return build_injection(found, self.budget, k)

    def verify(self, namespace: str, text: str) -> VerifyReport:
        """The reply checked as /verify does, each citation resolved against every store the namespace reads."""
        citations = parse_citations(text)
        with self.sources(namespace) as sources:
            resolved = [s.service.verifier.resolve(citations) for s in sources]
        best = [max(column, key=_strength) for column in zip(*resolved)] if resolved else []
        return assemble(text, citations, best)

    # the turn -----------------------------------------------------------------------------

    async def chat(self, call: ChatCall) -> Response:
        injection = await run_in_threadpool(self.inject, call)
        body = dict(call.body)
        if injection.system is not None:
            body["messages"] = [{"role": "system", "content": injection.system}, *call.body["messages"]]
        headers = {"X-KGProxy-Used-K": str(injection.used_k), "X-KGProxy-Context-Tokens": str(injection.tokens),
                   "X-KGProxy-Upstream": call.target.url, "X-KGProxy-Conversation": call.conversation,
                   "X-KGProxy-Namespace": call.namespace}
        response = await self.upstream.call(call.target, "POST", "chat/completions", body, stream=call.stream)
        if response.status_code != 200:
            return await _relay_error(response, headers)
        if call.stream:
            if not response.headers.get("content-type", "").startswith("text/event-stream"):
                await response.aclose()
                raise UpstreamError(f"upstream {call.target.url} did not stream (content-type "
                                    f"{response.headers.get('content-type')!r})", code="upstream_malformed")
            return StreamingResponse(self._relay_stream(call, injection, response), media_type="text/event-stream",
                                     headers={**headers, "Cache-Control": "no-cache"})
        try:
            data = response.json()
            message = data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise UpstreamError(f"upstream {call.target.url} answered 200 without a chat completion",
                                code="upstream_malformed") from exc
        text = message.get("content") if isinstance(message.get("content"), str) else ""
        report = await run_in_threadpool(self.verify, call.namespace, text)
        removed = self.settings.proxy_remove_low_confidence and "removed_claims" in report.flags
        if removed:
            message["content"] = report.text
        data["kgproxy"] = self._block(call, injection, report, 200, removed=removed)
        headers["X-KGProxy-Confidence"] = f"{report.confidence:.4f}"
        self._remember(call, report.text if removed else text)  # the reply as the client received it
        return JSONResponse(data, headers=headers)

    async def _relay_stream(self, call: ChatCall, injection: Injection, response: httpx.Response) -> AsyncIterator[bytes]:
        """The upstream's events as they come, then one chunk carrying the kgproxy block, then [DONE]."""
        parts: list[str] = []
        last: dict[str, Any] = {}
        try:
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # comments and blank separators; each event is re-framed below
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    chunk = None
                if isinstance(chunk, dict):
                    last = chunk
                    for choice in chunk.get("choices") or []:
                        content = (choice.get("delta") or {}).get("content") if isinstance(choice, dict) else None
                        if isinstance(content, str) and choice.get("index", 0) == 0:
                            parts.append(content)
                yield f"data: {data}\n\n".encode()
        except httpx.HTTPError as exc:
            failure = error_body(502, f"upstream {call.target.url} broke off the stream ({type(exc).__name__})",
                                 "upstream_stream_broken")
            yield f"data: {json.dumps(failure)}\n\n".encode()
            return
        finally:
            await response.aclose()
        text = "".join(parts)
        report = await run_in_threadpool(self.verify, call.namespace, text)
        final = {"id": last.get("id", "chatcmpl-kgproxy"), "object": "chat.completion.chunk",
                 "created": last.get("created", int(time.time())), "model": last.get("model", call.body["model"]),
                 "choices": [], "kgproxy": self._block(call, injection, report, 200, removed=False)}
        yield f"data: {json.dumps(final)}\n\n".encode()
        yield b"data: [DONE]\n\n"
        self._remember(call, text)

    def _block(self, call: ChatCall, injection: Injection, report: VerifyReport, status: int, *,
               removed: bool) -> dict[str, Any]:
        return {
            "retrieval": injection.retrieval(),
            "context_tokens": injection.tokens,
            "verification": {
                "confidence": report.confidence,
                "flags": report.flags,
                "low_confidence_removed": removed,
                "claims": [{"text": c.text, "confidence": c.confidence, "flags": c.flags,
                            "citations": [{"marker": r.marker, "status": r.status, "confidence": r.confidence,
                                           **({"valid_to": r.valid_to, "superseded_by": r.superseded_by,
                                               "label": r.label} if r.status == "superseded" else {})}
                                          for r in c.citations]} for c in report.claims],
            },
            "namespace": call.namespace,
            "conversation": call.conversation,
            "upstream_url": call.target.url,
            "upstream_status": status,
        }

    def _remember(self, call: ChatCall, reply: str) -> None:
        """The request's new user turn (its last message, when a user wrote it) and the reply, in the background."""
        turns = []
        last = call.body["messages"][-1]
        if last.get("role") == "user" and (text := message_text(last).strip()):
            turns.append(Turn("user", text, call.received))
        if reply.strip():
            turns.append(Turn("assistant", reply, datetime.now(timezone.utc)))
        if turns:
            self.memory.remember(call.namespace, call.conversation, turns)

    # passthrough --------------------------------------------------------------------------

    async def passthrough(self, target: Target, method: str, path: str, body: Any = None) -> Response:
        response = await self.upstream.call(target, method, path, body)
        if response.status_code != 200:
            return await _relay_error(response, {"X-KGProxy-Upstream": target.url})
        return Response(response.content, status_code=200, media_type="application/json",
                        headers={"X-KGProxy-Upstream": target.url})

    async def aclose(self) -> None:
        await self.upstream.aclose()
        self.memory.close()


def _strength(report: CitationReport) -> tuple[float, bool]:
    return report.confidence, report.status not in ("not_found", "invalid")


async def _relay_error(response: httpx.Response, headers: dict[str, str]) -> Response:
    """An upstream 4xx as it came when it is OpenAI's error JSON; otherwise wrapped in it with the upstream's status."""
    raw = await response.aread()
    await response.aclose()
    try:
        body = json.loads(raw)
    except ValueError:
        body = None
    if not (isinstance(body, dict) and isinstance(body.get("error"), dict)):
        body = error_body(response.status_code, f"upstream answered {response.status_code}: {raw[:200].decode('utf-8', 'replace')}",
                          "upstream_status")
    return JSONResponse(body, status_code=response.status_code, headers=headers)


__all__ = ["ChatCall", "ChatProxy", "conversation_of", "namespace_of"]
