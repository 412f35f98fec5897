"""`SummaryRow`: one (task, model) row of summary.json, the one place that knows its keys.

`trialrun.metrics` builds rows from tallies; tracking and reports read them as they are.
`from_json` reads every row summary.json has held: rows written before a key existed read
it as its default (`pass_n` absent: None, the older counting rule; no trajectory figures:
`trajectory` None), and keys this version does not know are kept in `extra` and written
back unchanged.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Generic, TypeVar, overload

from trialrun.core import Interner, SharedValues
from trialrun.rundir._checks import NUMBER, RecordError

COUNTS = ("n", "pass_n", "passed", "solved", "undetermined", "infra_errors")
FRACTIONS = ("pass_k", "solve_k", "pass_at_k")
TRAJECTORY = (
    "repeated_calls", "tool_errors", "recovered_rate", "trials_with_tool_errors",
    "time_to_first_tool_s",
)
# the file's keys, in file order (trajectory, settled and tracked keys only when present)
KEYS = (
    "task_id", "model", "provider", "suite", "tier", "k", *COUNTS, *FRACTIONS, "flaky",
    "metric", "policy", "tags", "mean_turns", "failed_graders", "errors",
    "safety_violations", *TRAJECTORY, "settled_after", "settled", "tracked",
)


# a row's counts and unknown keys when it has none: one read-only empty mapping for every
# row (a 10,000-task summary holds three empty dicts a row otherwise)
NO_KEYS: Mapping[str, Any] = MappingProxyType({})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, NUMBER) and not isinstance(value, bool)


def _text(value: Any) -> str | None:
    """Non-empty text, interned: 10,000 rows read back hold one "golden", one model id."""
    return sys.intern(value) if isinstance(value, str) and value else None


def _name(value: Any) -> str:
    return sys.intern(str(value))


# an estimator of a task run k times is 0 or 1: every row read back shares these two
_ZERO, _ONE = 0.0, 1.0


def _float(value: Any) -> float | None:
    if not _is_number(value):
        return None
    number = float(value)
    if number == _ONE:
        return _ONE
    return _ZERO if number == 0.0 and math.copysign(1.0, number) > 0 else number  # not -0.0


# distinct tag lists kept for sharing (past MAX_SHARED, each row's own)
_TAGS: Interner[tuple[str, ...]] = Interner()


def shared_tags(tags: Iterable[Any]) -> tuple[str, ...]:
    """Tags as text (interned), one tuple for every equal list."""
    own = tuple(_name(t) for t in tags)
    return _TAGS(own) if own else ()


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# distinct counts kept for sharing (past MAX_SHARED, each row's own)
_COUNTS: SharedValues[tuple[tuple[str, int], ...], Mapping[str, int]] = SharedValues()


def _counts(value: Any) -> Mapping[str, int]:
    """A row's counts read back: one read-only mapping for every equal one (10,000 rows
    that each failed a grader once or twice hold a few)."""
    if not isinstance(value, dict):
        return NO_KEYS
    pairs = tuple((_name(name), count) for name, count in value.items() if _is_int(count))
    return shared_counts(pairs) if pairs else NO_KEYS


def shared_counts(pairs: tuple[tuple[str, int], ...]) -> Mapping[str, int]:
    """The read-only mapping of (name, count) `pairs` that every equal one shares (rows
    read back, finished tallies), up to MAX_SHARED distinct ones."""
    return _COUNTS.make(pairs, _read_only)


def _read_only(pairs: tuple[tuple[str, int], ...]) -> Mapping[str, int]:
    return MappingProxyType(dict(pairs))


@dataclass(slots=True)
class Trajectory:
    """A row's trajectory figures over the counted trials whose lines carry them."""

    repeated_calls: float  # mean per trial
    tool_errors: float  # mean per trial
    recovered_rate: float | None  # trials that recovered from every failed call / with one
    trials_with_tool_errors: int
    time_to_first_tool_s: float | None  # median

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in TRAJECTORY}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Trajectory | None:
        if data.get("repeated_calls") is None:
            return None
        with_errors: Any = data.get("trials_with_tool_errors")
        return cls(
            repeated_calls=_float(data.get("repeated_calls")) or 0.0,
            tool_errors=_float(data.get("tool_errors")) or 0.0,
            recovered_rate=_float(data.get("recovered_rate")),
            trials_with_tool_errors=with_errors if _is_int(with_errors) else 0,
            time_to_first_tool_s=_float(data.get("time_to_first_tool_s")),
        )


# a row's figures packed into three tuples (see `SummaryRow`), in this order each
META = ("provider", "suite", "tier", "metric", "policy", "tags")
FIGURES = ("k", *COUNTS, "safety_violations", *FRACTIONS, "flaky")
RARE = ("trajectory", "settled_after", "settled", "tracked", "extra")
# the constructor's parameters, in the order the dataclass it was had them
FIELDS = (
    "task_id", "model", "provider", "suite", "tier", "k", *COUNTS, *FRACTIONS, "flaky",
    "metric", "policy", "tags", "mean_turns", "failed_graders", "errors",
    "safety_violations", "trajectory", "settled_after", "settled", "tracked", "extra",
)

T = TypeVar("T")


class _Packed(Generic[T]):
    """A row attribute kept at `index` of the tuple in slot `slot`; setting it makes a
    new tuple (shared again when its values are)."""

    __slots__ = ("slot", "index")

    def __init__(self, slot: str, index: int) -> None:
        self.slot, self.index = slot, index

    @overload
    def __get__(self, row: None, owner: type[Any]) -> _Packed[T]: ...
    @overload
    def __get__(self, row: SummaryRow, owner: type[Any]) -> T: ...
    def __get__(self, row: SummaryRow | None, owner: type[Any]) -> T | _Packed[T]:
        if row is None:
            return self
        value: T = getattr(row, self.slot)[self.index]
        return value

    def __set__(self, row: SummaryRow, value: T) -> None:
        values = list(getattr(row, self.slot))
        values[self.index] = value
        row._pack(self.slot, tuple(values))


# equal meta and figures tuples, one object (a 10,000-task summary holds a few dozen):
# keyed by each value's type too, and a zero's sign (1 and True, 0.0 and -0.0 are equal
# and are not written the same)
_SHARED_PACKS: SharedValues[tuple[Any, ...], tuple[Any, ...]] = SharedValues()
_NO_RARE: tuple[Any, ...] = (None, None, None, None, NO_KEYS)


def _pack_key(values: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(
        (type(v), v, math.copysign(1.0, v) if type(v) is float else None) for v in values
    )


class SummaryRow:
    """One task × one model: counts, estimators and what the table notes show.

    A 10,000-task summary is held whole by every reader, so a row is eight slots: its
    task and model, the mean turns and counts (shared mappings), and three tuples its
    other attributes are read from, two of them (meta: provider to tags; figures: k to
    flaky) one object for every equal row, the third (rare: trajectory to extra) one
    object for every row without any of them."""

    __slots__ = ("task_id", "model", "_meta", "_figures", "mean_turns", "failed_graders",
                 "errors", "_rare")
    __hash__ = None  # type: ignore[assignment]  # equal by value, and changed in place

    task_id: str
    model: str  # the full spec text, e.g. "gemini:gemini-2.5-flash"
    mean_turns: float | None
    failed_graders: Mapping[str, int]  # grader → trials
    errors: Mapping[str, int]  # error kind → trials
    _meta: tuple[Any, ...]
    _figures: tuple[Any, ...]
    _rare: tuple[Any, ...]

    provider: _Packed[str | None] = _Packed("_meta", 0)
    suite: _Packed[str | None] = _Packed("_meta", 1)
    tier: _Packed[str | None] = _Packed("_meta", 2)
    metric: _Packed[str] = _Packed("_meta", 3)
    policy: _Packed[str | None] = _Packed("_meta", 4)
    # one tuple for every row with the same tags (a 10,000-task summary holds a few)
    tags: _Packed[tuple[str, ...]] = _Packed("_meta", 5)
    k: _Packed[int] = _Packed("_figures", 0)  # the task's effective k
    n: _Packed[int] = _Packed("_figures", 1)  # trials with a result: infra errors left out
    # every finished trial; None: a row counted before it existed
    pass_n: _Packed[int | None] = _Packed("_figures", 2)
    passed: _Packed[int] = _Packed("_figures", 3)
    solved: _Packed[int] = _Packed("_figures", 4)
    undetermined: _Packed[int] = _Packed("_figures", 5)
    infra_errors: _Packed[int] = _Packed("_figures", 6)
    safety_violations: _Packed[int] = _Packed("_figures", 7)
    pass_k: _Packed[float | None] = _Packed("_figures", 8)
    solve_k: _Packed[float | None] = _Packed("_figures", 9)
    pass_at_k: _Packed[float | None] = _Packed("_figures", 10)
    flaky: _Packed[bool] = _Packed("_figures", 11)
    trajectory: _Packed[Trajectory | None] = _Packed("_rare", 0)  # None: older lines
    settled_after: _Packed[int | None] = _Packed("_rare", 1)  # --early-stop: after j trials
    settled: _Packed[str | None] = _Packed("_rare", 2)  # "met" | "not met" (with settled_after)
    # None: run.json lists no tracked metrics
    tracked: _Packed[dict[str, float | None] | None] = _Packed("_rare", 3)
    extra: _Packed[Mapping[str, Any]] = _Packed("_rare", 4)  # keys this version does not know

    def __init__(
        self,
        task_id: str,
        model: str,
        provider: str | None = None,
        suite: str | None = None,
        tier: str | None = None,
        k: int = 1,
        n: int = 0,
        pass_n: int | None = None,
        passed: int = 0,
        solved: int = 0,
        undetermined: int = 0,
        infra_errors: int = 0,
        pass_k: float | None = None,
        solve_k: float | None = None,
        pass_at_k: float | None = None,
        flaky: bool = False,
        metric: str = "pass^k",
        policy: str | None = None,
        tags: tuple[str, ...] = (),
        mean_turns: float | None = None,
        failed_graders: Mapping[str, int] = NO_KEYS,
        errors: Mapping[str, int] = NO_KEYS,
        safety_violations: int = 0,
        trajectory: Trajectory | None = None,
        settled_after: int | None = None,
        settled: str | None = None,
        tracked: dict[str, float | None] | None = None,
        extra: Mapping[str, Any] = NO_KEYS,
    ) -> None:
        self.task_id, self.model = task_id, model
        self._pack("_meta", (provider, suite, tier, metric, policy, tags))
        self._pack("_figures", (k, n, pass_n, passed, solved, undetermined, infra_errors,
                                safety_violations, pass_k, solve_k, pass_at_k, flaky))
        self._pack("_rare", (trajectory, settled_after, settled, tracked, extra))
        self.mean_turns = mean_turns
        self.failed_graders = failed_graders
        self.errors = errors

    def _pack(self, slot: str, values: tuple[Any, ...]) -> None:
        if slot == "_rare":
            packed = _NO_RARE if values == _NO_RARE and values[4] is NO_KEYS else values
        else:
            packed = _SHARED_PACKS.share(_pack_key(values), values)
        object.__setattr__(self, slot, packed)

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, SummaryRow)
        return self._values() == other._values()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in FIELDS)
        return f"SummaryRow({shown})"

    @property
    def key(self) -> tuple[str, str]:
        return self.task_id, self.model

    @property
    def pass_total(self) -> int:
        """The pass^k denominator: every finished trial (`pass_n`; a row written before it
        existed: `n` plus the infra errors)."""
        return self.pass_n if self.pass_n is not None else self.n + self.infra_errors

    @property
    def solve_n(self) -> int:
        """Trials counted for solve figures: infra errors and undetermined left out."""
        return max(self.n - self.undetermined, 0)

    @property
    def insufficient(self) -> bool:
        """No figure and no settled verdict (a task stopped early has a verdict, no figure)."""
        return (self.pass_k is None or self.solve_k is None) and self.settled_after is None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key in KEYS[: KEYS.index("safety_violations") + 1]:
            out[key] = getattr(self, key)
        if self.pass_n is None:
            del out["pass_n"]
        out["tags"] = list(self.tags)
        out["failed_graders"] = dict(self.failed_graders)
        out["errors"] = dict(self.errors)
        if self.trajectory is not None:
            out.update(self.trajectory.to_json())
        if self.settled_after is not None:
            out["settled_after"] = self.settled_after
            out["settled"] = self.settled
        if self.tracked is not None:
            out["tracked"] = dict(self.tracked)
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "row", k_default: int | None = None) -> SummaryRow:
        """A row as summary.json holds it; counts must be integers, estimators numbers or
        null (a RecordError naming `where` and the key otherwise)."""
        if not isinstance(data, dict):
            raise RecordError(f"{where} must be an object")
        _check(data, where)
        after = data.get("settled_after")
        tracked = data.get("tracked")
        return cls(
            task_id=_name(data.get("task_id")),
            model=_name(data.get("model")),
            provider=_text(data.get("provider")),
            suite=_text(data.get("suite")),
            tier=_text(data.get("tier")),
            k=data["k"] if _is_int(data.get("k")) and data["k"] > 0 else (k_default or 1),
            n=data.get("n") or 0,
            pass_n=data.get("pass_n"),
            passed=data.get("passed") or 0,
            solved=data.get("solved") or 0,
            undetermined=data.get("undetermined") or 0,
            infra_errors=data.get("infra_errors") or 0,
            pass_k=_float(data.get("pass_k")),
            solve_k=_float(data.get("solve_k")),
            pass_at_k=_float(data.get("pass_at_k")),
            flaky=data.get("flaky") is True,
            metric=_text(data.get("metric")) or "pass^k",
            policy=_text(data.get("policy")),
            tags=shared_tags(tags) if isinstance(tags := data.get("tags"), list) else (),
            mean_turns=_float(data.get("mean_turns")),
            failed_graders=_counts(data.get("failed_graders")),
            errors=_counts(data.get("errors")),
            safety_violations=_count(data.get("safety_violations")),
            trajectory=Trajectory.from_json(data),
            settled_after=after if _is_int(after) else None,
            settled=_text(data.get("settled")) if _is_int(after) else None,
            tracked=(
                {str(name): _float(value) for name, value in tracked.items()}
                if isinstance(tracked, dict)
                else None
            ),
            extra={key: value for key, value in data.items() if key not in KEYS} or NO_KEYS,
        )


def _check(data: dict[str, Any], where: str) -> None:
    for key in COUNTS:
        value = data.get(key)
        if value is not None and not _is_int(value):
            raise RecordError(f"{where}.{key} must be an integer")
    for key in FRACTIONS:
        value = data.get(key)
        if value is not None and not _is_number(value):
            raise RecordError(f"{where}.{key} must be a number or null")
    k = data.get("k")
    if k is not None and not _is_int(k):
        raise RecordError(f"{where}.k must be an integer")
