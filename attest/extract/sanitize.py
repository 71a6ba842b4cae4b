"""Neutralize instruction-like text (prompt injection) before document text or a question reaches an LLM.

Interface (stable; used by the LLM extractor, the extraction validator and /answer):

    result = sanitize(text)       # -> Sanitized(text=cleaned, findings=[Finding(kind, excerpt), ...])
    result.kinds                  # e.g. {"instruction", "role", "invisible"}
    injection_kinds(text)         # detection only, for short strings such as entity names: set of kinds
    attempt_kinds(text)           # the kinds that make a sentence an injection attempt (see ATTEMPT_KINDS)

What is neutralized, in this order (each step sees the previous step's output, so an invisible
character or a full-width letter cannot hide a phrase from the later steps):
  invisible     zero-width characters, bidi controls, soft hyphens, Unicode tag characters -> removed
  unicode       NFKC normalization (full-width and styled letters become plain ones)
  confusable    look-alikes of delimiter characters (angle brackets, pipes, backticks) -> ASCII
  special_token chat-template tokens such as <|im_start|>, [INST], <<SYS>>, </s> -> "[token removed]"
  delimiter     fake prompt delimiters: runs of <<< >>> ``` \"\"\" ===, tags such as </document> -> "[delimiter removed]"
  citation      answer citation markers <<entity:..>>, {{relation:..}} planted in source text -> "[marker removed]"
  role          a line that opens with a chat role (system:, assistant:, ### Instruction) -> "[role removed]"
  instruction   imperative override phrasings (ignore previous instructions, you are now ...) -> "[instruction removed]"
Ordinary prose is left as it is; the kinds say what was changed so callers can report it.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f]"
)

# look-alikes NFKC leaves alone, mapped to the delimiter characters they imitate
CONFUSABLES = str.maketrans({
    **dict.fromkeys("‹«〈⟨❮❬˂ᐸ⧼〈《", "<"),
    **dict.fromkeys("›»〉⟩❯❭˃ᐳ⧽〉》", ">"),
    **dict.fromkeys("∣ǀ│┃❘ⵏ", "|"),
    **dict.fromkeys("ˋ‵", "`"),
})

# typographic characters that are ordinary in prose: folded to ASCII without being reported as look-alikes
TYPOGRAPHIC = str.maketrans({
    **dict.fromkeys("“”„‟″〃", '"'),
    **dict.fromkeys("‘’‚‛′", "'"),
    **dict.fromkeys("‐‑‒–—―−", "-"),
})

SPECIAL_TOKEN = re.compile(
    r"<\|[^|<>\n]{1,40}\|>"  # <|im_start|>, <|system|>, <|endoftext|>, <|eot_id|>
    r"|\[/?(?:INST|SYS|SYSTEM)\]"  # [INST] [/INST]
    r"|<<\s*/?\s*SYS\s*>>"  # <<SYS>> <</SYS>>
    r"|</?s>"  # sentence-piece bos/eos
    r"|<\s*/?\s*(?:start_of_turn|end_of_turn)\s*>",
    re.IGNORECASE,
)

CITATION = re.compile(r"(?:<<|\{\{)\s*(?:entity|relation)\s*:[^<>{}\n]{0,300}(?:>>|\}\})", re.IGNORECASE)

DELIMITER = re.compile(
    r"<{3,}|>{3,}|`{3,}|\"{3,}|'{3,}|={4,}|#{4,}|~{3,}"
    r"|<\s*/?\s*(?:document|chunk|text|context|data|input|system|instructions?|prompt|user|assistant|developer|tool|untrusted)"
    r"[\w-]{0,40}(?:\s[^<>\n]{0,80})?\s*>"
    r"|(?-i:\b(?:END|BEGIN)[ _](?:OF[ _])?(?:DOCUMENT|CHUNK|TEXT|CONTEXT|INPUT|DATA|PROMPT|INSTRUCTIONS?)\b)",
    re.IGNORECASE,
)

ROLE_LINE = re.compile(
    r"^[ \t>*_#\-]*(?:\[|\()?\s*(system|assistant|user|developer|human|instructions?)\s*(?:\]|\))?\s*:"
    r"|^[ \t]*#{1,6}[ \t]*(system|assistant|user|developer|instructions?|response)\b[ \t]*:?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)

_OVERRIDE_VERB = r"(?:ignore|disregard|forget|override|overrule|skip|bypass|abandon|discard)"
_QUALIFIER = r"(?:all|any|every|the|your|my|these|those|previous|prior|above|earlier|preceding|former|original|system|existing|other|of)"
_TARGET = r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|guidance|context|messages?|commands?|constraints?|orders?)"
INSTRUCTION = re.compile(
    rf"\b{_OVERRIDE_VERB}\s+(?:{_QUALIFIER}\s+){{0,4}}{_TARGET}\b"
    r"|\bdo\s+not\s+(?:follow|obey)\s+(?:the\s+|your\s+|any\s+)?(?:previous|prior|above|system|original)\b[^.\n]{0,40}"
    r"|\byou\s+are\s+now\s+(?:a|an|in|the|no\s+longer|free|my|DAN)\b"
    r"|\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant)\s+(?:are|will|must|should|shall)\b"
    r"|\b(?:new|updated|real|actual|secret|hidden)\s+(?:system\s+)?(?:instructions?|prompt|task)\s*:"
    r"|\b(?:reveal|print|show|repeat|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+|hidden\s+|initial\s+)?(?:prompt|instructions)\b"
    r"|\bpretend\s+(?:to\s+be|you\s+are|that\s+you)\b"
    r"|\b(?:jailbreak|developer\s+mode|DAN\s+mode)\b",
    re.IGNORECASE,
)

REPLACEMENTS = (
    ("special_token", SPECIAL_TOKEN, "[token removed]"),
    ("citation", CITATION, "[marker removed]"),
    ("delimiter", DELIMITER, "[delimiter removed]"),
    ("role", ROLE_LINE, "[role removed]:"),
    ("instruction", INSTRUCTION, "[instruction removed]"),
)


@dataclass(frozen=True)
class Finding:
    """One neutralized piece: its kind and (a short excerpt of) what it was."""

    kind: str
    excerpt: str


@dataclass
class Sanitized:
    """Cleaned text plus what was neutralized in it."""

    text: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def kinds(self) -> set[str]:
        return {f.kind for f in self.findings}

    @property
    def suspicious(self) -> bool:
        """True when something beyond plain Unicode normalization was neutralized."""
        return bool(self.kinds - {"unicode"})


def _excerpt(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "..."


def sanitize(text: str) -> Sanitized:
    """Return the text with instruction-like content neutralized and a finding per neutralized piece."""
    findings: list[Finding] = []
    invisible = INVISIBLE.findall(text)
    if invisible:
        findings.append(Finding("invisible", " ".join(f"U+{ord(c):04X}" for c in sorted(set(invisible)))))
        text = INVISIBLE.sub("", text)
    normalized = unicodedata.normalize("NFKC", text)
    if normalized != text:
        changed = sorted({a for a, b in zip(text, normalized) if a != b}) if len(text) == len(normalized) else []
        findings.append(Finding("unicode", _excerpt("".join(changed)) or "NFKC changed the text"))
        text = normalized
    text = text.translate(TYPOGRAPHIC)
    mapped = text.translate(CONFUSABLES)
    if mapped != text:
        findings.append(Finding("confusable", _excerpt("".join(sorted({a for a, b in zip(text, mapped) if a != b})))))
        text = mapped
    for kind, pattern, replacement in REPLACEMENTS:
        hits: list[str] = []

        def swap(match: re.Match, hits: list[str] = hits, replacement: str = replacement) -> str:
            hits.append(match.group(0))
            return replacement

        text = pattern.sub(swap, text)
        findings.extend(Finding(kind, _excerpt(hit.strip())) for hit in hits)
    return Sanitized(text, findings)


# kinds that only an attempt to steer a model produces; invisible characters, look-alikes and runs of fence characters
# (``` ==== ####) are neutralized too but turn up in ordinary pasted or Markdown text, so they alone refuse nothing
ATTEMPT_KINDS = frozenset({"special_token", "citation", "role", "instruction"})
_FENCE_RUN = re.compile(r"[<>`\"'=#~]+")


def attempt_kinds(text: str) -> set[str]:
    """Kinds found in `text` that mark it as an injection attempt (a fake document tag counts; a fence run does not)."""
    return {f.kind for f in sanitize(text).findings
            if f.kind in ATTEMPT_KINDS or (f.kind == "delimiter" and not _FENCE_RUN.fullmatch(f.excerpt))}


def injection_kinds(text: str) -> set[str]:
    """Kinds of instruction-like content in a short string (nothing is changed); empty set when clean."""
    return sanitize(text).kinds - {"unicode"}
