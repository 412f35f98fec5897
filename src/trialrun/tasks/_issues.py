"""Turn pydantic validation errors into `(field path, message)` issues with did-you-mean."""

from __future__ import annotations

import difflib
import re
import types
import typing
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from trialrun.tasks._problems import FieldPath

Issue = tuple[FieldPath, str]
BELONGS_AT = "it belongs one level down: write it as "  # then the dotted place


def suggest(name: str, choices: typing.Iterable[str]) -> str | None:
    close = difflib.get_close_matches(str(name), list(choices), n=1, cutoff=0.6)
    return close[0] if close else None


def issues_from_validation(
    exc: ValidationError, data: Any, model: type[BaseModel], prefix: FieldPath = ()
) -> list[Issue]:
    """One issue per field path; union alternatives at the same path are merged."""
    merged: dict[FieldPath, list[str]] = {}
    for err in exc.errors(include_url=False):
        path = _data_path(tuple(err["loc"]), data, err["type"])
        message = _message(err, path, model)
        if err["type"] == "missing" and path[-2:] == ("inputs", "prompt"):
            message = _missing_prompt(value_at(data, path[:-1]))
        bucket = merged.setdefault((*prefix, *path), [])
        if message not in bucket:
            bucket.append(message)
    # A union (`reset: true | {mode, from}`) given a mapping: the errors inside the
    # mapping are the ones that matter, not "should be a valid boolean" at its key.
    for path in [p for p in merged if any(len(o) > len(p) and o[: len(p)] == p for o in merged)]:
        if all(m.startswith("input should be a valid") for m in merged[path]):
            del merged[path]
    return [(path, _merge(msgs)) for path, msgs in merged.items()]


_SHOULD = re.compile(r"^input should be (.*?)(?: \(got (.*)\))?$")


def _merge(messages: list[str]) -> str:
    """Union alternatives: 'input should be a valid string or a valid list (got 3)'."""
    if len(messages) == 1:
        return messages[0]
    parts = [_SHOULD.match(m) for m in messages]
    if all(parts) and len({m.group(2) for m in parts if m}) == 1:
        got = parts[0].group(2) if parts[0] else None
        text = "input should be " + " or ".join(m.group(1) for m in parts if m)
        return f"{text} (got {got})" if got else text
    return "; or ".join(messages)


def _missing_prompt(inputs: Any) -> str:
    others = [str(k) for k in inputs if isinstance(k, str)] if isinstance(inputs, dict) else []
    hint = suggest("prompt", others)
    did = f"; did you mean 'prompt' (not '{hint}')?" if hint else ""
    return (
        "required key is missing: the user message trialrun sends the agent (the built-in "
        "loop sends it; --agent gets it as task_input.prompt, --agent-cmd as {prompt}); "
        f"other inputs are kept for your agent{did}"
    )


def value_at(data: Any, path: FieldPath) -> Any:
    """`data` at `path` (keys and list indexes), or None when the path is not there."""
    for part in path:
        if not has_child(data, part):
            return None
        data = data[part]
    return data


def has_child(data: Any, part: Any) -> bool:
    """Whether `data[part]` names a key of a mapping or an index of a list."""
    if isinstance(data, dict):
        return part in data
    return isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)


def _data_path(loc: tuple[Any, ...], data: Any, err_type: str) -> FieldPath:
    """Keep the parts of pydantic's `loc` that name keys/items in the data (drop union tags)."""
    path: list[str | int] = []
    cur = data
    for i, part in enumerate(loc):
        last = i == len(loc) - 1
        if has_child(cur, part):
            path.append(part)
            cur = cur[part]
        elif last and err_type == "missing":
            path.append(part)
    return tuple(path)


def _short(value: Any) -> str | None:
    if isinstance(value, dict | list):
        return type(value).__name__ if value else None
    if isinstance(value, int) and not -(10**60) < value < 10**60:
        return None  # repr of a huge int is long (or over Python's digit limit)
    text = repr(value)
    return text if len(text) <= 60 else None


def _message(err: ErrorDetails, path: FieldPath, model: type[BaseModel]) -> str:
    kind = err["type"]
    if kind == "missing":
        return "required key is missing"
    if kind == "extra_forbidden":
        key = str(path[-1]) if path else "?"
        allowed = sorted(field_names(model, path[:-1]))
        if place := _one_level_down(model, path[:-1], key):
            return f"unknown key '{key}' here; {BELONGS_AT}{place}"
        hint = suggest(key, allowed)
        if hint:
            return f"unknown key '{key}'; did you mean '{hint}'?"
        return (
            f"unknown key '{key}' (allowed: {', '.join(allowed)})"
            if allowed
            else (f"unknown key '{key}'")
        )
    msg = str(err.get("msg", "invalid value"))
    msg = msg[:1].lower() + msg[1:]
    if kind == "literal_error":
        expected = re.findall(r"'([^']*)'", str((err.get("ctx") or {}).get("expected", "")))
        hint = suggest(str(err.get("input")), expected)
        got = _short(err.get("input"))
        text = f"{msg} (got {got})" if got else msg
        return f"{text}; did you mean '{hint}'?" if hint else text
    if msg.startswith("value error, "):
        msg = msg[len("value error, ") :]
    if kind == "bool_type":  # strict booleans: "yes" or 1 is no answer
        msg += ": write true or false, unquoted"
    got = _short(err.get("input"))
    if got is not None and kind not in ("value_error", "assertion_error"):
        return f"{msg} (got {got})"
    return msg


def _one_level_down(model: type[BaseModel], parent: FieldPath, key: str) -> str | None:
    """`environment.budgets` for `budgets` given at the top: the one place below `parent`
    where `key` is allowed (None when there is none, or more than one)."""
    places = [
        ".".join(str(p) for p in (*parent, child, key))
        for child in sorted(field_names(model, parent))
        if key in field_names(model, (*parent, child))
    ]
    return places[0] if len(places) == 1 else None


def field_names(model: type[BaseModel], path: FieldPath) -> set[str]:
    """The keys allowed at `path` inside `model` (aliases where set)."""
    targets = _models_at(model, path)
    names: set[str] = set()
    for target in targets:
        for name, info in target.model_fields.items():
            names.add(info.alias or name)
    return names


def _models_at(model: type[BaseModel], path: FieldPath) -> list[type[BaseModel]]:
    annotations: list[Any] = [model]
    for part in path:
        nxt: list[Any] = []
        for ann in annotations:
            for inner in _unwrap(ann):
                if isinstance(part, int):
                    if typing.get_origin(inner) in (list, tuple, set):
                        nxt.extend(typing.get_args(inner)[:1])
                elif isinstance(inner, type) and issubclass(inner, BaseModel):
                    for name, info in inner.model_fields.items():
                        if part in (name, info.alias):
                            nxt.append(info.annotation)
                elif typing.get_origin(inner) is dict:
                    args = typing.get_args(inner)
                    if len(args) == 2:
                        nxt.append(args[1])
        annotations = nxt
    out: list[type[BaseModel]] = []
    for ann in annotations:
        for inner in _unwrap(ann):
            if isinstance(inner, type) and issubclass(inner, BaseModel) and inner not in out:
                out.append(inner)
    return out


def _unwrap(ann: Any) -> list[Any]:
    """Flatten Optional/Union/Annotated into their members."""
    origin = typing.get_origin(ann)
    if origin is typing.Annotated:
        return _unwrap(typing.get_args(ann)[0])
    if origin in (typing.Union, types.UnionType):
        out: list[Any] = []
        for arg in typing.get_args(ann):
            out.extend(_unwrap(arg))
        return out
    return [ann]
