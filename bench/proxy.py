"""Benchmark: latency the chat proxy adds over direct calls to the same fake upstream, with 5,000 stored turns.

    .venv/bin/python bench/proxy.py [--turns 5000] [--rounds 200] [--data-dir DIR] [--write-results]

The memory namespace `bench` is filled with `--turns` turns (conversations of 10 alternating user and assistant
turns naming services and the technologies they use) through the proxy's own writer path (the ingest pipeline
with the offline rule extractor and the episode record), and the main store with the demo corpus. The fake
upstream (tests/fakes/openai_server.py, a real HTTP server) answers with cited text at once. `attest serve` runs in
its own process. Each round sends the same chat request once directly to the fake and once through the proxy
(order alternating), over kept-alive connections: non-streaming, the whole response; streaming, the time to the
first content chunk. Through the proxy each request also retrieves from both stores, verifies the reply and
leaves two more turns for the background writer, which shares the machine's cores with the requests.
Target: added p95 < 150 ms; goal < 50 ms.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.common import pct, serving, write_section  # noqa: E402

SERVICES = ["Falcon", "Heron", "Osprey", "Kestrel", "Condor", "Merlin", "Harrier", "Buzzard", "Kite", "Peregrine"]
TECH = ["PostgreSQL", "Kafka", "Redis", "Elasticsearch", "RabbitMQ", "Cassandra", "MongoDB", "Oxigraph", "RocksDB", "Nginx"]
QUESTIONS = [f"What does {s} use, and why did we pick {t}?" for s, t in zip(SERVICES, TECH)]
REPLY = "Falcon uses PostgreSQL <<entity:falcon>>. It was chosen for its ledger <<entity:postgresql>>."


def seed(settings, turns: int) -> float:
    """Fill namespace `bench` with `turns` turns; returns the seconds it took."""
    from attest.ingest.pipeline import document_id
    from attest.proxy.memory import Namespace, Turn, episode_quads
    from attest.store import open_store
    from attest.ingest.session import open_session
    from attest.vocab import Iris

    iris = Iris(settings.base_iri)
    start = time.perf_counter()
    store = open_store(settings)
    pipeline = open_session(store, settings, offline=True, reason=False).pipeline
    for path in sorted((REPO / "demo" / "corpus").glob("*")):
        pipeline.ingest_path(path)
    store.close()
    ns = Namespace("bench", settings, iris)
    memory_pipeline = ns.pipeline()
    with memory_pipeline.batched(50_000):
        previous = None
        for i in range(turns):
            conversation, index = f"seed-{i // 10}", i % 10
            service, tech = SERVICES[(i // 10) % len(SERVICES)], TECH[(i // 10 + i) % len(TECH)]
            role = "user" if index % 2 == 0 else "assistant"
            text = (f"Our service {service}{i // 100} uses {tech} for batch {i}." if role == "user"
                    else f"Noted: {service}{i // 100} relies on {tech} (turn {i}).")
            source = f"{conversation}-{index}-{role}"
            doc_id = document_id(source)
            turn = Turn(role, text, datetime.now(timezone.utc))
            extra = episode_quads(iris, "bench", conversation, doc_id, index, turn, text, previous if index else None)
            memory_pipeline.ingest_bytes(text.encode(), source=source, media_type="text/plain", extra_quads=extra)
            previous = doc_id
            if (i + 1) % 500 == 0:
                print(f"  seeded {i + 1} turns ({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    ns.close()
    return time.perf_counter() - start


def timed(client: httpx.Client, url: str, body: dict, headers: dict) -> float:
    start = time.perf_counter()
    response = client.post(url, json=body, headers=headers)
    response.raise_for_status()
    return time.perf_counter() - start


def first_token(client: httpx.Client, url: str, body: dict, headers: dict) -> float:
    start = time.perf_counter()
    elapsed = None
    with client.stream("POST", url, json={**body, "stream": True}, headers=headers) as response:
        response.raise_for_status()
        for line in response.iter_lines():  # read to the end, as a client does
            if elapsed is None and line.startswith("data:") and line != "data: [DONE]":
                chunk = json.loads(line[5:])
                if any((c.get("delta") or {}).get("content") for c in chunk.get("choices") or []):
                    elapsed = time.perf_counter() - start
    if elapsed is None:
        raise RuntimeError("no content chunk in the stream")
    return elapsed


def run(args) -> str:
    from attest.settings import load_settings
    from tests.fakes.openai_server import FakeOpenAI, Reply

    data_dir = Path(args.data_dir) if args.data_dir else Path(tempfile.mkdtemp(prefix="attest-proxy-bench-"))
    with FakeOpenAI(stream_piece_chars=16) as fake:
        fake.respond_with(lambda request: Reply(content=REPLY))
        config = data_dir / "attest.yaml"
        config.write_text(json.dumps({
            "data_dir": str(data_dir / "data"), "llm_base_url": fake.url, "llm_model": "test-model",
            "proxy_memory_extractor": "rules", "reason_after_ingest": False,
            "ontology_dir": str(REPO / "ontology"), "shapes_dir": str(REPO / "shapes"), "queries_dir": str(REPO / "queries")}))
        settings = load_settings(config)
        seeded = 0.0
        if not (settings.data_dir / "memory" / "bench").exists():
            seeded = seed(settings, args.turns)
        with serving(config) as url:
            proxy, direct = f"{url}/v1/chat/completions", f"{fake.url}/chat/completions"
            headers = {"X-KGProxy-Namespace": "bench"}
            results = {"direct": [], "proxy": [], "direct_ttft": [], "proxy_ttft": []}
            with httpx.Client(timeout=60) as client:
                for i in range(args.warmup + args.rounds):
                    body = {"model": "test-model", "messages": [{"role": "user", "content": QUESTIONS[i % len(QUESTIONS)]}]}
                    pairs = [("direct", direct, {}), ("proxy", proxy, headers)]
                    for name, target, h in (pairs if i % 2 == 0 else pairs[::-1]):
                        t = timed(client, target, body, h)
                        ttft = first_token(client, target, body, h)
                        if i >= args.warmup:
                            results[name].append(t)
                            results[name + "_ttft"].append(ttft)
                listing = client.get(f"{url}/admin/namespaces").json()
            turns = next(ns["turns"] for ns in listing["namespaces"] if ns["name"] == "bench")
            check = httpx.post(proxy, json={"model": "test-model", "messages": [
                {"role": "user", "content": "What does Falcon0 use?"}]}, headers=headers, timeout=60).json()["kgproxy"]
    ms = {k: [v * 1000 for v in vs] for k, vs in results.items()}
    added = [p - d for p, d in zip(ms["proxy"], ms["direct"])]
    added_ttft = [p - d for p, d in zip(ms["proxy_ttft"], ms["direct_ttft"])]
    rows = [
        ("non-streaming, direct", ms["direct"]), ("non-streaming, through the proxy", ms["proxy"]),
        ("non-streaming, added (paired)", added),
        ("time to first token, direct", ms["direct_ttft"]), ("time to first token, through the proxy", ms["proxy_ttft"]),
        ("time to first token, added (paired)", added_ttft),
    ]
    lines = [f"{args.rounds} rounds after {args.warmup} warm-up; memory namespace: {turns} stored turns "
             f"({args.turns} seeded{f' in {seeded:.0f} s' if seeded else ''}, the rest written by the runs), "
             f"demo corpus in the main store; injected lines per request {check['retrieval']['used_k']}, "
             f"{check['context_tokens']} tokens", "",
             "| path | p50 ms | p95 ms | mean ms |", "|---|---:|---:|---:|"]
    lines += [f"| {name} | {pct(v, 0.5):.1f} | {pct(v, 0.95):.1f} | {sum(v) / len(v):.1f} |" for name, v in rows]
    lines += ["", f"added p95 (non-streaming): {pct(ms['proxy'], 0.95) - pct(ms['direct'], 0.95):.1f} ms "
              f"(p95 of paired differences {pct(added, 0.95):.1f} ms); target < 150 ms, goal < 50 ms"]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=5000, help="turns stored in the memory namespace before measuring")
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--data-dir", help="keep the seeded store here (reused when it already holds the namespace)")
    parser.add_argument("--write-results", action="store_true", help="record under '## Chat proxy' in bench/RESULTS.md")
    args = parser.parse_args()
    text = run(args)
    print(text)
    if args.write_results:
        command = f"python bench/proxy.py --turns {args.turns} --rounds {args.rounds} --warmup {args.warmup} --write-results"
        write_section("Chat proxy", text, command)  # without --data-dir: a path on this machine
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
