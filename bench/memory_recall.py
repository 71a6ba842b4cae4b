"""Benchmark: how soon a chat turn is recallable by the next request, in another conversation of its namespace.

    .venv/bin/python bench/memory_recall.py [--turns 40] [--extractor failing|slow|rules] [--write-results]

`attest serve` runs the chat proxy in front of the fake OpenAI-compatible upstream (tests/fakes/openai_server.py,
a real HTTP server). Each round one conversation says a new fact ("Falcon17 runs on Zircon17."); from the moment
its reply arrives, the namespace listing is polled (it writes nothing) until the turn is stored, which is the time
reported; then the next request, in another conversation of the namespace, asks about the fact, and the run counts
whether the memory block the proxy injects into it holds the fact. The upstream's extraction answers are chosen by
--extractor:
`failing` (answers chats but not the extraction format: malformed JSON on every attempt), `slow` (a valid
extraction after 3 s) or `rules` (the proxy stores turns with the offline rules only). Target: p95 <= 1 s.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import pct, serving, write_section  # noqa: E402

BLOCK = re.compile(r"<memory-([0-9a-f]{12})>\n(.*?)\n</memory-\1>", re.DOTALL)


def upstream(mode: str):
    from tests.fakes.openai_server import Reply

    def reply(request) -> Reply:
        if not request.json.get("response_format"):
            return Reply(content="Noted.")
        if mode == "slow":
            return Reply(content=json.dumps({"entities": [], "relations": []}), delay_s=3.0)
        return Reply(content="I am a chat model; here is prose, not JSON.")
    return reply


def injected(fake, question: str, marker: str) -> bool:
    """Whether the latest request the upstream saw for `question` carried `marker` in its memory block (the
    memory's own extraction calls reach the same upstream and are not that request)."""
    asked = [r for r in fake.chat_requests if r.json["messages"][-1]["content"] == question]
    system = asked[-1].json["messages"][0]
    return system["role"] == "system" and any(marker in m.group(2) for m in BLOCK.finditer(system["content"]))


def turns(client: httpx.Client, url: str) -> int:
    listing = client.get(f"{url}/admin/namespaces").json()
    return next((ns["turns"] for ns in listing["namespaces"] if ns["name"] == "recall"), 0)


def run(args) -> str:
    from tests.fakes.openai_server import FakeOpenAI

    data_dir = Path(tempfile.mkdtemp(prefix="attest-recall-bench-"))
    delays, recalled = [], 0
    with FakeOpenAI() as fake:
        fake.respond_with(upstream(args.extractor))
        config = data_dir / "attest.yaml"
        config.write_text(json.dumps({
            "data_dir": str(data_dir / "data"), "llm_base_url": fake.url, "llm_model": "test-model",
            "proxy_memory_extractor": "rules" if args.extractor == "rules" else "auto", "reason_after_ingest": False,
            "ontology_dir": str(REPO / "ontology"), "shapes_dir": str(REPO / "shapes"), "queries_dir": str(REPO / "queries")}))
        with serving(config) as url, httpx.Client(timeout=60) as client:
            chat, stored = f"{url}/v1/chat/completions", 0
            for i in range(-1, args.turns):  # round -1 opens the namespace: reported apart
                n = i + 2  # names with no minus sign, none a prefix of another's digits in the same round
                said = {"X-KGProxy-Namespace": "recall", "X-KGProxy-Conversation": f"say-{n}"}
                client.post(chat, json={"model": "test-model", "messages": [
                    {"role": "user", "content": f"Falcon{n} runs on Zircon{n}."}]}, headers=said).raise_for_status()
                replied = time.perf_counter()
                stored += 2  # the user's turn and the reply
                while turns(client, url) < stored:  # polled without writing: a probe would be a turn itself
                    if time.perf_counter() - replied > 60:
                        raise RuntimeError(f"turn {i} was not stored within 60 s")
                    time.sleep(0.01)
                delays.append(time.perf_counter() - replied)
                question = f"What does Falcon{n} run on?"
                client.post(chat, json={"model": "test-model", "messages": [{"role": "user", "content": question}]},
                            headers={"X-KGProxy-Namespace": "recall", "X-KGProxy-Conversation": f"ask-{n}"}
                            ).raise_for_status()
                stored += 2
                recalled += i >= 0 and injected(fake, question, f"Zircon{n}")
    first, ms = delays[0] * 1000, [d * 1000 for d in delays[1:]]
    return (f"{args.turns} turns, upstream extraction: {args.extractor}; the next request of another conversation "
            f"recalled the fact for {recalled} of {args.turns}\n\n"
            f"| recallable after the reply | p50 ms | p95 ms | max ms |\n|---|---:|---:|---:|\n"
            f"| {args.extractor} | {pct(ms, 0.5):.0f} | {pct(ms, 0.95):.0f} | {max(ms):.0f} |\n\n"
            f"first turn of the new namespace (its pipeline opened by that request): {first:.0f} ms; target: p95 <= 1000 ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--extractor", choices=["failing", "slow", "rules"], default="failing")
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    text = run(args)
    print(text)
    if args.write_results:
        write_section(f"Chat memory recall ({args.extractor} extraction)", text,
                      f"python bench/memory_recall.py --turns {args.turns} --extractor {args.extractor} --write-results")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
