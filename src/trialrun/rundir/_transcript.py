"""`Transcript`: transcripts/<model-slug>/<task>-<trial>.json, one trial's conversation.

OpenAI-style chat messages plus per-turn metadata, the final text, each tool result, the
verdicts and the error. Read leniently: a transcript is evidence for people and for
regrading, never input to a figure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from trialrun.rundir._checks import RecordError

KEYS = ("task_id", "model", "trial", "messages", "turns", "final_text", "tool_results",
        "verdicts", "error")


@dataclass(slots=True)
class Transcript:
    task_id: str = ""
    model: str = ""
    trial: int = 0
    messages: list[dict[str, Any]] = field(default_factory=list)
    turns: list[dict[str, Any]] = field(default_factory=list)  # per-turn latency, tokens
    final_text: str = ""
    tool_results: list[str] = field(default_factory=list)
    verdicts: list[dict[str, Any]] = field(default_factory=list)
    error: dict[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def user_message(self) -> str:
        """The first user message with text content ('' when there is none)."""
        for message in self.messages:
            if message.get("role") == "user" and isinstance(text := message.get("content"), str):
                return text
        return ""

    def to_json(self) -> dict[str, Any]:
        out = {key: getattr(self, key) for key in KEYS}
        out.update(self.extra)
        return out

    @classmethod
    def from_json(cls, data: Any) -> Transcript:
        if not isinstance(data, dict):
            raise RecordError(f"expected a JSON object (got {type(data).__name__})")

        def listed(key: str) -> list[Any]:
            value = data.get(key)
            return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []

        trial = data.get("trial")
        return cls(
            task_id=str(data.get("task_id") or ""),
            model=str(data.get("model") or ""),
            trial=trial if isinstance(trial, int) and not isinstance(trial, bool) else 0,
            messages=listed("messages"),
            turns=listed("turns"),
            final_text=str(data.get("final_text") or ""),
            tool_results=[str(x) for x in data.get("tool_results") or []]
            if isinstance(data.get("tool_results"), list) else [],
            verdicts=listed("verdicts"),
            error=data.get("error") if isinstance(data.get("error"), dict) else None,
            extra={k: v for k, v in data.items() if k not in KEYS},
        )
