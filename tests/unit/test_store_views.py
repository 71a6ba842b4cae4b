"""Request views of a store hand every GraphStore member to it explicitly, and tell capabilities without hasattr."""

import time

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from attest.errors import QueryTimeout
from attest.sparql.deadline import DeadlineStore, LiveStore
from attest.store import EmbeddedStore, GraphStore
from attest.store.native import NativeStore
from attest.store.remote import RemoteDeadlineView, RemoteStore
from attest.store.view import StoreView
from attest.vocab import Iris

IRIS = Iris("http://example.org/kb/")
G = "http://example.org/g"
PROTOCOL = {name for name in vars(GraphStore) if not name.startswith("_")}


@pytest.mark.parametrize("view", [StoreView, DeadlineStore, LiveStore, RemoteDeadlineView])
def test_each_view_declares_every_protocol_member_and_forwards_nothing_implicitly(view):
    assert "__getattr__" not in {name for cls in view.__mro__ for name in vars(cls)}
    assert {name for name in PROTOCOL if not hasattr(view, name)} == set()


def test_each_store_declares_every_protocol_member(tmp_path):
    from attest.settings import load_settings

    settings = load_settings(None, data_dir=tmp_path, store="sparql", store_query_url="http://127.0.0.1:9/query",
                             store_update_url="http://127.0.0.1:9/update")
    remote = RemoteStore(settings, IRIS, check=False)  # no request is sent
    for store in (EmbeddedStore(None, IRIS), remote):
        assert {name for name in PROTOCOL if not hasattr(store, name)} == set()
    assert remote.raw is None and remote.path is None and not remote.journals_changes
    assert isinstance(remote.deadline_view(1.0, "test"), RemoteDeadlineView)
    remote.close()


def test_a_live_view_reads_and_writes_the_store_it_wraps_and_stops_at_its_deadline():
    store = EmbeddedStore(None, IRIS)
    view = LiveStore(store, 0.5, "test")
    start = store.generation
    with view.writing_facts_about(frozenset({"http://example.org/a"})):
        view.add([Quad(NamedNode("http://example.org/a"), NamedNode("http://example.org/p"), Literal("x"), NamedNode(G))])
    assert view.graphs() == [G] and view.generation == store.generation == start + 1
    assert view.facts_changed_about(start, store.generation) == {"http://example.org/a"}
    assert isinstance(view.raw, NativeStore) and view.path is None and view.journals_changes
    view.raw.remove(next(iter(view.raw.quads_for_pattern(None, None, None, NamedNode(G)))))
    assert store.generation == start + 2 and not store.has_graph(G)  # a native write is counted too
    # the embedded store bounds no query itself (the deadline executor's workers do) and has nothing to reach
    assert view.deadline_view(1.0, "test") is None and view.drop_stale_loads() == 0
    time.sleep(0.5)
    with pytest.raises(QueryTimeout):
        view.query("ASK { ?s ?p ?o }")
