"""Helpers for the chat proxy tests: settings aimed at the fake upstream, a seeded live server, SDK clients, waiting
for the background memory writer."""

from __future__ import annotations

import re
import time
from contextlib import contextmanager

import httpx
from openai import AsyncOpenAI, OpenAI

from tests.answer_support import load_graph
from tests.conftest import LiveServer

BLOCK = re.compile(r"<memory-([0-9a-f]{12})>\n(.*?)\n</memory-\1>", re.DOTALL)


def proxy_settings(settings, fake, **overrides):
    """Settings for the proxy against `fake`: offline memory extraction, recall as soon as a turn is written, short
    waits, no reasoning after ingest."""
    return settings.model_copy(update={
        "llm_base_url": fake.url, "llm_model": "test-model", "proxy_memory_extractor": "rules",
        "proxy_backoff_s": 0.01, "proxy_timeout_s": 2.0, "reason_after_ingest": False, **overrides})


@contextmanager
def serve(settings, *, seed: bool = True):
    """The real app on a free port; `seed` first writes the small answer graph (tests/answer_support.py)."""
    if seed:
        from attest.store import open_store
        from attest.vocab import Iris

        store = open_store(settings)
        load_graph(store, Iris(settings.base_iri))
        store.close()
    with LiveServer(settings) as server:
        yield server


def client(server, **headers) -> OpenAI:
    return OpenAI(base_url=server.url + "/v1", api_key="client-key", max_retries=0, default_headers=headers or None)


def async_client(server, **headers) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=server.url + "/v1", api_key="client-key", max_retries=0, default_headers=headers or None)


def settle(server, timeout_s: float = 30.0) -> dict:
    """Wait until the background writer has stored every turn; the namespace listing then."""
    deadline = time.monotonic() + timeout_s
    while True:
        listing = httpx.get(server.url + "/admin/namespaces").json()
        if listing["pending"] == 0 or time.monotonic() > deadline:
            return listing
        time.sleep(0.05)


def turns_in(server, namespace: str) -> int:
    for ns in settle(server)["namespaces"]:
        if ns["name"] == namespace:
            return ns["turns"]
    return 0


def system_message(request) -> str:
    first = request.json["messages"][0]
    assert first["role"] == "system"
    return first["content"]


def memory_block(text: str) -> str:
    match = BLOCK.search(text)
    assert match, text
    return match.group(2)
