"""The chat scenario of valid time (docs/temporal.md) through the official openai client and the fake upstream:
conversation 1 "I work for Contoso", conversation 2 a week later "I joined Fabrikam", conversation 3 asks where the
user works: the injected memory gives Fabrikam as current and Contoso as past, and a reply that cites Contoso as the
employer is flagged."""

from __future__ import annotations

import json

import pytest

from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.ingest_support import chunk_of
from tests.proxy_support import client, memory_block, proxy_settings, serve, settle, system_message
from tests.temporal_support import person_at

NOTHING = json.dumps({"entities": [], "relations": []})


@pytest.fixture
def upstream():
    """Extraction requests (JSON mode) get the dated fact the turn states; chat requests get `fake.answer`."""
    with FakeOpenAI() as fake:
        fake.answer = "Noted."

        def respond(request) -> Reply:
            if isinstance(request.json, dict) and "response_format" in request.json:
                chunk = chunk_of(request)
                if "work for Contoso" in chunk:
                    return Reply(person_at("Dana Reyes", "Contoso", valid_from="2026-11-02"))
                if "joined Fabrikam" in chunk:
                    return Reply(person_at("Dana Reyes", "Fabrikam", valid_from="2026-11-09"))
                return Reply(NOTHING)
            return Reply(fake.answer)

        fake.respond_with(respond)
        yield fake


@pytest.mark.slow
def test_memory_gives_the_new_employer_as_current_and_flags_the_old_one(settings, upstream):
    with serve(proxy_settings(settings, upstream, proxy_memory_extractor="auto"), seed=False) as server:
        def say(conversation: str, text: str):
            chat = client(server, **{"X-KGProxy-Namespace": "dana", "X-KGProxy-Conversation": conversation})
            answer = chat.chat.completions.create(model="test-model", messages=[{"role": "user", "content": text}])
            settle(server)
            return answer

        say("one", "I am Dana Reyes and I work for Contoso.")
        say("two", "News: I joined Fabrikam.")
        # the rule extractor types both names the same in every turn, so their ids carry no type; the reply cites the old
        # employer as the current one
        upstream.answer = "Dana Reyes works for Contoso <<relation:dana-reyes|worksFor|contoso>>."
        answer = say("three", "Where does Dana Reyes work?")

    block = memory_block(system_message(next(r for r in reversed(upstream.chat_requests)
                                             if "response_format" not in r.json)))
    facts = [line for line in block.splitlines() if "<<relation:dana-reyes~" in line]
    assert len(facts) == 2, block
    assert "Fabrikam (since 2026-11-09)" in facts[0]
    assert "Contoso (past: until 2026-11-08)" in facts[1]
    citation = answer.model_extra["kgproxy"]["verification"]["claims"][0]["citations"][0]
    assert citation["status"] == "superseded" and citation["confidence"] < 0.5
    assert citation["valid_to"] == "2026-11-08" and "replaced by Fabrikam" in citation["label"]
    assert citation["superseded_by"] == facts[0].split("<<relation:")[1].split(">>")[0]
    assert "low_confidence" in answer.model_extra["kgproxy"]["verification"]["claims"][0]["flags"]
