"""The Heavy dependency: a heavy request (ingest, answers) holds one of the app's slots (attest/operations/heavy.py)."""

from __future__ import annotations

from typing import Iterator

from fastapi import Depends, Request

from attest.api.deps import resources_of
from attest.operations.heavy import heavy


def heavy_slot(request: Request) -> Iterator[None]:
    """Holds one of settings.max_heavy_requests slots for the request's duration."""
    with heavy(resources_of(request.app)):
        yield


Heavy = Depends(heavy_slot)
