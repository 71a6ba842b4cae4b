"""Parallel bulk loads: a file cut at line ends loads exactly what one loader loads; errors keep their location."""

from __future__ import annotations

import random

import pytest
from pyoxigraph import NamedNode, RdfFormat, Store

from attest.errors import RdfSyntaxError
from attest.store import EmbeddedStore
from attest.store import parallel
from attest.store.parallel import file_parts

EX = "http://example.org/"
G = "http://example.org/g"


def ntriples(n: int, seed: int = 3) -> str:
    rng = random.Random(seed)
    lines = []
    for i in range(n):
        o = f'"v{i} \\"q\\" \\u00e9"@en' if i % 3 else f"<{EX}o{rng.randrange(n)}>"
        lines.append(f"<{EX}s{rng.randrange(n)}> <{EX}p{i % 7}> {o} .")
    return "\n".join(lines) + "\n"


@pytest.fixture
def small_parts(monkeypatch):
    monkeypatch.setattr(parallel, "MIN_PART_BYTES", 4096)


def test_a_file_loads_in_parts_exactly_as_whole(tmp_path, iris, small_parts):
    path = tmp_path / "data.nt"
    path.write_text(ntriples(5000), encoding="utf-8")
    parts = file_parts(path, RdfFormat.N_TRIPLES, count=4)
    assert parts and len(parts) == 4 and parts[0].start == 0 and parts[-1].end == path.stat().st_size
    data = path.read_bytes()
    assert all(data[p.start - 1:p.start] == b"\n" for p in parts[1:])  # cut at line ends
    store = EmbeddedStore(tmp_path / "store", iris)
    assert store.bulk_load_file(path, graph=G) == len(set(data.splitlines()))
    whole = Store()
    whole.load(path=str(path), format=RdfFormat.N_TRIPLES, to_graph=NamedNode(G))
    assert set(store.quads(G)) == set(whole)
    store.close()


def test_blank_nodes_gzip_and_small_files_load_whole(tmp_path, small_parts):
    path = tmp_path / "blank.nt"
    path.write_text(ntriples(3000) + f"_:b1 <{EX}p> _:b2 .\n", encoding="utf-8")
    assert file_parts(path, RdfFormat.N_TRIPLES, count=4) is None
    tiny = tmp_path / "tiny.nt"
    tiny.write_text(ntriples(5), encoding="utf-8")
    assert file_parts(tiny, RdfFormat.N_TRIPLES, count=4) is None
    turtle = tmp_path / "data.ttl"
    turtle.write_text(ntriples(3000), encoding="utf-8")
    assert file_parts(turtle, RdfFormat.TURTLE, count=4) is None


def test_a_syntax_error_in_a_late_part_names_its_line_and_loads_nothing(tmp_path, iris, small_parts):
    lines = ntriples(4000).splitlines()
    lines[3500] = f"<{EX}broken> <{EX}p> \"unterminated ."
    path = tmp_path / "bad.nt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert len(file_parts(path, RdfFormat.N_TRIPLES, count=4)) == 4
    store = EmbeddedStore(tmp_path / "store", iris)
    with pytest.raises(RdfSyntaxError) as err:
        store.bulk_load_file(path, graph=G)
    assert err.value.line == 3501 and f"{path}:3501:" in err.value.message
    assert store.graph_sizes() == {}
    store.close()
