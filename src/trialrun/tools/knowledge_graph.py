"""The `kg_add_entity`, `kg_add_relation`, `kg_query` and `kg_neighbors` tool packs: a
knowledge graph that lives for one trial.

Kept in the trial's `ToolContext` like the memory tools (never on disk, nothing shared
between trials). Entities are keyed by id (adding an id again replaces it); a relation
joins two entities that exist, keyed by (source, target, type) (adding it again sets its
weight). Answers keep insertion order and are OpenJarvis's JSON shapes; the parameters
are OpenJarvis's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from trialrun.errors import ToolError
from trialrun.tools._options import no_options
from trialrun.tools._tool import Tool, ToolContext, tool
from trialrun.tools._toolbox import tool_pack

DEFAULT_LIMIT = 50
MAX_LIMIT = 500
MAX_ITEMS = 10_000
_GRAPH_KEY = "knowledge_graph"
_DIRECTIONS = ("in", "out", "both")


@dataclass(frozen=True, slots=True)
class Entity:
    entity_id: str
    entity_type: str
    name: str
    properties: dict[str, Any]

    def shown(self) -> dict[str, Any]:
        return {"id": self.entity_id, "type": self.entity_type, "name": self.name}


@dataclass(frozen=True, slots=True)
class Relation:
    source_id: str
    target_id: str
    relation_type: str
    weight: float

    def shown(self) -> dict[str, Any]:
        return {"source": self.source_id, "target": self.target_id,
                "type": self.relation_type, "weight": self.weight}


@dataclass(slots=True)
class KnowledgeGraph:
    entities: dict[str, Entity] = field(default_factory=dict)
    relations: dict[tuple[str, str, str], Relation] = field(default_factory=dict)

    def neighbors(self, entity_id: str, relation_type: str | None, direction: str) -> list[str]:
        """Ids joined to `entity_id`, first-seen order, no repeats."""
        found: dict[str, None] = {}
        for rel in self.relations.values():
            if relation_type is not None and rel.relation_type != relation_type:
                continue
            if direction in ("out", "both") and rel.source_id == entity_id:
                found[rel.target_id] = None
            if direction in ("in", "both") and rel.target_id == entity_id:
                found[rel.source_id] = None
        return list(found)


def trial_graph(ctx: ToolContext) -> KnowledgeGraph:
    """This trial's graph (created on first use)."""
    found = ctx.extra.get(_GRAPH_KEY)
    if not isinstance(found, KnowledgeGraph):
        found = ctx.extra[_GRAPH_KEY] = KnowledgeGraph()
    return found


def _text(tool_name: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ToolError(f"{tool_name}: {key} is empty; give it a value")
    return value.strip()


def _limit(tool_name: str, limit: int | None) -> int:
    wanted = DEFAULT_LIMIT if limit is None else limit
    if not 1 <= wanted <= MAX_LIMIT:
        raise ToolError(f"{tool_name}: limit must be between 1 and {MAX_LIMIT}")
    return wanted


@tool
def kg_add_entity(
    ctx: ToolContext,
    entity_id: str,
    entity_type: str,
    name: str,
    properties: dict[str, Any] | None = None,
) -> str:
    """Add an entity to the knowledge graph.

    Args:
        entity_id: Unique entity ID.
        entity_type: Entity type (e.g., 'concept', 'tool', 'user').
        name: Entity name.
        properties: Additional properties.
    """
    graph = trial_graph(ctx)
    key = _text("kg_add_entity", "entity_id", entity_id)
    if key not in graph.entities and len(graph.entities) >= MAX_ITEMS:
        raise ToolError(f"kg_add_entity: the graph is full ({MAX_ITEMS} entities)")
    graph.entities[key] = Entity(
        key, _text("kg_add_entity", "entity_type", entity_type),
        _text("kg_add_entity", "name", name), dict(properties or {}),
    )
    return f"Entity '{name.strip()}' added."


@tool
def kg_add_relation(
    ctx: ToolContext,
    source_id: str,
    target_id: str,
    relation_type: str,
    weight: float = 1.0,
) -> str:
    """Add a relation between two entities in the knowledge graph.

    Args:
        source_id: Source entity ID.
        target_id: Target entity ID.
        relation_type: Relation type (e.g., 'used', 'depends_on').
        weight: Relation weight (default 1.0).
    """
    graph = trial_graph(ctx)
    ends = [_text("kg_add_relation", k, v) for k, v in
            (("source_id", source_id), ("target_id", target_id))]
    missing = [e for e in ends if e not in graph.entities]
    if missing:
        raise ToolError(
            f"kg_add_relation: no entity {', '.join(map(repr, missing))}; add it first with "
            "kg_add_entity"
        )
    kind = _text("kg_add_relation", "relation_type", relation_type)
    key = (ends[0], ends[1], kind)
    if key not in graph.relations and len(graph.relations) >= MAX_ITEMS:
        raise ToolError(f"kg_add_relation: the graph is full ({MAX_ITEMS} relations)")
    graph.relations[key] = Relation(ends[0], ends[1], kind, float(weight))
    return f"Relation '{kind}' added."


@tool
def kg_query(
    ctx: ToolContext,
    entity_type: str | None = None,
    relation_type: str | None = None,
    limit: int | None = None,
) -> str:
    """Query the knowledge graph by entity or relation type.

    Args:
        entity_type: Filter by entity type.
        relation_type: Filter by relation type.
        limit: Max results (default 50).
    """
    graph = trial_graph(ctx)
    most = _limit("kg_query", limit)
    entities = [e.shown() for e in graph.entities.values()
                if entity_type is None or e.entity_type == entity_type][:most]
    relations = [r.shown() for r in graph.relations.values()
                 if relation_type is None or r.relation_type == relation_type][:most]
    return json.dumps({"entities": entities, "relations": relations}, indent=2)


@tool
def kg_neighbors(
    ctx: ToolContext,
    entity_id: str,
    relation_type: str | None = None,
    direction: str = "both",
    limit: int | None = None,
) -> str:
    """Find entities connected to a given entity.

    Args:
        entity_id: Entity ID to find neighbors for.
        relation_type: Filter by relation type.
        direction: Direction: 'in', 'out', or 'both' (default 'both').
        limit: Max results (default 50).
    """
    if direction not in _DIRECTIONS:
        raise ToolError(f"kg_neighbors: direction must be one of {', '.join(_DIRECTIONS)}")
    graph = trial_graph(ctx)
    key = _text("kg_neighbors", "entity_id", entity_id)
    if key not in graph.entities:
        raise ToolError(f"kg_neighbors: no entity {key!r} in the graph")
    ids = graph.neighbors(key, relation_type, direction)[: _limit("kg_neighbors", limit)]
    return json.dumps([graph.entities[i].shown() for i in ids], indent=2)


@tool_pack("kg_add_entity", no_options("kg_add_entity"))
def kg_add_entity_pack(options: dict[str, Any]) -> list[Tool]:
    return [kg_add_entity]


@tool_pack("kg_add_relation", no_options("kg_add_relation"))
def kg_add_relation_pack(options: dict[str, Any]) -> list[Tool]:
    return [kg_add_relation]


@tool_pack("kg_query", no_options("kg_query"))
def kg_query_pack(options: dict[str, Any]) -> list[Tool]:
    return [kg_query]


@tool_pack("kg_neighbors", no_options("kg_neighbors"))
def kg_neighbors_pack(options: dict[str, Any]) -> list[Tool]:
    return [kg_neighbors]
