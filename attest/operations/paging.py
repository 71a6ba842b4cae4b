"""Paging of lists that grow with the corpus: a capped `limit` and signed cursors that name their list and store state."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass

from attest.errors import BadRequest

DEFAULT_LIMIT = 20
MAX_LIMIT = 200
_KEY = secrets.token_bytes(32)  # per process: a cursor from before a restart is stale, like one from before a write


@dataclass(frozen=True)
class Page:
    """Where a page starts and how long it is; `capped` when the caller asked for more than MAX_LIMIT."""

    offset: int
    limit: int
    capped: bool


def page(limit: int | None, cursor: str | None, *, list_name: str, subject: str, generation: int | None) -> Page:
    """The page a request asks for: from its cursor (which must have been made for this list of this subject at
    this store generation), else the first."""
    wanted = DEFAULT_LIMIT if limit is None else limit
    if wanted < 1:
        raise BadRequest("limit must be at least 1", field="limit")
    offset = 0 if cursor is None else _decode(cursor, list_name, subject, generation)
    return Page(offset, min(wanted, MAX_LIMIT), wanted > MAX_LIMIT)


def next_cursor(current: Page, returned: int, more: bool, *, list_name: str, subject: str,
                generation: int | None) -> str | None:
    """The cursor of the page after `current`, or None when nothing follows."""
    if not more:
        return None
    body = json.dumps([list_name, subject, current.offset + returned, generation], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(body + _sign(body)).decode().rstrip("=")


def _decode(cursor: str, list_name: str, subject: str, generation: int | None) -> int:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        body, signature = raw[:-16], raw[-16:]
        if not hmac.compare_digest(signature, _sign(body)):
            raise ValueError("signature")
        name, who, offset, made_at = json.loads(body)
    except (ValueError, TypeError, UnicodeDecodeError) as exc:
        raise BadRequest("the page cursor is not one this service made (or it was made before a restart)",
                         field="cursor") from exc
    if name != list_name or who != subject:
        raise BadRequest(f"the page cursor belongs to another list than the {list_name} of this resource", field="cursor")
    if made_at != generation:
        raise BadRequest("the page cursor is stale: the store changed since it was made; start from the first page",
                         field="cursor")
    if not isinstance(offset, int) or offset < 0:
        raise BadRequest("the page cursor is not one this service made", field="cursor")
    return offset


def _sign(body: bytes) -> bytes:
    return hmac.new(_KEY, body, hashlib.sha256).digest()[:16]
