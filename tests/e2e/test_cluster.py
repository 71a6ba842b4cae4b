"""The compose `cluster` profile brought up without containers: docker/nginx-cluster.conf in a real nginx, in front of
two `attest serve` replicas over one Oxigraph server, wired as compose wires them (only the addresses differ)."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.conftest import REPO, free_port
from tests.remote_support import OxigraphServer, serve_over, stop_process, wait_ready

NGINX = Path(os.environ.get("ATTEST_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx")


def _nginx_config(folder: Path, replicas: list[str], port: int) -> Path:
    """The shipped server block with the replicas' and the listener's addresses, inside a minimal main config."""
    block = (REPO / "docker" / "nginx-cluster.conf").read_text(encoding="utf-8")
    wiring = {"attest-replica-1:8000": replicas[0].removeprefix("http://"),
              "attest-replica-2:8000": replicas[1].removeprefix("http://"), "listen 80;": f"listen 127.0.0.1:{port};"}
    for compose_name, here in wiring.items():
        assert block.count(compose_name) == 1, compose_name
        block = block.replace(compose_name, here)
    (folder / "cluster.conf").write_text(block, encoding="utf-8")
    main = folder / "nginx.conf"
    temp = " ".join(f"{kind}_temp_path {folder / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    main.write_text(f"""daemon off; master_process off; pid {folder / 'nginx.pid'}; error_log {folder / 'error.log'};
events {{}}
http {{ log_format upstream '$upstream_addr $status'; access_log {folder / 'access.log'} upstream; {temp}
       include {folder / 'cluster.conf'}; }}
""", encoding="utf-8")
    return main


@pytest.fixture
def cluster(tmp_path):
    if not NGINX.exists():
        pytest.fail(f"{NGINX} is missing: `make test` installs Debian's nginx-light (apt-get install nginx-light)")
    server = OxigraphServer().start()
    replicas, balancer = [], None
    try:
        replicas = [serve_over(server, tmp_path / f"replica-{i}") for i in (1, 2)]
        port = free_port()
        balancer = subprocess.Popen([str(NGINX), "-p", str(tmp_path), "-c", str(_nginx_config(
            tmp_path, [url for _, url in replicas], port))], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        url = f"http://127.0.0.1:{port}"
        wait_ready(url, balancer, 30)
        yield url, replicas, tmp_path / "access.log"
    finally:
        stop_process(balancer, 10)
        for proc, _ in replicas:
            stop_process(proc, 20)
        server.stop()


def test_the_balancer_spreads_requests_over_both_replicas_and_each_answer_sees_every_write(cluster):
    url, replicas, access_log = cluster
    texts = {f"part-{i}.txt": f"Gadget{i} is a database. Gadget{i} uses Spindle{i}." for i in range(6)}

    def ingest(name: str) -> int:
        return httpx.post(f"{url}/documents", json={"text": texts[name], "name": name}, timeout=120).status_code

    with ThreadPoolExecutor(3) as pool:
        assert list(pool.map(ingest, texts)) == [201] * len(texts)
    for _ in range(4):  # whichever replica answers, it lists every acknowledged document and answers from them
        listed = httpx.get(f"{url}/documents", params={"limit": 100}, timeout=60).json()["documents"]
        assert {d["source"] for d in listed if d["status"] == "done"} == set(texts)
        context = httpx.post(f"{url}/context", json={"query": "What does Gadget3 use?"}, timeout=60).json()["context"]
        assert "Spindle3" in context
    served = {line.split()[0] for line in access_log.read_text().splitlines() if line.split()[-1] in ("200", "201")}
    assert served == {u.removeprefix("http://") for _, u in replicas}, served


def test_a_replica_going_down_leaves_the_service_up(cluster):
    url, replicas, _ = cluster
    assert httpx.post(f"{url}/documents", json={"text": "Widget is a database.", "name": "w.txt"}, timeout=120).status_code == 201
    stop_process(replicas[0][0], 20)
    for _ in range(6):  # nginx retries a refused connection on the other replica (proxy_next_upstream error)
        reply = httpx.get(f"{url}/documents", timeout=60)
        assert reply.status_code == 200 and "w.txt" in {d["source"] for d in reply.json()["documents"]}
