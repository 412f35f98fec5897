"""`ResultLine`: one line of results.jsonl, one finished trial.

The runner builds these on the hot path (a slots dataclass, one dict per `to_json`);
every reader gets them from `ResultLine.from_json`, the one checker of the line format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.rundir._checks import MAX_EXACT, NUMBER, RecordError, shown, too_large

# pinned keys, in file order; everything else a line carries is kept in `extra`
PINNED = (
    "task_id",
    "model",
    "provider",
    "trial",
    "pass",
    "solve",
    "error",
    "verdicts",
    "tool_calls",
    "turns",
    "tokens",
    "cost_usd",
    "latency_s",
    "safety_violation",
    "transcript",
    # trajectory figures (0.3): absent from older lines, read as null
    "repeated_calls",
    "tool_errors",
    "recovered",
    "time_to_first_tool_s",
)
_NONE = type(None)
# key -> (allowed types, how the error message describes them)
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "task_id": ((str,), "a string"),
    "model": ((str,), "a string"),
    "provider": ((str, _NONE), "a string"),
    "trial": ((int,), "an integer >= 0"),
    "pass": ((bool, _NONE), "true, false or null"),
    "solve": ((bool, _NONE), "true, false or null"),
    "error": ((dict, _NONE), "an object {kind, message} or null"),
    "verdicts": ((list, _NONE), "a list"),
    "tool_calls": ((list, _NONE), "a list"),
    "tokens": ((dict, _NONE), "an object {prompt, cached, completion}"),
    "turns": ((*NUMBER, _NONE), "a number"),
    "cost_usd": ((*NUMBER, _NONE), "a number"),
    "latency_s": ((*NUMBER, _NONE), "a number"),
    "repeated_calls": ((int, _NONE), "an integer >= 0 or null"),
    "tool_errors": ((int, _NONE), "an integer >= 0 or null"),
    "recovered": ((bool, _NONE), "true, false or null"),
    "time_to_first_tool_s": ((*NUMBER, _NONE), "a number or null"),
}

_PINNED_KEYS = frozenset(PINNED)
# the same, as the exact classes a value may have (one set lookup per key; a parsed JSON
# value is never a subclass, and a bool passes only where `bool` is named)
_EXACT_TYPES: dict[str, tuple[frozenset[type], str]] = {
    key: (frozenset(types), what) for key, (types, what) in _TYPES.items()
}


@dataclass(slots=True)
class ResultLine:
    task_id: str
    model: str
    trial: int
    passed: bool | None  # the file's "pass"
    solve: bool | None
    provider: str | None = None
    error: dict[str, Any] | None = None  # {kind, message}
    verdicts: list[dict[str, Any]] = field(default_factory=list)  # [{grader, passed, details}]
    tool_calls: list[dict[str, Any]] = field(default_factory=list)  # [{name, arguments, ok}]
    turns: int | float | None = 0
    tokens: dict[str, Any] | None = None  # {prompt, cached, completion}
    cost_usd: float | None = None
    latency_s: float | None = None
    safety_violation: bool = False
    transcript: str | None = None  # path relative to the run folder
    # calls repeating an earlier identical call (name + arguments); failed calls; whether
    # every failed call was followed by a different call or an answer (None: none failed);
    # seconds from the agent's start to its first tool call (None: no call). None in lines
    # written before these existed.
    repeated_calls: int | None = None
    tool_errors: int | None = None
    recovered: bool | None = None
    time_to_first_tool_s: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # suite, tier, final_text, …

    @property
    def is_infra(self) -> bool:
        return self.error is not None and self.error.get("kind") == "infra"

    @property
    def error_kind(self) -> str | None:
        kind = self.error.get("kind") if self.error else None
        return str(kind) if kind else None

    @property
    def key(self) -> tuple[str, str, int]:
        return (self.task_id, self.model, self.trial)

    @property
    def final_text(self) -> str | None:
        text = self.extra.get("final_text")
        return text if isinstance(text, str) else None

    def to_json(self) -> dict[str, Any]:
        out = {
            "task_id": self.task_id,
            "model": self.model,
            "provider": self.provider,
            "trial": self.trial,
            "pass": self.passed,
            "solve": self.solve,
            "error": self.error,
            "verdicts": self.verdicts,
            "tool_calls": self.tool_calls,
            "turns": self.turns,
            "tokens": self.tokens,
            "cost_usd": self.cost_usd,
            "latency_s": self.latency_s,
            "safety_violation": self.safety_violation,
            "transcript": self.transcript,
        }
        figures = (self.repeated_calls, self.tool_errors, self.recovered,
                   self.time_to_first_tool_s)
        if any(f is not None for f in figures):  # lines from older runs write back unchanged
            out["repeated_calls"], out["tool_errors"] = figures[0], figures[1]
            out["recovered"], out["time_to_first_tool_s"] = figures[2], figures[3]
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, item: Any) -> ResultLine:
        """A checked line; RecordError says which key is wrong and how."""
        if not isinstance(item, dict):
            raise RecordError(f"a results line must be a JSON object (got {type(item).__name__})")
        for key in ("task_id", "model", "trial"):
            if key not in item:
                raise RecordError(f"a results line needs task_id, model and trial (missing {key})")
        extra: dict[str, Any] = {}  # what a line carries past the pinned keys
        for key, value in item.items():
            checked = _EXACT_TYPES.get(key)
            if checked is None:
                if key not in _PINNED_KEYS:
                    extra[key] = value
                continue
            kind = value.__class__
            if kind not in checked[0]:  # JSON gives exact types; bool is no int
                raise RecordError(f"{key} must be {checked[1]} (got {shown(value)})")
            if kind is int and not -MAX_EXACT <= value <= MAX_EXACT:
                raise RecordError(f"{key} must be {checked[1]} (got {too_large(value)})")
        for key in ("trial", "repeated_calls", "tool_errors"):
            value = item.get(key)
            if isinstance(value, int) and value < 0:
                raise RecordError(f"{key} must be an integer >= 0 (got {shown(value)})")
        for name, inner in (("verdicts", "details"), ("tool_calls", "arguments")):
            for i, entry in enumerate(item.get(name) or []):
                if not isinstance(entry, dict):
                    raise RecordError(f"{name}[{i}] must be an object")
                if not isinstance(entry.get(inner) or {}, dict):
                    raise RecordError(
                        f"{name}[{i}].{inner} must be an object (got {shown(entry[inner])})"
                    )
        for key, value in (item.get("tokens") or {}).items():
            if value is not None and (isinstance(value, bool) or not isinstance(value, NUMBER)):
                raise RecordError(f"tokens.{key} must be a number (got {shown(value)})")
            if too_large(value):
                raise RecordError(f"tokens.{key} must be a number (got {too_large(value)})")
        transcript = item.get("transcript")
        return cls(
            task_id=item["task_id"],
            model=item["model"],
            trial=item["trial"],
            passed=item.get("pass"),
            solve=item.get("solve"),
            provider=item.get("provider"),
            error=item.get("error"),
            verdicts=list(item.get("verdicts") or []),
            tool_calls=list(item.get("tool_calls") or []),
            turns=item.get("turns"),
            tokens=item.get("tokens"),
            cost_usd=item.get("cost_usd"),
            latency_s=item.get("latency_s"),
            safety_violation=bool(item.get("safety_violation")),
            transcript=transcript if isinstance(transcript, str) and transcript else None,
            repeated_calls=item.get("repeated_calls"),
            tool_errors=item.get("tool_errors"),
            recovered=item.get("recovered"),
            time_to_first_tool_s=item.get("time_to_first_tool_s"),
            extra=extra,
        )
