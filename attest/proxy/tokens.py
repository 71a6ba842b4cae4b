"""Token counts without a tokenizer download: a documented over-estimate for BPE tokenizers of the GPT/Llama kind.

tokens(text) = max(ceil(UTF-8 bytes / 4), ceil(words × 4 / 3)). English prose runs at about 4 bytes and 0.75
words per token in those tokenizers, so each term alone is close; taking the larger keeps code, numbers and
non-Latin text (more bytes per token) from slipping under the budget.
"""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    return estimate_tokens_of(len(text.encode("utf-8")), len(text.split()))


def estimate_tokens_of(utf8_bytes: int, words: int) -> int:
    """The estimate from a text's UTF-8 length and word count (which add up over lines joined by whitespace)."""
    return max(math.ceil(utf8_bytes / 4), math.ceil(words * 4 / 3))


def context_budget(max_tokens: int, share: float, model_context_tokens: int) -> int:
    """min(max_tokens, share × the model's context window): 1000 and 20% by default."""
    return min(max_tokens, int(share * model_context_tokens))
