"""Each tool takes OpenJarvis's argument names (openjarvis 1.0.4, `openjarvis/tools/`), so
a model prompted as there calls it unchanged."""

from __future__ import annotations

import pytest

from trialrun.tools import load_pack

OPENJARVIS_SHAPES = {
    "think": ({"thought"}, ["thought"]),
    "code_interpreter": ({"code"}, ["code"]),
    "file_write": ({"path", "content", "mode", "create_dirs"}, ["path", "content"]),
    "shell_exec": ({"command", "timeout", "working_dir", "env_passthrough"}, ["command"]),
    "web_search": ({"query", "max_results"}, ["query"]),
    "http_request": ({"url", "method", "headers", "body", "timeout"}, ["url"]),
    "pdf_extract": ({"file_path", "pages", "max_chars"}, ["file_path"]),
    "browser_navigate": ({"url", "wait_for"}, ["url"]),
    "image_generate": ({"prompt", "size", "output_path", "provider"}, ["prompt"]),
    "kg_add_entity": (
        {"entity_id", "entity_type", "name", "properties"}, ["entity_id", "entity_type", "name"]
    ),
    "kg_add_relation": (
        {"source_id", "target_id", "relation_type", "weight"},
        ["source_id", "target_id", "relation_type"],
    ),
    "db_query": ({"query", "db_path", "db_url", "read_only", "max_rows"}, ["query"]),
    "kg_query": ({"entity_type", "relation_type", "limit"}, []),
    "kg_neighbors": ({"entity_id", "relation_type", "direction", "limit"}, ["entity_id"]),
    "memory_store": ({"content", "source"}, ["content"]),
    "memory_search": ({"query", "top_k"}, ["query"]),
    "memory_retrieve": ({"query", "top_k"}, ["query"]),
}


@pytest.mark.parametrize("name", sorted(OPENJARVIS_SHAPES))
def test_argument_names_are_openjarvis(name: str) -> None:
    (tool,) = load_pack(name)
    properties, required = OPENJARVIS_SHAPES[name]
    assert tool.name == name
    assert set(tool.parameters["properties"]) == properties
    assert tool.parameters["required"] == required
