"""LLM answers: sanitized question and context inside nonce delimiters, prompts from attest/prompts, output only parsed, never executed."""

from __future__ import annotations

import hashlib

from attest.answer.models import ContextResponse
from attest.extract.llm_client import LlmClient, render_prompt
from attest.extract.sanitize import Finding, sanitize

MAX_ANSWER_TOKENS = 1024


def answer_messages(question: str, context: ContextResponse) -> tuple[list[dict[str, str]], list[Finding]]:
    """Chat messages for the question; the context's document-derived parts were sanitized when it was built."""
    cleaned = sanitize(question)
    nonce = hashlib.sha256((cleaned.text + context.context).encode("utf-8")).hexdigest()[:12]
    system = render_prompt("answer_system", nonce=nonce)
    user = render_prompt("answer_user", nonce=nonce, context=context.context, question=cleaned.text)
    return [{"role": "system", "content": system}, {"role": "user", "content": user}], cleaned.findings


def llm_answer(client: LlmClient, question: str, context: ContextResponse) -> tuple[str, list[Finding]]:
    """The model's answer text (to be verified like any other text) and what sanitizing the question neutralized."""
    messages, findings = answer_messages(question, context)
    return client.chat(messages, max_tokens=MAX_ANSWER_TOKENS), findings
