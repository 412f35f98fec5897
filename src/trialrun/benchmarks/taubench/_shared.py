"""The tools both domains have: `calculate`, `think`, `transfer_to_human_agents`."""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable
from typing import Any

from trialrun.benchmarks.taubench._errors import ToolFailure
from trialrun.benchmarks.taubench._tooling import DomainTool, Tables, define, text

_ALLOWED = set("0123456789+-*/(). ")
_BINARY: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
}
MAX_EXPRESSION = 1000


def _evaluate(node: ast.AST) -> float:
    """Arithmetic only: numbers, + - * /, unary signs and parentheses."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        return _BINARY[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _evaluate(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    raise ToolFailure("not an arithmetic expression")


def calculate(tables: Tables, expression: str) -> str:
    if not set(expression) <= _ALLOWED:
        raise ToolFailure("invalid characters in expression")
    if len(expression) > MAX_EXPRESSION:
        raise ToolFailure(f"expression longer than {MAX_EXPRESSION} characters")
    try:
        tree = ast.parse(expression.strip(), mode="eval")
        return str(round(_evaluate(tree.body), 2))
    except SyntaxError:
        raise ToolFailure("not an arithmetic expression") from None
    except ZeroDivisionError:
        raise ToolFailure("division by zero") from None


def think(tables: Tables, thought: str) -> str:
    return ""


def transfer_to_human_agents(tables: Tables, summary: str) -> str:
    return "Transfer successful"


def shared_tools() -> list[DomainTool]:
    expression = text(
        "string",
        "The mathematical expression to calculate, such as '2 + 2'. The expression can "
        "contain numbers, operators (+, -, *, /), parentheses, and spaces.",
    )
    tools: list[Any] = [
        define(
            "calculate",
            "Calculate the result of a mathematical expression.",
            calculate,
            expression=expression,
        ),
        define(
            "think",
            "Use the tool to think about something. It will not obtain new information or "
            "change the database, but just append the thought to the log. Use it when "
            "complex reasoning is needed.",
            think,
            thought=text("string", "A thought to think about."),
        ),
        define(
            "transfer_to_human_agents",
            "Transfer the user to a human agent, with a summary of the user's issue. Only "
            "transfer if the user explicitly asks for a human agent, or if the user's issue "
            "cannot be resolved by the agent with the available tools.",
            transfer_to_human_agents,
            summary=text("string", "A summary of the user's issue."),
        ),
    ]
    return tools
