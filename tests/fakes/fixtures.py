"""Pytest fixtures for the fake OpenAI server: `fake_llm` (running server) and `llm_settings` (settings aimed at it)."""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAI


@pytest.fixture
def fake_llm():
    """A running FakeOpenAI on a free loopback port; stopped after the test."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def llm_settings(settings, fake_llm):
    """The test settings pointed at `fake_llm`, with a short timeout and two retries."""
    return settings.model_copy(update={
        "llm_base_url": fake_llm.url,
        "llm_model": "test-model",
        "llm_timeout_s": 2.0,
        "llm_max_retries": 2,
        "llm_concurrency": 2,
    })
