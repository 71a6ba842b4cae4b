"""Mask secrets in a turn before it is stored: API keys, bearer tokens, passwords written key=value, card numbers (Luhn)."""

from __future__ import annotations

import re

MASK = "[secret masked]"
CARD_MASK = "[card number masked]"

KEY_VALUE = re.compile(
    r"(?i)\b((?:password|passwd|passphrase|pwd|pass|secret|client[_-]?secret|token|access[_-]?token|api[_-]?key|apikey)"
    r"\s*[:=]\s*)(\"[^\"\n]*\"|'[^'\n]*'|[^\s,;]+)")
BEARER = re.compile(r"(?i)\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")
API_KEYS = re.compile(
    r"\bsk-[A-Za-z0-9_-]{16,}"  # OpenAI-style
    r"|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"  # AWS access key ids
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}\b"  # GitHub tokens
    r"|\bxox[abposr]-[A-Za-z0-9-]{10,}\b"  # Slack tokens
    r"|\bAIza[0-9A-Za-z_-]{35}\b"  # Google API keys
    r"|\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")  # JWTs
CARD = re.compile(r"(?<![\d-])(?:\d[ -]?){12,18}\d(?![\d-])")


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(match: re.Match[str]) -> str:
    digits = re.sub(r"\D", "", match.group(0))
    return CARD_MASK if 13 <= len(digits) <= 19 and luhn_ok(digits) else match.group(0)


def mask_secrets(text: str) -> tuple[str, int]:
    """The text with every secret replaced by a mask, and how many were masked."""
    count = 0

    def keep_key(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return match.group(1) + MASK

    def whole(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return MASK

    text = KEY_VALUE.sub(keep_key, text)
    text = BEARER.sub(keep_key, text)
    text = API_KEYS.sub(whole, text)
    masked = CARD.sub(_card, text)
    count += masked.count(CARD_MASK) - text.count(CARD_MASK)
    return masked, count
