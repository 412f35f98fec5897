"""One trial's database: the domain's tables, changed only through its tools.

`call` never raises for a bad call: an unknown tool, arguments that do not fit, or a call
the tool refuses is an `Error: …` text and the tables are left as they were (each tool
checks everything before it changes anything; arguments are copied in, so the database
never shares objects with the caller). The canonical form is the tables as JSON with
sorted keys: two databases are equal when their SHA-256 over it is.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from trialrun.benchmarks.taubench._errors import ToolFailure
from trialrun.benchmarks.taubench._tooling import DomainTool, Tables
from trialrun.benchmarks.taubench._types import ToolOutcome

MAX_DIFFERENCES = 5


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(tables: Tables) -> str:
    """SHA-256 of the tables' canonical form."""
    return hashlib.sha256(canonical(tables).encode("utf-8")).hexdigest()


def differences(expected: Tables, actual: Tables) -> list[str]:
    """Which table and record differ: `reservations/HATHAT: missing` (expected, absent),
    `…: unexpected` (present, not expected), `…: changed`."""
    found: list[str] = []
    for table in sorted(set(expected) | set(actual)):
        want, got = expected.get(table, {}), actual.get(table, {})
        if canonical(want) == canonical(got):
            continue
        for key in sorted(set(want) | set(got)):
            if key not in got:
                found.append(f"{table}/{key}: missing")
            elif key not in want:
                found.append(f"{table}/{key}: unexpected")
            elif canonical(want[key]) != canonical(got[key]):
                found.append(f"{table}/{key}: {_changed_fields(want[key], got[key])}")
    return found


def _changed_fields(want: Any, got: Any) -> str:
    same = canonical
    if isinstance(want, dict) and isinstance(got, dict):
        keys = [k for k in sorted(set(want) | set(got)) if same(want.get(k)) != same(got.get(k))]
        return f"changed ({', '.join(keys)})"
    return "changed"


class TauState:
    """A mutable copy of a domain's database with the domain's tools."""

    __slots__ = ("tables", "_tools")

    def __init__(self, tables: Tables, tools: Mapping[str, DomainTool]) -> None:
        self.tables = tables
        self._tools = tools

    @property
    def tool_names(self) -> list[str]:
        return list(self._tools)

    def invoke(self, name: str, arguments: Mapping[str, object]) -> ToolOutcome:
        """Run one tool call; `ok` False: an error text, the tables unchanged."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self._tools))
            return ToolOutcome(False, f"Error: unknown tool {name!r}; available: {known}")
        if not isinstance(arguments, Mapping):
            return ToolOutcome(False, "Error: arguments must be a JSON object")
        if problem := tool.problem(arguments):
            return ToolOutcome(False, f"Error: {name}: {problem}")
        try:
            text = tool.body(self.tables, **copy.deepcopy(dict(arguments)))
        except ToolFailure as exc:
            return ToolOutcome(False, f"Error: {exc}")
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            # a record without a field the tool reads: refused before any change
            return ToolOutcome(False, f"Error: {name}: {type(exc).__name__}: {exc}")
        return ToolOutcome(True, text)

    def call(self, name: str, arguments: Mapping[str, object]) -> str:
        """The tool's output text (errors as text, the tables unchanged)."""
        return self.invoke(name, arguments).text

    def digest(self) -> str:
        return digest(self.tables)
