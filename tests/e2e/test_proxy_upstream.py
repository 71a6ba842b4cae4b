"""The proxy's upstream: retries on 5xx, 502/504 with OpenAI's error JSON, the circuit breaker, the allow-list of
per-request upstreams, auth precedence; what is kept of a user's turn when the upstream fails."""

from __future__ import annotations

import time

import httpx
import openai
import pytest

from tests.conftest import free_port
from tests.fakes.openai_server import FakeOpenAI
from tests.proxy_support import client, proxy_settings, serve, settle

ASK = dict(model="test-model", messages=[{"role": "user", "content": "What does Oxigraph use?"}])


def test_5xx_is_retried_then_answered(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:
        fake_llm.error(500)
        fake_llm.error(503)
        fake_llm.reply("Third time <<entity:x>>.")
        completion = client(server).chat.completions.create(**ASK)
    assert completion.choices[0].message.content == "Third time <<entity:x>>."
    assert len(fake_llm.chat_requests) == 3


def test_upstream_5xx_on_every_attempt_is_a_502_and_keeps_nothing(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:
        for _ in range(3):
            fake_llm.error(500, message="model crashed")
        with pytest.raises(openai.InternalServerError) as caught:
            client(server, **{"X-KGProxy-Conversation": "c1"}).chat.completions.create(**ASK)
        listing = settle(server)
    error = caught.value
    assert error.status_code == 502 and error.type == "upstream_error" and error.code == "upstream_error"
    assert "3 attempt(s)" in error.body["message"] and "model crashed" in error.body["message"]
    assert len(fake_llm.chat_requests) == 3
    assert all(ns["turns"] == 0 for ns in listing["namespaces"])  # the user's turn is not kept: the client resends it


def test_upstream_down_is_a_502(settings, fake_llm):
    dead = f"http://127.0.0.1:{free_port()}/v1"
    with serve(proxy_settings(settings, fake_llm, llm_base_url=dead), seed=False) as server:
        with pytest.raises(openai.InternalServerError) as caught:
            client(server).chat.completions.create(**ASK)
        models = httpx.get(server.url + "/v1/models")
    assert caught.value.status_code == 502 and "cannot reach the upstream" in caught.value.body["message"]
    assert models.status_code == 502 and models.json()["error"]["type"] == "upstream_error"


def test_upstream_timeout_is_a_504(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm, proxy_timeout_s=0.3, proxy_attempts=2), seed=False) as server:
        fake_llm.reply("late", delay_s=1.0)
        fake_llm.reply("late", delay_s=1.0)
        with pytest.raises(openai.APIStatusError) as caught:
            client(server).chat.completions.create(**ASK)
    assert caught.value.status_code == 504 and caught.value.code == "upstream_timeout"
    assert caught.value.type == "upstream_error"


def test_an_upstream_4xx_is_relayed_as_it_came(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:
        fake_llm.error(400, message="context length exceeded")
        with pytest.raises(openai.BadRequestError) as caught:
            client(server).chat.completions.create(**ASK)
    assert caught.value.body["message"] == "context length exceeded"
    assert len(fake_llm.chat_requests) == 1  # a 4xx is not retried


def test_streaming_retries_before_the_first_byte(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:
        fake_llm.error(502)
        fake_llm.reply("Streamed after a retry.")
        chunks = list(client(server).chat.completions.create(**ASK, stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == "Streamed after a retry."
    assert len(fake_llm.chat_requests) == 2


def test_the_breaker_opens_then_lets_a_trial_through_after_its_cool_off(settings, fake_llm):
    overrides = dict(proxy_breaker_failures=3, proxy_breaker_cooloff_s=0.5)
    with serve(proxy_settings(settings, fake_llm, **overrides), seed=False) as server:
        for _ in range(3):
            fake_llm.error(500)
        with pytest.raises(openai.InternalServerError):
            client(server).chat.completions.create(**ASK)
        assert len(fake_llm.chat_requests) == 3
        with pytest.raises(openai.APIStatusError) as caught:  # open: refused at once, the upstream is not called
            client(server).chat.completions.create(**ASK)
        assert caught.value.status_code == 503 and caught.value.code == "upstream_circuit_open"
        assert caught.value.response.headers["Retry-After"] == "1"
        assert len(fake_llm.chat_requests) == 3
        time.sleep(0.6)
        fake_llm.reply("Back <<entity:x>>.")
        completion = client(server).chat.completions.create(**ASK)  # the trial call succeeds: closed again
        assert completion.choices[0].message.content == "Back <<entity:x>>."
        fake_llm.reply("Again.")
        assert client(server).chat.completions.create(**ASK).choices[0].message.content == "Again."


def test_override_header_only_for_allow_listed_upstreams(settings, fake_llm):
    with FakeOpenAI(models=("other-model",)) as other:
        with serve(proxy_settings(settings, fake_llm), seed=False) as server:  # allow-list empty: off
            with pytest.raises(openai.PermissionDeniedError) as caught:
                client(server, **{"X-KGProxy-Upstream-URL": other.url}).chat.completions.create(**ASK)
            assert caught.value.code == "upstream_not_allowed"
        assert other.requests == [] and fake_llm.requests == []

        with serve(proxy_settings(settings, fake_llm, proxy_upstream_allowlist=[other.url + "/"]), seed=False) as server:
            with pytest.raises(openai.PermissionDeniedError):  # a host not on the list, even when another one is
                client(server, **{"X-KGProxy-Upstream-URL": "http://169.254.169.254/v1"}).chat.completions.create(**ASK)
            other.reply("From the other upstream.")
            raw = client(server, **{"X-KGProxy-Upstream-URL": other.url}).chat.completions.with_raw_response.create(**ASK)
            models = client(server, **{"X-KGProxy-Upstream-URL": other.url}).models.list()
        assert raw.parse().choices[0].message.content == "From the other upstream."
        assert raw.headers["X-KGProxy-Upstream"] == other.url
        assert raw.parse().model_extra["kgproxy"]["upstream_url"] == other.url
        assert [m.id for m in models] == ["other-model"]
        assert fake_llm.requests == []


def test_auth_precedence(settings, fake_llm):
    from pydantic import SecretStr

    with serve(proxy_settings(settings, fake_llm, llm_api_key=SecretStr("configured-key")), seed=False) as server:
        fake_llm.reply("a")
        client(server).chat.completions.create(**ASK)
    assert fake_llm.chat_requests[-1].headers["authorization"] == "Bearer configured-key"

    with serve(proxy_settings(settings, fake_llm, llm_api_key=SecretStr("")), seed=False) as server:
        fake_llm.reply("b")
        client(server).chat.completions.create(**ASK)  # sends Bearer client-key
        assert fake_llm.chat_requests[-1].headers["authorization"] == "Bearer client-key"
        fake_llm.reply("c")
        response = httpx.post(server.url + "/v1/chat/completions", json=ASK, timeout=30)
        assert response.status_code == 200
        assert "authorization" not in fake_llm.chat_requests[-1].headers


def test_attest_token_is_never_forwarded_and_guards_the_proxy(settings, fake_llm):
    from pydantic import SecretStr

    overrides = dict(llm_api_key=SecretStr(""), token=SecretStr("attest-write-token"))
    with serve(proxy_settings(settings, fake_llm, **overrides), seed=False) as server:
        with pytest.raises(openai.AuthenticationError) as caught:  # the proxy writes memory: Attest's write rule
            client(server).chat.completions.create(**ASK)
        assert caught.value.type == "authentication_error"
        fake_llm.reply("ok")
        c = openai.OpenAI(base_url=server.url + "/v1", api_key="attest-write-token", max_retries=0)
        c.chat.completions.create(**ASK)
        assert "authorization" not in fake_llm.chat_requests[-1].headers
        assert httpx.get(server.url + "/admin/namespaces").status_code == 401


def test_logs_never_show_the_authorization(settings, fake_llm):
    import io
    import sys

    from attest.observability import configure_logging

    stream = io.StringIO()
    configure_logging(settings, stream=stream)
    try:
        with serve(proxy_settings(settings, fake_llm), seed=False) as server:
            fake_llm.error(500)
            fake_llm.reply("ok")
            # not shaped like a credential, so only never logging it keeps it out (the redactor would not know it)
            c = openai.OpenAI(base_url=server.url + "/v1", api_key="plainclientkey42", max_retries=0)
            c.chat.completions.create(**ASK)
    finally:
        configure_logging(settings, stream=sys.stderr)
    logs = stream.getvalue()
    assert "/v1/chat/completions" in logs and "plainclientkey42" not in logs


def test_a_stream_whose_upstream_keeps_failing_is_a_502_before_any_event(settings, fake_llm):
    with serve(proxy_settings(settings, fake_llm), seed=False) as server:
        for _ in range(3):
            fake_llm.error(503)
        with pytest.raises(openai.InternalServerError) as caught:
            client(server).chat.completions.create(**ASK, stream=True)
    assert caught.value.status_code == 502 and caught.value.code == "upstream_error"
