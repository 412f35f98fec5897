"""Read a published task file (`tasks_<split>.py`) without executing it.

The file is Python source: one module-level list of `Task(...)` calls whose keyword
arguments are literals, with `Action(name=..., kwargs={...})` calls inside. It is parsed
with `ast`, and only literals and those two constructors are evaluated; anything else is
one line naming the file, the line and what was found.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from trialrun.benchmarks.taubench._types import TauAction, TauTask
from trialrun.errors import UserError

CONSTRUCTORS = ("Task", "Action")


class _Refused(Exception):
    def __init__(self, node: ast.AST, what: str) -> None:
        super().__init__(what)
        self.line = getattr(node, "lineno", 0)


def _call_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):  # e.g. types.Task(...)
        return func.attr
    return None


def _snippet(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:59] + "…"


def _value(node: ast.AST) -> Any:
    """A literal, or a Task/Action call as ("Task" | "Action", {keyword: value})."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise _Refused(node, "a ** expansion inside a dict")
        return {_value(k): _value(v) for k, v in zip(node.keys, node.values, strict=True) if k}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _value(node.operand)
        if isinstance(operand, int | float) and not isinstance(operand, bool):
            return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.Call):
        name = _call_name(node)
        if name in CONSTRUCTORS and not node.args:
            if any(k.arg is None for k in node.keywords):
                raise _Refused(node, f"a ** expansion in {name}(...)")
            return (name, {str(k.arg): _value(k.value) for k in node.keywords})
        raise _Refused(node, f"`{_snippet(node)}` calls {name or 'an expression'}(...)")
    raise _Refused(node, f"`{_snippet(node)}` is not a literal, Task(...) or Action(...)")


def _action(raw: Any, node: ast.AST) -> TauAction:
    if isinstance(raw, tuple) and raw[0] == "Action":
        fields = raw[1]
    elif isinstance(raw, dict):  # the older dict form of tasks.py
        fields = raw
    else:
        raise _Refused(node, "an action that is not Action(name=..., kwargs={...})")
    name, kwargs = fields.get("name"), fields.get("kwargs", {})
    if not isinstance(name, str) or not isinstance(kwargs, dict):
        raise _Refused(node, "an action without a name or with kwargs that are no mapping")
    return TauAction(name, kwargs)


def _task(index: int, raw: Any, node: ast.AST) -> TauTask:
    if isinstance(raw, tuple) and raw[0] == "Task":
        fields = raw[1]
    elif isinstance(raw, dict):
        fields = raw
    else:
        raise _Refused(node, "a list item that is not Task(...)")
    instruction = fields.get("instruction")
    if not isinstance(instruction, str):
        raise _Refused(node, "a Task without an instruction")
    actions_node = node
    actions = fields.get("actions", [])
    outputs = fields.get("outputs", [])
    if not isinstance(actions, list) or not isinstance(outputs, list):
        raise _Refused(node, "a Task whose actions or outputs are not lists")
    annotator = fields.get("annotator")
    return TauTask(
        task_id=index,
        user_id=str(fields.get("user_id", "")),
        instruction=instruction,
        actions=tuple(_action(a, actions_node) for a in actions),
        outputs=tuple(str(o) for o in outputs),
        annotator=None if annotator is None else str(annotator),
    )


def _task_list(tree: ast.Module) -> ast.List | None:
    """The module's list of tasks: the first top-level assignment of a list literal."""
    for statement in tree.body:
        value = None
        if isinstance(statement, ast.Assign | ast.AnnAssign):
            value = statement.value
        if isinstance(value, ast.List):
            return value
    return None


def read_tasks(path: Path) -> list[TauTask]:
    """The tasks of one published task file, in order (index = task id)."""
    try:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, filename=str(path))
    except OSError as exc:
        raise UserError(f"{path}: cannot read the task file ({exc.strerror or exc})") from None
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None) or 0
        raise UserError(f"{path}:{line}: not Python source τ-bench publishes ({exc})") from None
    listing = _task_list(tree)
    if listing is None:
        raise UserError(f"{path}: no task list (expected TASKS = [Task(...), ...])")
    tasks: list[TauTask] = []
    for index, node in enumerate(listing.elts):
        try:
            tasks.append(_task(index, _value(node), node))
        except _Refused as exc:
            raise UserError(
                f"{path}:{exc.line}: task {index}: {exc}; task files are read, never run"
            ) from None
    return tasks
