"""Attest run outside its repository: packaged ontology, shapes and queries, `attest init`, one-line startup errors."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from attest import folders
from attest.errors import ConfigError
from attest.settings import load_settings
from tests.conftest import REPO

BASE_ENV = {"PATH": "/usr/bin:/bin"}


def attest(cwd, *args, env=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "attest.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env={**BASE_ENV, **(env or {})}, timeout=timeout)


def tree(folder):
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("setting", sorted(folders.FOLDERS))
def test_packaged_copies_are_the_repository_folders(setting):
    name = folders.FOLDERS[setting]
    assert tree(folders.packaged(setting)) == tree(REPO / name) != {}


def test_defaulted_folders_missing_here_fall_back_to_the_packaged_ones(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shapes").mkdir()  # a folder that is here is used as it is
    settings = load_settings(None)
    assert settings.ontology_dir == folders.packaged("ontology_dir")
    assert settings.queries_dir == folders.packaged("queries_dir")
    assert str(settings.shapes_dir) == "shapes"


@pytest.mark.parametrize("how", ["env", "config", "override"])
def test_a_configured_folder_that_is_missing_names_the_setting_and_its_variable(tmp_path, monkeypatch, how):
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / "nowhere"
    config = None
    if how == "env":
        monkeypatch.setenv("ATTEST_QUERIES_DIR", str(missing))
    elif how == "config":
        config = tmp_path / "attest.yaml"
        config.write_text(f"queries_dir: {missing}\n")
    with pytest.raises(ConfigError) as caught:
        load_settings(config, **({"queries_dir": missing} if how == "override" else {}))
    assert "queries_dir" in caught.value.message and "ATTEST_QUERIES_DIR" in caught.value.message
    assert str(missing) in caught.value.message


def test_the_wheel_carries_the_folders(tmp_path):
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                            str(REPO), "-w", str(tmp_path)], capture_output=True, text=True, timeout=300)
    if built.returncode != 0 and "bdist_wheel" in built.stderr:  # no `wheel` beside setuptools: build isolated
        built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(REPO), "-w",
                                str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = tmp_path.glob("attest-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = {name: archive.read(name) for name in archive.namelist() if name.startswith("attest/bundled/")}
    for setting, name in folders.FOLDERS.items():
        expected = {f"attest/bundled/{name}/{path}": data for path, data in tree(REPO / name).items()}
        assert {k: v for k, v in shipped.items() if k.startswith(f"attest/bundled/{name}/")} == expected


def test_init_writes_editable_copies_and_a_config_that_runs(tmp_path):
    done = attest(tmp_path, "init", "project")
    assert done.returncode == 0, done.stderr
    project = tmp_path / "project"
    for setting, name in folders.FOLDERS.items():
        assert tree(project / name) == tree(folders.packaged(setting))
    (project / "ontology" / "core.ttl").write_text("not turtle at all", encoding="utf-8")
    stats = attest(project, "--config", "attest.yaml", "ontology", "check")
    assert stats.returncode == 1 and "ontology/core.ttl:1:" in stats.stderr  # the copy is what runs


def test_init_refuses_to_overwrite_without_force(tmp_path):
    assert attest(tmp_path, "init", "p").returncode == 0
    edited = tmp_path / "p" / "queries" / "neighbours.rq"
    edited.write_text("# mine\n", encoding="utf-8")
    again = attest(tmp_path, "init", "p")
    assert again.returncode == 1 and "--force" in again.stderr and "already exist" in again.stderr
    assert edited.read_text() == "# mine\n"
    assert attest(tmp_path, "init", "p", "--force").returncode == 0
    assert edited.read_bytes() == (REPO / "queries" / "neighbours.rq").read_bytes()


def test_init_works_under_a_broken_configuration(tmp_path):
    done = attest(tmp_path, "init", "p", env={"ATTEST_ONTOLOGY_DIR": str(tmp_path / "gone")})
    assert done.returncode == 0, done.stderr


def test_ingest_outside_the_repository_uses_the_packaged_folders(tmp_path):
    doc = tmp_path / "note.md"
    doc.write_text("Oxigraph is a graph database written in Rust. Attest stores its graph in Oxigraph.\n")
    done = attest(tmp_path, "ingest", "--offline", doc)
    assert done.returncode == 0, done.stderr
    assert "documents: 1 new" in done.stdout
    for setting in folders.FOLDERS:
        assert f"using the packaged default {setting}" in done.stderr


@pytest.mark.parametrize("problem", ["missing folder", "broken ontology", "store in use"])
def test_serve_fails_at_startup_with_one_clear_line(tmp_path, problem):
    env = {}
    if problem == "missing folder":
        env["ATTEST_SHAPES_DIR"] = str(tmp_path / "gone")
    elif problem == "broken ontology":
        (tmp_path / "ontology").mkdir()
        (tmp_path / "ontology" / "x.ttl").write_text("this is not turtle\n")
    else:
        from attest.store import open_store
        holder = open_store(load_settings(None, data_dir=tmp_path / "data"))
    try:
        done = attest(tmp_path, "serve", "--port", "1", env=env, timeout=60)
    finally:
        if problem == "store in use":
            holder.close()
    errors = [line for line in done.stderr.splitlines() if not line.startswith("note:")]
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and errors[0].startswith("error: ")
    expected = {"missing folder": "ATTEST_SHAPES_DIR", "broken ontology": "x.ttl:1:1", "store in use": "open for writing elsewhere"}[problem]
    assert expected in done.stderr
