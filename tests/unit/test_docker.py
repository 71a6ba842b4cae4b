"""docker/: the compose file and the Dockerfile agree with each other and with the repository they build from."""

from __future__ import annotations

import re
import tomllib

import yaml

from tests.conftest import REPO

DOCKER = REPO / "docker"


def _dockerfile() -> str:
    return (DOCKER / "Dockerfile").read_text(encoding="utf-8")


def test_compose_runs_the_service_on_a_data_volume_with_ollama_optional():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))
    service = compose["services"]["attest"]
    assert service["build"] == {"context": "..", "dockerfile": "docker/Dockerfile"}
    assert "profiles" not in service
    data_dir = re.search(r"ATTEST_DATA_DIR=(\S+)", _dockerfile())[1]
    volume, _, target = service["volumes"][0].partition(":")
    assert target == data_dir and volume in compose["volumes"]
    assert service["ports"][0].endswith(":8000") and "8000" in re.search(r"EXPOSE (\d+)", _dockerfile())[1]
    for name in ("ollama", "ollama-pull"):
        assert compose["services"][name]["profiles"] == ["llm"]
    assert "ollama:11434" in service["environment"]["ATTEST_LLM_BASE_URL"]


def test_dockerfile_copies_only_what_exists_and_the_ignore_file_lets_through():
    text = _dockerfile()
    ignore = (DOCKER / "Dockerfile.dockerignore").read_text(encoding="utf-8").split()
    for src in re.findall(r"^COPY (?!--from)(.+) \S+$", text, flags=re.M):
        for path in src.split():
            assert (REPO / path).exists(), f"Dockerfile copies {path}, which the repository lacks"
            assert f"!{path}" in ignore, f"{path} is copied but excluded by Dockerfile.dockerignore"
    assert "pip install ." in text and "npm ci --prefix ui" in text


def test_ui_vendor_step_is_the_same_in_the_image_and_the_makefile():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    copied = re.findall(r"ui/node_modules/\S+", _dockerfile())
    assert copied and all(path in makefile for path in copied)
    assert "npm ci --prefix ui" in makefile


def test_guide_is_built_with_the_pins_of_the_test_extra():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    pins = [p for p in pyproject["project"]["optional-dependencies"]["test"] if p.startswith("mkdocs")]
    text = _dockerfile()
    assert len(pins) == 2 and all(pin in text for pin in pins)
    assert "mkdocs build --strict" in text and "COPY --from=guide /src/guide/ attest/static/guide/" in text


def test_cluster_profile_runs_two_replicas_over_one_oxigraph_server_behind_nginx():
    compose = yaml.safe_load((DOCKER / "compose.yaml").read_text(encoding="utf-8"))
    services = compose["services"]
    cluster = {name for name, s in services.items() if s.get("profiles") == ["cluster"]}
    replicas = sorted(name for name in cluster if name.startswith("attest-replica-"))
    assert len(replicas) == 2 and {"oxigraph", "lb"} <= cluster
    oxigraph = services["oxigraph"]
    assert oxigraph["image"].startswith("ghcr.io/oxigraph/oxigraph:")
    bind = oxigraph["command"][oxigraph["command"].index("--bind") + 1]
    server = f"http://oxigraph:{bind.rsplit(':', 1)[1]}"
    for name in replicas:
        env = services[name]["environment"]
        assert env["ATTEST_STORE"] == "sparql" and "ports" not in services[name]  # reached through the balancer only
        assert env["ATTEST_STORE_QUERY_URL"] == f"{server}/query" and env["ATTEST_STORE_UPDATE_URL"] == f"{server}/update"
    lb = services["lb"]
    assert lb["image"].startswith("nginx:")
    mounted = lb["volumes"][0].split(":")[0]
    conf = (DOCKER / mounted).read_text(encoding="utf-8")
    upstream = re.findall(r"^\s*server (\S+):8000", conf, flags=re.M)
    assert sorted(upstream) == replicas and "proxy_pass http://attest;" in conf
