"""GET /entities/{id}: an entity's label, types, a page of its facts (asserted and inferred) and of the sources that mention it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from attest.api.deps import IrisDep, SettingsDep, StoreDep
from attest.operations.entities import entity_card
from attest.operations.paging import DEFAULT_LIMIT, MAX_LIMIT

router = APIRouter(tags=["entities"])


@router.get("/entities/{entity_id:path}")
def get_entity(entity_id: str, store: StoreDep, iris: IrisDep, settings: SettingsDep,
               limit: Annotated[int | None, Query(description=f"Facts and sources per page (default {DEFAULT_LIMIT}, at most {MAX_LIMIT})")] = None,
               facts_cursor: Annotated[str | None, Query(description="Continue the facts from this cursor (`facts_next`)")] = None,
               sources_cursor: Annotated[str | None, Query(description="Continue the sources from this cursor (`sources_next`)")] = None,
               ) -> dict[str, object]:
    """The entity's labels, types and descriptions, a page of its facts (asserted and inferred, with how many
    documents support each) and a page of the places it is mentioned; the id is a minted id, a CURIE of a
    declared prefix or an IRI. Each list says where it goes on (`facts_next`, `sources_next`)."""
    return entity_card(store, iris, settings, entity_id, limit=limit, facts_cursor=facts_cursor,
                       sources_cursor=sources_cursor)
