"""Research tool packs for benchmark agents: `file_read` and `calculator`.

Each pack holds the one tool of its name, so a benchmark's `tools = ["file_read",
"calculator"]` names packs and tools alike. `file_read` reads a text file inside the
trial's workspace (attached benchmark files are copied there); `calculator` evaluates
an arithmetic expression without `eval` (numbers, + - * / // % **, parentheses, and a
few math functions), with bounded exponents so a call cannot exhaust memory.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from trialrun.errors import UserError
from trialrun.sandbox import resolve_inside
from trialrun.tools._tool import Tool, ToolContext, ToolError, tool
from trialrun.tools._toolbox import tool_pack

MAX_READ_CHARS = 100_000
MAX_EXPONENT = 10_000
MAX_EXPRESSION = 1_000

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {ast.UAdd: operator.pos, ast.USub: operator.neg}
_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "sqrt": math.sqrt,
    "log": math.log,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "abs": abs,
    "round": round,
    "floor": math.floor,
    "ceil": math.ceil,
}
_CONSTANTS = {"pi": math.pi, "e": math.e}


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression; ToolError when it is anything else."""
    if len(expression) > MAX_EXPRESSION:
        raise ToolError(f"calculator: expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.replace("^", "**"), mode="eval")
    except SyntaxError:
        raise ToolError(f"calculator: not an arithmetic expression: {expression!r}") from None
    value: int | float = _eval(tree.body)
    return value


def _eval(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and type(node.value) in (int, float):
        return node.value
    if isinstance(node, ast.Name) and node.id in _CONSTANTS:
        return _CONSTANTS[node.id]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _UNARY[type(node.op)](_eval(node.operand))
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > MAX_EXPONENT:
            raise ToolError(f"calculator: exponent {right} is too large (max {MAX_EXPONENT})")
        try:
            return _BINARY[type(node.op)](left, right)
        except ZeroDivisionError:
            raise ToolError("calculator: division by zero") from None
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        try:
            return _FUNCTIONS[node.func.id](*(_eval(a) for a in node.args))
        except (ValueError, TypeError, OverflowError) as exc:
            raise ToolError(f"calculator: {node.func.id}: {exc}") from None
    shown = ast.unparse(node) if isinstance(node, ast.expr) else type(node).__name__
    allowed = ", ".join(sorted(_FUNCTIONS))
    raise ToolError(
        f"calculator: {shown!r} is not allowed; use numbers, + - * / // % ** and {allowed}"
    )


@tool
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression and return the result.

    Args:
        expression: e.g. "(3.5 + 2) * 4 / sqrt(2)" (numbers, + - * / // % **, pi, e, sqrt…).
    """
    value = evaluate(expression)
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return str(value)


@tool
def file_read(ctx: ToolContext, path: str) -> str:
    """Read a text file in the working folder and return its content.

    Args:
        path: Path relative to the working folder, e.g. "data.csv".
    """
    if not isinstance(path, str) or not path.strip():
        raise ToolError("file_read: a file path is required (e.g. 'data.csv')")
    try:
        target = resolve_inside(ctx.workspace, path, allow_root=False)
    except ToolError as exc:
        raise ToolError(f"file_read: {exc}") from None
    if not target.is_file():
        raise ToolError(f"file_read: {path!r} not found in the working folder")
    raw = target.read_bytes()
    text = raw.decode("utf-8", errors="replace")
    if "\x00" in text[:4096]:
        return f"(binary file {path!r}, {len(raw)} bytes: file_read reads text files only)"
    if len(text) > MAX_READ_CHARS:
        return text[:MAX_READ_CHARS] + f"\n[... truncated {len(text) - MAX_READ_CHARS} characters]"
    return text


def _no_options(name: str) -> Callable[[dict[str, Any]], None]:
    def check(options: dict[str, Any]) -> None:
        if options:
            raise UserError(f'tool pack {name}: takes no options; list it as "{name}"')

    return check


@tool_pack("calculator", _no_options("calculator"))
def calculator_pack(options: dict[str, Any]) -> list[Tool]:
    return [calculator]


@tool_pack("file_read", _no_options("file_read"))
def file_read_pack(options: dict[str, Any]) -> list[Tool]:
    return [file_read]
