"""The chat proxy driven by the official openai client (sync, async, streaming) against the fake upstream: the injected
system message, the kgproxy block and headers, verification, tool-call passthrough, budget, bad input."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import openai
import pytest

from attest.proxy.tokens import estimate_tokens
from tests.proxy_support import BLOCK, async_client, client, memory_block, proxy_settings, serve, system_message

QUESTION = [{"role": "user", "content": "What does Oxigraph use for storage?"}]


@pytest.fixture
def server(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm)) as s:
        yield s


def _relation_marker(system: str) -> str:
    return re.search(r"<<relation:oxigraph~[0-9a-f]{10}>> Oxigraph uses RocksDB", system).group(0).split(" ")[0]


def test_non_streaming_injects_context_and_verifies_the_reply(server, fake_llm):
    fake_llm.reply("Oxigraph stores its data in RocksDB <<entity:rocksdb>>. It was written on Mars <<entity:no-such-thing>>.")
    raw = client(server).chat.completions.with_raw_response.create(model="test-model", messages=QUESTION)
    completion = raw.parse()

    sent = fake_llm.chat_requests[-1].json
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    assert sent["messages"][1] == QUESTION[0] and sent["model"] == "test-model"
    system = system_message(fake_llm.chat_requests[-1])
    block = memory_block(system)
    assert "<<entity:oxigraph>> Oxigraph" in block and "<<entity:rocksdb>> RocksDB" in block
    assert _relation_marker(block)  # facts carry their citation markers
    assert "cite" in BLOCK.sub("", system).lower()  # the instruction to cite sits outside the block

    assert completion.choices[0].message.content.startswith("Oxigraph stores its data in RocksDB")  # flagged, not removed
    block = completion.model_extra["kgproxy"]
    assert set(block) == {"retrieval", "context_tokens", "verification", "namespace", "conversation", "upstream_url",
                          "upstream_status"}
    retrieval = block["retrieval"]
    assert retrieval["enabled"] is True and retrieval["pipeline"] == "attest-context" and retrieval["k"] == 10
    assert retrieval["used_k"] == len(retrieval["scores"]) > 0 and "oxigraph" in retrieval["entity_ids"]
    assert block["context_tokens"] == estimate_tokens(system) and block["upstream_status"] == 200
    assert block["namespace"] == "default" and block["upstream_url"] == fake_llm.url
    claims = block["verification"]["claims"]
    assert claims[0]["confidence"] == 1.0 and claims[0]["flags"] == []
    assert claims[1]["confidence"] == 0.0 and claims[1]["flags"] == ["low_confidence", "removed"]
    assert claims[1]["citations"][0]["status"] == "not_found"
    assert 0 < block["verification"]["confidence"] < 1

    assert raw.headers["X-KGProxy-Used-K"] == str(retrieval["used_k"])
    assert raw.headers["X-KGProxy-Context-Tokens"] == str(block["context_tokens"])
    assert float(raw.headers["X-KGProxy-Confidence"]) == pytest.approx(block["verification"]["confidence"])
    assert raw.headers["X-KGProxy-Upstream"] == fake_llm.url
    assert raw.headers["X-KGProxy-Conversation"] == block["conversation"]


def test_relation_citations_verify_and_low_claims_can_be_removed(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm, proxy_remove_low_confidence=True)) as server:
        fake_llm.reply("Placeholder <<entity:oxigraph>>.")
        client(server).chat.completions.create(model="test-model", messages=QUESTION)
        marker = _relation_marker(system_message(fake_llm.chat_requests[-1]))
        fake_llm.reply(f"Oxigraph uses RocksDB {marker}. Oxigraph was made by aliens <<entity:aliens>>.")
        completion = client(server).chat.completions.create(model="test-model", messages=QUESTION)
    assert completion.choices[0].message.content == f"Oxigraph uses RocksDB {marker}."
    verification = completion.model_extra["kgproxy"]["verification"]
    assert verification["low_confidence_removed"] is True
    assert verification["claims"][0]["citations"][0]["status"] == "asserted"
    assert "removed" in verification["claims"][1]["flags"]  # still reported


def test_a_reply_without_citations_is_returned_as_ungrounded(server, fake_llm):
    fake_llm.reply("I am not sure. Perhaps it uses files.")
    completion = client(server).chat.completions.create(model="test-model", messages=QUESTION)
    assert completion.choices[0].message.content == "I am not sure. Perhaps it uses files."
    verification = completion.model_extra["kgproxy"]["verification"]
    assert verification["confidence"] == 0.0
    assert "no_citations" in verification["flags"] and "ungrounded_claims" in verification["flags"]
    assert all(c["flags"] == ["ungrounded"] for c in verification["claims"])


def test_async_client(server, fake_llm):
    fake_llm.reply("RocksDB <<entity:rocksdb>>.")

    async def ask():
        async with async_client(server) as c:
            return await c.chat.completions.create(model="test-model", messages=QUESTION)

    completion = asyncio.run(ask())
    assert completion.choices[0].message.content == "RocksDB <<entity:rocksdb>>."
    assert completion.model_extra["kgproxy"]["verification"]["confidence"] == 1.0


def test_streaming_relays_chunks_usage_and_one_kgproxy_event(server, fake_llm):
    answer = "Oxigraph keeps its data in RocksDB <<entity:rocksdb>>. Nothing else."
    fake_llm.reply(answer)
    with client(server).chat.completions.with_streaming_response.create(
            model="test-model", messages=QUESTION, stream=True, stream_options={"include_usage": True}) as response:
        headers = response.headers
        chunks = list(response.parse())
    assert int(headers["X-KGProxy-Used-K"]) > 0 and int(headers["X-KGProxy-Context-Tokens"]) > 0
    assert headers["content-type"].startswith("text/event-stream")
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == answer
    usage = [c for c in chunks if c.usage is not None]
    assert len(usage) == 1 and usage[0].usage.completion_tokens == len(answer.split())
    assert fake_llm.chat_requests[-1].json["stream_options"] == {"include_usage": True}
    last = chunks[-1]
    assert last.choices == [] and "kgproxy" in last.model_extra
    assert sum("kgproxy" in (c.model_extra or {}) for c in chunks) == 1
    verification = last.model_extra["kgproxy"]["verification"]
    assert verification["claims"][0]["confidence"] == 1.0 and verification["claims"][1]["flags"] == ["ungrounded"]


def test_async_streaming(server, fake_llm):
    fake_llm.reply("Async streamed <<entity:oxigraph>>.")

    async def ask():
        async with async_client(server) as c:
            stream = await c.chat.completions.create(model="test-model", messages=QUESTION, stream=True)
            return [chunk async for chunk in stream]

    chunks = asyncio.run(ask())
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Async streamed <<entity:oxigraph>>."
    assert chunks[-1].model_extra["kgproxy"]["verification"]["confidence"] == 1.0


def test_raw_stream_ends_with_the_kgproxy_event_then_done(server, fake_llm):
    fake_llm.reply("Short <<entity:oxigraph>>.")
    body = {"model": "test-model", "messages": QUESTION, "stream": True}
    with httpx.stream("POST", server.url + "/v1/chat/completions", json=body, timeout=30) as response:
        events = [line for line in response.iter_lines() if line.startswith("data:")]
    assert events[-1] == "data: [DONE]"
    final = json.loads(events[-2][5:])
    assert final["object"] == "chat.completion.chunk" and final["choices"] == [] and "kgproxy" in final


TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "Weather of a city",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]
CALL = {"id": "call_42", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}


def test_tool_calls_pass_through_untouched(server, fake_llm):
    fake_llm.reply("", tool_calls=[CALL])
    messages = [{"role": "user", "content": "Weather in Paris?"}]
    completion = client(server).chat.completions.create(model="test-model", messages=messages, tools=TOOLS,
                                                        tool_choice="auto", parallel_tool_calls=False)
    sent = fake_llm.chat_requests[-1].json
    assert sent["tools"] == TOOLS and sent["tool_choice"] == "auto" and sent["parallel_tool_calls"] is False
    message = completion.choices[0].message
    assert completion.choices[0].finish_reason == "tool_calls"
    assert message.content is None and message.tool_calls[0].model_dump(exclude_none=True) == CALL

    # the tool's answer goes back with the assistant's call, both untouched
    fake_llm.reply("Sunny.")
    history = messages + [{"role": "assistant", "content": None, "tool_calls": [CALL]},
                          {"role": "tool", "tool_call_id": "call_42", "content": "{\"sky\": \"sunny\"}"}]
    client(server).chat.completions.create(model="test-model", messages=history, tools=TOOLS)
    forwarded = fake_llm.chat_requests[-1].json["messages"]
    assert forwarded[-3:] == history if forwarded[0]["role"] == "system" else forwarded == history


def test_streamed_tool_calls_pass_through(server, fake_llm):
    fake_llm.reply("", tool_calls=[CALL])
    stream = client(server).chat.completions.create(model="test-model", messages=[{"role": "user", "content": "Paris?"}],
                                                    tools=TOOLS, stream=True)
    deltas = [c.choices[0].delta.tool_calls for c in stream if c.choices and c.choices[0].delta.tool_calls]
    assert deltas[0][0].id == "call_42" and deltas[0][0].function.arguments == CALL["function"]["arguments"]


def test_models_and_embeddings_pass_through(server, fake_llm):
    c = client(server)
    assert [m.id for m in c.models.list()] == ["test-model"]
    result = c.embeddings.create(model="test-model", input=["one", "two"])
    assert len(result.data) == 2 and len(result.data[0].embedding) == 8
    sent = fake_llm.requests[-1]
    assert sent.path == "/v1/embeddings" and sent.json["input"] == ["one", "two"] and sent.json["model"] == "test-model"


def test_the_context_stays_within_the_token_budget(settings, fake_llm):
    # min(1000, 20% of 1500) = 300 tokens (225 of them the template): not every retrieved line fits
    with serve(proxy_settings(settings, fake_llm, proxy_model_context_tokens=1500)) as server:
        fake_llm.reply("ok")
        raw = client(server).chat.completions.with_raw_response.create(
            model="test-model", messages=[{"role": "user", "content": "Oxigraph, RocksDB, SPARQL 1.1, Apache Jena, database core?"}])
        block = raw.parse().model_extra["kgproxy"]
    system = system_message(fake_llm.chat_requests[-1])
    assert block["retrieval"]["budget_tokens"] == 300
    assert estimate_tokens(system) == block["context_tokens"] <= 300
    assert int(raw.headers["X-KGProxy-Context-Tokens"]) <= 300
    assert 0 < block["retrieval"]["used_k"]
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:  # the default budget holds more
        fake_llm.reply("ok")
        wide = client(server).chat.completions.create(
            model="test-model", messages=[{"role": "user", "content": "Oxigraph, RocksDB, SPARQL 1.1, Apache Jena, database core?"}])
    assert wide.model_extra["kgproxy"]["retrieval"]["used_k"] > block["retrieval"]["used_k"]


@pytest.mark.parametrize("body, param, code", [
    ({"messages": QUESTION}, "model", "missing_required_parameter"),
    ({"model": "", "messages": QUESTION}, "model", "invalid_value"),
    ({"model": "test-model"}, "messages", "missing_required_parameter"),
    ({"model": "test-model", "messages": "hello"}, "messages", "invalid_value"),
    ({"model": "test-model", "messages": []}, "messages", "invalid_value"),
    ({"model": "test-model", "messages": ["hello"]}, "messages[0]", "invalid_value"),
    ({"model": "test-model", "messages": [{"content": "hi"}]}, "messages[0].role", "missing_required_parameter"),
    ({"model": "test-model", "messages": [{"role": "wizard", "content": "hi"}]}, "messages[0].role", "invalid_value"),
    ({"model": "test-model", "messages": [{"role": "user"}]}, "messages[0].content", "missing_required_parameter"),
    ({"model": "test-model", "messages": [{"role": "user", "content": 42}]}, "messages[0].content", "invalid_value"),
    ({"model": "test-model", "messages": [{"role": "assistant", "content": None}]}, "messages[0].content",
     "missing_required_parameter"),
    ({"model": "test-model", "messages": QUESTION, "stream": "yes"}, "stream", "invalid_value"),
])
def test_bad_requests_get_openai_errors_and_reach_nothing(server, fake_llm, body, param, code):
    with pytest.raises(openai.BadRequestError) as caught:
        client(server).post("/chat/completions", body=body, cast_to=dict)
    error = caught.value
    assert error.status_code == 400 and error.type == "invalid_request_error" and error.code == code
    assert error.body["param"] == param and error.body["message"]
    assert fake_llm.chat_requests == []


def test_not_json_and_oversized_bodies(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm, max_body_bytes=4096), seed=False) as server:
        response = httpx.post(server.url + "/v1/chat/completions", content=b"{not json", timeout=10,
                              headers={"content-type": "application/json"})
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "invalid_json"
        big = {"model": "test-model", "messages": [{"role": "user", "content": "x" * 10_000}]}
        with pytest.raises(openai.APIStatusError) as caught:
            client(server).chat.completions.create(**big)
        assert caught.value.status_code == 413
        assert caught.value.type == "invalid_request_error" and caught.value.code == "payload_too_large"
        assert set(caught.value.body) == {"message", "type", "code", "param"}
        unknown = httpx.post(server.url + "/v1/completions", json={"model": "test-model", "prompt": "x"})
        assert unknown.status_code == 404 and unknown.json()["error"]["type"] == "not_found_error"
        other = httpx.post(server.url + "/verify", content=b"x" * 5000, headers={"content-type": "application/json"})
        assert other.status_code == 413 and other.json()["error"] == "PayloadTooLarge"  # Attest's own shape outside /v1
        listing = httpx.get(server.url + "/admin/namespaces").json()
    assert fake_llm.chat_requests == [] and all(ns["turns"] == 0 for ns in listing["namespaces"])
