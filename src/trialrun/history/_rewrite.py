"""Rewrite a test's policy in place, changing nothing else in the file.

Task files (YAML, JSON): the file is parsed with ruamel.yaml's round-trip loader only to
find where the task's `policy` value is (or where its `suite` key is, to insert one);
the edit is a splice of that one token, so comments, quoting, order and layout stay as
they were. TOML: the task's `policy = "…"` line (or one after its `task_id`). pytest
files: the first argument of the test's `@eval_test(...)`, found with `ast`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from trialrun.errors import UserError
from trialrun.rundir import write_text_atomic

POLICY_TOKEN = re.compile(r"""(["']?)(ALWAYS_PASSES|USUALLY_PASSES|USUALLY_FAILS)\1""")


def read_policy(kind: str, source: str, test_id: str) -> str | None:
    """The policy written in the file now (None: not written, the suite default)."""
    text = _read(source)
    if kind == "pytest":
        found = _decorator_arg(text, source, test_id)
        return found[1]
    if source.endswith(".toml"):
        start, end = _toml_block(text, source, test_id)
        for line in text.splitlines()[start:end]:
            if m := re.match(r"\s*policy\s*=\s*(\S+)", line):
                return m.group(1).strip("\"'")
        return None
    node = _task_node(text, source, test_id)
    value = node.get("policy")
    return str(value) if value is not None else None


def policy_line(source: str, test_id: str) -> int | None:
    """The 1-based line of a task file's written `policy` (None: not written)."""
    text = _read(source)
    if source.endswith(".toml"):
        start, end = _toml_block(text, source, test_id)
        lines = text.splitlines()
        return next(
            (i + 1 for i in range(start, end) if re.match(r"\s*policy\s*=", lines[i])), None
        )
    node = _task_node(text, source, test_id)
    return int(node.lc.value("policy")[0]) + 1 if "policy" in node else None


def set_policy(kind: str, source: str, test_id: str, new: str) -> str:
    """Write `new` as the test's policy; returns the file's new text."""
    text = _read(source)
    if kind == "pytest":
        out = _set_pytest(text, source, test_id, new)
    elif source.endswith(".toml"):
        out = _set_toml(text, source, test_id, new)
    else:
        out = _set_task(text, source, test_id, new)
    write_text_atomic(Path(source), out)
    return out


def _read(source: str) -> str:
    try:
        return Path(source).read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(
            f"{source}: cannot read it ({exc.strerror}); the history names this file for the "
            "test — restore it or run `trialrun history import` again"
        ) from None


# --- YAML and JSON task files ---
def _task_node(text: str, source: str, test_id: str) -> Any:
    # the round-trip parser (~10 ms) only where line numbers or comments are kept
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data = YAML(typ="rt").load(text)
    except YAMLError as exc:
        raise UserError(f"{source}: cannot parse it ({exc}); fix the file first") from None
    items = data.get("tasks", data) if isinstance(data, dict) and "tasks" in data else data
    for node in items if isinstance(items, list) else [items]:
        if isinstance(node, dict) and str(node.get("task_id", node.get("id"))) == test_id:
            return node
    raise UserError(f"{source}: no task '{test_id}' in it; was it renamed?")


def _offset(text: str, line: int, col: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[:line]) + col


def _set_task(text: str, source: str, test_id: str, new: str) -> str:
    node = _task_node(text, source, test_id)
    quote = '"' if source.endswith(".json") else ""
    if "policy" in node:
        line, col = node.lc.value("policy")
        at = _offset(text, line, col)
        m = POLICY_TOKEN.match(text, at)
        if not m:
            raise UserError(f"{source}:{line + 1}: policy is not a plain policy name; edit it "
                            "by hand")
        q = m.group(1)
        return text[:at] + f"{q}{new}{q}" + text[m.end():]
    if "suite" not in node:
        raise UserError(f"{source}: task '{test_id}' has no suite key to place policy beside")
    line, col = node.lc.key("suite")
    at = _offset(text, line, col)
    if not re.match(r"\s*$", text[at - col: at].lstrip("- ")):  # a flow mapping: `{…}`
        raise UserError(f"{source}:{line + 1}: task '{test_id}' is written inline; add "
                        f"`policy: {new}` by hand")
    sep = ": "
    added: str = text[:at] + f"{quote}policy{quote}{sep}{quote}{new}{quote}" + (
        ",\n" if quote else "\n") + " " * col + text[at:]
    return added


# --- TOML task files ---
_HEADER = re.compile(r"\s*\[")


def _toml_block(text: str, source: str, test_id: str) -> tuple[int, int]:
    """Lines [start, end) of the task's own keys: from its `task_id` to the next header."""
    lines = text.splitlines()
    pattern = re.compile(r"\s*task_id\s*=\s*[\"']" + re.escape(test_id) + r"[\"']\s*(#.*)?$")
    for i, line in enumerate(lines):
        if pattern.match(line):
            start = i
            while start > 0 and not _HEADER.match(lines[start - 1]):
                start -= 1
            end = i + 1
            while end < len(lines) and not _HEADER.match(lines[end]):
                end += 1
            return start, end
    raise UserError(f"{source}: no task '{test_id}' in it; was it renamed?")


def _set_toml(text: str, source: str, test_id: str, new: str) -> str:
    start, end = _toml_block(text, source, test_id)
    lines = text.splitlines(keepends=True)
    for i in range(start, end):
        m = re.match(r"(\s*policy\s*=\s*)([\"'])[A-Z_]+\2", lines[i])
        if m:
            lines[i] = f"{m.group(1)}{m.group(2)}{new}{m.group(2)}" + lines[i][m.end():]
            return "".join(lines)
    for i in range(start, end):
        if re.match(r"\s*task_id\s*=", lines[i]):
            indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
            newline = "" if lines[i].endswith("\n") else "\n"
            lines.insert(i + 1, f"{newline}{indent}policy = \"{new}\"\n")
            return "".join(lines)
    raise UserError(f"{source}: no task '{test_id}' in it")


# --- pytest files ---
def _function(tree: ast.Module, source: str, test_id: str) -> ast.FunctionDef:
    names = test_id.split("::")[1:] if "::" in test_id else [test_id]
    names = [n.split("[", 1)[0] for n in names]
    body: list[ast.stmt] = tree.body
    for i, name in enumerate(names):
        wanted = ast.FunctionDef if i == len(names) - 1 else ast.ClassDef
        node = next(
            (n for n in body if isinstance(n, wanted | ast.AsyncFunctionDef) and n.name == name),
            None,
        )
        if node is None:
            break
        if i == len(names) - 1 and isinstance(node, ast.FunctionDef):
            return node
        body = node.body
    raise UserError(f"{source}: no test '{'::'.join(names)}' in it; was it renamed?")


def _decorator_arg(text: str, source: str, test_id: str) -> tuple[ast.Constant, str]:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise UserError(f"{source}:{exc.lineno}: not valid Python ({exc.msg})") from None
    func = _function(tree, source, test_id)
    for deco in func.decorator_list:
        if not isinstance(deco, ast.Call):
            continue
        name = deco.func.attr if isinstance(deco.func, ast.Attribute) else getattr(
            deco.func, "id", None)
        if name == "eval_test" and deco.args and isinstance(deco.args[0], ast.Constant) \
                and isinstance(deco.args[0].value, str):
            return deco.args[0], deco.args[0].value
    raise UserError(
        f"{source}:{func.lineno}: {func.name} has no @eval_test(\"POLICY\", …) with the policy "
        "as a string literal; edit it by hand"
    )


def _set_pytest(text: str, source: str, test_id: str, new: str) -> str:
    arg, old = _decorator_arg(text, source, test_id)
    lines = text.splitlines(keepends=True)
    raw = lines[arg.lineno - 1].encode("utf-8")  # ast columns count UTF-8 bytes
    token = raw[arg.col_offset: arg.end_col_offset].decode("utf-8")
    replaced = token.replace(old, new, 1)
    edited = raw[: arg.col_offset] + replaced.encode("utf-8") + raw[arg.end_col_offset:]
    lines[arg.lineno - 1] = edited.decode("utf-8")
    return "".join(lines)
