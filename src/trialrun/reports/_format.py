"""How figures read in every report: percentages, deltas, seconds, money, names.

Rates are fractions 0–1 in files and percentages here; a missing figure is "—".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from trialrun.rundir import Trajectory

DASH = "—"


def _number(value: Any) -> bool:
    return isinstance(value, (int, float))


def pct(value: Any, places: int = 1) -> str:
    """A fraction as a percentage: 0.5 → "50.0%"."""
    return f"{value * 100:.{places}f}%" if _number(value) else DASH


def pp(value: float | None) -> str:
    """A change in percentage points: "+2.5 pp" ("" when unknown)."""
    return "" if value is None else f"{value:+.1f} pp"


def change_pct(value: float | None) -> str:
    """A relative change: "+10.0%" ("" when unknown)."""
    return "" if value is None else f"{value:+.1f}%"


def delta_ms(value: float) -> str:
    """A change in milliseconds: "+15 ms"."""
    return f"{value:+.0f} ms"


def seconds(value: Any, places: int = 2) -> str:
    """A duration: "1.23 s"."""
    return f"{value:.{places}f} s" if _number(value) else DASH


def seconds_short(value: Any) -> str:
    """A duration in the terminal tables: "1.234s" ("?s" when unknown)."""
    return f"{value:.3f}s" if _number(value) else "?s"


def money(value: Any) -> str:
    """US dollars: "$0.0012"."""
    return f"${value:.4f}" if _number(value) else DASH


def fixed(value: Any, places: int) -> str:
    """A plain figure with `places` decimals: 0.667 → "0.667"."""
    return f"{value:.{places}f}" if _number(value) else DASH


def over_tasks(with_value: int, tasks: int, settled: int = 0) -> str:
    """What a headline rate is over: "over 4 of 8 tasks (4 insufficient)", "over 8 tasks",
    "over 6 of 8 tasks (1 insufficient, 1 settled early)" (early stop: no estimate)."""
    if with_value == tasks:
        return f"over {tasks} task" + ("" if tasks == 1 else "s")
    short = tasks - with_value - settled
    why = [f"{short} insufficient"] if short else []
    why += [f"{settled} settled early"] if settled else []
    return f"over {with_value} of {tasks} tasks ({', '.join(why)})"


_RATES = ("pass^k", "solve^k", "pass@k", "pass_rate", "solve_rate")
_TRACKED_FORMATS = {
    "latency_p50": seconds,
    "latency_p95": seconds,
    "cost": money,
    "tokens": lambda v: fixed(v, 0),
    "turns": lambda v: fixed(v, 1),
    "steps": lambda v: fixed(v, 1),
    "tool_calls": lambda v: fixed(v, 1),
}


def tracked_text(tracked: Any, skip: Iterable[str] = ()) -> str:
    """A row's tracked figures, compactly: "pass^k 100.0% · latency_p95 1.23 s · cost $0.0010"."""
    if not isinstance(tracked, dict):
        return ""
    left_out = set(skip)
    parts = []
    for name, value in tracked.items():
        if name in left_out:
            continue
        fmt: Callable[[Any], str] = (
            pct if name in _RATES else _TRACKED_FORMATS.get(name, lambda v: fixed(v, 3))
        )
        parts.append(f"{name} {fmt(value)}")
    return " · ".join(parts)


def trajectory_text(trajectory: Trajectory | None) -> str:
    """A task row's trajectory figures: "repeated calls 2.0/trial, tool errors 1.0/trial
    (recovered 1/3 trials), first tool 0.012s"; repeats and errors only when there are any,
    "" for rows of runs that predate them."""
    if trajectory is None:
        return ""
    parts = []
    if trajectory.repeated_calls:
        parts.append(f"repeated calls {trajectory.repeated_calls:.1f}/trial")
    if trajectory.tool_errors:
        text = f"tool errors {trajectory.tool_errors:.1f}/trial"
        errored, rate = trajectory.trials_with_tool_errors, trajectory.recovered_rate
        if errored and rate is not None:
            text += f" (recovered {round(rate * errored)}/{errored} trials)"
        parts.append(text)
    if trajectory.time_to_first_tool_s is not None:
        parts.append(f"first tool {seconds_short(trajectory.time_to_first_tool_s)}")
    return ", ".join(parts)


def names(items: Iterable[str]) -> str:
    return ", ".join(items)


def code_names(items: Iterable[str]) -> str:
    """Names as Markdown code: "`a`, `b`"."""
    return ", ".join(f"`{item}`" for item in items)


def md_cell(text: str) -> str:
    """Text that stays inside one Markdown table cell."""
    return text.replace("|", "\\|").replace("\n", " ")
