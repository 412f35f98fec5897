"""A loaded domain: its tasks, policy and tools, and fresh copies of its database.

`load_domain` reads a checkout once per (path, domain, split) and process; every
`fresh_state()` parses the data files' bytes again, so no trial sees another's changes.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from trialrun.benchmarks.taubench._airline import airline_tools
from trialrun.benchmarks.taubench._layout import DomainLayout, locate
from trialrun.benchmarks.taubench._retail import retail_tools
from trialrun.benchmarks.taubench._state import TauState, digest
from trialrun.benchmarks.taubench._taskfile import read_tasks
from trialrun.benchmarks.taubench._tooling import DomainTool, Tables
from trialrun.benchmarks.taubench._types import (
    RESPOND_ACTION,
    TERMINATING_TOOL,
    TauTask,
)
from trialrun.errors import UserError

TOOLSETS = {"airline": airline_tools, "retail": retail_tools}


@dataclass(frozen=True, slots=True)
class TauDomain:
    name: str
    split: str
    layout: DomainLayout
    policy: str
    tasks: tuple[TauTask, ...]
    tools: tuple[DomainTool, ...]
    raw_tables: dict[str, bytes] = field(repr=False)
    _expected: dict[int, str] = field(default_factory=dict, repr=False, compare=False)

    def fresh_state(self) -> TauState:
        """A new copy of the published database."""
        tables: Tables = {name: json.loads(raw) for name, raw in self.raw_tables.items()}
        return TauState(tables, {t.name: t for t in self.tools})

    def task(self, task_id: int) -> TauTask:
        if not 0 <= task_id < len(self.tasks):
            raise UserError(
                f"τ-bench {self.name} {self.split}: no task {task_id} "
                f"(the split has tasks 0–{len(self.tasks) - 1})"
            )
        return self.tasks[task_id]

    def expected_state(self, task: TauTask) -> TauState:
        """A fresh database with the task's ground-truth actions replayed (agent replies
        and the hand-off to a human are no tool effects, and are skipped)."""
        state = self.fresh_state()
        for action in task.actions:
            if action.name not in (RESPOND_ACTION, TERMINATING_TOOL):
                state.invoke(action.name, action.kwargs)
        return state

    def expected_digest(self, task: TauTask) -> str:
        known = self._expected.get(task.task_id)
        if known is None:
            known = self._expected[task.task_id] = self.expected_state(task).digest()
        return known


def _read_table(path: Path) -> bytes:
    try:
        raw = path.read_bytes()
        data: Any = json.loads(raw)
    except OSError as exc:
        raise UserError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise UserError(f"{path}: not JSON ({exc}); restore the published file") from None
    if not isinstance(data, dict):
        raise UserError(f"{path}: expected a JSON object of records (id → record)")
    return raw


_CACHE: dict[tuple[str, str, str], TauDomain] = {}
_LOCK = threading.Lock()


def load_domain(checkout: Path | str, domain: str, split: str = "test") -> TauDomain:
    """The domain `domain` (airline, retail) of a τ-bench checkout, tasks of `split`."""
    layout = locate(checkout, domain, split)
    key = (str(layout.folder.resolve()), domain, split)
    with _LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            return cached
        try:
            policy = layout.policy.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"{layout.policy}: cannot read the policy ({exc})") from None
        loaded = TauDomain(
            name=domain,
            split=split,
            layout=layout,
            policy=policy,
            tasks=tuple(read_tasks(layout.tasks)),
            tools=tuple(TOOLSETS[domain]()),
            raw_tables={p.stem: _read_table(p) for p in layout.tables},
        )
        _CACHE[key] = loaded
        return loaded


__all__ = ["TauDomain", "digest", "load_domain"]
