"""The `attest` core commands as a user runs them: real processes, real exit codes, real files."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO


EX = "http://example.org/"


def attest(tmp_path, *args, ok=True):
    cmd = [sys.executable, "-m", "attest.cli", "--data-dir", str(tmp_path / "data"), *map(str, args)]
    env = {"PATH": "/usr/bin:/bin", "ATTEST_ONTOLOGY_DIR": str(REPO / "ontology")}
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    if ok:
        assert proc.returncode == 0, proc.stderr
    return proc


@pytest.fixture
def files(tmp_path):
    good = tmp_path / "people.ttl"
    good.write_text(f"@prefix ex: <{EX}> .\nex:alice ex:knows ex:bob .\nex:bob ex:knows ex:carol .\n")
    quads = tmp_path / "more.nq"
    quads.write_text(f"<{EX}x> <{EX}p> \"1\" <{EX}g2> .\n")
    bad = tmp_path / "broken.ttl"
    bad.write_text(f"@prefix ex: <{EX}> .\nex:a ex:b ex:c .\nex:d ex:e \"unterminated .\n")
    return good, quads, bad


def test_load_stats_export_round_trip(tmp_path, files):
    good, quads, _ = files
    out = attest(tmp_path, "load", good, "--graph", EX + "g1").stdout
    assert "2 quads loaded" in out
    attest(tmp_path, "load", quads)
    stats = attest(tmp_path, "stats").stdout
    assert f"{EX}g1" in stats and f"{EX}g2" in stats and "total" in stats
    attest(tmp_path, "export", tmp_path / "all.nq")
    exported = (tmp_path / "all.nq").read_text()
    assert f"<{EX}alice> <{EX}knows> <{EX}bob> <{EX}g1> ." in exported
    assert f"<{EX}x> <{EX}p> \"1\" <{EX}g2> ." in exported


def test_bad_file_reports_line_and_column_and_loads_nothing(tmp_path, files):
    good, _, bad = files
    proc = attest(tmp_path, "load", good, bad, ok=False)
    assert proc.returncode == 1
    assert f"{bad}:3:" in proc.stderr and "error:" in proc.stderr
    assert "(default graph)" in attest(tmp_path, "stats").stdout  # the good file before it was loaded whole
    proc = attest(tmp_path, "load", bad, "--graph", EX + "g9", ok=False)
    assert f"{EX}g9" not in attest(tmp_path, "stats").stdout


def test_unsupported_extension_is_refused_before_writing(tmp_path, files):
    good, _, _ = files
    other = tmp_path / "notes.docx"
    other.write_text("hello")
    proc = attest(tmp_path, "load", good, other, ok=False)
    assert proc.returncode == 1 and "unknown RDF file extension" in proc.stderr
    assert "no store at" in attest(tmp_path, "stats", ok=False).stderr  # nothing was written, not even a store


def test_backup_and_restore(tmp_path, files):
    good, _, _ = files
    attest(tmp_path, "load", good, "--graph", EX + "g1")
    attest(tmp_path, "backup", tmp_path / "bk")
    attest(tmp_path, "load", files[1])
    assert attest(tmp_path, "restore", tmp_path / "bk", ok=False).returncode == 1  # refuses without --force
    attest(tmp_path, "restore", tmp_path / "bk", "--force")
    stats = attest(tmp_path, "stats").stdout
    assert f"{EX}g1" in stats and f"{EX}g2" not in stats


def test_ontology_check_reports_file_line_column(tmp_path):
    import shutil

    onto = tmp_path / "onto"
    shutil.copytree(REPO / "ontology", onto)
    assert "ontology OK" in attest(tmp_path, "ontology", "check").stdout
    (onto / "zz.ttl").write_text("@prefix ex: <http://example.org/> .\nex:a ex:b .\n")
    cmd = [sys.executable, "-m", "attest.cli", "ontology", "check"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "ATTEST_ONTOLOGY_DIR": str(onto)})
    assert proc.returncode == 1 and f"{onto / 'zz.ttl'}:2:" in proc.stderr
