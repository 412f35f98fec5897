"""The kg_* tools keep a knowledge graph per trial, answered in OpenJarvis's shapes."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from tools_support import call

from trialrun.tools import ToolContext


def graph(tmp_path: Path) -> ToolContext:
    ctx = ToolContext(tmp_path)
    for eid, kind, name in [("py", "tool", "Python"), ("ana", "user", "Ana"),
                            ("sql", "tool", "SQLite"), ("bo", "user", "Bo")]:
        assert call("kg_add_entity", ctx, entity_id=eid, entity_type=kind, name=name).ok
    for src, dst, rel in [("ana", "py", "used"), ("ana", "sql", "used"), ("bo", "ana", "knows"),
                          ("py", "sql", "depends_on")]:
        assert call("kg_add_relation", ctx, source_id=src, target_id=dst, relation_type=rel).ok
    return ctx


def test_query_by_type(tmp_path: Path) -> None:
    ctx = graph(tmp_path)
    found = json.loads(call("kg_query", ctx, entity_type="user", relation_type="used").content)
    assert found == {
        "entities": [{"id": "ana", "type": "user", "name": "Ana"},
                     {"id": "bo", "type": "user", "name": "Bo"}],
        "relations": [{"source": "ana", "target": "py", "type": "used", "weight": 1.0},
                      {"source": "ana", "target": "sql", "type": "used", "weight": 1.0}],
    }
    assert len(json.loads(call("kg_query", ctx, limit=1).content)["entities"]) == 1


def test_neighbors_by_direction(tmp_path: Path) -> None:
    ctx = graph(tmp_path)

    def ids(**arguments: object) -> list[str]:
        got = call("kg_neighbors", ctx, entity_id="ana", **arguments)
        assert got.ok, got.content
        return [e["id"] for e in json.loads(got.content)]

    assert ids() == ["py", "sql", "bo"]
    assert ids(direction="out") == ["py", "sql"]
    assert ids(direction="in") == ["bo"]
    assert ids(relation_type="knows") == ["bo"]
    assert ids(limit=1) == ["py"]


def test_bad_calls_are_tool_errors(tmp_path: Path) -> None:
    ctx = graph(tmp_path)
    orphan = call("kg_add_relation", ctx, source_id="ana", target_id="zed", relation_type="x")
    assert not orphan.ok and "no entity 'zed'; add it first with kg_add_entity" in orphan.content
    assert not call("kg_neighbors", ctx, entity_id="zed").ok
    assert not call("kg_neighbors", ctx, entity_id="ana", direction="up").ok
    assert not call("kg_add_entity", ctx, entity_id=" ", entity_type="t", name="n").ok


def test_the_graph_is_per_trial(tmp_path: Path) -> None:
    graph(tmp_path)
    fresh = json.loads(call("kg_query", ToolContext(tmp_path)).content)
    assert fresh == {"entities": [], "relations": []}
    assert list(tmp_path.iterdir()) == []


@given(st.lists(st.tuples(st.sampled_from("abcd"), st.sampled_from("abcd")), max_size=12))
def test_neighbors_are_exactly_the_joined_entities(edges: list[tuple[str, str]]) -> None:
    ctx = ToolContext(Path("."))
    for eid in "abcd":
        call("kg_add_entity", ctx, entity_id=eid, entity_type="t", name=eid)
    for src, dst in edges:
        call("kg_add_relation", ctx, source_id=src, target_id=dst, relation_type="r")
    out = {e["id"] for e in json.loads(call("kg_neighbors", ctx, entity_id="a",
                                            direction="out").content)}
    assert out == {dst for src, dst in edges if src == "a"}
    both = {e["id"] for e in json.loads(call("kg_neighbors", ctx, entity_id="a").content)}
    assert both == out | {src for src, dst in edges if dst == "a"}
