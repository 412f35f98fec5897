"""The JSON Schema of a native task file, as `trialrun schema` prints it.

It is generated from the same pydantic models the loader validates with; `graders.items`
is a `oneOf` over every registered grader kind's config, told apart by a `type` const, and
over every suite-spec family route (`state_check` with `contains`, …) made from them.
"""

from __future__ import annotations

from typing import Any

from trialrun.graders import GRADERS
from trialrun.tasks._families import family_schemas
from trialrun.tasks._model import Task

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"


def task_json_schema() -> dict[str, Any]:
    schema = Task.model_json_schema(mode="validation", ref_template="#/$defs/{model}")
    defs: dict[str, Any] = schema.setdefault("$defs", {})
    one_of: list[dict[str, Any]] = []
    kinds: dict[str, dict[str, Any]] = {}
    for name, kind in GRADERS:
        sub = kind.config_model.model_json_schema(mode="validation", ref_template="#/$defs/{model}")
        for def_name, definition in sub.pop("$defs", {}).items():
            defs.setdefault(def_name, definition)
        props = sub.setdefault("properties", {})
        props["type"] = {"const": name, "title": "Type"}
        required = sub.setdefault("required", [])
        if "type" not in required:
            required.insert(0, "type")
        title = f"{name[:1].upper()}{name[1:]}Grader"
        sub["title"] = title
        defs[title] = sub
        kinds[name] = sub
        one_of.append({"$ref": f"#/$defs/{title}"})
    for title, sub in family_schemas(kinds).items():
        defs[title] = sub
        one_of.append({"$ref": f"#/$defs/{title}"})
    graders = schema["properties"]["graders"]
    graders["items"] = {"oneOf": one_of} if one_of else {"type": "object"}
    if "GraderConfig" in defs and '"#/$defs/GraderConfig"' not in repr(schema).replace("'", '"'):
        defs.pop("GraderConfig")
    schema["properties"] = {"$schema": {"type": "string"}, **schema["properties"]}
    return {"$schema": SCHEMA_DIALECT, **schema}
